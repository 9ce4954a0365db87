"""Seeded synthetic corpora for the retrieval benchmark: Zipfian pseudo-word chunks and clustered vectors.

The corpus is generated as term-id arrays directly. Tokenising text in Python runs at roughly
a million tokens a second here, so a million chunks of ~160 tokens would spend minutes in the
tokeniser before any index is built. Text is only rendered for small samples (`chunk_text`), and
the pseudo-words are chosen so that `tokenize(text)` gives back exactly the same terms: none is a
stopword, a code or changed by the stemmer.

How a chunk is drawn:
- Word ranks follow Zipf's law (p(r) ~ 1 / r**s) over the whole language; the top
  `stopword_ranks` ranks play the stopwords, which the tokeniser removes, so they are dropped.
  Short pseudo-words get the frequent ranks, as in real languages.
- Each chunk belongs to a topic; a share of its tokens comes from the topic's own words (bursty
  terms, as in real documents), the rest from the global distribution.
- Lengths are uniform in [min_len, max_len] tokens (after stopword removal).
Queries take 3 to 8 distinct terms of a random chunk. Vectors are unit-length points around one
Gaussian centre per topic; query vectors are noisy copies of a chunk's vector.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

_ONSETS = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
           "br", "tr", "st", "pl", "gr", "ch", "sh", "th", "kr", "dr", "fl", "sk")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "oa")
_CODAS = ("", "", "", "n", "r", "l", "m", "t", "k", "nd", "rt", "x")


@dataclass(frozen=True)
class CorpusSpec:
    """What to generate; every field has a default but the size."""

    n_chunks: int
    vocab_size: int = 200_000
    zipf_s: float = 1.0
    stopword_ranks: int = 100
    min_len: int = 120
    max_len: int = 200
    n_topics: int = 1000
    topic_words: int = 300
    topic_share: float = 0.25
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_chunks <= 0:
            raise ValueError(f"n_chunks must be positive, got {self.n_chunks}")
        if not 0 < self.min_len <= self.max_len:
            raise ValueError(f"need 0 < min_len <= max_len, got {self.min_len}, {self.max_len}")
        if not 0.0 <= self.topic_share < 1.0:
            raise ValueError(f"topic_share must be in [0, 1), got {self.topic_share}")


@dataclass
class Corpus:
    """Chunks as one flat term-id array cut by offsets, plus each chunk's topic."""

    spec: CorpusSpec
    words: list[str]
    term_ids: np.ndarray  # int32, all chunks back to back
    offsets: np.ndarray  # int64, n_chunks + 1
    topics: np.ndarray  # int32, one per chunk

    @property
    def n_chunks(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def n_tokens(self) -> int:
        return int(self.term_ids.size)

    @cached_property
    def vocab(self) -> dict[str, int]:
        """Word to term id (the id is the word's position in `words`)."""
        return {word: i for i, word in enumerate(self.words)}

    def chunk(self, row: int) -> np.ndarray:
        """The term ids of one chunk."""
        return self.term_ids[self.offsets[row]:self.offsets[row + 1]]

    def chunk_arrays(self) -> list[np.ndarray]:
        """One term-id view per chunk, in row order (what `BM25Index.build_from_term_ids` takes)."""
        return np.split(self.term_ids, self.offsets[1:-1])

    def chunk_tokens(self, row: int) -> list[str]:
        """The tokens of one chunk as strings."""
        words = self.words
        return [words[t] for t in self.chunk(row).tolist()]

    def token_lists(self) -> list[list[str]]:
        """Every chunk as a token list (what rank_bm25 takes); strings shared with `words`."""
        table = np.array(self.words, dtype=object)
        return [table[part].tolist() for part in self.chunk_arrays()]

    def chunk_text(self, row: int, sentence_words: tuple[int, int] = (8, 20)) -> str:
        """One chunk rendered as sentences; `tokenize` of it gives `chunk_tokens(row)` back."""
        rng = np.random.default_rng([self.spec.seed, 7, row])
        tokens = self.chunk_tokens(row)
        sentences, start = [], 0
        while start < len(tokens):
            end = start + int(rng.integers(sentence_words[0], sentence_words[1] + 1))
            part = tokens[start:end]
            sentences.append(" ".join([part[0].capitalize(), *part[1:]]) + ".")
            start = end
        return " ".join(sentences)


@lru_cache(maxsize=4)
def pseudo_words(n: int, seed: int = 0) -> list[str]:
    """`n` distinct pronounceable lowercase words, shortest first, stable under `tokenize`.

    Words the tokeniser would alter (stopwords, words the Snowball stemmer changes) are
    rejected, so a rendered text tokenises back to exactly these strings.
    """
    import Stemmer

    from orchestration.retrieval.tokenize import STOPWORDS_EN

    stemmer = Stemmer.Stemmer("english")
    rng = np.random.default_rng([seed, 1])
    syllables = np.array([o + v + c for o in _ONSETS for v in _VOWELS for c in _CODAS])
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        batch = max(2 * (n - len(out)), 1024)
        counts = rng.choice([1, 2, 3, 4], size=batch, p=[0.15, 0.45, 0.3, 0.1])
        parts = rng.integers(0, syllables.size, size=(batch, 4))
        candidates = ["".join(syllables[parts[i, :c]]) for i, c in enumerate(counts.tolist())]
        stems = stemmer.stemWords(candidates)
        for word, stem in zip(candidates, stems, strict=True):
            if word == stem and word not in seen and word not in STOPWORDS_EN and len(word) > 2:
                seen.add(word)
                out.append(word)
                if len(out) == n:
                    break
    return sorted(out, key=len)  # stable: equal lengths keep their random order


def zipf_probabilities(spec: CorpusSpec) -> np.ndarray:
    """Probability of each vocabulary word (rank order), stopword ranks removed."""
    ranks = np.arange(spec.stopword_ranks + 1, spec.stopword_ranks + spec.vocab_size + 1, dtype=np.float64)
    weights = ranks ** -spec.zipf_s
    return weights / weights.sum()


class _AliasSampler:
    """Walker's alias method: O(1) draws from a fixed discrete distribution, vectorised."""

    def __init__(self, probabilities: np.ndarray) -> None:
        n = probabilities.size
        scaled = probabilities * n
        self.prob = np.ones(n, dtype=np.float64)
        self.alias = np.arange(n, dtype=np.int32)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            s, g = small.pop(), large.pop()
            self.prob[s], self.alias[s] = scaled[s], g
            scaled[g] -= 1.0 - scaled[s]
            (small if scaled[g] < 1.0 else large).append(g)

    def draw(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """`size` draws as int32."""
        column = rng.integers(0, self.prob.size, size=size, dtype=np.int32)
        keep = rng.random(size, dtype=np.float32) < self.prob[column]
        return np.where(keep, column, self.alias[column])


def generate_corpus(spec: CorpusSpec, block: int = 50_000) -> Corpus:
    """Draw the corpus described by `spec` (same spec, same corpus)."""
    rng = np.random.default_rng([spec.seed, 2])
    words = list(pseudo_words(spec.vocab_size, seed=spec.seed))
    sampler = _AliasSampler(zipf_probabilities(spec))
    # Topic words: mid- and low-frequency terms (not the head), a fixed set per topic.
    head = min(1000, spec.vocab_size // 10)
    topic_table = rng.integers(head, spec.vocab_size, size=(spec.n_topics, spec.topic_words), dtype=np.int32)
    lengths = rng.integers(spec.min_len, spec.max_len + 1, size=spec.n_chunks)
    offsets = np.zeros(spec.n_chunks + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    topics = rng.integers(0, spec.n_topics, size=spec.n_chunks, dtype=np.int32)
    term_ids = np.empty(int(offsets[-1]), dtype=np.int32)
    for start in range(0, spec.n_chunks, block):
        stop = min(start + block, spec.n_chunks)
        lo, hi = int(offsets[start]), int(offsets[stop])
        n = hi - lo
        ids = sampler.draw(rng, n)
        topical = rng.random(n, dtype=np.float32) < spec.topic_share
        token_topics = np.repeat(topics[start:stop], lengths[start:stop])[topical]
        ids[topical] = topic_table[token_topics, rng.integers(0, spec.topic_words, size=token_topics.size)]
        term_ids[lo:hi] = ids
    return Corpus(spec, words, term_ids, offsets, topics)


def sample_queries(corpus: Corpus, n: int, min_terms: int = 3, max_terms: int = 8,
                   seed: int = 1) -> tuple[list[np.ndarray], np.ndarray]:
    """Queries of `min_terms`..`max_terms` distinct terms, each taken from one random chunk.

    Returns:
        (term-id arrays, the source chunk row of each query).
    """
    rng = np.random.default_rng([corpus.spec.seed, 3, seed])
    rows = rng.choice(corpus.n_chunks, size=n, replace=n > corpus.n_chunks)
    queries = []
    for row in rows.tolist():
        distinct = np.unique(corpus.chunk(row))
        size = min(int(rng.integers(min_terms, max_terms + 1)), distinct.size)
        queries.append(rng.choice(distinct, size=size, replace=False))
    return queries, rows.astype(np.int64)


def clustered_vectors(n: int, dim: int = 384, n_clusters: int = 1000, spread: float = 1.0,
                      labels: np.ndarray | None = None, seed: int = 0,
                      block: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors scattered around `n_clusters` random unit centres.

    A member is normalise(centre + spread * g / sqrt(dim)) with g standard normal, so with
    spread 1 a member sits at cosine ~0.7 from its centre and ~0.5 from its cluster-mates, and
    near 0 from other clusters (all-MiniLM-L6-v2 gives similar figures on related texts).

    Args:
        labels: the cluster of each vector (e.g. the corpus topics); drawn when omitted.

    Returns:
        (float32 vectors of shape (n, dim), the cluster of each vector).
    """
    rng = np.random.default_rng([seed, 4])
    centres = _normalise(rng.standard_normal((n_clusters, dim), dtype=np.float32))
    if labels is None:
        labels = rng.integers(0, n_clusters, size=n, dtype=np.int32)
    labels = np.asarray(labels) % n_clusters
    out = np.empty((n, dim), dtype=np.float32)
    scale = np.float32(spread / np.sqrt(dim))
    for start in range(0, n, block):
        stop = min(start + block, n)
        noise = rng.standard_normal((stop - start, dim), dtype=np.float32)
        noise *= scale
        noise += centres[labels[start:stop]]
        out[start:stop] = _normalise(noise)
    return out, labels


def query_vectors(vectors: np.ndarray, rows: np.ndarray, noise: float = 0.5, seed: int = 0) -> np.ndarray:
    """Unit query vectors near the vectors of `rows` (cosine ~0.9 at noise 0.5)."""
    rng = np.random.default_rng([seed, 5])
    base = vectors[np.asarray(rows)]
    jitter = rng.standard_normal(base.shape, dtype=np.float32) * np.float32(noise / np.sqrt(base.shape[1]))
    return _normalise(base + jitter)


def _normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float32)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
