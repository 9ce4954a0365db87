"""Orchestration agent: knowledge bases, retrievers, router, fusion and answer composers."""
