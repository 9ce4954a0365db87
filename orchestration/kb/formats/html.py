"""HTML pages to clean text and metadata, parsed by Beautiful Soup on the `html.parser` backend.

`html.parser` is the standard library's parser: pure Python, nothing to compile, and lenient
with broken markup. lxml would parse faster, but a page is read once at ingest and the embedder
costs far more per page (DESIGN.md section 9), so it is not worth a compiled dependency.

What is kept: the main text (`<main>`, else the first `<article>`, else `<body>`), with `<h1>`
to `<h6>` as headings, `<pre>` as fenced code, `<table>` as `| a | b |` rows, every other block
(paragraphs, list items, quotes, definition terms) as a paragraph and links as their text. What
goes: navigation, page header and footer, asides, scripts, styles, iframes, forms, templates,
inline SVG, and anything marked hidden. Metadata comes from `<title>` and `<meta>` (`META_FIELDS`).
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from . import FormatError, Parsed
from .markup import (
    OBJECT_KINDS,
    TEMPLATE_TAG,
    VERSION_NOTE,
    CleanText,
    NamedSection,
    field_name,
    one_line,
    owned_default,
)

# Elements whose content is never the document's text.
DROPPED_TAGS = ("script", "style", "noscript", "template", "iframe", "object", "embed", "svg", "canvas",
                "form", "button", "select", "input", "textarea", "nav", "header", "footer", "aside", "dialog")
_DROPPED_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search"}
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = {"p", "li", "dt", "dd", "blockquote", "figcaption", "caption", "address", "summary", "td", "th"}
_CONTAINERS = {"div", "section", "article", "main", "body", "ul", "ol", "dl", "figure", "details", "center",
               "html", "hgroup", "span"}

# Which <meta> gives which field, in order of preference (matched on `name`, `property` or
# `itemprop`, ignoring case); `<time datetime>` in the main text is the published date's fallback.
META_FIELDS: dict[str, tuple[str, ...]] = {
    "published_at": ("article:published_time", "datePublished", "date", "dcterms.created", "dc.date.created",
                     "dcterms.date", "dc.date", "pubdate", "publish-date", "publication_date",
                     "citation_publication_date", "sailthru.date"),
    "updated_at": ("article:modified_time", "og:updated_time", "dateModified", "dcterms.modified",
                   "dc.date.modified", "last-modified", "lastmod"),
    "author": ("author", "article:author", "dcterms.creator", "dc.creator", "citation_author", "byl"),
    "description": ("description", "og:description", "dcterms.description"),
    "tags": ("keywords", "article:tag"),
    "url": ("og:url",),
}
_URL = re.compile(r"^https?://", re.I)


def _meta_values(soup: BeautifulSoup) -> dict[str, list[str]]:
    """Every <meta> content by its lower-cased name, property or itemprop."""
    values: dict[str, list[str]] = {}
    for meta in soup.find_all("meta"):
        content = meta.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        for attribute in ("name", "property", "itemprop", "http-equiv"):
            key = meta.get(attribute)
            if isinstance(key, str) and key.strip():
                values.setdefault(key.strip().lower(), []).append(content.strip())
    return values


def _metadata(soup: BeautifulSoup, main: Tag) -> dict[str, Any]:
    """Fields from <meta> (META_FIELDS), <link rel=canonical> and, for the date, <time datetime>."""
    values = _meta_values(soup)
    meta: dict[str, Any] = {}
    for field, names in META_FIELDS.items():
        for name in names:
            found = values.get(name.lower())
            if not found:
                continue
            if field == "author":  # article:author is often a profile URL, not a name
                found = [v for v in found if not _URL.match(v)]
                if not found:
                    continue
            meta[field] = found if field in ("author", "tags") and len(found) > 1 else found[0]
            break
    if "published_at" not in meta:
        stamp = main.find("time", attrs={"datetime": True}) or soup.find("time", attrs={"datetime": True})
        if isinstance(stamp, Tag) and str(stamp.get("datetime") or "").strip():
            meta["published_at"] = str(stamp["datetime"]).strip()
    canonical = soup.find("link", rel="canonical")
    if isinstance(canonical, Tag) and isinstance(canonical.get("href"), str) and _URL.match(str(canonical["href"])):
        meta["url"] = str(canonical["href"])
    return meta


def _title(soup: BeautifulSoup, main: Tag) -> str:
    """<title>, else og:title, else the first <h1>."""
    if soup.title and soup.title.get_text(strip=True):
        return one_line(soup.title.get_text())
    og = soup.find("meta", attrs={"property": "og:title"})
    if isinstance(og, Tag) and isinstance(og.get("content"), str) and str(og["content"]).strip():
        return one_line(str(og["content"]))
    h1 = main.find("h1")
    return one_line(h1.get_text(" ")) if h1 else ""


def _hidden(tag: Tag) -> bool:
    style = str(tag.get("style") or "").replace(" ", "").lower()
    return (tag.has_attr("hidden") or str(tag.get("aria-hidden") or "").lower() == "true"
            or "display:none" in style or str(tag.get("role") or "").lower() in _DROPPED_ROLES)


def _drop_chrome(root: Tag) -> None:
    """Remove navigation, scripts, forms and the like (DROPPED_TAGS), hidden elements, comments and
    permalink anchors (Sphinx's and MkDocs' `<a class="headerlink">¶</a>` after a heading or a name)."""
    for tag in root.find_all(DROPPED_TAGS):
        tag.decompose()
    for tag in root.find_all("a", class_="headerlink"):
        tag.decompose()
    for tag in [t for t in root.find_all(True) if _hidden(t)]:
        if not tag.decomposed:
            tag.decompose()
    for comment in root.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()


def _language(pre: Tag) -> str:
    """A code block's language from `class="language-python"` (or `lang-`, `highlight-`) on <pre> or <code>."""
    for tag in (pre, pre.find("code")):
        if isinstance(tag, Tag):
            for cls in tag.get("class") or []:
                match = re.match(r"^(?:language|lang|highlight|sourceCode)-(\w[\w+-]*)$", cls)
                if match:
                    return match.group(1)
    return ""


