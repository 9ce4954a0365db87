"""reStructuredText to clean text, parsed by docutils (the reference reST implementation).

The body is parsed into a docutils document tree and written out as clean text (see
`markup`): section titles become `#` headings, paragraphs and list items paragraphs, literal
blocks and code directives fenced code, tables `| a | b |` rows; comments, link targets,
substitution definitions, images, raw blocks, tables of contents and parser messages go. Inline
markup is read as text: a link is its text, `:pep:`484`` is "PEP 484", a Sphinx role what its
rendered page shows (`sphinx_roles`: `:attr:`.SessionMixin.permanent`` is "SessionMixin.permanent",
`:doc:`/blueprints`` is "blueprints").

Sphinx roles and directives are unknown to plain docutils; each name the text uses is
registered before parsing: roles as literal text (`sphinx_roles.role_text`), `code-block` /
`sourcecode` as code, other directives as containers whose argument and content are read as reST.
File inclusion and raw passthrough are off: a document cannot pull in another file.
"""

from __future__ import annotations

import io
import re
from typing import Any

from docutils import ApplicationError, nodes  # type: ignore[import-untyped]
from docutils.core import publish_doctree  # type: ignore[import-untyped]
from docutils.parsers.rst import Directive, directives, roles  # type: ignore[import-untyped]
from docutils.parsers.rst.languages import en  # type: ignore[import-untyped]
from docutils.utils import SystemMessage  # type: ignore[import-untyped]

from . import FormatError, Parsed
from .headers import header_metadata, header_text, snake, split_header
from .markup import DEFAULT_LINE, OBJECT_KINDS, CleanText, field_name, one_line, owned_default
from .sphinx_roles import role_text

_SETTINGS = {
    "report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
    "doctitle_xform": False, "sectsubtitle_xform": False, "docinfo_xform": False,
    "_disable_config": True, "syntax_highlight": "none", "smart_quotes": False,
    "pep_references": False, "rfc_references": False, "input_encoding": "unicode",
}
_ROLE_NAME = re.compile(r"(?<![\w`]):((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*):`")
_DIRECTIVE_NAME = re.compile(r"^\s*\.\.\s+((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*)::", re.M)
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
# `.. include:: ../shared/intro.rst` (and Sphinx's literalinclude): never followed (file insertion is off)
_INCLUDE = re.compile(r"^[ \t]*\.\.[ \t]+(?:literal)?include::[ \t]*(\S.*?)[ \t]*$", re.M)
MIN_WORDS_BESIDE_INCLUDES = 5  # fewer, and the file is its includes: skipped, saying which
_PEP_TARGET = re.compile(r"^(\d+)(?:#.*)?$")
_MARK = "\x01"
_MARKED = re.compile(r"\s*\x01")
CODE_DIRECTIVES = ("code", "code-block", "sourcecode", "productionlist")
# Blocks that hold no prose of the document.
_DROPPED = (nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message,
            nodes.raw, nodes.image, nodes.pending, nodes.transition, nodes.label)


class _AnyOption(dict):
    """A directive option spec that takes every option as text (Sphinx adds many)."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged

    def __bool__(self) -> bool:  # docutils reads options only when the spec is truthy
        return True


class _Lenient(Directive):
    """A directive with an optional argument, content, and any option (Sphinx adds many)."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = _AnyOption()


class _Code(_Lenient):
    """`.. code-block:: python` (and `code`, `sourcecode`, `productionlist`): a literal block."""

    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        language = self.arguments[0].split()[0] if self.arguments and self.name != "productionlist" else ""
        return [nodes.literal_block(code, code, classes=["code", language] if language else ["code"])]


class _Container(_Lenient):
    """Any other directive docutils does not know: its argument and content read as reST."""

    def run(self) -> list[nodes.Node]:
        node = nodes.container()
        if self.arguments:
            inline, messages = self.state.inline_text(self.arguments[0], self.lineno)
            node += nodes.paragraph("", "", *inline)
            node += messages
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


