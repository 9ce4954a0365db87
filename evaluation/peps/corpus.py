"""The PEP files as JSONL documents: header fields to metadata, reStructuredText to plain text.

A PEP file (`pep-NNNN.rst`) starts with an RFC 822-style header (`Key: value`, a value
continued on indented lines) and a blank line; the rest is reStructuredText. One document per
PEP:

  id        `pep-NNNN` (a citation's chunk id `pep-NNNN#k` names its PEP)
  title     `PEP N – <Title>`, as peps.python.org heads it (users name PEPs by number)
  text      the body after a light cleanup (`clean_rst`)
  metadata  source "peps", pep (int), status (lower case: final, rejected, superseded,
            withdrawn, draft, active, accepted, deferred, provisional), doc_type
            (standards_track, informational, process), published_at (ISO date of `Created`),
            author (names without e-mail addresses), python_version, superseded_by and
            replaces (lists of PEP numbers) when the header has them.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

# --- header ---------------------------------------------------------------------------------

_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)$")
_EMAIL = re.compile(r"\s*(<[^>]*>|\([^)]*@[^)]*\))")
_PEP_NUMBER = re.compile(r"\d+")


def split_pep(text: str) -> tuple[dict[str, str], str]:
    """(header fields, body) of a PEP file; a field continued on indented lines is joined with spaces."""
    lines = text.replace("\r\n", "\n").split("\n")
    fields: dict[str, str] = {}
    key = None
    end = len(lines)
    for i, line in enumerate(lines):
        if not line.strip():
            end = i
            break
        match = _FIELD.match(line)
        if match and not line[0].isspace():
            key = match.group(1)
            fields[key] = match.group(2).strip()
        elif key is not None and line[0].isspace():
            fields[key] = f"{fields[key]} {line.strip()}".strip()
        else:
            end = i  # not a header line: the body starts here
            break
    return fields, "\n".join(lines[end:]).strip("\n")


def created_date(value: str) -> str | None:
    """`05-Jul-2001` -> `2001-07-05`; None when the value is not such a date."""
    try:
        return dt.datetime.strptime(value.strip(), "%d-%b-%Y").date().isoformat()
    except ValueError:
        return None


def authors(value: str) -> str:
    """`A <a@x.org>, B <b at y.com>` -> `A, B`."""
    names = [_EMAIL.sub("", part).strip() for part in value.split(",")]
    names = [re.sub(r"\s+\S+ at \S+$", "", n).strip() for n in names]
    return ", ".join(n for n in names if n)


def pep_numbers(value: str) -> list[int]:
    return [int(n) for n in _PEP_NUMBER.findall(value)]


def pep_metadata(fields: dict[str, str]) -> dict[str, Any]:
    """The document metadata of a PEP's header fields."""
    meta: dict[str, Any] = {"source": "peps", "pep": int(fields["PEP"])}
    if fields.get("Status"):
        meta["status"] = fields["Status"].strip().lower().replace(" ", "_")
    if fields.get("Type"):
        meta["doc_type"] = fields["Type"].strip().lower().replace(" ", "_")
    created = created_date(fields.get("Created", ""))
    if created:
        meta["published_at"] = created
    if fields.get("Author"):
        meta["author"] = authors(fields["Author"])
    if fields.get("Python-Version"):
        meta["python_version"] = fields["Python-Version"].strip()
    for header, key in (("Superseded-By", "superseded_by"), ("Replaces", "replaces")):
        numbers = pep_numbers(fields.get(header, ""))
        if numbers:
            meta[key] = numbers
    return meta


# --- reStructuredText -----------------------------------------------------------------------

_ADORNMENT = re.compile(r"""^([=\-~^"'`#*+])\1{2,}$""")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::(.*)$")
_EXPLICIT = re.compile(r"^(\s*)\.\.(\s|$)")
_FOOTNOTE = re.compile(r"^(\s*)\.\.\s+\[([^\]]+)\]\s*(.*)$")
_LIST_ITEM = re.compile(r"^\s*(?:[*+-]|#\.|\d+[.)]|\(\d+\)|[a-zA-Z][.)])\s+")
_OPTION = re.compile(r"^\s+:[\w -]+:(\s|$)")
_GRID_BORDER = re.compile(r"^\s*\+[-=+:]+\+\s*$")
_GRID_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_SIMPLE_BORDER = re.compile(r"^\s*[=-]+(\s+[=-]+)+\s*$")
# Directives whose body is code, kept as a literal block.
LITERAL_DIRECTIVES = {"code-block", "code", "sourcecode", "math", "highlight", "parsed-literal"}
# Directives whose argument is a caption worth keeping as text.
CAPTION_DIRECTIVES = {"list-table", "table", "csv-table", "topic", "admonition", "rubric", "sidebar", "figure"}
# Directives dropped with their body.
DROPPED_DIRECTIVES = {"include", "image", "raw", "contents", "sectnum", "header", "footer", "meta"}
DROPPED_SECTIONS = {"copyright"}  # the public-domain notice every PEP ends with

