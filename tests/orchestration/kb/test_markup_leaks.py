"""What a site's source holds besides its text never reaches the text: front matter (YAML or
TOML), template tags, page templates, includes; and a page its front matter leaves unpublished
is not ingested. Each case is a snippet in the shape real documentation sites write."""

from __future__ import annotations

from pathlib import Path

from orchestration.kb.documents import Document, Skipped, iter_documents


def _read(tmp_path: Path, name: str, text: str) -> list[Document | Skipped]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return list(iter_documents([path]))


HUGO_PAGE = """+++
title = "Retention settings"
date = 2024-03-01
tags = ["storage", "retention"]
+++

Blocks are kept for 35 days unless `retention_period` is set.
"""


def test_toml_front_matter_is_metadata_never_text(tmp_path):
    [doc] = _read(tmp_path, "retention.md", HUGO_PAGE)
    assert isinstance(doc, Document), doc
    assert doc.title == "Retention settings" and "+++" not in doc.text and "tags =" not in doc.text
    assert doc.text.startswith("Blocks are kept for 35 days")
    assert str(doc.metadata.get("published_at", "")).startswith("2024-03-01")


def test_pages_their_front_matter_leaves_unpublished_are_skipped_saying_which_field(tmp_path):
    [yaml_page] = _read(tmp_path, "a.md", "---\ntitle: Salaries\npublished: false\n---\nThe pay bands are ...\n")
    [toml_page] = _read(tmp_path, "b.md", "+++\ntitle = 'Next launch'\ndraft = true\n+++\nWe launch in May.\n")
    assert isinstance(yaml_page, Skipped) and "published: false" in yaml_page.reason
    assert isinstance(toml_page, Skipped) and "draft: true" in toml_page.reason
    [status_draft] = _read(tmp_path, "c.md", "---\ntitle: PEP 9999\nstatus: Draft\n---\nThis PEP proposes ...\n")
    assert isinstance(status_draft, Document) and status_draft.metadata["status"] == "draft"


def test_bad_toml_front_matter_names_the_line(tmp_path):
    [page] = _read(tmp_path, "bad.md", "+++\ntitle = 'x'\ndate = = 2\n+++\nBody.\n")
    assert isinstance(page, Skipped) and "not valid TOML" in page.reason and page.origin.endswith(":3")


JEKYLL_PAGE = """---
title: Getting a token
---
{% include warning.html content="Tokens expire." %}

Use the following command to generate one: `{{ site.cli }} token create`.

Your account page is {{ site.baseurl }}/account on {% if site.cloud %}cloud{% endif %} plans.
"""


def test_liquid_tags_are_dropped_from_text_and_kept_inside_code(tmp_path):
    [doc] = _read(tmp_path, "token.md", JEKYLL_PAGE)
    assert isinstance(doc, Document)
    assert "{%" not in doc.text and "site.baseurl" not in doc.text and "include warning" not in doc.text
    assert "{{ site.cli }} token create" in doc.text  # inline code is quoted as written
    assert "Your account page is /account on cloud plans." in doc.text


LAYOUT = """<!DOCTYPE html>
<html><head><title>{{ page.title }}</title></head>
<body>{% include header.html %}<main>{{ content }}</main></body></html>
"""

JINJA_DOCS = """<html><head><title>Template inheritance</title></head><body><main>
<p>A child template starts by extending its parent:</p>
<pre><code>{% extends "base.html" %}
{% block content %}Hello{% endblock %}</code></pre>
</main></body></html>
"""


def test_an_html_page_template_is_skipped_and_a_page_about_templates_is_not(tmp_path):
    [layout] = _read(tmp_path, "_layouts/default.html", LAYOUT)
    assert isinstance(layout, Skipped) and "page template" in layout.reason
    [docs] = _read(tmp_path, "inheritance.html", JINJA_DOCS)
    assert isinstance(docs, Document) and '{% extends "base.html" %}' in docs.text


def test_an_include_is_never_followed_and_always_reported(tmp_path):
    [only_include] = _read(tmp_path, "docs/changelog.rst", ".. include:: ../../CHANGES.rst\n")
    assert isinstance(only_include, Skipped) and "../../CHANGES.rst" in only_include.reason
    [page] = _read(tmp_path, "docs/install.rst", "Installation\n============\n\nInstall it with pip and "
                   "run the service on port 8000.\n\n.. include:: ../shared/licence.rst\n")
    assert isinstance(page, Document) and "Install it with pip" in page.text
    assert page.warnings == ["include of ../shared/licence.rst not followed (ingest that file itself)"]