# --- Sphinx object descriptions and version notes ---------------------------------------------
# A directive describing one documented name (`py:data`, `std:confval`: OBJECT_KINDS after the
# domain prefix) is written as a field: its name must travel with its description.
# a version note as Sphinx renders it: never a bare number glued to the prose around it
VERSION_NOTES = {"versionadded": "Added in version", "versionchanged": "Changed in version",
                 "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}


class _Described(nodes.Element):
    """A Sphinx object description: `signature` (e.g. "CACHE_DIR", "join(a, *p)"),
    `details` (its `:type:` / `:default:` options as "type int", "default 35"), then its content."""


class _VersionNoted(nodes.Element):
    """A version note: `label` ("Changed in version 1.0"), then its content."""


def _directive_kind(name: str) -> str:
    """`py:data` -> "data", `confval` -> "confval"."""
    return name.lower().rsplit(":", 1)[-1]


class _Object(_Lenient):
    """`.. py:data:: NAME`, `.. confval:: name`, `.. function:: f(x)` ...: a documented name."""

    def run(self) -> list[nodes.Node]:
        signature = one_line(self.arguments[0]) if self.arguments else ""
        node = _Described(signature=signature,
                          details=[f"{key} {_option_text(str(value))}" for key, value in
                                   self.options.items() if key in ("type", "default") and value])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


_INLINE_ROLE = re.compile(r":((?:(?!_)\w)+(?:[-.+:](?:(?!_)\w)+)*):`([^`]*)`")


def _option_text(value: str) -> str:
    """An option's value as text: `:code-py:`str`` -> str, ``35`` -> 35 (options are not parsed as reST)."""
    return one_line(_INLINE_ROLE.sub(lambda m: role_text(m.group(1), m.group(2)), value)).strip("`")


class _VersionNote(_Lenient):
    """`.. versionchanged:: 1.0` (and added, deprecated, removed): "Changed in version 1.0: ..."."""

    def run(self) -> list[nodes.Node]:
        version, _, inline = (self.arguments[0].partition("\n") if self.arguments else ("", "", ""))
        node = _VersionNoted(label=f"{VERSION_NOTES[_directive_kind(self.name)]} {one_line(version)}".strip())
        text = "\n".join([inline.strip(), *self.content]).strip()
        if text:
            self.state.nested_parse(type(self.content)(text.splitlines()), self.content_offset, node)
        return [node]


def _text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """A Sphinx role (`:func:`, `:class:`, `:ref:` ...): the text its page shows, as a literal."""
    return [nodes.literal(rawtext, role_text(name, nodes.unescape(text)))], []


def _number_role(prefix: str):
    """`:pep:`484``, `:pep:`the style guide <8#naming>``: a reference reading "PEP 484" or
    "the style guide (PEP 8)" (docutils' own role refuses a title or an anchor)."""

    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        text = nodes.unescape(text)
        titled = _TITLED.match(text)
        title, target = (titled.group(1), titled.group(2)) if titled else ("", text)
        number = _PEP_TARGET.match(target.strip())
        label = f"{prefix} {int(number.group(1))}" if number else target.strip()
        shown = f"{title} ({label})" if title else label
        return [nodes.reference(rawtext, shown, refuri=target)], []

    return role


roles.register_local_role("pep", _number_role("PEP"))
roles.register_local_role("rfc", _number_role("RFC"))
for _name in CODE_DIRECTIVES:
    directives.register_directive(_name, _Code)


def _register_unknown(body: str) -> None:
    """Register every role and directive name the text uses that docutils does not know."""
    known_roles = set(roles._roles) | set(roles._role_registry) | set(en.roles)
    for name in set(m.lower() for m in _ROLE_NAME.findall(body)) - known_roles:
        roles.register_local_role(name, _text_role)
    known = set(directives._directives) | set(directives._directive_registry) | set(en.directives)
    for name in set(m.lower() for m in _DIRECTIVE_NAME.findall(body)) - known:
        kind = _directive_kind(name)
        directive = _VersionNote if kind in VERSION_NOTES else _Object if kind in OBJECT_KINDS else _Container
        directives.register_directive(name, directive)


# --- the tree as clean text ---------------------------------------------------------------------

def _inline(node: nodes.Node) -> str:
    """The text of inline content: references as their text, footnote marks and images gone."""
    if isinstance(node, nodes.Text):
        return str(node)
    if isinstance(node, (nodes.footnote_reference, nodes.citation_reference)):
        return _MARK  # removed with the space before it ("a guide [2]_." -> "a guide.")
    if isinstance(node, nodes.image):
        return ""
    if isinstance(node, nodes.problematic):  # markup docutils could not read: its text, marks off
        return re.sub(r"^:[\w:.+-]+:`|`_{0,2}$|^`", "", node.astext())
    if isinstance(node, nodes.system_message):
        return ""
    return "".join(_inline(child) for child in node.children)


def _text(node: nodes.Node) -> str:
    """The inline text of a node, footnote marks gone with the space before them."""
    return _MARKED.sub("", _inline(node))


class _Writer:
    """Walks a docutils document and writes clean text."""

    def __init__(self, drop_sections: frozenset[str]) -> None:
        self.out = CleanText()
        self.drop_sections = drop_sections
        self.first_title = ""
        self.described: list[str] = []  # the names of the object descriptions being written, innermost last

    def blocks(self, node: nodes.Node, depth: int) -> None:
        for child in node.children:
            self.block(child, depth)

    def block(self, node: nodes.Node, depth: int) -> None:
        """One body element (and what it holds)."""
        if isinstance(node, _DROPPED) or (isinstance(node, nodes.topic) and "contents" in node["classes"]):
            return
        if isinstance(node, nodes.section):
            title = one_line(_text(node[0])) if node.children and isinstance(node[0], nodes.title) else ""
            if title.lower() in self.drop_sections:
                return
            self.first_title = self.first_title or title
            self.out.heading(title, depth + 1)
            self.blocks(node, depth + 1)
        elif isinstance(node, nodes.title):
            if not isinstance(node.parent, nodes.section):  # a topic's, a sidebar's, an admonition's
                self.out.paragraph(_text(node))
        elif isinstance(node, (nodes.literal_block, nodes.doctest_block, nodes.math_block)):
            classes = [c for c in node.get("classes", []) if c != "code"]
            language = "pycon" if isinstance(node, nodes.doctest_block) else (classes[0] if classes else "")
            self.out.code(node.astext(), language)
        elif isinstance(node, nodes.table):
            self.out.table([_text(entry) for entry in row.findall(nodes.entry)]
                           for row in node.findall(nodes.row))
        elif isinstance(node, (nodes.definition_list_item, nodes.field, nodes.option_list_item)):
            self._labelled(node, depth)
        elif isinstance(node, _Described):
            self._described(node, depth)
        elif isinstance(node, _VersionNoted):
            self._version_note(node, depth)
        elif isinstance(node, nodes.list_item):
            self._item(node, depth)
        elif isinstance(node, nodes.line_block):
            for line in node.findall(nodes.line):
                self.out.paragraph(_text(line))
        elif isinstance(node, nodes.attribution):
            self.out.paragraph("— " + _text(node))
        elif isinstance(node, nodes.paragraph):
            self._paragraph(node)
        elif isinstance(node, nodes.TextElement):
            self.out.paragraph(_text(node))
        elif isinstance(node, nodes.Element):
            self.blocks(node, depth)

    def _item(self, node: nodes.list_item, depth: int) -> None:
        """A list item: its first paragraph as the item, the rest (a nested list, code) after it."""
        rest = list(node.children)
        if rest and isinstance(rest[0], nodes.paragraph):
            self.out.item(_text(rest.pop(0)))
        for child in rest:
            self.block(child, depth)

    def _described(self, node: _Described, depth: int) -> None:
        """An object description: its first paragraph opens with the signature (and type and
        default), "CACHE_DIR: Where ...", so every sentence about it can be found by its name;
        a `Default: x` paragraph in it reads "CACHE_DIR default: x"."""
        label = node["signature"] + (f" ({', '.join(node['details'])})" if node["details"] else "")
        rest = list(node.children)
        if rest and isinstance(rest[0], nodes.paragraph) and not DEFAULT_LINE.match(_text(rest[0])):
            self.out.field(label, _text(rest.pop(0)))
        elif label:
            self.out.field(label, "")
        self.described.append(field_name(label))
        for child in rest:
            self.block(child, depth)
        self.described.pop()

    def _version_note(self, node: _VersionNoted, depth: int) -> None:
        """"Changed in version 1.0 (CACHE_DIR): what changed." (the name only inside a description)."""
        label = node["label"] + (f" ({self.described[-1]})" if self.described else "")
        rest = list(node.children)
        if rest and isinstance(rest[0], nodes.paragraph):
            self.out.paragraph(f"{label}: {_text(rest.pop(0))}")
        else:
            self.out.paragraph(label + ".")
        for child in rest:
            self.block(child, depth)

    def _paragraph(self, node: nodes.Node) -> None:
        """A paragraph; inside an object description, `Default: x` says whose default it is."""
        text = _text(node)
        self.out.paragraph(owned_default(text, self.described[-1]) if self.described else text)

    def _labelled(self, node: nodes.Element, depth: int) -> None:
        """`term` + definition, `:field:` + body, `--option` + description: "label: first
        paragraph", then the rest of the body."""
        label_types = (nodes.term, nodes.classifier, nodes.field_name, nodes.option_group)
        label = " ".join(one_line(_text(c)) for c in node.children if isinstance(c, label_types))
        bodies = [c for c in node.children if not isinstance(c, label_types)]
        rest: list[nodes.Node] = [child for body in bodies for child in body.children]
        if rest and isinstance(rest[0], nodes.paragraph):
            self.out.paragraph(f"{label}: {_text(rest.pop(0))}" if label else _text(rest[0]))
        elif label:
            self.out.paragraph(label)
        for child in rest:
            self.block(child, depth)


def rst_to_text(body: str, drop_sections: frozenset[str] = frozenset()) -> tuple[str, str]:
    """(clean text, first section title) of a reST body.

    Args:
        body: reStructuredText.
        drop_sections: section titles (lower case) left out with their content.

    Raises:
        FormatError: docutils cannot parse it (rare: it reports most problems and reads on).
    """
    _register_unknown(body)
    try:
        tree = publish_doctree(body, settings_overrides=dict(_SETTINGS, warning_stream=io.StringIO()))
    except (ApplicationError, SystemMessage, RecursionError) as exc:  # docutils reads on through most input
        raise FormatError(f"reStructuredText could not be parsed ({type(exc).__name__})") from None
    writer = _Writer(drop_sections)
    writer.blocks(tree, 1)
    return writer.out.text(), writer.first_title


def parse_rst(content: str, is_rst: bool = True) -> Parsed:
    """A `.rst` (or `.txt`) file: its RFC 822 header block, when it starts with one, as
    metadata (`headers.header_metadata`), the rest as reST.

    A `.txt` file's body is reST when its header says so (`Content-Type: text/x-rst`, as PEPs
    written in reST did) or it carries a `PEP` number; otherwise it is plain text. A PEP's
    Copyright section (the same public-domain notice in every PEP) is left out. A file that is
    a header block alone has its fields as its text ("Status: Rejected."), so it is not lost;
    otherwise the shown fields (`headers.SHOWN_FIELDS`: authors, status, type, created, ...) open
    the text as `Key: value.` lines, as the published page shows them above the body.
    """
    split = split_header(content)
    fields, body = split if split else ([], content)
    title, meta = header_metadata(fields) if fields else ("", {})
    keys = {snake(k): v for k, v in fields}
    if is_rst or "pep" in keys or "x-rst" in keys.get("content_type", ""):
        text, first = rst_to_text(body, frozenset({"copyright"}) if "pep" in keys else frozenset())
    else:
        out = CleanText()
        for paragraph in re.split(r"\n\s*\n", body):
            out.paragraph(paragraph)
        text, first = out.text(), ""
    if not text.strip() and fields:  # a header alone (PEP 210): its fields are what the file says
        out = CleanText()
        for key, value in fields:
            if value:
                out.paragraph(f"{key}: {value}.")
        text = out.text()
    elif fields and (is_rst or "pep" in keys):  # the header as the published page shows it, ahead of the body
        out = CleanText()
        for line in header_text(fields):
            out.paragraph(line)
        text = f"{out.text()}\n\n{text}" if out.text() else text
    includes = _INCLUDE.findall(body) if is_rst or "pep" in keys else []
    if includes and len(text.split()) < MIN_WORDS_BESIDE_INCLUDES:
        raise FormatError(f"it only includes {', '.join(includes[:3])}, which is not read (includes are never "
                          "followed, so nothing outside the ingested folder is read): ingest that file itself")
    warnings = [f"include of {target} not followed (ingest that file itself)" for target in includes]
    return Parsed(title or first, text, meta, warnings=warnings)
