"""Split words in a PDF text layer: how often an extractor cuts a word in two ("k ept", "tick et").

The measure, on one text:
- words: runs of ASCII letters (the `words` column).
- a pair: two neighbouring tokens between whitespace, the first ending in letters ("(tick",
  not "4th"), the second starting with letters ("et).", not "ab1"); `a` and `b` are those letters.
- known word: a whole-word entry of the MiniLM tokenizer's vocabulary that the project ships
  (`orchestration/retrieval/models/minilm-tokenizer.json`: 21,745 entries of ASCII letters),
  or a run of letters seen at least twice in the same text ("withholding"); lower case.
- a word on its own: one of `SHORT_WORDS` (a, an, in, of, ...), or a known word of 3+ letters;
  "k", "et", "ept" are not.
- a split word: a pair whose join `ab` is a known word, where `a` or `b` is not a word on its
  own ("k ept", "tick et", "Assuranc e"), except `b` capitalised after a word that is not in
  capitals ("Schedule D", "a J") and a single letter before a word on its own ("word w in",
  "column M on": variables and labels, not cut words).
- rate: split words per 1,000 words.
It misses a word cut into two words on their own ("be fore") and one whose fragment the text
repeats often enough to be known ("Ev ents" twice); both lower the count of the worst text
layers, never raise it. A second count, glued words, catches the opposite fault (two words
run together across a space or a column, "partminimum"): a run of 6+ letters,
not known, that is the join of two known words of 3+ letters each; legitimate rare words
("stepchild", "geothermal") give every extractor the same floor.

Each extractor's page text gets the ingest's own clean-up (a word hyphenated over a line
break joined) before it is measured. Table in docs/PDF.md.

    python -m evaluation.pdf_split_words FILE.pdf [FILE.pdf ...] [--extractors NAME ...] [--show N]
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from orchestration.kb.formats.pdf import parse_pdf

TOKENIZER = Path(__file__).resolve().parents[1] / "orchestration" / "retrieval" / "models" / "minilm-tokenizer.json"
SHORT_WORDS = frozenset(
    "a i am an as at be by do go he hi if in is it me my no of oh ok on or so to up us we".split())
_TOKEN = re.compile(r"\S+")
_OPENING = re.compile(r"^[^A-Za-z0-9]*([A-Za-z]+)$")   # "(tick": letters at the end, no digit before
_CLOSING = re.compile(r"^([A-Za-z]+)[^A-Za-z0-9]*$")   # "et).": letters at the start, no digit after
_WORD = re.compile(r"[A-Za-z]+")
_HYPHENATED = re.compile(r"(?<=[a-z])-\n(?=[a-z])")

Extractor = Callable[[bytes], list[str]]


@functools.cache
def vocabulary() -> frozenset[str]:
    """The whole ASCII-letter words of the MiniLM tokenizer's vocabulary, lower case."""
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(word for word in vocab if word.isascii() and word.isalpha())


def _known(text: str, vocab: frozenset[str] | None) -> frozenset[str]:
    """The known words for a text: the vocabulary and the text's letter runs seen at least twice."""
    seen = Counter(word.lower() for word in _WORD.findall(text))
    return (vocabulary() if vocab is None else vocab) | {word for word, count in seen.items() if count >= 2}


def _is_word(token: str, known: frozenset[str]) -> bool:
    """Whether a token is a word on its own: a known word of 3+ letters, or a short word."""
    low = token.lower()
    return low in SHORT_WORDS or (len(low) >= 3 and low in known)


def _is_split(a: str, b: str, known: frozenset[str]) -> bool:
    """Whether neighbouring tokens `a b` are one word cut in two (the rules of the module docstring)."""
    if (a + b).lower() not in known:
        return False
    if b[0].isupper() and not a.isupper():
        return False  # "Schedule D", "a J": a word, then a label or a name
    a_word, b_word = _is_word(a, known), _is_word(b, known)
    if len(a) == 1 and b_word:
        return False  # "word w in", "column M on": a variable or a label, then a word
    return not (a_word and b_word)


