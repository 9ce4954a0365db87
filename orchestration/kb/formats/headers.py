"""RFC 822 header blocks (`Key: value` lines, a value continued on indented lines) as metadata.

A PEP starts with one (`PEP`, `Title`, `Author`, `Status`, `Type`, `Created`, `Superseded-By`,
...); so may any `.rst` or `.txt` file. The block is read by the standard library's e-mail
header parser (`email.parser.HeaderParser`: continuation lines, repeated keys), not by docutils'
PEP reader: that reader only takes PEPs (it refuses a header without a numeric `PEP` field) and
rewrites the body as it reads the header (PEP-index links, a references section), while any
header block should give metadata and the body go through the standard reST parser untouched.

Header fields become metadata:

| header | metadata |
|---|---|
| Title | the title (`PEP 8 – Style Guide for Python Code` when there is a `PEP` number) |
| PEP | `pep` (int), `url` (its page on peps.python.org) |
| Status | `status` in the service's words (`PEP_STATUSES`), `source_status` as written |
| Type | `doc_type` (`standards_track`, `informational`, `process`) |
| Created | `published_at` (`07-Feb-2001` reads; an unreadable date is dropped with a warning) |
| Post-History | `post_history`: the ISO dates it lists |
| Author | `author`: names, e-mail addresses dropped |
| Sponsor, BDFL-Delegate, PEP-Delegate | the same names, as their own field (`pep_delegate`) |
| Superseded-By, Replaces, Requires | `superseded_by`, `replaces`, `requires`: PEP numbers as ids (`pep-0008`) |
| Python-Version | `python_version` |
| anything else | kept as its own field, the key in snake case (`Discussions-To` -> `discussions_to`) |
"""

from __future__ import annotations

import email.parser
import re
from typing import Any

from ..metadata import MetadataError, parse_date, split_names

# A header block: its first line is `Key: value`; it ends at the first blank line. A later
# field may be empty (`Post-History:` with no dates yet).
_FIRST_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:[ \t]*\S")
_FIELD_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:")
_CONTINUATION = re.compile(r"^[ \t]+\S")
MIN_FIELDS = 2  # one `Key: value` line alone ("Note: ...") is a sentence, not a header block

# PEP statuses (PEP 1) in the service's status vocabulary (core/vocab.py STATUS_VALUES). The
# status as written is kept as `source_status`, so "rejected" and "withdrawn" stay apart.
PEP_STATUSES = {
    "final": "effective",        # implemented, in the language or the process
    "active": "effective",       # an informational or process PEP in force
    "accepted": "effective",     # decided; what it specifies applies
    "provisional": "effective",  # accepted provisionally: in force, may still change
    "draft": "draft",            # under discussion
    "deferred": "draft",         # undecided, nobody working on it: still a proposal
    "superseded": "superseded",  # replaced by another PEP (Superseded-By names it)
    "rejected": "closed",        # decided against
    "withdrawn": "closed",       # its author gave it up
    "april fool!": "closed",     # a joke (PEP 401), never in force
}
_NAME_FIELDS = {"author": "author", "sponsor": "sponsor", "bdfl_delegate": "bdfl_delegate",
                "pep_delegate": "pep_delegate"}
_LINK_FIELDS = ("superseded_by", "replaces", "requires")
_PEP_NUMBER = re.compile(r"\d+")
PEP_URL = "https://peps.python.org/pep-{:04d}/"


def split_header(text: str) -> tuple[list[tuple[str, str]], str] | None:
    """(fields in order, body) when the text starts with a header block, else None.

    The block runs to the first blank line; every line in it must be a `Key: value` line or
    the indented continuation of one, and it needs at least MIN_FIELDS fields.
    """
    text = text.lstrip("\ufeff")
    head, _, body = text.replace("\r\n", "\n").partition("\n\n")
    lines = head.split("\n")
    if not _FIRST_LINE.match(lines[0]):
        return None
    count = 0
    for line in lines:
        if _FIELD_LINE.match(line):
            count += 1
        elif not _CONTINUATION.match(line):
            return None
    if count < MIN_FIELDS:
        return None
    message = email.parser.HeaderParser().parsestr(head + "\n\n")
    fields = [(key, " ".join(str(value).split())) for key, value in message.items()]
    return fields, body


