"""`sightline bench peers`: Sightline's hybrid retrieval side by side with txtai and Haystack on real sets.

Every system searches the same chunks (the eval knowledge base's build under var/eval/kb/<set>:
its chunk texts, title included, as Sightline's own arms index them) with the same stored
passage vectors (read back from that build's exact FAISS index), and embeds each query itself
with Sightline's embedder (int8 ONNX all-MiniLM-L6-v2, one thread): the query embedding is
inside every system's time. One process; the systems are interleaved query by query, the
first to run rotating, so load drift hits them alike.

Systems:
    sightline  `Retriever.run` hybrid (BM25 + exact dense, weighted RRF with the KB's weights),
               no credibility, its query-vector cache emptied before each query
    txtai      `Embeddings(hybrid=True)`: its BM25 (normalised) + a FAISS `IDMap,Flat` index over
               the stored vectors, convex fusion, its defaults otherwise
    haystack   a 2.x `Pipeline`: InMemoryBM25Retriever (BM25L, its default) and
               InMemoryEmbeddingRetriever over an InMemoryDocumentStore, DocumentJoiner with
               reciprocal rank fusion; the query embedded by a component wrapping the same embedder

The peers are the optional extra `.[peers]` (`make setup-peers`); a peer that is not installed
is skipped with a message. Quality is scored with `sightline eval`'s scorers; the quality
differences against the best peer carry paired bootstrap intervals over queries.

Usage:
    sightline bench peers --set scifact
    sightline bench peers --set multihop --limit 300 --json

Modules:
    systems  one adapter per system behind `System` (name, version, search(i) -> chunk rows)
    compare  the interleaved race, the paired bootstrap, the report (JSON and Markdown)
    cli      options, loading the set and its knowledge base, the run (`main`)
"""

from benchmarks.peers.cli import main

__all__ = ["main"]