def split_words(text: str, vocab: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """The split words of a text, as (first part, second part) pairs in text order.

    Promises: a pair is two whitespace-separated neighbouring tokens whose join is a known
    word (the vocabulary, or a word seen whole at least twice in `text`) while at least one
    part is not a word on its own, under the case and single-letter rules of the module
    docstring; the same text always gives the same pairs.
    """
    known = _known(text, vocab)
    tokens = _TOKEN.findall(text)
    pairs: list[tuple[str, str]] = []
    for first, second in zip(tokens, tokens[1:], strict=False):
        head, tail = _OPENING.match(first), _CLOSING.match(second)
        if head is not None and tail is not None and _is_split(head.group(1), tail.group(1), known):
            pairs.append((head.group(1), tail.group(1)))
    return pairs


def glued_words(text: str, vocab: frozenset[str] | None = None) -> list[str]:
    """Tokens that are two words run together ("theworksheet"), in text order.

    Promises: a run of 6+ letters that is not a known word (as in `split_words`) but is the
    join of two known words of 3+ letters each.
    """
    known = _known(text, vocab)
    return [token for token in _WORD.findall(text) if len(token) >= 6 and token.lower() not in known
            and any(token[:cut].lower() in known and token[cut:].lower() in known
                    for cut in range(3, len(token) - 2))]


def word_count(text: str) -> int:
    """The number of letter tokens in a text."""
    return len(_WORD.findall(text))


# --- extractors: bytes of a PDF to its pages' text -----------------------------------------------

def _pypdf(data: bytes, **options: str) -> list[str]:
    from pypdf import PdfReader
    return [page.extract_text(**options) or "" for page in PdfReader(io.BytesIO(data)).pages]  # type: ignore[arg-type]


def _pdfminer(data: bytes) -> list[str]:
    from pdfminer.high_level import extract_text
    from pdfminer.layout import LAParams
    # all_texts: lay out the text inside figures too (else a diagram's labels run together)
    return extract_text(io.BytesIO(data), laparams=LAParams(all_texts=True)).split("\f")[:-1]


def _pypdfium2(data: bytes) -> list[str]:
    import pypdfium2 as pdfium
    pdf = pdfium.PdfDocument(data)
    try:  # U+FFFE: PDFium's mark of a word it joined over a hyphenated line break
        return [page.get_textpage().get_text_range().replace("\r\n", "\n").replace("\ufffe", "")
                for page in pdf]
    finally:
        pdf.close()


def _ingest(data: bytes) -> list[str]:
    return [part.text for part in parse_pdf(data)[1]]


EXTRACTORS: dict[str, Extractor] = {
    "pypdf": _pypdf,
    "pypdf layout": functools.partial(_pypdf, extraction_mode="layout"),
    "pdfminer.six": _pdfminer,
    "pypdfium2": _pypdfium2,
    "ingest (formats/pdf.py)": _ingest,
}


@dataclass
class Row:
    """One extractor on one PDF: its word count, split and glued words, and seconds taken."""

    words: int
    pairs: list[tuple[str, str]]
    glued: int
    seconds: float

    @property
    def rate(self) -> float:
        """Split words per 1,000 words."""
        return 1000 * len(self.pairs) / max(self.words, 1)


def measure(data: bytes, extract: Extractor) -> Row:
    """The split-word row of one extractor on one PDF (its pages joined by blank lines)."""
    start = time.perf_counter()
    pages = extract(data)
    seconds = time.perf_counter() - start
    text = "\n\n".join(_HYPHENATED.sub("", page) for page in pages)
    return Row(word_count(text), split_words(text), len(glued_words(text)), seconds)


def table(paths: Iterable[Path], names: Iterable[str], show: int = 0) -> list[str]:
    """Markdown table lines: one row per PDF per extractor, then up to `show` split pairs of each.

    An extractor whose library is not installed gets a row saying so.
    """
    lines = ["| PDF | extractor | words | split words | per 1,000 words | glued words | seconds |",
             "|---|---|---:|---:|---:|---:|---:|"]
    examples: list[str] = []
    for path in paths:
        data = path.read_bytes()
        for name in names:
            try:
                row = measure(data, EXTRACTORS[name])
            except ImportError as exc:
                lines.append(f"| {path.name} | {name} | not installed ({exc.name}) | | | | |")
                continue
            lines.append(f"| {path.name} | {name} | {row.words} | {len(row.pairs)} | {row.rate:.2f} | "
                         f"{row.glued} | {row.seconds:.2f} |")
            if show and row.pairs:
                examples.append(f"{path.name} / {name}: " + ", ".join(f"{a} {b}" for a, b in row.pairs[:show]))
    return lines + ([""] + examples if examples else [])


def main(argv: list[str] | None = None) -> int:
    """Print the split-word table for the PDFs named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="+", type=Path)
    parser.add_argument("--extractors", nargs="+", default=list(EXTRACTORS), choices=list(EXTRACTORS))
    parser.add_argument("--show", type=int, default=0, help="print up to N split pairs per row")
    args = parser.parse_args(argv)
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    print("\n".join(table(args.pdfs, args.extractors, args.show)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
