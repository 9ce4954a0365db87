"""A quantity with its full unit, read from the words next to it: "2,290 kg per block hour" -> kg/h.

Promises: `read_measure` widens a unit only from words written next to the number ("2,290 kg per
block hour" -> kg/h, "每座每小时油耗为 12.7 公斤" -> kg/seat/h), never guesses one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .quantities import Quantity, stated_quantities

_PER_EN = re.compile(r"^\s*(?:of\s+[a-z]+\s+)?(?:per|/)\s*(?:(?:block|flight|flying|calendar|working)\s+)?"
                     r"(hour|hr|h|seat|day|night|year|month|week|passenger|person|km|flight)s?\b", re.I)
_PER_EN_UNITS = {"hour": "h", "hr": "h", "h": "h", "seat": "seat", "day": "day", "night": "night",
                 "year": "year", "month": "month", "week": "week", "passenger": "passenger",
                 "person": "person", "km": "km", "flight": "flight"}
_PER_ZH = (("每座", "seat"), ("每人", "person"), (r"每[^，。；,;]{0,3}小时", "h"), ("每天|每日", "day"),
           ("每晚", "night"), ("每月", "month"), ("每年", "year"))
_ZH_PREFIX = {"seat": "每座", "person": "每人", "h": "每小时", "day": "每天", "night": "每晚",
              "month": "每月", "year": "每年"}
_CLAUSE_BREAK = re.compile(r"[，,。；;：:！？!?]")


@dataclass(frozen=True)
class Measure:
    """A quantity as the composer states it.

    Attributes:
        value: the number (Chinese 万/亿 applied).
        unit: the full unit: `units.normalize_unit`'s unit plus "/<per>" parts read next to it.
        text: how to write it in an answer; its number and base unit parse back to `value`.
        quantity: the underlying `quantities.Quantity`.
    """

    value: float
    unit: str | None
    text: str
    quantity: Quantity


def read_measure(text: str, quantity: Quantity) -> Measure:
    """The quantity with its full unit, read from the words next to it in `text`.

    English "per ..." phrases after the number are appended to the unit and kept in the
    written form ("2,290 kg per block hour"); Chinese "每…" words earlier in the same clause
    are appended too and written before the number ("每小时 2,290 公斤").
    """
    unit = quantity.unit
    written = quantity.text
    if unit is None:
        return Measure(quantity.value, None, written, quantity)
    pers: list[str] = []
    end = quantity.span[1]
    while True:
        match = _PER_EN.match(text[end:])
        if not match:
            break
        pers.append(_PER_EN_UNITS[match.group(1).lower()])
        end += match.end()
    if pers:
        written = text[quantity.span[0]:end]
    else:
        clause_start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, quantity.span[0])), default=0)
        clause = text[clause_start:quantity.span[0]]
        pers = [per for pattern, per in _PER_ZH if re.search(pattern, clause)]
        if pers:
            written = "".join(_ZH_PREFIX[p] for p in pers) + " " + quantity.text
    full = "/".join([unit] + [p for p in pers if f"/{p}" not in unit])
    return Measure(quantity.value, full, written, quantity)


def sentence_measures(text: str) -> list[Measure]:
    """Every stated quantity of a sentence that has a unit, read as a `Measure`."""
    return [read_measure(text, q) for q in stated_quantities(text) if q.unit]
