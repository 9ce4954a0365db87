import json
from pathlib import Path

from orchestration.kb.documents import Document, Skipped, iter_documents
from orchestration.kb.metadata import FieldMap

CORPUS = Path(__file__).resolve().parents[2] / "data" / "frontmatter"


def _split(items):
    docs = [i for i in items if isinstance(i, Document)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    return docs, skipped


def test_bad_jsonl_lines_are_skipped_with_file_line_and_reason_and_the_rest_ingested(tmp_path):
    path = tmp_path / "docs.jsonl"
    lines = [
        json.dumps({"id": "ok-1", "title": "Good", "text": "Fine text.", "metadata": {"published_at": "2023-01-01"}}),
        '{"id": "broken", "text": ',                                                   # malformed JSON
        json.dumps({"id": "empty", "title": "No text", "text": "   "}),                 # no text
        json.dumps({"id": "bad-date", "text": "x", "metadata": {"published_at": "the day after"}}),
        json.dumps({"id": "bad-type", "text": "x", "metadata": {"authority": {"level": 5}}}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"_id": "ok-2", "text": "Also fine."}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.open("ab").write(b'{"id": "latin1", "text": "caf\xe9"}\n')
    docs, skipped = _split(list(iter_documents([path])))
    assert [d.id for d in docs] == ["ok-1", "bad-date", "ok-2"]
    reasons = {s.origin: s.reason for s in skipped}
    assert "not valid JSON" in reasons[f"{path}:2"]
    assert "no text" in reasons[f"{path}:3"]
    assert f"{path}:4" not in reasons  # an unreadable date costs the field, not the document
    assert docs[1].metadata == {} and "field 'published_at': not a date: 'the day after'" in docs[1].warnings[0]
    assert "authority" in reasons[f"{path}:5"]
    assert "JSON object" in reasons[f"{path}:6"]
    assert "UTF-8" in reasons[f"{path}:8"]


def test_markdown_front_matter_gives_id_title_and_metadata(tmp_path):
    (tmp_path / "a.md").write_text("---\nid: doc-a\ntitle: Alpha\nstatus: Draft\n---\n# Heading\n\nBody.\n",
                                   encoding="utf-8")
    (tmp_path / "b.md").write_text("# From Heading\n\nBody b.\n", encoding="utf-8")
    docs, skipped = _split(list(iter_documents([tmp_path])))
    assert not skipped
    assert [(d.id, d.title, d.metadata.get("status")) for d in docs] == [
        ("doc-a", "Alpha", "draft"), ("b", "From Heading", None)]


def test_non_utf8_and_unsupported_files_are_reported_not_fatal(tmp_path):
    (tmp_path / "good.txt").write_text("Title line\nSome body.", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes("Titre\ncafé".encode("latin-1"))
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    docs, skipped = _split(list(iter_documents([tmp_path])))
    assert [d.id for d in docs] == ["good"] and docs[0].title == "Title line"
    reasons = {s.origin: s.reason for s in skipped}
    assert "UTF-8" in reasons[str(tmp_path / "bad.txt")]
    assert "unsupported file type" in reasons[str(tmp_path / "image.png")]


def test_missing_path_is_reported(tmp_path):
    _, skipped = _split(list(iter_documents([tmp_path / "nope"])))
    assert skipped[0].reason == "path does not exist"


def test_bad_front_matter_names_the_line(tmp_path):
    (tmp_path / "x.md").write_text("---\ntitle: [unclosed\n---\nBody\n", encoding="utf-8")
    _, skipped = _split(list(iter_documents([tmp_path])))
    assert "front matter is not valid YAML" in skipped[0].reason


def test_blog_style_front_matter_is_read_as_documents_carry_it():
    docs, skipped = _split(list(iter_documents([CORPUS])))
    assert skipped == []  # before: unquoted dates and author objects skipped 5 of 6
    meta = {d.id: d.metadata for d in docs}
    assert meta["2023-05-01-launching-lantern"] == {
        "published_at": "2023-05-01T00:00:00+00:00", "author": ["Ada Quill", "Ben Ortiz"],
        "tags": ["release", "lantern"]}
    assert meta["from-the-rss-archive"] == {
        "published_at": "2003-06-10T04:00:00+00:00", "updated_at": "2003-07-01T07:30:00+00:00",
        "author": ["Cara Diaz", "Dev Patel"], "tags": ["archive", "feeds"]}
    assert meta["feed-1"] == {"published_at": "2023-06-01T00:00:00+00:00", "updated_at": "2023-06-02T00:00:00+00:00",
                              "author": ["Ada Quill"], "tags": ["release", "tables"]}
    assert meta["lantern-2-design"] == {
        "published_at": "2024-02-29T00:00:00+00:00", "reviewed": "2024-03-04T00:00:00+00:00",
        "cover": '{"image": "/img/lantern-2.png", "alt": "A brass lantern", "sizes": [320, 640]}',
        "series": '{"name": "Lantern 2", "part": 1}', "author": ["Finn Hale", "Gus Wu"]}
    roadmap = next(d for d in docs if d.id == "someday-roadmap")
    assert roadmap.metadata == {"author": ["Eve Stone"], "tags": ["roadmap"]}
    assert roadmap.warnings == ["field 'published_at' (from 'date'): not a date: 'sometime next spring' "
                                "(use ISO 8601, e.g. 2023-10-07); dropped (the document is ingested without it)"]
    proposal = next(d for d in docs if d.id == "pep-style-proposal")
    assert proposal.metadata["published_at"] == "2024-04-10T00:00:00+00:00"
    assert proposal.metadata["created"] == "05-Jul-2001" and "'created' not read as published_at" in proposal.notes[0]
    assert "updated_at" not in proposal.metadata and "author" not in proposal.metadata  # not mapped by default


def test_a_field_map_reads_the_documents_own_names():
    fields = FieldMap({"updated_at": ("modified_on",), "author": ("writers",)})
    docs, _ = _split(list(iter_documents([CORPUS / "pep-style-proposal.md"], fields)))
    assert docs[0].metadata["updated_at"] == "2024-05-20T00:00:00+00:00"
    assert docs[0].metadata["author"] == ["Hana Ito", "Ivo Berg"] and "writers" not in docs[0].metadata


def test_a_title_yaml_reads_as_a_number_or_a_date_is_kept_as_text(tmp_path):
    (tmp_path / "a.md").write_text("---\ntitle: 1984\n---\nBody.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\ntitle: 2024-01-02\n---\nBody.\n", encoding="utf-8")
    docs, skipped = _split(list(iter_documents([tmp_path])))
    assert skipped == [] and [d.title for d in docs] == ["1984", "2024-01-02"]
