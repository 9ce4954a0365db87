"""Markdown to clean text (the rule in `markup`), read from markdown-it-py's token stream.

The parser is CommonMark with GFM tables, footnotes (`footnotes.py`) and raw HTML recognised, so
lists, nesting, fences, setext headings, block quotes, link reference definitions and footnotes
are read as a renderer reads them, never guessed from a line's first characters. Front matter is
split off before (`frontmatter.py`). Liquid / Jinja / Hugo template tags are dropped from the text and kept in code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from html import unescape

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .footnotes import footnote_plugin
from .markup import ANY_TAG, TEMPLATE_TAG, CleanText, NamedSection

# One parser for the process: parsing keeps its state per call, the parser itself is only read.
_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table").use(footnote_plugin)

# A template tag on one line, held out of the source before parsing: its spaces would otherwise end
# a link's address (Hugo's `[text]({{< relref "page" >}})` is no link to CommonMark, nor is
# `[Blog]: {{< ref "/blog" >}}` a reference definition). No backtick, so it never spans a code span.
_ONE_LINE_TAG = re.compile(r"\{%[^`\n]*?%\}|\{\{[^`\n]*?\}\}|\{#[^`\n]*?#\}")
# Unicode noncharacters, reserved for a program's internal use: a document holds none
_TAG_HELD = re.compile("\ufdd0(\\d+)\ufdd1")
_CODE_HELD = re.compile(r"\x00(\d+)\x00")  # markdown-it turns NUL into U+FFFD: the text holds none
_NOTE_MARK = "\ufdd2"  # where a footnote reference stood: it goes with the spaces before it
_NOTE_MARKED = re.compile(r"\s*\ufdd2")

_DROPPED_TAGS = "script|style|iframe|noscript|template|svg|object"
# elements that go with their content; an HTML comment left open runs to the end of its block
_DROPPED_HTML = re.compile(rf"<({_DROPPED_TAGS})\b.*?</\1\s*>", re.I | re.S)
_DROPPED_START = re.compile(rf"<({_DROPPED_TAGS})\b[^>]*(?<!/)>", re.I)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_HTML_HEADING = re.compile(r"\s*<h([1-6])\b[^>]*>(.*?)</h\1\s*>\s*\Z", re.I | re.S)  # an HTML block of one heading
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")  # "- [x] done": the box is layout

_NEW_ITEM, _ITEM, _QUOTE, _NOTE = "new item", "item", "quote", "note"  # what a block sits in
_CONTENT = frozenset({"inline", "fence", "code_block", "html_block"})
# blocks after which a documented name's description cannot follow its heading any more
_ENDS_FIELD = frozenset({"heading_open", "bullet_list_open", "ordered_list_open", "table_open", "fence",
                         "code_block", "blockquote_open"})


# Python-Markdown block extensions MkDocs sites write, which CommonMark does not know: an
# admonition (`!!! note "Title"`, collapsible `??? tip` / `???+ tip`) or a content tab
# (`=== "pip"`) is a marker line and the block indented four spaces under it; a mkdocstrings
# or mkautodoc directive (`::: httpx.Client`) is a marker line and its indented options.
_BLOCK_MARKER = re.compile(r"^(?P<indent> *)(?:(?:!!!|\?\?\?\+?)[ \t]+\w|===[ \t]+\"|(?P<api>:::)[ \t]+[\w.]+\s*$)")
_FENCE_OPEN = re.compile(r"^ *(`{3,}|~{3,})")
# A Docusaurus admonition: `:::note`, `:::tip[Title]` or `:::warning Title` opens it, `:::` closes it;
# its body is not indented.
_ADMONITION_FENCE = re.compile(r"^ *:::(?:(?:note|tip|info|warning|danger|caution|important|success|secondary)"
                               r"\b.*|\s*)$")
# MDX (Docusaurus): an ES module line at the top level, and a JSX comment.
_MDX_MODULE_LINE = re.compile(r"^(?:import|export)\s")
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)


def clean_markdown(body: str) -> str:
    """A Markdown body (front matter already split off) as clean text (see `markup`)."""
    return parse_markdown(body)[0]


def parse_markdown(body: str) -> tuple[str, str | None]:
    """A Markdown body (front matter already split off) as clean text (see `markup`), and its
    title: its first level-1 heading; without one, when the page opens with a heading (an mdBook
    chapter opening at `##`), its first heading of the highest level it has. None otherwise: a page
    that opens with prose and has `##` sections has its title elsewhere (an MkDocs nav), and a `#`
    line in a code block is no heading.

    Headings (ATX and setext) become `#` lines; paragraphs and block-quote paragraphs one line each;
    a list item's first paragraph its `- item` line, its later paragraphs paragraphs (a nested list
    gives its own items); fenced and indented code a fence with its language; a table one
    `| a | b |` line a row (no separator row); a footnote definition its own paragraphs where it
    is written, and a footnote reference nothing. Rules, link reference definitions, images, HTML
    comments and script/style/iframe/noscript/template/svg/object elements go with their content;
    other HTML loses its tags and keeps its text.

    An admonition or a content tab is read as the page shows it: its body, dedented, in place,
    without the marker line (its title is the box's label); a mkdocstrings or mkautodoc directive
    renders a docstring the source does not hold, and goes with its options (`mkdocs_blocks`).
    """
    tags: list[str] = []
    source = _ONE_LINE_TAG.sub(lambda tag: _hold(tags, tag.group(0), "\ufdd0{}\ufdd1"), mkdocs_blocks(body))
    reader = _Reader(tags)
    return reader.read(_PARSER.parse(source)), reader.title


def mkdocs_blocks(source: str) -> str:
    """`source` with its MkDocs block extensions (`_BLOCK_MARKER`) turned into the CommonMark a
    reader sees: each admonition's or tab's body dedented by four spaces in place of its marker
    line, each mkdocstrings directive gone with its options. Nested blocks nest; a marker inside
    fenced code is code. Blocks end at the first line indented less than their body."""
    out: list[str] = []
    blocks: list[tuple[int, bool]] = []  # per open block: its body's indentation, whether it is dropped
    fence = ""  # the open fence's marker (``` or ~~~, as long as written)
    for line in source.split("\n"):
        stripped = line.lstrip(" \t")
        line = line[:len(line) - len(stripped)].expandtabs(4) + stripped
        width = len(line) - len(stripped)
        while stripped and blocks and width < blocks[-1][0]:
            blocks.pop()
            fence = ""  # a fence left open in a block ends with it
        if any(dropped for _indent, dropped in blocks):
            continue
        text = line[min(width, 4 * len(blocks)):]
        if fence:
            if _closes(fence, stripped):
                fence = ""
            out.append(text)
            continue
        if _ADMONITION_FENCE.match(text):
            out.append("")  # a Docusaurus admonition's fence: its body reads in place
            continue
        marker = _BLOCK_MARKER.match(line)
        if marker:
            blocks.append((len(marker.group("indent")) + 4, bool(marker.group("api"))))
            out.append("")  # the marker ends the paragraph before it
            continue
        opened = _FENCE_OPEN.match(text)
        if opened:
            fence = opened.group(1)
        out.append(text)
    return "\n".join(out)


def _closes(fence: str, stripped: str) -> bool:
    """The stripped line closes the open fence: its character, at least as many times, and nothing else."""
    return stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]).strip()


def mdx_markdown(source: str) -> str:
    """An MDX page (Docusaurus) as the Markdown a reader sees: its ES module lines (`import Tabs
    from '@theme/Tabs';`, `export const x = ...`, at the top level, outside fenced code) and its JSX
    comments (`{/* ... */}`) gone; JSX elements are HTML to the Markdown reader (their text kept)."""
    out: list[str] = []
    fence = ""
    for line in _MDX_COMMENT.sub("", source).split("\n"):
        opened = _FENCE_OPEN.match(line)
        if fence:
            if _closes(fence, line.strip()):
                fence = ""
        elif opened:
            fence = opened.group(1)
        elif _MDX_MODULE_LINE.match(line):
            continue
        out.append(line)
    return "\n".join(out)


def _one_code_span(token: Token) -> bool:
    """The inline token is one code span and nothing else but spaces ("`virtualenvs.path`")."""
    pieces = [c for c in token.children or [] if not (c.type == "text" and not c.content.strip())]
    return len(pieces) == 1 and pieces[0].type == "code_inline"


def _hold(held: list[str], text: str, mark: str) -> str:
    """`mark` with the index `text` gets in `held`, appended there."""
    held.append(text)
    return mark.format(len(held) - 1)


def _closing(tag: str) -> re.Pattern[str]:
    return re.compile(rf"</{tag}\s*>", re.I)


def _dropped_start(html: str) -> str | None:
    """The name of the dropped element (script, svg ...) whose start tag `html` is, if it is one."""
    opened = _DROPPED_START.match(html)
    return opened.group(1).lower() if opened else None


class _Reader:
    """Walks one document's block tokens, writing each block through `CleanText`."""

    def __init__(self, tags: list[str]) -> None:
        self.tags = tags  # the template tags held out of the source
        self.out = CleanText()
        self.containers: list[str] = []  # _NEW_ITEM / _ITEM / _QUOTE, innermost last
        self.heading = 0  # the level of the heading being read, 0 outside one
        self.rows: list[list[str]] | None = None  # the table being read
        self.dropping: str | None = None  # a dropped HTML element left open by an earlier block
        self.section = NamedSection(self.out)  # a heading of one code span documents that name
        self.title: str | None = None  # the page's title so far (`_offer_title`)
        self.title_level = 7  # ... the level of its heading
        self.opens_with_heading: bool | None = None  # its first block is a heading (None: no heading yet)

    def read(self, tokens: Sequence[Token]) -> str:
        """The clean text of a document's tokens."""
        for token in tokens:
            if self.dropping and token.type in _CONTENT:
                self._inside_dropped(token)
            else:
                if token.type in _ENDS_FIELD:
                    self.section.end()
                handle = getattr(self, f"_on_{token.type}", None)
                if handle:
                    handle(token)
        self.section.end()
        return self.out.text()

    def as_written(self, text: str) -> str:
        """`text` with its template tags back where they were (code quotes them as written)."""
        return _TAG_HELD.sub(lambda held: self.tags[int(held.group(1))], text)

    def inline_text(self, token: Token) -> str:
        """An inline token's text: inline markup gone (a link is its text, an autolink its address,
        an image, inline HTML and a footnote reference nothing, with the spaces before it), template
        tags gone, inline code kept as written."""
        codes: list[str] = []
        text = TEMPLATE_TAG.sub("", "".join(self._inline_pieces(token.children or [], codes)))
        text = _NOTE_MARKED.sub("", text)
        return _CODE_HELD.sub(lambda held: codes[int(held.group(1))], text)

    def _inline_pieces(self, children: Sequence[Token], codes: list[str]) -> Iterator[str]:
        """The text of inline tokens in order; each code span is held in `codes` and stands in the
        text as a NUL-delimited index, so the sweep for template tags left in the text (one spanning
        lines) cannot touch it."""
        dropping: str | None = None  # an inline <script>/<iframe>... whose content is being skipped
        for child in children:
            if dropping:
                if child.type == "html_inline" and _closing(dropping).match(child.content):
                    dropping = None
            elif child.type in ("text", "text_special"):
                yield _TAG_HELD.sub("", child.content)
            elif child.type == "code_inline":
                yield _hold(codes, self.as_written(child.content), "\x00{}\x00")
            elif child.type in ("softbreak", "hardbreak"):
                yield " "
            elif child.type == "footnote_ref":
                yield _NOTE_MARK
            elif child.type == "html_inline":
                dropping = _dropped_start(child.content)

    def _inside_dropped(self, token: Token) -> None:
        """Skips a block inside an open dropped element; the block holding its end tag ends it (an
        HTML block's text after the end tag is read)."""
        assert self.dropping
        end = _closing(self.dropping).search(token.content)
        if end:
            self.dropping = None
            if token.type == "html_block":
                self._html(token.content[end.end():])

    # --- containers: what the next paragraph is -------------------------------------------------
    def _on_list_item_open(self, token: Token) -> None:
        self.containers.append(_NEW_ITEM)

    def _on_blockquote_open(self, token: Token) -> None:
        self.containers.append(_QUOTE)

    def _on_footnote_open(self, token: Token) -> None:
        self.containers.append(_NOTE)

    def _on_list_item_close(self, token: Token) -> None:
        self.containers.pop()

    _on_blockquote_close = _on_footnote_close = _on_list_item_close

    def _on_heading_open(self, token: Token) -> None:
        self.heading = int(token.tag[1:])

    def _on_heading_close(self, token: Token) -> None:
        self.heading = 0

    def _offer_title(self, text: str, level: int) -> None:
        """A heading about to be written becomes the title when it is the first of its level and no
        higher one came before, if it is a level-1 heading or the page opened with a heading."""
        if self.opens_with_heading is None:
            self.opens_with_heading = not self.out.blocks
        if text and level < self.title_level and (level == 1 or self.opens_with_heading):
            self.title, self.title_level = text, level

    # --- tables -----------------------------------------------------------------------------------
    def _on_table_open(self, token: Token) -> None:
        self.rows = []

    def _on_tr_open(self, token: Token) -> None:
        assert self.rows is not None
        self.rows.append([])

    def _on_table_close(self, token: Token) -> None:
        self.out.table(self.rows or [])
        self.rows = None

    # --- content --------------------------------------------------------------------------------
    def _on_inline(self, token: Token) -> None:
        """A table cell, a heading's title, a list item's first paragraph or a paragraph."""
        text = self.inline_text(token)
        if self.rows is not None:
            self.rows[-1].append(text)
        elif self.heading:
            self._offer_title(text.strip(), self.heading)
            self.out.heading(text, self.heading)
            self.section.open(text.strip() if _one_code_span(token) else None)
        elif self.containers and self.containers[-1] == _NEW_ITEM:
            self.containers[-1] = _ITEM
            self.out.item(_TASK_BOX.sub("", text.strip()))
        elif not self.containers and self.section.take(text):
            pass  # a setting's detail or description (markup.NamedSection)
        else:
            self.out.paragraph(text)

    def _on_fence(self, token: Token) -> None:
        """Fenced code, with the first word of its info string as language ("{.python}" too)."""
        language = token.info.strip().strip("{}.").split()
        self.out.code(self.as_written(token.content), language[0] if language else "")

    def _on_code_block(self, token: Token) -> None:
        self.out.code(self.as_written(token.content))

    def _on_html_block(self, token: Token) -> None:
        heading = _HTML_HEADING.match(_HTML_COMMENT.sub("", token.content))
        if heading:  # a page's `<h1 align="center">Name</h1>` is its title, not a paragraph
            level, text = int(heading.group(1)), unescape(ANY_TAG.sub("", heading.group(2))).strip()
            self._offer_title(text, level)
            self.out.heading(text, level)
            return
        self._html(token.content)

    def _html(self, html: str) -> None:
        """An HTML block's text as a paragraph: tags and template tags gone, entities read. Comments
        and dropped elements go with their content; a dropped element left open (an `<svg>` whose
        content holds a blank line, which ends an HTML block) drops the blocks after it up to its
        end tag."""
        html = _DROPPED_HTML.sub("", _HTML_COMMENT.sub("", self.as_written(html)))
        opened = _DROPPED_START.search(html)
        if opened:
            self.dropping = opened.group(1).lower()
            html = html[:opened.start()]
        self.out.paragraph(unescape(ANY_TAG.sub("", TEMPLATE_TAG.sub("", html))))
