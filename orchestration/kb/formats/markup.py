"""Clean text: the one form every loader writes a document in, and the composer reads.

The rule, written once here: the readers of each format write it, and the chunker
(`orchestration/kb/chunking.py`) reads it once into typed answer units (`orchestration/kb/units.py`):

- prose: paragraphs separated by a blank line, inline markup gone (a link is its text, an image
  is nothing, emphasis and inline-code marks are dropped);
- headings: Markdown `#` lines (the chunker records them as the chunk's section and path);
- list items: one `- item` line each, never glued to the next;
- fields (a documented name's description: a Sphinx `py:data`, `confval` ...): the label on one
  line, then `: description` (the chunker reads the two as one `field` unit);
- version notes: a paragraph "Changed in version 1.0: ..." (`VERSION_NOTE`; the chunker types it);
- code: fenced blocks (```lang ... ```), kept verbatim; a chunk holding one is flagged
  `has_code`, and the composer quotes one only when the question asks for configuration;
- tables: one `| cell | cell |` line a row, kept for search, never quoted as a sentence.

`CleanText` builds that form (the Markdown, reST, HTML and PDF readers write through it; Markdown
is read by `markdown.clean_markdown` from markdown-it-py's tokens). `clean_inline` and
`table_cells` read Markdown inline markup in a table row of clean text (the composer's table units).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

# --- the lines that are layout, not prose (the composer never quotes them) --------------------
FENCE = re.compile(r"^\s*(```|~~~)")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$|^\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$")
_HTML_TAGS = "iframe|div|span|img|script|style|table|tr|td|th|br|p|a|video|source|figure"
HTML_ELEMENT = re.compile(rf"<\s*/?\s*(?:{_HTML_TAGS})\b[^>]*>", re.I)
HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
ITEM_MARKER = "- "  # a list item's line starts with it
ITEM_LINE = re.compile(r"^\s*- (?=\S)")
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
FIELD_MARKER = ": "  # the line after a field's label starts with it
FIELD_DESCRIPTION_LINE = re.compile(r"^: (?=\S)")
# what follows a documented name in its label: "(type int, default 35)", "(x, y)", ": str = None"
_LABEL_DETAILS = re.compile(r"\s*(?:\(|=|:(?=\s|$)).*$")
# The kinds of Sphinx object description (`.. py:data::`, `<dl class="py data">`): each documents one
# name (a setting, a function, an option) and is read as a field.
OBJECT_KINDS = frozenset({
    "data", "class", "function", "exception", "method", "classmethod", "staticmethod", "attribute", "property",
    "decorator", "decoratormethod", "confval", "envvar", "option", "cmdoption", "describe", "object",
    "setting", "member", "macro", "type", "var", "enum", "enumerator", "struct", "union", "concept",
    "directive", "role", "event"})
# "Changed in version 1.0", "New in version 2.3", "Deprecated since version 3.2" (Sphinx's wording,
# in any format: reST directives, rendered HTML, Markdown changelogs)
VERSION_NOTE = re.compile(r"^(?P<label>(?:New|Added|Changed|Deprecated|Removed) (?:in|since) version"
                          r" v?\d+(?:\.\w+)*)(?=$|[\s:.,;(])")


def field_name(label: str) -> str:
    """The documented name in a field's label: "retention_days (type int, default 35)" ->
    "retention_days", "CACHE_DIR : str = None" -> "CACHE_DIR", "class Bar (x, y)" -> "Bar",
    "uint8_t bits_per_digit" -> "bits_per_digit", "--keep-daily n" -> "--keep-daily" (an
    option's flag, not its argument). The readers name a
    field's version notes and defaults with it, the chunker its unit: one name in both places."""
    words = _LABEL_DETAILS.sub("", label).split()
    if not words:
        return label.strip()
    return next((w for w in words if w.startswith("-")), words[-1])


def is_markup(line: str) -> bool:
    """True for a line that is layout, not prose: a table row, an HTML element, a Markdown
    heading or an image (code fences are tracked by the caller: see `FENCE`)."""
    return bool(TABLE_ROW.match(line) or HTML_ELEMENT.search(line) or HEADING_LINE.match(line)
                or IMAGE.search(line))


def has_code(text: str) -> bool:
    """True when the text holds a fenced code block."""
    return any(FENCE.match(line) for line in text.splitlines())


# --- writing clean text ---------------------------------------------------------------------------

def one_line(text: str) -> str:
    """The text with every run of white space (line breaks too) as one space, trimmed."""
    return " ".join(text.split())


def _cell(text: str) -> str:
    return one_line(text).replace("|", "/")


def fenced(code: str, language: str = "") -> str:
    """A code block as a fence; a fence inside the code is lengthened so it cannot close it."""
    body = code.strip("\n")
    ticks = "```"
    while ticks in body:
        ticks += "`"
    return f"{ticks}{language.strip()}\n{body}\n{ticks}"


DEFAULT_LINE = re.compile(r"^default\s*:\s*", re.I)


def owned_default(text: str, name: str) -> str:
    """Inside a documented name's description, "Default: None" -> "CACHE_DIR default: None." (the
    sentence says whose default it is, so a question about one setting finds it); other text as is."""
    if not DEFAULT_LINE.match(text):
        return text
    text = DEFAULT_LINE.sub(f"{name} default: ", text, count=1)
    return text if text.rstrip().endswith((".", "!", "?")) else text.rstrip() + "."


class CleanText:
    """Collects a document as clean text, block by block; `text()` joins them."""

    def __init__(self) -> None:
        self.blocks: list[str] = []

    def heading(self, title: str, level: int = 2) -> None:
        """A section heading (`#` * level); empty titles are dropped."""
        title = one_line(title).lstrip("#").strip()
        if title:
            self.blocks.append("#" * max(1, min(level, 6)) + " " + title)

    def paragraph(self, text: str) -> None:
        """A paragraph of prose on one line; markup-looking lines are never produced from it."""
        text = one_line(text)
        if not text:
            return
        if HEADING_LINE.match(text) or TABLE_ROW.match(text) or FENCE.match(text):
            text = text.lstrip("#|`~ ")  # prose that happens to start like markup stays prose
        if text:
            self.blocks.append(text)

    def item(self, text: str) -> None:
        """A list item: one `- text` line (its own paragraph, so it is never glued to the next)."""
        text = one_line(text)
        if text:
            self.blocks.append(ITEM_MARKER + text)

    def field(self, label: str, description: str) -> None:
        """A documented name's description: `label` ("CACHE_DIR (default 35)") on its own line,
        then `: description`; without a description, the label as a sentence."""
        label, description = one_line(label), one_line(description)
        if label and description:
            self.blocks.append(f"{label}\n{FIELD_MARKER}{description}")
        elif label or description:
            self.paragraph(f"{label}." if label else description)

    def code(self, code: str, language: str = "") -> None:
        """A code block, fenced; blank code is dropped."""
        if code.strip():
            self.blocks.append(fenced(code, language))

    def table(self, rows: Iterable[Sequence[str]]) -> None:
        """A table, one `| a | b |` line a row; empty rows are dropped."""
        lines = []
        for row in rows:
            cells = [_cell(c) for c in row]
            if any(cells):
                lines.append("| " + " | ".join(cells) + " |")
        if lines:
            self.blocks.append("\n".join(lines))

    def text(self) -> str:
        """The document as clean text: blocks separated by blank lines."""
        return "\n\n".join(self.blocks)


# --- Markdown inline markup (table rows the composer reads, `clean_inline`) ----------------------
# an HTML start or end tag (the Markdown reader strips them from an HTML block's text too)
ANY_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
# Liquid / Jinja / Hugo template tags: `{% include x.html %}`, `{{ page.title }}`, `{# note #}`
TEMPLATE_TAG = re.compile(r"\{%-?.*?-?%\}|\{\{-?.*?-?\}\}|\{#.*?#\}", re.S)
# the destination may sit on its own line: "[text](\n  https://...\n)" (CommonMark allows it)
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(\s*(?:[^()\s]|\([^()]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_REF_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^>\s]+)>")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])")


def clean_inline(text: str) -> str:
    """Markdown inline markup to text: images, HTML tags and template tags (`{% include %}`,
    `{{ var }}`) go, a link is its text, emphasis and code marks go (the code's own text is
    kept as written, template syntax in it too)."""
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match.group(2).strip())
        return f"\x00{len(held) - 1}\x00"

    text = _INLINE_CODE.sub(hold, text)
    text = TEMPLATE_TAG.sub("", text)
    text = IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = ANY_TAG.sub("", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return re.sub(r"\x00(\d+)\x00", lambda m: held[int(m.group(1))], text)


def table_cells(line: str) -> list[str]:
    """The cells of a `| a | b |` row, stripped and cleaned of inline markup."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [clean_inline(c.strip()) for c in inner.split("|")]


def is_separator_row(line: str) -> bool:
    """True for a table's `|---|:---:|` separator line."""
    return bool(re.match(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", line)) and "-" in line


# --- a settings reference: the section under a heading that names one thing --------------------
# A paragraph of one "Key: value" line there ("Default: 35", "Type: string", "Environment Variable:
# X"): a detail of the name, written into its field's label, not a sentence.
_DETAIL_LINE = re.compile(r"^(?P<key>[A-Z][A-Za-z]*(?: [A-Za-z]+){0,2})\s*:\s+(?P<value>\S.{0,119})$")
# A version line there ("Introduced in 1.2.0", "Deprecated since 2.0"): written after the field as
# Sphinx writes a version note, so the chunker holds it as the field's note, never as text a figure
# could be read from
_VERSION_LINE = re.compile(r"^(?P<verb>introduced|added|new|available|changed|deprecated|removed)"
                           r"(?: (?:in|since))?(?: version)? v?(?P<version>\d+(?:\.\w+)*)\.?$", re.I)
_VERSION_LABELS = {"changed": "Changed in version", "deprecated": "Deprecated since version",
                   "removed": "Removed in version"}


class NamedSection:
    """The section under a heading that is one documented name in code ("### `virtualenvs.path`",
    `<h3><code>virtualenvs.path</code></h3>`), as Markdown and HTML settings references are written:
    its "Key: value" lines go into the name's label and its first paragraph is the description,
    written as one field as a Sphinx object's is ("virtualenvs.path (type string, default 35):
    Directory where ..."); a version line ("Introduced in 1.2.0") follows the field as its version
    note ("Added in version 1.2.0 (virtualenvs.path)."). A reader opens it at each heading (with
    None for a heading that names nothing) and ends it at any block other than a paragraph."""

    def __init__(self, out: CleanText) -> None:
        self.out = out
        self.name: str | None = None
        self.details: list[str] = []
        self.versions: list[str] = []

    def open(self, name: str | None) -> None:
        """A heading: the section it opens documents `name` (None: nothing)."""
        self.end()
        self.name = name

    def take(self, text: str) -> bool:
        """A paragraph: True when it belonged to the documented name (a detail, a version line, or
        the description, which writes the field), False for the reader to write as prose."""
        if self.name is None:
            return False
        line = one_line(text)
        version = _VERSION_LINE.match(line)
        if version:
            label = _VERSION_LABELS.get(version["verb"].lower(), "Added in version")
            self.versions.append(f"{label} {version['version']} ({self.name}).")
            return True
        detail = _DETAIL_LINE.match(line)
        if detail and (not line.endswith((".", "!", "?")) or DEFAULT_LINE.match(line)):
            self.details.append(f"{detail['key'].lower()} {detail['value'].strip()}")
            return True
        self.out.field(self._label(), line)
        self._written()
        return True

    def end(self) -> None:
        """Another block: a name whose description never came is written with its details alone."""
        if self.name is not None and (self.details or self.versions):
            self.out.field(self._label(), "")
        self._written()

    def _label(self) -> str:
        return f"{self.name} ({', '.join(self.details)})" if self.details else str(self.name)

    def _written(self) -> None:
        for note in self.versions:
            self.out.paragraph(note)
        self.name, self.details, self.versions = None, [], []