class _Writer:
    """Writes an element tree as clean text: inline runs gathered into paragraphs, blocks flushed."""

    def __init__(self) -> None:
        self.out = CleanText()
        self.run: list[str] = []
        self.term = ""          # a <dt> waiting for its <dd>: "term: meaning"
        self.field = False      # ... the <dt> of a Sphinx object description: its <dd> is a field
        self.described: list[str] = []  # the names whose field descriptions (<dd>) we are in
        self.name = ""          # the documented name of the last object description's <dt>
        self.item = False       # the next paragraph opens a list item
        self.section = NamedSection(self.out)  # a heading that is one <code> documents that name

    def flush(self) -> None:
        text = one_line("".join(self.run))
        self.run = []
        if not text:
            return
        if self.term and self.field:
            self.out.field(self.term, text)
            self.term, self.field = "", False
            return
        if not self.term and not self.item and self.section.take(text):
            return  # a setting's detail or description (markup.NamedSection)
        if self.term:
            text, self.term = f"{self.term}: {text}", ""
        note = VERSION_NOTE.match(text)
        if note and self.described:  # "Changed in version 1.0 (CACHE_DIR): ...", as the reST reader says it
            text = f"{note.group('label')} ({self.described[-1]}){text[note.end():]}"
        elif self.described and not self.item:
            text = owned_default(text, self.described[-1])  # "CACHE_DIR default: None."
        (self.out.item if self.item else self.out.paragraph)(text)
        self.item = False

    def end_block(self) -> None:
        """The paragraph being gathered is written; a block other than a paragraph follows (code, a
        table, a list, a definition), so a setting's section without its description ends here."""
        self.flush()
        self.section.end()

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                self.run.append(str(child))
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name.lower()
            if name in _HEADINGS:
                self.end_block()
                self.out.heading(child.get_text(" "), _HEADINGS[name])
                self.section.open(_code_name(child))
            elif name == "pre":
                self.end_block()
                self.out.code(child.get_text(), _language(child))
            elif name == "table":
                self.end_block()
                self.out.table([c.get_text(" ") for c in row.find_all(["td", "th"])] for row in child.find_all("tr"))
            elif name == "br":
                self.run.append(" ")
            elif name in ("img", "hr"):
                continue
            elif name == "dt":
                self.end_block()
                if self.term:  # a term without a meaning of its own (several <dt> for one <dd>)
                    self.out.paragraph(self.term)
                self.term = one_line(child.get_text(" "))
                self.field = _describes_an_object(child)
                self.name = field_name(self.term)
            elif name == "li":  # its first paragraph is the item; what follows it (a nested list) stands apart
                self.end_block()
                self.item = True
                self.walk(child)
                self.flush()
                self.item = False
            elif name == "dd":
                self.run = []  # what stood between the <dt> and its <dd> is white space
                described = self.field
                if described:
                    self.described.append(self.name)
                self.walk(child)
                self.flush()
                if described:
                    self.described.pop()
            elif name in _BLOCKS or name in _CONTAINERS and name != "span":
                self.flush()
                self.walk(child)
                self.flush()
            else:  # inline: a, em, strong, code, span, abbr, ...
                self.walk(child)


