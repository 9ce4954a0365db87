"""Validation agent: one module per check, the verdict and retry hints."""
