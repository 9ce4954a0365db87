"""Retrievers (BM25, dense), filters, fusion and the credibility multiplier."""