_INLINE_LITERAL = re.compile(r"``(.+?)``", re.S)
_PEP_ROLE_TITLED = re.compile(r":(pep|rfc):`([^`<]*?)\s*<(\d+)(?:#[^>]*)?>`", re.S | re.I)
_PEP_ROLE = re.compile(r":(pep|rfc):`(\d+)(?:#[^`]*)?`", re.I)
_ROLE_TITLED = re.compile(r":[\w:.+-]+:`([^`<]*?)\s*<[^`>]*>`", re.S)
_ROLE = re.compile(r":[\w:.+-]+:`[~!]?([^`]*)`", re.S)
_LINK_TITLED = re.compile(r"`([^`<]+?)\s*<[^`>]*>`__?", re.S)
_LINK = re.compile(r"`([^`]+)`__?(?![\w])", re.S)
_FOOTNOTE_REF = re.compile(r"\s?\[(?:#[\w-]*|\d+|[\w.-]+)\]_")
_STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*", re.S)
_EMPHASIS = re.compile(r"(?<![\w*\\])\*(\S(?:[^*]*?\S)?)\*(?![\w*])", re.S)
_INTERPRETED = re.compile(r"(?<![\w`])`([^`]+)`(?![\w`])", re.S)
_ESCAPE = re.compile(r"\\(.)", re.S)


def clean_inline(text: str) -> str:
    """Inline markup to plain text: roles (:pep:`484` -> PEP 484), links, literals, emphasis."""
    literals: list[str] = []

    def hold(match: re.Match[str]) -> str:
        literals.append(match.group(1))
        return f"\x00{len(literals) - 1}\x00"

    text = _INLINE_LITERAL.sub(hold, text)
    text = _PEP_ROLE_TITLED.sub(lambda m: f"{m.group(2)} ({m.group(1).upper()} {m.group(3)})", text)
    text = _PEP_ROLE.sub(lambda m: f"{m.group(1).upper()} {m.group(2)}", text)
    text = _ROLE_TITLED.sub(r"\1", text)
    text = _ROLE.sub(r"\1", text)
    text = _LINK_TITLED.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub("", text)
    text = _STRONG.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _INTERPRETED.sub(r"\1", text)
    text = _ESCAPE.sub(lambda m: "" if m.group(1).isspace() else m.group(1), text)
    return re.sub(r"\x00(\d+)\x00", lambda m: literals[int(m.group(1))], text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _content_indent(line: str) -> int:
    """Where a line's text starts: after a list marker (`* `, `1. `, `#. `) for a list item."""
    match = _LIST_ITEM.match(line)
    return len(match.group(0)) if match else _indent(line)


def _block_end(lines: Sequence[str], start: int, indent: int) -> int:
    """The first line at or after `start` that is not blank and indented at most `indent`."""
    j = start
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > indent):
        j += 1
    return j


def _head_end(lines: Sequence[str], start: int, indent: int) -> int:
    """After a directive line: the end of its option lines (`:name: value`, indented)."""
    j = start
    while j < len(lines) and _OPTION.match(lines[j]) and _indent(lines[j]) > indent:
        j += 1
    return j


def _literal(lines: Sequence[str]) -> list[str]:
    """A literal block, dedented then indented 4 spaces (so `# comment` is never a heading)."""
    body = textwrap.dedent("\n".join(lines)).strip("\n")
    return ["    " + line if line.strip() else "" for line in body.split("\n")] if body else []


class _Writer:
    """Collects output as runs of prose (cleaned inline) and literal lines (kept as they are)."""

    def __init__(self) -> None:
        self.parts: list[tuple[bool, list[str]]] = []

    def add(self, line: str, literal: bool = False) -> None:
        if self.parts and self.parts[-1][0] == literal:
            self.parts[-1][1].append(line)
        else:
            self.parts.append((literal, [line]))

    def text(self) -> str:
        pieces = ["\n".join(lines) if literal else clean_inline("\n".join(lines)) for literal, lines in self.parts]
        text = "\n".join(pieces)
        text = "\n".join(line.rstrip() for line in text.split("\n"))
        return re.sub(r"\n{3,}", "\n\n", text).strip()


