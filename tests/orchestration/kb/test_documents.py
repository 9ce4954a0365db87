import json

from orchestration.kb.documents import Document, Skipped, iter_documents


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
    assert [d.id for d in docs] == ["ok-1", "ok-2"]
    reasons = {s.origin: s.reason for s in skipped}
    assert "not valid JSON" in reasons[f"{path}:2"]
    assert "no text" in reasons[f"{path}:3"]
    assert "published_at" in reasons[f"{path}:4"] and "not a date" in reasons[f"{path}:4"]
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
