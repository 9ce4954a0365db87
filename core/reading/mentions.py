"""Whether a text mentions a name: the one matcher the composer and the validator share.

A name is matched case-insensitively on word starts, with spaces, hyphens and underscores
interchangeable ("737 MAX 8" meets "737-MAX-8"). A name ending in a digit may run on in
letters ("A320" meets "A320neo") but not in digits ("A320" does not meet "A3200"); any other
name ends at a word end. A one- or two-letter code with three or more digits ("B737") also
matches its bare number ("737") where that number is not a quantity with a unit ("737 kg").
"""

from __future__ import annotations

import functools
import re

from .quantities import stated_quantities

_SEPARATORS = re.compile(r"[\s\-_]+")
LETTER_CODE = re.compile(r"^[A-Za-z]{1,2}(\d{3,})$")


@functools.lru_cache(maxsize=4096)
def _pattern(name: str) -> re.Pattern | None:
    words = [w for w in _SEPARATORS.split(name.lower().strip()) if w]
    if not words or len("".join(words)) < 2:
        return None
    body = r"[\s\-_]*".join(re.escape(w) for w in words)
    end = r"(?!\d)" if words[-1][-1].isdigit() else r"(?![a-z0-9])"
    return re.compile(rf"(?<![a-z0-9]){body}{end}")


def number_alias(name: str) -> str | None:
    """The bare number of a letter+digits code ("B737" -> "737"), else None."""
    code = LETTER_CODE.match(name.strip())
    return code.group(1) if code else None


def mentions(name: str, text: str) -> bool:
    """True when `text` mentions `name` (see the module docstring for the rule)."""
    return mention_start(name, text) is not None


@functools.lru_cache(maxsize=65536)
def mention_start(name: str, text: str) -> int | None:
    """Where `text` first mentions `name` (the same rule as `mentions`), or None (memoised: a
    comparison asks it of every sentence for every side, and again for each side's rivals)."""
    spans = mention_spans(name, text)
    return spans[0][0] if spans else None


def mention_spans(name: str, text: str) -> tuple[tuple[int, int], ...]:
    """Every place `text` mentions `name` (the rule of `mentions`), as (start, end) in text order;
    a name matched at the start of a longer word ends where the name ends ("A320" in "A320neo")."""
    pattern = _pattern(name)
    if pattern is None:
        return ()
    lowered = text.lower()
    spans = [m.span() for m in pattern.finditer(lowered)]
    alias = number_alias(name)
    if alias:
        quantities = {q.span[0] for q in stated_quantities(text) if q.unit}
        spans += [m.span() for m in re.finditer(rf"(?<![A-Za-z0-9.,]){alias}(?![\d,.])", lowered)
                  if m.start() not in quantities]
    return tuple(sorted(set(spans)))
