"""An answer as Markdown for a chat window: the text with its [n] markers, then a "Sources" list.

The answer text is Markdown already (quoted code fenced on lines of its own, links and images
sanitised: server/sanitize.py). Chat windows render it as HTML, so here every "<" that could open
an HTML tag, comment or autolink becomes "&lt;" (shown as "<"), outside code only: a code span or
fenced block shows "HashMap<K, V>" as written (server/markdown_code.py). A "<" before a space or
digit ("x < 5") is left as written.

Each source line gives the number the text cites, the title, the headings the quoted text
stands under, the source, the document's date and its age on the request's date, its status
and page when it has them, and where the document is: its URL, else its id in the knowledge
base (a file's path), e.g.

    **Sources**

    - [1] *Fuel Efficiency Comparison 2023: A320neo vs Boeing 737 MAX 8*, Aurora Air Fleet
      Performance Office, 2023-09-12 (1 year 9 months old), manuals-fuel-efficiency-comparison-2023
    - [2] *API tokens*, Creating a token, <https://docs.example.org/tokens>

An insufficient answer is its plain statement (what was searched) and no list. Chinese answers
get Chinese labels ("来源", "1 年 9 个月前").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .citation_place import document_id, headings, web_address
from .markdown_code import rewrite_outside_code

HEADING = {"en": "Sources", "zh": "来源"}
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")
_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def escape(text: str) -> str:
    """Text with Markdown's inline syntax characters escaped, so a title shows as written."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def html_as_text(text: str) -> str:
    """Markdown text whose HTML a renderer shows as text: "<" that could open a tag, comment or
    autolink becomes "&lt;" outside code; code keeps its "<" (a renderer shows code as written)."""
    return rewrite_outside_code(text, lambda prose: _TAG_OPEN.sub("&lt;", prose))


def _date(value: Any) -> dt.date | None:
    """The date of an ISO date or date-time string (None when absent or unreadable)."""
    if not value:
        return None
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def age(day: dt.date, now: dt.date, language: str = "en") -> str:
    """How old a document dated `day` is on `now`: "12 days old", "5 months old", "1 year 9 months old"."""
    days = (now - day).days
    zh = language == "zh"
    if days < 0:
        return "日期晚于今天" if zh else "dated after today"
    if days < 1:
        return "今天" if zh else "today"
    if days < 31:
        return f"{days} 天前" if zh else f"{days} day{'s' * (days != 1)} old"
    if days < 365:
        months = days // 30
        return f"{months} 个月前" if zh else f"{months} month{'s' * (months != 1)} old"
    years, months = days // 365, (days % 365) // 30
    if zh:
        return f"{years} 年" + (f" {months} 个月" if months else "") + "前"
    text = f"{years} year{'s' * (years != 1)}"
    return text + (f" {months} month{'s' * (months != 1)}" if months else "") + " old"


def source_line(citation: Mapping[str, Any], now: dt.date, language: str = "en") -> str:
    """One Markdown list item for a citation: [n] *title*[, headings][, source][, date (age)]
    [, status][, p. N], address (the document's URL as a link, else its id)."""
    parts = [f"*{escape(citation.get('title') or citation.get('chunk_id', ''))}*"]
    under = headings(citation)
    if under:
        parts.append(" > ".join(escape(h) for h in under))  # a ">" inside a line is text
    if citation.get("source"):
        parts.append(escape(citation["source"]))
    day = _date(citation.get("published_at")) or _date(citation.get("updated_at"))
    if day is not None:
        parts.append(f"{day.isoformat()} ({age(day, now, language)})")
    if citation.get("status") and citation["status"] != "effective":
        parts.append(escape(citation["status"]))
    if citation.get("page"):
        parts.append(f"p. {citation['page']}")
    url = web_address(citation)
    parts.append(f"<{url}>" if url else escape(document_id(citation)))
    return f"- [{citation['n']}] " + ", ".join(parts)


def render_markdown(text: str, citations: Sequence[Mapping[str, Any]], now: dt.date, language: str = "en") -> str:
    """The chat reply: the answer text, then the sources it cites as a Markdown list.

    Args:
        text: the answer with [n] markers (or the insufficient statement), sanitised Markdown.
        citations: the citations as in the /rag body (n, title, source, published_at, updated_at, ...).
        now: the request's date (ages are counted to it).
        language: "en" or "zh" (the labels).
    """
    lang = language if language in HEADING else "en"
    body = html_as_text(text.strip())
    if not citations:
        return body
    lines = [body, "", f"**{HEADING[lang]}**", ""]
    lines += [source_line(c, now, lang) for c in sorted(citations, key=lambda c: c["n"])]
    return "\n".join(lines)
