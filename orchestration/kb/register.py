"""Adding a knowledge base to knowledge_bases.yaml: what `sightline ingest PATH --kb NEW` does.

The entry is inserted as text at the end of the `knowledge_bases:` mapping, so the operator's
comments and layout stay as they are; it spells out the settings the new KB gets (the file's
`defaults:`, never another KB's) with a comment saying where it came from. The whole new file
is validated before it replaces the old one (atomically), so a file this cannot extend
safely is left untouched and the error shows the lines to add by hand.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from core.errors import ConfigError
from core.files import write_atomically
from core.yamlconfig import parse_yaml

from .. import paths as repo_paths
from .config import KBSettings, parse_kb_config

_TOP_KEY = re.compile(r"^[^\s#][^:]*:")
_SECTION = re.compile(r"^knowledge_bases:\s*(#.*)?$")


def _quoted(value: str) -> str:
    """A YAML scalar for any text (JSON strings are valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def entry_text(settings: KBSettings, paths: Sequence[str], indent: str, command: str) -> str:
    """The YAML lines of a new KB entry: every setting it gets, spelled out, with a comment."""
    inner = indent * 2
    lines = [f"{indent}# added by `{command}` on {dt.date.today().isoformat()}; the values are this file's",
             f"{indent}# defaults, written out so they can be edited here",
             f"{indent}{settings.name}:",
             f"{inner}description: {_quoted(settings.description)}",
             f"{inner}paths: [{', '.join(_quoted(p) for p in paths)}]",
             f"{inner}chunk_words: {settings.chunk_words}",
             f"{inner}overlap_words: {settings.overlap_words}",
             f"{inner}max_age_days: {settings.max_age_days if settings.max_age_days is not None else 'null'}"
             "   # null: no document is too old for freshness checks; e.g. 730 for two years"]
    return "\n".join(lines) + "\n"


def _shown(path: Path) -> str:
    """How the entry names a path: relative to the repository root inside it, absolute elsewhere."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(repo_paths.REPO_ROOT).as_posix()
    except ValueError:
        return str(absolute)


def _defaults_for(text: str, config_path: Path, name: str, paths: Sequence[Path]) -> KBSettings:
    """The settings a KB named `name` gets from the file's `defaults:` (and nothing else)."""
    data = parse_yaml(text.encode("utf-8"), str(config_path))
    if not isinstance(data, dict):
        raise ConfigError(f"{config_path}: not a mapping of settings; fix the file first", field="kb")
    alone = parse_kb_config({**data, "knowledge_bases": {name: {}}}, source=str(config_path))
    return replace(alone.knowledge_bases[name], paths=tuple(paths))


def _indent_of_entries(lines: list[str], start: int) -> str:
    """The indentation of the existing entries under `knowledge_bases:` (two spaces if none)."""
    for line in lines[start + 1:]:
        if _TOP_KEY.match(line):
            break
        stripped = line.lstrip(" ")
        if stripped and not stripped.startswith("#"):
            return line[:len(line) - len(stripped)]
    return "  "


@dataclass(frozen=True)
class NewEntry:
    """A validated new KB entry: its settings and the config file's text with it added."""

    config_path: Path
    settings: KBSettings
    text: str      # the whole new file
    entry: str     # the lines added

    def write(self) -> None:
        """Replace the config file with the new text (atomically: readers see old or new)."""
        write_atomically(self.config_path, self.text)


def plan_new_entry(config_path: Path, name: str, paths: Sequence[Path], command: str) -> NewEntry:
    """The entry `sightline ingest PATH --kb NAME` adds for a new name, validated, not yet written.

    The caller builds the KB with `entry.settings` first and writes the entry only when the
    build succeeded, so a failed ingest leaves the file as it was.

    Args:
        config_path: the knowledge_bases.yaml to extend.
        name: the new knowledge base's name (already checked; not in the config).
        paths: the files or folders it is built from.
        command: the command line, quoted in the entry's comment.

    Raises:
        ConfigError: the file has no block-style `knowledge_bases:` section this can append
            to, or the result would not validate.
    """
    text = config_path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _SECTION.match(line.rstrip("\n"))), None)
    shown = [_shown(p) for p in paths]
    settings = _defaults_for(text, config_path, name, paths)
    if start is None:
        raise ConfigError(f"{config_path}: no block-style 'knowledge_bases:' section to add '{name}' to; add it by "
                          f"hand:\n{entry_text(settings, shown, '  ', command)}", field="kb")
    indent = _indent_of_entries(lines, start)
    end = next((i for i in range(start + 1, len(lines)) if _TOP_KEY.match(lines[i])), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # the blank lines before the next section stay after the new entry
    if not lines[end - 1].endswith("\n"):
        lines[end - 1] += "\n"
    entry = entry_text(settings, shown, indent, command)
    new_text = "".join(lines[:end]) + entry + "".join(lines[end:])
    try:
        updated = parse_kb_config(parse_yaml(new_text.encode("utf-8"), str(config_path)), source=str(config_path))
    except ConfigError as exc:
        raise ConfigError(f"{config_path}: adding '{name}' would not validate ({exc.message}); add it by hand:\n"
                          f"{entry}", field="kb") from exc
    if name not in updated.knowledge_bases:
        raise ConfigError(f"{config_path}: could not add '{name}' (the section layout is unusual); add it by hand:\n"
                          f"{entry}", field="kb")
    return NewEntry(config_path, updated.knowledge_bases[name], new_text, entry)
