"""Markdown footnotes, read as mdBook, GitHub and pandoc render them: a markdown-it-py plugin.

CommonMark has no footnotes. To it, `[^siphash]: https://...` is a link reference definition, so
the note is lost and each `[^siphash]` becomes a link reading "^siphash" ("hash tables^siphash");
any other definition is a paragraph starting "[^note]: ...". With `footnote_plugin`:

- a definition, `[^label]:` at the start of a block with the lines indented under it, is read as
  its own blocks between a `footnote_open` token (the label in `meta`) and a `footnote_close`;
- a reference, `[^label]` naming a label the page defines, is a `footnote_ref` token, never text;
  an undefined one stays text, as those renderers leave it.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

_DEFINITION = re.compile(r"\[\^([^\]\s]+)\]:")
_REFERENCE = re.compile(r"\[\^([^\]\s]+)\]")
_LABELS = "footnote labels"  # the env key of the labels defined: blocks are all read before any inline
_NOTE_INDENT = 4  # a definition's later lines are indented by this much, as a list item's are


def footnote_plugin(md: MarkdownIt) -> None:
    """Teaches `md` footnote definitions (a block rule, which may end a paragraph) and references."""
    md.block.ruler.before("reference", "footnote_definition", _definition, {"alt": ["paragraph", "reference"]})
    md.inline.ruler.before("link", "footnote_reference", _reference)


def _definition(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """`[^label]: text` and the blocks indented under it: the note's blocks, parsed as Markdown
    between `footnote_open` and `footnote_close`."""
    if state.is_code_block(start_line):
        return False
    line_start, line_end = state.bMarks[start_line] + state.tShift[start_line], state.eMarks[start_line]
    found = _DEFINITION.match(state.src, line_start, line_end)
    if not found:
        return False
    if silent:
        return True
    state.env.setdefault(_LABELS, set()).add(found.group(1).casefold())
    opened = state.push("footnote_open", "", 1)
    opened.meta = {"label": found.group(1)}
    # The first line is read from after the colon, the spaces there as its indentation inside the note.
    saved = state.bMarks[start_line], state.tShift[start_line], state.sCount[start_line]
    after = found.end()
    column = state.sCount[start_line] + after - line_start
    width, pos = 0, after
    while pos < line_end and state.src[pos] in " \t":
        width += 4 - (column + width) % 4 if state.src[pos] == "\t" else 1
        pos += 1
    state.blkIndent += _NOTE_INDENT
    state.bMarks[start_line], state.tShift[start_line] = after, pos - after
    state.sCount[start_line] = state.blkIndent + width
    state.md.block.tokenize(state, start_line, end_line)
    state.blkIndent -= _NOTE_INDENT
    state.bMarks[start_line], state.tShift[start_line], state.sCount[start_line] = saved
    opened.map = [start_line, state.line]
    state.push("footnote_close", "", -1)
    return True


def _reference(state: StateInline, silent: bool) -> bool:
    """`[^label]` naming a footnote the page defines: a `footnote_ref` token (its label in `meta`)."""
    found = _REFERENCE.match(state.src, state.pos, state.posMax)
    if not found or found.group(1).casefold() not in state.env.get(_LABELS, ()):
        return False
    if not silent:
        state.push("footnote_ref", "", 0).meta = {"label": found.group(1)}
    state.pos = found.end()
    return True
