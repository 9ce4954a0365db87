"""Ingesting metadata as documents carry it (issue 12, item 1), through the real ingest and store.

The corpus (tests/data/frontmatter/) is blog-style front matter as static-site generators
write it: unquoted YAML dates under `created_at`/`date`, an RSS `pubDate`, `author` as a list
of objects or as "A and B", `tags`/`categories`, a nested `cover`, an unreadable date, and a
document naming its dates and authors its own way (`modified_on`, `writers`).
"""

from pathlib import Path

from orchestration.kb import layout
from orchestration.kb.config import parse_kb_config
from orchestration.kb.ingest import ingest
from orchestration.kb.store import ChunkStore

CORPUS = Path(__file__).resolve().parents[2] / "data" / "frontmatter"
NO_DATE_WARNING = "time filters and freshness checks will not apply to KB {kb}: "


def _settings(tmp_path, kb, **body):
    config = parse_kb_config({"knowledge_bases": {kb: {"paths": [str(CORPUS)], **body}}}, source="kb.yaml",
                             data_dir=tmp_path / "var")
    return config.knowledge_bases[kb], config.kb_dir(kb)


def _stored(kb_dir):
    store = ChunkStore(layout.current_build(kb_dir) / "chunks.sqlite")
    return {row.doc_id: row.metadata for row in store.iter_all()}


def test_blog_front_matter_ingests_every_document_with_its_dates_authors_and_tags(tmp_path, embedder):
    settings, kb_dir = _settings(tmp_path, "blog")
    report = ingest(settings, kb_dir, embedder, progress=False)
    assert report.skipped == [] and report.documents == 6  # before: 5 of 6 skipped (dates, author objects)
    stored = _stored(kb_dir)
    assert stored["2023-05-01-launching-lantern"]["published_at"] == "2023-05-01T00:00:00+00:00"
    assert stored["2023-05-01-launching-lantern"]["author"] == ["Ada Quill", "Ben Ortiz"]
    assert stored["from-the-rss-archive"]["published_at"] == "2003-06-10T04:00:00+00:00"
    assert stored["from-the-rss-archive"]["updated_at"] == "2003-07-01T07:30:00+00:00"
    assert stored["feed-1"]["published_at"] == "2023-06-01T00:00:00+00:00"
    assert stored["lantern-2-design"]["cover"].startswith('{"image": "/img/lantern-2.png"')
    assert "published_at" not in stored["someday-roadmap"]
    assert report.field_counts == {
        "published_at": 5, "updated_at": 2, "effective_date": 0, "expires_at": 0, "status": 1, "doc_type": 0,
        "source": 0, "author": 5, "tags": 4, "category": 0, "url": 0, "version": 0, "department": 0,
        "language": 0, "authority": 0, "acl": 0}
    summary = report.summary()
    assert "fields carried (of 6 documents): published_at 5, updated_at 2, status 1, author 5, tags 4" in summary
    assert (f"{CORPUS / 'someday-roadmap.md'}: field 'published_at' (from 'date'): not a date: "
            "'sometime next spring'") in summary
    assert ("'created' not read as published_at: the document gives it as 'published_at' (kept as field "
            f"'created'): 1 document(s) ({CORPUS / 'pep-style-proposal.md'})") in summary
    assert "time filters" not in summary
    data = report.to_dict()
    assert data["fields"]["published_at"] == 5 and len(data["warnings"]) == 1 and len(data["notes"]) == 1
    again = ingest(settings, kb_dir, embedder, progress=False)
    assert again.unchanged and again.field_counts == report.field_counts and len(again.warnings) == 1


def test_a_knowledge_base_maps_its_own_field_names(tmp_path, embedder):
    # before: nothing let a user say "`modified_on` is our update date, `writers` our authors"
    settings, kb_dir = _settings(tmp_path, "specs", fields={"updated_at": "modified_on", "author": "writers"})
    report = ingest(settings, kb_dir, embedder, progress=False)
    stored = _stored(kb_dir)
    proposal = stored["pep-style-proposal"]
    assert proposal["updated_at"] == "2024-05-20T00:00:00+00:00" and proposal["author"] == ["Hana Ito", "Ivo Berg"]
    assert "modified_on" not in proposal and "writers" not in proposal
    # the mapping replaces the default aliases of the fields it names; the field's own name still feeds it
    assert stored["from-the-rss-archive"]["lastmod"] == "2003-07-01T07:30:00+00:00"
    assert stored["lantern-2-design"]["authors"] == ["Finn Hale", "Gus Wu"]
    assert stored["2023-05-01-launching-lantern"]["author"] == ["Ada Quill", "Ben Ortiz"]
    assert (report.field_counts["published_at"], report.field_counts["updated_at"],
            report.field_counts["author"]) == (5, 1, 5)


def test_a_knowledge_base_without_dates_is_warned_and_named_candidates(tmp_path, embedder):
    src = tmp_path / "notes"
    src.mkdir()
    (src / "a.md").write_text("---\ncreated_on: 2023-05-01\n---\nThe pump passed at 310 kPa.\n", encoding="utf-8")
    (src / "b.md").write_text("---\ncreated_on: 2023-06-01\n---\nThe valve was replaced.\n", encoding="utf-8")
    settings, kb_dir = _settings(tmp_path, "notes")
    report = ingest(settings, kb_dir, embedder, paths=[src], progress=False)
    assert report.skipped == [] and report.field_counts["published_at"] == 0
    warning = NO_DATE_WARNING.format(kb="notes") + (
        "their dates are in fields of their own (created_on in 2 document(s)); map the one that dates them "
        "with fields.published_at in config/knowledge_bases.yaml, e.g. fields: {published_at: created_on}")
    assert str(report.warnings[0]) == warning and warning in report.summary()
    mapped = ingest(_settings(tmp_path, "notes", fields={"published_at": "created_on"})[0], kb_dir, embedder,
                    paths=[src], progress=False)
    assert mapped.warnings == [] and mapped.field_counts["published_at"] == 2


def test_a_knowledge_base_whose_documents_hold_no_date_is_told_so_and_offered_no_field_to_map(tmp_path, embedder):
    """Issue 34: Sphinx pages carry no date anywhere, and the warning still said "map your date field
    with fields.published_at", proposing a field the documents do not have."""
    src = tmp_path / "guide"
    src.mkdir()
    (src / "sessions.rst").write_text("Sessions\n========\n\nA session keeps values between requests.\n",
                                      encoding="utf-8")
    (src / "cookies.md").write_text("---\nversion: 2.3\n---\n# Cookies\n\nCookies are signed.\n", encoding="utf-8")
    settings, kb_dir = _settings(tmp_path, "guide")
    report = ingest(settings, kb_dir, embedder, paths=[src], progress=False)
    warning = NO_DATE_WARNING.format(kb="guide") + (
        "none of its documents carries a date, in a field with a meaning or one of their own, so there is "
        "no field to map")
    assert [str(w) for w in report.warnings] == [warning] and warning in report.summary()
    assert "fields.published_at" not in report.summary()
