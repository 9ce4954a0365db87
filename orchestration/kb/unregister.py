"""Removing a knowledge base from knowledge_bases.yaml: what `sightline kb remove NAME` does to the file.

The entry is cut out as text (its lines, and the comment lines right above it at its own
indentation, such as the `# added by sightline ingest` note), so the operator's other lines and
comments stay as they are. The new file is validated before it replaces the old one
(atomically): it must parse, lose exactly that knowledge base, keep every other one's settings,
and leave router.yaml valid (a rule naming the KB would stop the service from loading its
router config on the next start or reload); otherwise nothing is written and the error says
what to do by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from core.errors import ConfigError
from core.files import write_atomically
from core.yamlconfig import parse_yaml

from .config import KBConfig, parse_kb_config
from .register import _SECTION, _TOP_KEY, _indent_of_entries


@dataclass(frozen=True)
class Removal:
    """A validated removal of one KB entry: the config file's text without it."""

    config_path: Path
    name: str
    text: str            # the whole new file
    removed: str         # the lines cut out
    remaining: tuple[str, ...]

    def write(self) -> None:
        """Replace the config file with the new text (atomically: readers see old or new)."""
        write_atomically(self.config_path, self.text)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _entry_lines(lines: list[str], name: str, config_path: Path) -> tuple[int, int]:
    """The [first, end) line range of `name`'s entry, comment lines right above it included."""
    start = next((i for i, line in enumerate(lines) if _SECTION.match(line.rstrip("\n"))), None)
    if start is None:
        raise ConfigError(f"{config_path}: no block-style 'knowledge_bases:' section to remove '{name}' from; "
                          f"remove it by hand", field="kb")
    indent = len(_indent_of_entries(lines, start))
    key = re.compile(rf"^ {{{indent}}}(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')\s*:")
    end_of_section = next((i for i in range(start + 1, len(lines)) if _TOP_KEY.match(lines[i])), len(lines))
    first = next((i for i in range(start + 1, end_of_section) if key.match(lines[i])), None)
    if first is None:
        raise ConfigError(f"{config_path}: no line '{name}:' under knowledge_bases; remove it by hand", field="kb")
    end = first + 1
    while end < end_of_section and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    while end > first + 1 and not lines[end - 1].strip():
        end -= 1  # blank lines before the next entry stay
    while first - 1 > start and lines[first - 1].lstrip().startswith("#") and _indent(lines[first - 1]) == indent:
        first -= 1
    return first, end


def plan_removal(config: KBConfig, name: str, router_path: Path | None = None) -> Removal:
    """The removal of `name` from the config file, validated, not yet written.

    Promises: the text returned parses, holds every other knowledge base with the settings it
    had, and router.yaml validates against the names left.

    Raises:
        ConfigError: the entry cannot be cut out safely (the message says to edit by hand), the
            result would not validate, or router.yaml names the KB (the message names the rule).
    """
    if config.source is None:
        raise ConfigError("the knowledge base config was not read from a file; nothing to remove from", field="kb")
    path = Path(config.source)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first, end = _entry_lines(lines, name, path)
    text = "".join(lines[:first] + lines[end:])
    removed = "".join(lines[first:end])
    try:
        updated = parse_kb_config(parse_yaml(text.encode("utf-8"), str(path)), source=str(path))
    except ConfigError as exc:
        raise ConfigError(f"{path}: without '{name}' the file would not validate ({exc.message}); "
                          f"edit it by hand", field="kb") from exc
    others = {n: s for n, s in config.knowledge_bases.items() if n != name}
    if updated.knowledge_bases != others:
        raise ConfigError(f"{path}: cutting out '{name}' would change other entries (the layout is unusual); "
                          f"remove these lines by hand:\n{removed}", field="kb")
    _check_router(router_path, name, list(config.knowledge_bases), list(others))
    return Removal(path, name, text, removed, tuple(others))


def _check_router(router_path: Path | None, name: str, known: list[str], left: list[str]) -> None:
    """ConfigError when router.yaml validates with `name` known but not without it (a rule names it).

    A router.yaml that is already invalid is not this removal's concern: the service reports it.
    """
    from ..router.config import load_router_config

    try:
        load_router_config(router_path, known_kbs=left)
    except ConfigError as exc:
        try:
            load_router_config(router_path, known_kbs=known)
        except ConfigError:
            return
        raise ConfigError(f"'{name}' is still used by the router config: {exc.message}. Remove it from that rule "
                          f"(or the rule), then run this again", field="kb") from exc
