"""Knowledge bases: documents, ingestion, chunking, the on-disk store and its manifest."""
