"""The Markdown reader (`formats/markdown.py`) writes clean text from markdown-it-py's tokens: each
case is a snippet in the shape documentation sites write, and the exact clean text it becomes."""

from __future__ import annotations

from orchestration.kb.formats.markdown import clean_markdown


def test_a_list_under_a_heading_is_one_item_line_each_with_nested_lists_and_later_paragraphs():
    page = """\
## Upgrading

Before you upgrade:

- Back up the database.
- Stop the workers. They must
  drain their queues first.

  A worker that does not stop in 60 s is killed.
- Check the plugins:
  1. the exporters
  2. the importers
"""
    assert clean_markdown(page) == "\n\n".join([
        "## Upgrading",
        "Before you upgrade:",
        "- Back up the database.",
        "- Stop the workers. They must drain their queues first.",
        "A worker that does not stop in 60 s is killed.",
        "- Check the plugins:",
        "- the exporters",
        "- the importers",
    ])


def test_a_gfm_table_is_one_row_line_each_without_its_separator_row():
    page = """\
| Tier | Hours | Notes |
|:-----|------:|-------|
| 1 | 4 | **paid** at [the base rate](rates.md) |
| 2 | 6 | a \\| b |
"""
    assert clean_markdown(page) == (
        "| Tier | Hours | Notes |\n"
        "| 1 | 4 | paid at the base rate |\n"
        "| 2 | 6 | a / b |"
    )


def test_a_fence_inside_a_list_item_keeps_its_language_and_its_indentation_is_the_items():
    page = """\
1. Install the tool:

   ```bash
   pipx install sightline
     --force
   ```

2. Run it.
"""
    assert clean_markdown(page) == "- Install the tool:\n\n```bash\npipx install sightline\n  --force\n```\n\n- Run it."


def test_setext_headings_are_hash_lines():
    page = "Guide\n=====\n\nIntro text.\n\nInstalling\n----------\n\nRun the installer.\n"
    assert clean_markdown(page) == "# Guide\n\nIntro text.\n\n## Installing\n\nRun the installer."


def test_html_comments_and_scripts_go_with_their_content_other_html_keeps_its_text():
    page = """\
Before.

<!-- TODO: rewrite
this section -->

<script>
track("page");
</script>

<div class="note">Backups run <b>nightly</b> &amp; weekly.</div>

After.
"""
    assert clean_markdown(page) == "Before.\n\nBackups run nightly & weekly.\n\nAfter."


def test_template_tags_go_from_text_and_stay_inside_inline_code_and_in_link_addresses_are_read():
    page = """\
{% include x.html %}

Run `{% include x.html %}` to embed it{% if site.beta %} (beta){% endif %}.

See [the setup guide]({{< relref "setup" >}} "Setup") first.
"""
    assert clean_markdown(page) == (
        "Run {% include x.html %} to embed it (beta).\n\nSee the setup guide first."
    )


def test_link_reference_definitions_go_and_their_links_are_their_text():
    page = """\
Read the [FAQ] and the [guide][setup] before you ask.

[FAQ]: https://example.org/faq
[setup]: {{< ref "/setup" >}} "Setup"
"""
    assert clean_markdown(page) == "Read the FAQ and the guide before you ask."


def test_images_rules_and_autolinks():
    page = "![diagram](arch.png)\n\n---\n\nMail <mailto:ops@example.org> or see <https://example.org/ops>.\n"
    assert clean_markdown(page) == "Mail mailto:ops@example.org or see https://example.org/ops."


def test_an_svg_holding_a_blank_line_goes_whole_and_block_quotes_are_paragraphs():
    page = """\
<svg viewBox="0 0 10 10">
<g>

<path d="M0 0"/>
</g>
</svg>

> **Note:** keys rotate
> every 90 days.
>
> - even the root key
"""
    assert clean_markdown(page) == "Note: keys rotate every 90 days.\n\n- even the root key"


def test_mkdocs_admonitions_and_tabs_are_read_as_their_body_and_api_directives_go():
    """httpx's MkDocs pages: `!!! tip "Gotcha"` opened a quotable unit ("!!! tip "Gotcha" In most
    cases, the proxy URL ..."), an admonition's second paragraph was read as a code block, and
    `::: httpx.Client` with its `:docstring:` / `:members:` options was quoted as prose."""
    page = """\
## Proxies

!!! tip "Gotcha"
    In most cases, the proxy URL should use the `http://` scheme.

    For more information, see [FORWARD vs TUNNEL](#forward-vs-tunnel).

- Use a client:

    ??? note
        A client pools connections.

=== "pip"
    Install with pip.

::: httpx.Client
    :docstring:
    :members: headers cookies

```shell
!!! note stays code inside a fence
```
Done.
"""
    assert clean_markdown(page) == "\n\n".join([
        "## Proxies",
        "In most cases, the proxy URL should use the http:// scheme.",
        "For more information, see FORWARD vs TUNNEL.",
        "- Use a client:",
        "A client pools connections.",
        "Install with pip.",
        "```shell\n!!! note stays code inside a fence\n```",
        "Done.",
    ])


def test_the_title_is_the_first_highest_level_heading_never_a_comment_in_code():
    """httpx's index.md: its title is an HTML `<h1>`, and a shell block's `# The command line
    client is an optional dependency.` became the page's title."""
    from orchestration.kb.formats.markdown import parse_markdown

    page = '<h1 align="center">\nHTTPX\n</h1>\n\n```shell\n# The client is optional.\n$ pip install x\n```\n'
    text, title = parse_markdown(page)
    assert title == "HTTPX" and text.startswith("# HTTPX\n\n```shell")
    assert parse_markdown("```\n# not a title\n```\n\nSetext title\n===\n")[1] == "Setext title"
    assert parse_markdown("## Only a section\n\nText.\n")[1] == "Only a section"  # issue 34: was None


def test_a_docusaurus_admonition_reads_its_body_in_place_without_its_fences():
    page = "Install it first.\n\n:::note[Older versions]\n\nVersion 1 needs Node 14.\n\n:::\n\nThen run it.\n"
    assert clean_markdown(page) == "Install it first.\n\nVersion 1 needs Node 14.\n\nThen run it."


def test_an_mdx_page_reads_without_its_module_lines_and_jsx_comments_but_code_keeps_its_imports(tmp_path):
    from orchestration.kb.documents import iter_documents

    page = tmp_path / "quickstart.mdx"
    page.write_text("---\ntitle: Getting Started\n---\n\nimport Tabs from '@theme/Tabs';\n"
                    "export const year = 2024;\n\n{/* a note for editors */}\n## Install\n\n"
                    "Run the installer once.\n\n```js\nimport js from '@eslint/js';\n```\n", encoding="utf-8")
    (document,) = iter_documents([page])
    assert document.title == "Getting Started"
    assert document.text == "## Install\n\nRun the installer once.\n\n```js\nimport js from '@eslint/js';\n```"
