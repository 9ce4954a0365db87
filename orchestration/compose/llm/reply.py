"""A generated reply read into an Answer: sentences as claims, `[k]` markers as citations.

Promises:
- The model cites evidence chunk k as `[k]` (k as the prompt numbered it). In the Answer the
  valid ones are renumbered 1, 2, ... by first use in the text, as every composer numbers them;
  a marker naming no evidence chunk (0, or beyond the evidence) keeps its number, which then
  has no citation, and the citation check reports it (`invalid_citation`).
- One claim per sentence; a marker the sentence splitter left at the start of the next sentence
  ("... per hour. [2] The ...") belongs to the sentence before it. Bullets and numbering are
  dropped; a trailing "Sources:" / "References:" section, or two or more trailing lines that
  each start with a marker ("[1] Title, source"), is a list of sources, not part of the answer.
- A sentence saying the knowledge base does not say is a notice (it needs no citation); any
  other sentence is a fact (or, in a comparison, a relation when `relations.read_relation`
  recovers one), cited or not: an uncited fact is validation's finding, not the parser's.
- `ParsedReply.cited` is False when no sentence carries any marker at all and the reply is not
  a refusal: the composer treats that as an unusable reply ("uncited"), not as an answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.reading.quantities import stated_quantities
from core.text import CITATION_MARKER, strip_markers
from orchestration.kb.chunking import split_sentences, unit_texts
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Citation, Claim

from ..citations import CitationBook
from ..comparison import Side
from .relations import read_relation

_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SOURCES_HEADING = re.compile(r"^\s*(?:#+\s*|\*\*)?(?:sources|references|citations|来源|参考)\s*[:：]?(?:\*\*)?\s*$",
                              re.IGNORECASE)
_SOURCE_LINE = re.compile(r"^\s*\[\d+\]\s*[:\-]?\s*\S")
_LEADING_MARKER = re.compile(r"^(\s*\[\s*\d+(?:\s*[,，、]\s*\d+)*\s*\])+")
_NUMBER = re.compile(r"\d+")
REFUSALS = (re.compile(r"knowledge base does not (?:say|contain|hold|answer|state)|"
                       r"(?:evidence|chunks?|sources?) (?:does|do) not (?:say|answer|contain|state)", re.IGNORECASE),
            re.compile(r"知识库(?:中)?(?:没有|未)(?:说明|提及|相关|包含)"))
_WORD = re.compile(r"\w+")


@dataclass
class ParsedReply:
    """The Answer parts read from a reply."""

    text: str
    claims: list[Claim] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    cited: bool = False
    refused: bool = False
    notes: list[str] = field(default_factory=list)


def parse_reply(content: str, evidence: Sequence[ScoredChunk], sides: Sequence[Side] = (),
                snippet_chars: int = 240) -> ParsedReply:
    """Claims and citations of a reply (see the module docstring).

    Args:
        content: the reply's message content.
        evidence: the chunks as the prompt numbered them ([1] is evidence[0]).
        sides: the comparison's sides (empty: not a comparison); relation claims need two.
        snippet_chars: the longest citation snippet.
    """
    paragraphs = _paragraphs(content)
    numbers = _renumbering(paragraphs, len(evidence))
    sections: list[list[Claim]] = []
    any_marker = refused = False
    for sentences in paragraphs:
        section: list[Claim] = []
        for sentence in sentences:
            written = _renumber(sentence, numbers)
            cites = [int(n) for m in CITATION_MARKER.finditer(written) for n in _NUMBER.findall(m.group())]
            any_marker = any_marker or bool(cites)
            section.append(_claim(written, list(dict.fromkeys(cites)), sides))
            refused = refused or section[-1].kind == "notice"
        if section:
            sections.append(section)
    claims = [c for section in sections for c in section]
    book = CitationBook(snippet_chars)
    for index, n in sorted(numbers.items(), key=lambda item: item[1]):
        chunk = evidence[index - 1]
        first = next((c for c in claims if n in c.citations), None)
        book.cite(chunk, _closest_sentence(chunk, strip_markers(first.text)) if first else None)
    text = "\n\n".join(" ".join(c.text for c in section) for section in sections)
    bad = _unknown(paragraphs, len(evidence))
    notes = [f"the reply cites {', '.join(f'[{k}]' for k in bad)}, which no evidence chunk has"] if bad else []
    return ParsedReply(text=text, claims=claims, citations=book.citations(), cited=any_marker, refused=refused,
                       notes=notes)


def _paragraphs(content: str) -> list[list[str]]:
    """The reply's paragraphs as lists of sentences, a trailing sources list cut off."""
    lines: list[str] = []
    for line in content.replace("\r\n", "\n").split("\n"):
        if _SOURCES_HEADING.match(line):
            break
        lines.append(_BULLET.sub("", line).strip())
    while lines and not lines[-1]:
        lines.pop()
    tail = 0
    while tail < len(lines) and _SOURCE_LINE.match(lines[len(lines) - 1 - tail]):
        tail += 1
    if tail >= 2:  # a list of "[1] Title, source" lines at the end (one such line may be a claim)
        del lines[len(lines) - tail:]
    out: list[list[str]] = []
    for line in lines:
        if not line:
            continue
        pieces: list[str] = []
        for sentence in split_sentences(line):
            lead = _LEADING_MARKER.match(sentence)
            if lead and pieces:  # "... per hour. [2] The next ..." -> the marker closes the sentence before
                pieces[-1] = f"{pieces[-1]} {lead.group().strip()}"
                sentence = sentence[lead.end():].strip()
            if sentence:
                pieces.append(sentence)
        if pieces:
            out.append(pieces)
    return out