def _code_name(heading: Tag) -> str | None:
    """The name a heading documents when it is one <code> element and nothing else but spaces
    (`<h3><code>virtualenvs.path</code></h3>`), else None."""
    parts = [c for c in heading.children if not (isinstance(c, NavigableString) and not c.strip())]
    if len(parts) == 1 and isinstance(parts[0], Tag) and parts[0].name.lower() == "code":
        return one_line(parts[0].get_text()) or None
    return None


def _describes_an_object(dt: Tag) -> bool:
    """True for the <dt> of a Sphinx object description: `<dl class="py data">`, `<dl class="std confval">`."""
    parent = dt.parent
    if not isinstance(parent, Tag) or parent.name != "dl":
        return False
    return any(str(c).lower() in OBJECT_KINDS for c in parent.get("class") or [])


def template_tag(soup: BeautifulSoup) -> str | None:
    """The first Liquid/Jinja tag in the page's text outside code (None: not a template).

    Template syntax inside `<pre>`/`<code>` is a page documenting templates, not a template.
    """
    for text in soup.find_all(string=TEMPLATE_TAG):
        if not any(parent.name in ("pre", "code", "script", "style") for parent in text.parents):
            match = TEMPLATE_TAG.search(str(text))
            if match:
                return match.group(0)
    for element in soup.find_all(True):  # {{ }} in an attribute: href="{{ site.url }}"
        for value in element.attrs.values():
            match = TEMPLATE_TAG.search(value if isinstance(value, str) else " ".join(value))
            if match:
                return match.group(0)
    return None


def parse_html(content: str) -> Parsed:
    """An HTML page's title, clean text and metadata (see the module docstring)."""
    soup = BeautifulSoup(content, "html.parser")
    tag = template_tag(soup)
    if tag:
        raise FormatError(f"a page template, not a page (it holds the template tag {tag[:60]!r}); ingest the "
                          "built site's pages instead")
    body = soup.body or soup
    main = body.find("main") or body.find("article") or body
    assert isinstance(main, Tag)
    meta = _metadata(soup, main)  # before the page chrome goes: a <time> may sit in a header
    title = _title(soup, main)
    _drop_chrome(main)
    writer = _Writer()
    writer.walk(main)
    writer.end_block()
    return Parsed(title, writer.out.text(), meta)
