"""The question's specific words that no knowledge base searched writes anywhere.

"Which zstd compression level does restic's max compression mode use?" asked of a manual that
never writes "zstd" cannot be answered from it, however close its sentences on compression come:
the answer would state something about zstd, and no document does. The same holds for a feature
the documents never name ("workspaces", "OIDC"), a year no paragraph writes ("Who explored Ohio
territory in 1570?") and a word swapped into a question to make it unanswerable ("What did the
insignificant company ..."). Only specific words count: a word general English uses often
("carry", "hold", "win", "talk") is how a user paraphrases, and the documents say it otherwise.

A word is unwritten when its token (`orchestration.retrieval.tokenize`) is not in the keyword
index of any knowledge base the plan searches, nor a related form (`orchestration.focus.present`:
same stem, "Saharan" ~ "Sahara", a listed synonym), nor a misspelling of one ("goovernment").
Only the documents the caller may read count (`KnowledgeBase.keyword_index(groups)`): the reply
must be the one the caller would get if the documents it may not see did not exist. Reading
the whole index instead made the refusal an oracle: "Is <name> on the restructuring list?"
was refused as "no document writes it" for an invented name and otherwise for a name only a
restricted list writes, so an outsider could read the list one guess at a time. The refusal
therefore says what the caller's documents write, never what all documents write. English
questions only: Chinese words have no frequency table here yet.

Measured on the SQuAD dev articles (the choosing split) and reported on the documentation dev set:
docs/EVALUATION.md "Settings chosen from the figures" (the threshold) and "Tried and not kept".
"""

from __future__ import annotations

import bisect
import difflib
import threading
import unicodedata
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.reading.frequency import zipf
from orchestration.focus import Focus, StemIndex, present
from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.bm25_visible import VisibleBM25
from orchestration.retrieval.tokenize import tokenize

# A word rarer than this in general English (Zipf) is specific: "cipher" 3.1, "expires" 3.5,
# "notification" 3.9, "carry" 4.9. Chosen on SQuAD dev (3.0: FR +0.007 / UR +0.046; 3.5: +0.007 /
# +0.060; 4.0: +0.020 / +0.081, in the rules' mode): from 3.5 to 4.0 each refusal gained costs
# almost one false refusal.
SPECIFIC_BELOW = 3.5
# a misspelling: a token this similar (difflib ratio) to an indexed one, with the same first two
# letters and at most two letters more or fewer, is the indexed word misspelt
SLIP_RATIO = 0.85
SLIP_MIN_LETTERS = 4
SLIP_LENGTH = 2
# a number of one or two digits is as common as a common word ("in 1755, 56, 57")
COMMON_DIGITS = 2


@dataclass(frozen=True)
class Vocabulary:
    """The tokens a knowledge base's keyword index holds, also without their accents ("Beauséjour"
    is "Beausejour" as a user types it), with the lookups `writes` needs."""

    tokens: frozenset[str]
    stems: StemIndex
    ordered: tuple[str, ...]

    @classmethod
    def of(cls, tokens: Iterable[str]) -> Vocabulary:
        held = {t for token in tokens for t in (token, _unaccented(token))}
        return cls(frozenset(held), StemIndex(held), tuple(sorted(held)))

    def writes(self, term: str) -> bool:
        """The index holds the term, a related form of it, or the word it misspells."""
        return present(term, self.tokens, self.stems) or self._slip_of(term)

    def _slip_of(self, term: str) -> bool:
        if len(term) < SLIP_MIN_LETTERS or not term.isalpha():
            return False
        start = bisect.bisect_left(self.ordered, term[:2])
        matcher = difflib.SequenceMatcher(None, "", term)  # the term is b, the side difflib caches
        for token in self.ordered[start:]:
            if not token.startswith(term[:2]):
                break
            if abs(len(token) - len(term)) > SLIP_LENGTH:
                continue
            matcher.set_seq1(token)
            if matcher.quick_ratio() >= SLIP_RATIO and matcher.ratio() >= SLIP_RATIO:
                return True
        return False


def _unaccented(token: str) -> str:
    """The token with its Latin letters' accents taken off ("beauséjour" -> "beausejour")."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", token) if not unicodedata.combining(ch))


_VOCABULARIES: weakref.WeakKeyDictionary[BM25Index | VisibleBM25, Vocabulary] = weakref.WeakKeyDictionary()
_BUILDING = threading.Lock()


def vocabulary_of(index: BM25Index | VisibleBM25) -> Vocabulary:
    """The vocabulary of a keyword index, or of the rows of it one caller sees, built once per
    index or view object (its stem lookup too): a rebuilt KB brings a new index object, so the
    vocabulary follows it, and the old one goes with its index (held weakly: a cache must not
    keep a replaced index's memory maps open)."""
    with _BUILDING:
        vocabulary = _VOCABULARIES.get(index)
        if vocabulary is None:
            vocabulary = Vocabulary.of(index.written_tokens())
            vocabulary.stems.starting("")  # builds the lookup now, not on a request
            _VOCABULARIES[index] = vocabulary
        return vocabulary


def specific_words(focus: Focus) -> dict[str, str]:
    """The question's specific words: {token: the word as the question wrote it}, for its names and
    predicate terms, leaving out its time phrase (a dated document says it by its date) and its
    identifiers and options (the answerability check's `unnamed` speaks for those)."""
    if focus.language != "en":
        return {}
    written = focus.spellings()
    left_out = set(focus.dated_terms) | {t for i in (*focus.identifiers, *focus.periods, *focus.options)
                                         for t in tokenize(i)}
    out = {}
    for token in (*focus.names, *focus.predicate):
        word = written.get(token, token)
        if token in left_out or (token.isdigit() and len(token) <= COMMON_DIGITS):
            continue
        if zipf(word) < SPECIFIC_BELOW:
            out[token] = word
    return out


def unwritten_words(specific: Mapping[str, str], vocabularies: Sequence[Vocabulary]) -> list[str]:
    """Of the question's specific words (`specific_words`), those none of `vocabularies` writes,
    as the question wrote them, in its order; [] when there is no vocabulary to read."""
    if not vocabularies:
        return []
    return [word for token, word in specific.items() if not any(v.writes(token) for v in vocabularies)]