def _indexes(paragraphs: list[list[str]]) -> list[int]:
    """Every chunk index the reply cites, in order of appearance."""
    return [int(n) for sentences in paragraphs for s in sentences for m in CITATION_MARKER.finditer(s)
            for n in _NUMBER.findall(m.group())]


def _renumbering(paragraphs: list[list[str]], size: int) -> dict[int, int]:
    """Evidence index -> citation number, by first use; only indexes 1..size."""
    numbers: dict[int, int] = {}
    for k in _indexes(paragraphs):
        if 1 <= k <= size and k not in numbers:
            numbers[k] = len(numbers) + 1
    return numbers


def _unknown(paragraphs: list[list[str]], size: int) -> list[int]:
    return list(dict.fromkeys(k for k in _indexes(paragraphs) if not 1 <= k <= size))


def _renumber(sentence: str, numbers: dict[int, int]) -> str:
    """The sentence with its markers' evidence indexes replaced by citation numbers."""
    def marker(match: re.Match) -> str:
        return _NUMBER.sub(lambda n: str(numbers.get(int(n.group()), int(n.group()))), match.group())
    return CITATION_MARKER.sub(marker, sentence)


def _claim(text: str, cites: list[int], sides: Sequence[Side]) -> Claim:
    """One sentence as a claim: a notice (a refusal), a relation, or a fact."""
    plain = strip_markers(text)
    if not cites and any(p.search(plain) for p in REFUSALS):
        return Claim(text=text, kind="notice")
    numbers = [q.text for q in stated_quantities(plain)]
    named = [s.name for s in sides if s.mentioned_in(plain)]
    relation = read_relation(text, sides, cites[0] if cites else None) if len(sides) >= 2 and cites else None
    if relation is not None:
        return Claim(text=text, citations=cites, numbers=numbers, kind="relation", values=relation.values,
                     relation=relation.relation)
    return Claim(text=text, citations=cites, numbers=numbers, entity=named[0] if len(named) == 1 else None)


def _closest_sentence(chunk: ScoredChunk, claim: str) -> str:
    """The unit of a chunk sharing the most words with the claim (the citation's snippet)."""
    words = {w.lower() for w in _WORD.findall(claim)}
    best, best_score = chunk.text, -1.0
    for sentence in unit_texts(chunk.text, chunk.units):
        found = {w.lower() for w in _WORD.findall(sentence)}
        score = len(words & found) / (len(found) + 1)
        if score > best_score:
            best, best_score = sentence, score
    return best
