"""Reading config values into typed ones, with errors that name the file, the place and the fix.

The one config-checking kit (the router and the knowledge base config use it; parsing and
versioning the file itself is core/yamlconfig.py). Every check raises `ConfigError` with a
message shaped `<file>: <section>: <what is wrong>; <the allowed values or the fix>` and the
dotted config path in `field`, so an operator reading a log line knows which line to edit.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import ConfigError


@dataclass(frozen=True)
class Where:
    """A place in a config file.

    Attributes:
        source: the file (as shown to operators, e.g. "config/router.yaml").
        section: the human label of the place ("rule 'compare-per-entity'", "limits").
        field: the dotted path of the value ("rules[2].emit[0].kb").
    """

    source: str
    section: str
    field: str

    def at(self, key: str | int, section: str | None = None) -> Where:
        """The place of a key (or list index) under this one.

        Args:
            key: a mapping key or a list index.
            section: a new human label; by default the parent's label plus the key.
        """
        path = f"{self.field}[{key}]" if isinstance(key, int) else (
            f"{self.field}.{key}" if self.field else str(key))
        if section is None:
            section = f"{self.section}: {key}" if self.section else str(key)
        return Where(self.source, section, path)

    @classmethod
    def environment(cls, name: str, field: str) -> Where:
        """The place of an environment variable that overrides the config value `field`."""
        return cls(f"environment variable {name}", field, field)

    def fail(self, message: str) -> ConfigError:
        """The error for a problem at this place (raise it)."""
        prefix = f"{self.source}: {self.section}: " if self.section else f"{self.source}: "
        return ConfigError(prefix + message, field=self.field or None)


def suggest(value: str, allowed: Iterable[str]) -> str:
    """' (did you mean 'x'?)' when `value` looks like a typo of an allowed name, else ''."""
    close = difflib.get_close_matches(str(value), list(allowed), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def known(values: Iterable[str]) -> str:
    """The allowed values as a comma-separated list, in the order given."""
    return ", ".join(values)


def mapping(where: Where, value: Any, allowed: Sequence[str], required: Sequence[str] = ()) -> dict:
    """A mapping whose keys are all allowed and which holds every required key.

    Raises:
        ConfigError: not a mapping, an unknown key (listing the allowed ones), a missing key.
    """
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise where.fail(f"expected a mapping with keys {known(allowed)}, got {type(value).__name__}")
    for key in value:
        if key not in allowed:
            raise where.fail(f"unknown key '{key}'; allowed: {known(allowed)}{suggest(key, allowed)}")
    for key in required:
        if key not in value:
            raise where.fail(f"missing key '{key}'")
    return value


def choice(where: Where, value: Any, allowed: Sequence[str], what: str) -> str:
    """One of `allowed`; the error lists them and suggests the closest."""
    if not isinstance(value, str) or value not in allowed:
        raise where.fail(f"unknown {what} '{value}'; known: {known(allowed)}{suggest(str(value), allowed)}")
    return value


def choices(where: Where, value: Any, allowed: Sequence[str], what: str) -> tuple[str, ...]:
    """One value or a list of values, each one of `allowed`; returned as a tuple, order kept."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise where.fail(f"expected at least one {what}; known: {known(allowed)}")
    return tuple(dict.fromkeys(choice(where, item, allowed, what) for item in items))


def strings(where: Where, value: Any, what: str) -> tuple[str, ...]:
    """One non-empty string or a list of them, as a tuple (duplicates dropped, order kept)."""
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise where.fail(f"each {what} must be a non-empty string, got {item!r}")
    return tuple(dict.fromkeys(items))


def text(where: Where, value: Any) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise where.fail(f"expected a non-empty string, got {value!r}")
    return value


def integer(where: Where, value: Any, minimum: int, maximum: int | None = None) -> int:
    """An integer within [minimum, maximum] (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum or (
            maximum is not None and value > maximum):
        bound = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise where.fail(f"must be an integer {bound}, got {value!r}")
    return value


def number(where: Where, value: Any, minimum: float, maximum: float | None = None,
           exclusive_minimum: bool = False, finite: bool = False) -> float:
    """A number within the bounds (booleans refused; with `finite`, infinity too)."""
    low_ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        value > minimum if exclusive_minimum else value >= minimum)
    if not low_ok or (maximum is not None and value > maximum) or (finite and not math.isfinite(value)):
        low = f"> {minimum}" if exclusive_minimum else f">= {minimum}"
        bound = low if maximum is None else f"{low} and <= {maximum}"
        raise where.fail(f"must be a {'finite ' if finite else ''}number {bound}, got {value!r}")
    return float(value)


def boolean(where: Where, value: Any) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise where.fail(f"must be true or false, got {value!r}")
    return value


def regex(where: Where, value: Any) -> re.Pattern:
    """A case-insensitive regular expression."""
    try:
        return re.compile(text(where, value), re.IGNORECASE)
    except re.error as exc:
        raise where.fail(f"not a valid regular expression ({exc})") from exc


TRUE_WORDS = ("1", "true", "yes")
FALSE_WORDS = ("0", "false", "no")


def from_text(value: str, kind: type) -> Any:
    """An environment variable's (or a command-line flag's) text as the value a config file would hold.

    So one check reads both: text that spells an int or a float becomes that number, text
    in TRUE_WORDS or FALSE_WORDS (any case) becomes a bool; any other kind keeps the text.
    Text that does not read as `kind` comes back unchanged, and the check that follows
    refuses it, quoting it ("must be an integer >= 1, got 'many'").
    """
    word = value.strip()
    if kind is bool:
        if word.lower() in TRUE_WORDS:
            return True
        return False if word.lower() in FALSE_WORDS else value
    if kind in (int, float):
        try:
            return kind(word)
        except ValueError:
            return value
    return value
