"""Front matter of a Markdown page: YAML between `---` lines or TOML between `+++` lines.

Static-site generators (Jekyll, Hugo, Docusaurus, MkDocs) keep a page's metadata there, and
some of it decides whether the page exists at all: a page marked `published: false` or
`draft: true` is not published by the site, so it is not ingested either (reported as
skipped, with the field that said so). Ingesting it "as a draft" would rely on every router
rule filtering drafts; a page its author did not publish must not become an answer by
default. `status: draft` is different: it is the document's status (a PEP in draft is
published and citable), so the page is ingested with status draft, which the credibility
settings down-weight and a status filter can exclude.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml

_YAML = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_TOML = re.compile(r"\A\+\+\+[ \t]*\r?\n(.*?)\r?\n\+\+\+[ \t]*(?:\r?\n|\Z)", re.S)
_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column \d+\)")
_FALSE = (False, "false", "no", "0")
_TRUE = (True, "true", "yes", "1")


@dataclass
class FrontMatter:
    """A page split into its front matter fields and its body.

    Attributes:
        fields: the front matter as a mapping ({} when the page has none).
        body: the page after the front matter.
        line: the 1-based line a syntax error is on (None when there is none or it is unknown).
        error: why the front matter could not be read (None when it could).
    """

    fields: dict[str, Any]
    body: str
    line: int | None = None
    error: str | None = None


def split_front_matter(content: str) -> FrontMatter:
    """The front matter and body of a page; a page without front matter is all body."""
    for pattern, read in ((_YAML, _read_yaml), (_TOML, _read_toml)):
        match = pattern.match(content)
        if match:
            body = content[match.end():]
            try:
                loaded = read(match.group(1))
            except _Unreadable as exc:
                return FrontMatter({}, body, exc.line, exc.reason)
            if loaded is not None and not isinstance(loaded, dict):
                return FrontMatter({}, body, 1, "front matter must be a mapping of fields")
            return FrontMatter(dict(loaded or {}), body)
    return FrontMatter({}, content)


def unpublished_reason(fields: dict[str, Any]) -> str | None:
    """Why front matter says the page is not published (None: it is)."""
    lowered = {str(k).lower(): v.lower() if isinstance(v, str) else v for k, v in fields.items()}
    if "published" in lowered and lowered["published"] in _FALSE:
        return "front matter says published: false (the site does not publish it); remove the field to ingest it"
    if "draft" in lowered and lowered["draft"] in _TRUE:
        return "front matter says draft: true (an unpublished draft); remove the field to ingest it"
    return None  # `status: draft` is a document status (a PEP in draft is published): ingested as draft


class _Unreadable(Exception):
    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


def _read_yaml(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _Unreadable(f"front matter is not valid YAML ({getattr(exc, 'problem', exc)})",
                          mark.line + 2 if mark else None) from None
    except RecursionError:
        raise _Unreadable("front matter is nested too deeply to read", None) from None


def _read_toml(text: str) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # "Invalid value (at line 2, column 8)" before Python 3.14
        where = _TOML_WHERE.search(str(exc))
        problem = _TOML_WHERE.sub("", str(exc)).strip()
        raise _Unreadable(f"front matter is not valid TOML ({problem})",
                          int(where.group(1)) + 1 if where else None) from None
    except RecursionError:
        raise _Unreadable("front matter is nested too deeply to read", None) from None
