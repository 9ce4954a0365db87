"""What a compared figure is of, read from the chunk an answer cites for it: its period and variant.

The composer pairs figures by how their dates fit the question's window and names the variant
each one is of ("B737 (737 MAX 8)"); this reads the cited chunk again with the same readers
(`core.reading.periods`, `core.reading.variants`), so the comparison check can say when a side's
figure is of another period than the question asks, or of another variant than the answer names.

Promises: a figure is found in the units of the cited chunk that state its value (units agreeing
or not given) and name the side; when no unit names the side, the units stating the value at all.
Each is read as a `Statement`: its dating (the unit's own year nearest the figure, else its
innermost dated heading) and the variant it names for the side. Nothing is found for a value the
chunk does not state (the citation check reports that).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.reading.mentions import mention_spans, mentions
from core.reading.periods import Dating, figure_dating
from core.reading.quantities import stated_quantities
from core.reading.units import normalize_unit, units_compatible
from core.reading.variants import compact, designation_at, named_variant
from orchestration.kb.chunking import read_units
from orchestration.retrieval.scored import ScoredChunk
from validation.text import same_value


@dataclass(frozen=True)
class Statement:
    """One unit of a cited chunk stating a side's figure: the unit, when it dates the figure, and
    the variant it names for the side (None: the side itself)."""

    text: str
    dating: Dating
    variant: str | None


def figure_statements(chunk: ScoredChunk, spellings: Sequence[str], value: float,
                      unit: str | None) -> list[Statement]:
    """The units of `chunk` stating `value` (in `unit`, when both give one) for the side spelled
    `spellings`, in chunk order (see the module docstring)."""
    found: list[tuple[str, Statement]] = []
    units = chunk.units if chunk.units is not None else read_units(chunk.text)
    for piece in units:
        text = piece.text_in(chunk.text)
        for quantity in stated_quantities(text):
            if same_value(quantity.value, value) and units_compatible(normalize_unit(unit), quantity.unit):
                variant = named_variant(spellings, text, quantity.span[0])
                found.append((text, Statement(text, figure_dating(text, quantity.span, piece.path), variant)))
                break
    naming = [s for text, s in found if any(mentions(name, text) for name in spellings)]
    return naming or [s for _, s in found]


def named_variants(spellings: Iterable[str], text: str) -> set[str]:
    """The designations `text` writes for the side at each of its mentions, compacted
    ("The B737 (737 MAX 8) figure" -> {"b737", "737max8"})."""
    return {compact(designation_at(text, span)) for name in spellings for span in mention_spans(name, text)}