def snake(key: str) -> str:
    """`Python-Version` -> `python_version`."""
    return re.sub(r"[^0-9a-z]+", "_", key.lower()).strip("_")


def _dates(value: str) -> list[str]:
    """The dates a list such as `05-Jul-2001, 01-Aug-2013` holds, as ISO dates (unreadable ones left out)."""
    out = []
    for part in re.split(r"\s*,\s*", value):
        part = re.sub(r"\s*\(.*?\)\s*", "", part).strip()  # "14-Aug-2001 (approved)"
        try:
            out.append(parse_date(part).date().isoformat())
        except MetadataError:
            continue
    return out


def _links(value: str, pep: bool) -> list[Any]:
    """Superseded-By / Replaces / Requires: PEP numbers as document ids (`pep-0008`); other
    values as the names they list."""
    if pep:
        return [f"pep-{int(n):04d}" for n in _PEP_NUMBER.findall(value)]
    return [v for v in re.split(r"\s*,\s*", value) if v]


# The header fields a reader of the published page sees at its top, in that order, written into
# the text (not only into metadata) so that a question about them ("When was PEP 572 created?",
# "Who wrote PEP 484?") has a sentence to cite.
SHOWN_FIELDS = ("author", "sponsor", "bdfl_delegate", "pep_delegate", "status", "type", "created",
                "python_version", "requires", "replaces", "superseded_by", "resolution")


def header_text(fields: list[tuple[str, str]]) -> list[str]:
    """The shown header fields as `PEP 8 – Key: value.` lines (the subject is the PEP number, else
    the title), in SHOWN_FIELDS order, people's names without their e-mail addresses
    (`PEP 9999 – Author: Jane Roe, John Doe.`). The subject makes each line a sentence that
    names what it is about: a bare `Status: Final.` is a fragment the composer never quotes."""
    keyed = {snake(k): (k, v) for k, v in fields if v}
    number = keyed.get("pep", ("", ""))[1]
    subject = f"PEP {int(number)}" if number.isdigit() else keyed.get("title", ("", ""))[1].strip()
    prefix = f"{subject} – " if subject else ""
    lines = []
    for key in SHOWN_FIELDS:
        if key not in keyed:
            continue
        written, value = keyed[key]
        value = ", ".join(split_names(value)) if key in _NAME_FIELDS else re.sub(r"\s+", " ", value).strip()
        if value:
            lines.append(f"{prefix}{written}: {value.rstrip('.')}.")
    return lines


def header_metadata(fields: list[tuple[str, str]]) -> tuple[str, dict[str, Any]]:
    """(title, metadata) of a header block's fields (the table in the module docstring)."""
    keyed = {snake(k): v for k, v in fields}
    number = keyed.get("pep", "")
    pep = number.isdigit()
    meta: dict[str, Any] = {}
    if pep:
        meta["pep"] = int(number)
        meta["url"] = PEP_URL.format(int(number))
    for key, value in keyed.items():
        if key in ("pep", "title") or not value:
            continue
        if key == "status":
            meta["status"] = PEP_STATUSES.get(value.lower(), value)
            meta["source_status"] = value
        elif key == "type":
            meta["doc_type"] = value
        elif key == "created":
            meta["published_at"] = value  # normalised (or dropped with a warning) with the rest
        elif key == "post_history":
            meta["post_history"] = _dates(value)
        elif key in _NAME_FIELDS:
            meta[_NAME_FIELDS[key]] = split_names(value)
        elif key in _LINK_FIELDS:
            meta[key] = _links(value, pep)
        else:
            meta[key] = value
    title = keyed.get("title", "")
    if pep:
        title = f"PEP {int(number)} – {title}" if title else f"PEP {int(number)}"
    return title, meta
