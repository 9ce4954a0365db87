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
