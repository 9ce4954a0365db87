"""Composition root: the agents loop, CLI, HTTP service, metrics and config reload."""
