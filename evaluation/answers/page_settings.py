"""The settings a documentation page names, and whether it states a property of one.

A setting is a command-line option or dotted key (core.reading.identifiers `options_in`) or a code
span shaped like one (`max_age`, ``opt-level``, `SSL_CERT_FILE`). A page states a property of a
setting (its default, its allowed values) when a word stating it stands in the setting's extent: a
block (paragraph or list item) writing it with the indented blocks that continue it, the block
after a short one-line term ("`max_age`" then ": Defaults to 600"), and, when the setting heads a
section (Markdown `#`, reST underline), the whole section. A table is one block. Conservative by
design: a property word anywhere in that reach counts as stated.
"""

from __future__ import annotations

import re

from core.reading.identifiers import names_option, options_in

from ..docsets import normalise
from .name_pool import shape

SETTING_SHAPES = frozenset({"option", "kebab", "key", "env", "snake"})
_CODE_SPAN = re.compile(r"`+\s*([^`\n]+?)\s*`+")
_SETTING_FORM = re.compile(r"--?[A-Za-z][\w-]*[A-Za-z0-9]|[A-Za-z_][\w.-]*[A-Za-z0-9]")
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+[.)])\s)")
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s", re.M)
_RST_UNDERLINE = re.compile(r"^(?P<line>[^\n]+)\n(?P<mark>[=\-~^\"'*+#`:.])(?P=mark){2,}[ \t]*$", re.M)
_LIST_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s")
TERM_CHARS = 40  # a block of one line this short (no list item) is a term whose description may follow


def settings(text: str) -> list[str]:
    """The settings a page names (options, keys, setting-shaped code spans; no paths), in order, each once."""
    spans = [m.group(1).split("=")[0].strip() for m in _CODE_SPAN.finditer(text)]
    named = [s for s in [*options_in(text), *spans]
             if _SETTING_FORM.fullmatch(s) and "/" not in s and shape(s) in SETTING_SHAPES]
    return list(dict.fromkeys(named))


def _is_heading(block: str) -> bool:
    return bool(_MARKDOWN_HEADING.match(block) or _RST_UNDERLINE.search(block))


def _extents(text: str, name: str) -> list[str]:
    """Every extent of a mention of `name` (see the module docstring), as text."""
    blocks = [b for b in _BLOCK_BREAK.split(text) if b.strip()]
    out = []
    for i, block in enumerate(blocks):
        if not names_option(name, normalise(block)):
            continue
        end = i + 1
        if _is_heading(block):
            while end < len(blocks) and not _is_heading(blocks[end]):
                end += 1
        else:
            if "\n" not in block.strip() and len(block.strip()) <= TERM_CHARS and not _LIST_ITEM.match(block):
                end += 1  # a term: its description follows
            while end < len(blocks) and blocks[end][:1] in (" ", "\t"):
                end += 1  # indented blocks continue it
        out.append("\n\n".join(blocks[i:end]))
    return out


def states(text: str, name: str, words: tuple[str, ...]) -> bool:
    """True when the text states the property the `words` name of the setting `name` (a word of
    them in an extent of a mention of it), compared as `normalise` folds them."""
    return any(names_option(normalise(w), normalise(extent)) for extent in _extents(text, name) for w in words)


def aliases(text: str, name: str, other: str, reach: int = 20) -> bool:
    """True when the page writes the two settings within `reach` characters of each other
    ("`--lf`, `--last-failed`"): two names of one setting, very likely."""
    at = [m.start() for m in re.finditer(re.escape(name), text)]
    return any(abs(m.start() - a) <= reach + len(name) for m in re.finditer(re.escape(other), text) for a in at)
