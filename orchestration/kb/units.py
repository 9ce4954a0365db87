"""Answer units: the typed pieces a chunk is read as, decided once, at ingest.

A unit is one quotable piece of a chunk's text with its type, its offsets in the chunk text and
the heading path it falls under:

- `sentence`: a sentence of prose;
- `list_item`: a sentence of a list item; `lead` is the unit introducing the list ("The tiers
  are:"), when that unit is in the same chunk;
- `definition`: a term with its meaning on one line ("SLA - service level agreement", an HTML
  `dl` or reST definition/field-list entry);
- `field`: a documented name's description (a Sphinx object directive, `.. py:data:: NAME`,
  `.. confval:: name`): "CACHE_DIR (default 35): where ...", with `name` ("CACHE_DIR") and
  `notes`, the version notes that follow it ("Changed in version 1.0"), as metadata;
- `version_note`: "Changed in version 1.0: ...", "New in version 2.3." (any format): kept for
  search, never quoted as an answer, so its version number never reads as a figure;
- `heading`: a section title (its own path ends one level above it);
- `code`: a fenced code block, fences included;
- `table_row`: one `| a | b |` row.

The chunker (`chunking.chunk_text`) writes them, the store keeps them beside the chunk's text,
and the composer quotes them as they are, so nothing downstream splits the text again. A chunk
of a build made before units were stored has none; `chunking.read_units` reads its text the way
the chunker would.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

SENTENCE, LIST_ITEM, DEFINITION, HEADING, CODE, TABLE_ROW, FIELD, VERSION_NOTE = (
    "sentence", "list_item", "definition", "heading", "code", "table_row", "field", "version_note")
UNIT_TYPES = (SENTENCE, LIST_ITEM, DEFINITION, HEADING, CODE, TABLE_ROW, FIELD, VERSION_NOTE)  # stored by index
PROSE_TYPES = frozenset({SENTENCE, LIST_ITEM, DEFINITION, FIELD})  # read and quoted as text


@dataclass(frozen=True)
class Unit:
    """One typed piece of a chunk.

    Attributes:
        type: one of `UNIT_TYPES`.
        start, end: its characters in the chunk text (`chunk_text[start:end]` is the unit).
        path: the headings it falls under, outermost first (a heading's own path excludes it).
        lead: the index, among the chunk's units, of the unit introducing its list (list items
            only; None when there is none or it lies in an earlier chunk).
        name: the documented name a field describes (fields only).
        notes: a field's version notes in this chunk, each as its label ("Changed in version 1.0").
    """

    type: str
    start: int
    end: int
    path: tuple[str, ...] = ()
    lead: int | None = None
    name: str | None = None
    notes: tuple[str, ...] = ()

    def text_in(self, chunk_text: str) -> str:
        """The unit's text, cut from the chunk text it was read from."""
        return chunk_text[self.start:self.end]


def units_to_json(units: Sequence[Unit]) -> str:
    """The units as stored: each distinct heading path once, each unit a short row."""
    paths: list[tuple[str, ...]] = []
    index: dict[tuple[str, ...], int] = {}
    rows = []
    for unit in units:
        if unit.path not in index:
            index[unit.path] = len(paths)
            paths.append(unit.path)
        row: list = [UNIT_TYPES.index(unit.type), unit.start, unit.end, index[unit.path]]
        if unit.lead is not None or unit.name is not None:
            row.append(unit.lead)
        if unit.name is not None:
            row.append({"name": unit.name, "notes": list(unit.notes)})
        rows.append(row)
    return json.dumps({"paths": [list(p) for p in paths], "units": rows}, ensure_ascii=False,
                      separators=(",", ":"))


def units_from_json(stored: str | None) -> tuple[Unit, ...] | None:
    """The units `units_to_json` wrote; None for a chunk stored without them."""
    if not stored:
        return None
    data = json.loads(stored)
    paths = [tuple(p) for p in data["paths"]]
    return tuple(_unit(row, paths) for row in data["units"])


def _unit(row: list, paths: list[tuple[str, ...]]) -> Unit:
    """One stored row: [type, start, end, path] then, when set, lead, then a field's metadata."""
    field = row[5] if len(row) > 5 else {}
    return Unit(UNIT_TYPES[row[0]], row[1], row[2], paths[row[3]], row[4] if len(row) > 4 else None,
                field.get("name"), tuple(field.get("notes", ())))
