"""Names that become paths or labels: knowledge bases, API key names, ACL groups.

A knowledge base name is a directory under the data directory and a metrics label, so it is
letters, digits, '-' and '_' only (`ingest --kb "bad name/.."` once wrote outside the KB
folder). One check, used by the CLI, the config loaders and every API.
"""

from __future__ import annotations

import re

from .errors import RequestError

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # always fullmatch: `$` also matches before a final "\n"
NAME_RULE = "1-64 letters, digits, '-' or '_'"


def is_valid_name(name: object) -> bool:
    """True when `name` is a string of 1-64 letters, digits, '-' or '_'."""
    return isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None


def check_name(name: object, what: str, field: str | None = None,
               error: type[Exception] = RequestError) -> str:
    """`name` itself when valid; else `error` saying what a valid name looks like.

    Args:
        name: the value to check.
        what: what the name names, for the message ("knowledge base name").
        field: the field reported with the error.
        error: the SightlineError subclass to raise (RequestError for callers, ConfigError for files).
    """
    if is_valid_name(name):
        return name  # type: ignore[return-value]
    shown = ascii(name) if isinstance(name, str) else type(name).__name__
    if isinstance(name, str) and len(name) > 80:
        shown = ascii(name[:80]) + "..."
    raise error(f"{what} {shown} is not valid: use {NAME_RULE}", field=field)  # type: ignore[call-arg]

# an ACL group or a gateway user: a little wider than a name (e-mail-like and namespaced groups)
GROUP_PATTERN = re.compile(r"[A-Za-z0-9._:@-]{1,64}")  # fullmatch, as NAME_PATTERN


def parse_groups(text: str, where: str) -> tuple[str, ...]:
    """Comma-separated group names, stripped and de-duplicated; ValueError names a bad one."""
    groups = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if not GROUP_PATTERN.fullmatch(item):
            raise ValueError(f"{where}: group {ascii(item[:80])} is not valid: use 1-64 letters, digits, "
                             "'.', '_', ':', '@' or '-'")
        if item not in groups:
            groups.append(item)
    return tuple(sorted(groups))