def clean_rst(body: str) -> str:
    """A PEP body as plain text a reader (and the chunker) can use.

    Section titles become Markdown headings (`## Abstract`; the chunker records them as the
    chunk's section) and their underlines go; `.. directive::` lines and their options go,
    their bodies stay (code directives' bodies as literal text), comments, link targets and
    substitution definitions go; literal blocks (after `::`) are kept as text, indented; grid
    and simple table borders go, cells stay; inline markup is cleaned (`clean_inline`). The
    Copyright section (the same public-domain notice in every PEP) is dropped.
    """
    lines = body.expandtabs(8).split("\n")
    out = _Writer()
    styles: list[str] = []  # adornment styles in order of first use = heading levels
    skip_level: int | None = None  # inside a dropped section of this level
    literal_after: int | None = None  # the previous paragraph ended with "::" at this indent
    i = 0

    def heading(title: str, style: str) -> None:
        nonlocal skip_level
        if style not in styles:
            styles.append(style)
        level = styles.index(style) + 1
        if skip_level is not None and level <= skip_level:
            skip_level = None
        if title.strip().lower() in DROPPED_SECTIONS:
            skip_level = level
        if skip_level is None:
            out.add("")
            out.add("#" * min(level + 1, 6) + " " + title.strip())
            out.add("")

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = _indent(line)
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        # Section titles: overline + title + underline, or title + underline.
        if _ADORNMENT.match(stripped) and nxt and i + 2 < len(lines) and lines[i + 2].strip() == stripped \
                and not _ADORNMENT.match(nxt):
            heading(nxt, "o" + stripped[0])
            i, literal_after = i + 3, None
            continue
        if stripped and indent == 0 and _ADORNMENT.match(nxt) and not _ADORNMENT.match(stripped) \
                and len(nxt) >= min(len(stripped), 3) and (i == 0 or not lines[i - 1].strip()):
            heading(stripped, nxt[0])
            i, literal_after = i + 2, None
            continue
        if skip_level is not None:
            i += 1
            continue
        if not stripped:
            out.add("")
            i += 1
            continue
        if literal_after is not None:
            if indent > literal_after:  # the literal block announced by "::"
                end = _block_end(lines, i, literal_after)
                for kept in _literal(lines[i:end]):
                    out.add(kept, literal=True)
                out.add("")
                i, literal_after = end, None
                continue
            literal_after = None
        directive = _DIRECTIVE.match(line)
        if directive:
            name = directive.group(2).lower()
            argument = directive.group(3).strip()
            head = _head_end(lines, i + 1, indent)
            end = _block_end(lines, head, indent)
            if name in CAPTION_DIRECTIVES and argument:
                out.add("")
                out.add(argument)
                out.add("")
            if name in LITERAL_DIRECTIVES:
                for kept in _literal(lines[head:end]):
                    out.add(kept, literal=True)
                out.add("")
                i = end
            elif name in DROPPED_DIRECTIVES or name.startswith("canonical"):
                i = end
            else:  # admonitions, tables, ...: the body is more reST, read on from it
                content = textwrap.dedent("\n".join(lines[head:end])).split("\n")
                if argument and name not in CAPTION_DIRECTIVES:  # `.. note:: text`: text is content
                    content = [argument, *content]
                lines[i:end] = content
            continue
        footnote = _FOOTNOTE.match(line)
        if footnote:
            out.add(f"[{footnote.group(2)}] {footnote.group(3)}".rstrip())
            i += 1
            continue
        if _EXPLICIT.match(line):  # comment, link target, substitution definition
            i = _block_end(lines, i + 1, indent)
            continue
        if _ADORNMENT.match(stripped) or _GRID_BORDER.match(line) or _SIMPLE_BORDER.match(line):
            i += 1  # a transition or a table border
            continue
        row = _GRID_ROW.match(line)
        if row and "|" in row.group(1):
            cells = [c.strip() for c in row.group(1).split("|")]
            line = " " * indent + " | ".join(c for c in cells if c)
        if line.rstrip().endswith("::"):
            literal_after = _content_indent(line)
            text = line.rstrip()[:-2].rstrip()
            line = text + ":" if text and not line.rstrip().endswith(" ::") else text
            if not line.strip():
                i += 1
                continue
        out.add(line)
        i += 1
    return out.text()


# --- documents ------------------------------------------------------------------------------

def pep_path(folder: Path, number: int) -> Path:
    return folder / f"pep-{number:04d}.rst"


def pep_document(path: Path) -> dict[str, Any]:
    """One PEP file as a JSONL document record {id, title, text, metadata}."""
    fields, body = split_pep(path.read_text(encoding="utf-8"))
    meta = pep_metadata(fields)
    title = re.sub(r"\s+", " ", clean_inline(fields.get("Title", ""))).strip()
    return {"id": f"pep-{meta['pep']:04d}", "title": f"PEP {meta['pep']} – {title}", "text": clean_rst(body),
            "metadata": meta}


def write_corpus(folder: Path, numbers: Iterable[int], path: Path) -> Path:
    """The given PEPs of `folder` as a JSONL corpus at `path`; rewritten only when it changed."""
    records = [pep_document(pep_path(folder, n)) for n in sorted(numbers)]
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path


def cited_pep(chunk_id: str) -> int | None:
    """`pep-0008#3` -> 8; None for a chunk id of another corpus."""
    match = re.match(r"pep-(\d+)(?:#|$)", chunk_id)
    return int(match.group(1)) if match else None
