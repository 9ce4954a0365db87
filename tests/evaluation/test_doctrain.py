"""The written documentation QA set (evaluation/doctrain.py): its checks on small bad corpora, and
the real set under evaluation/data/doctrain/ (one case per corpus whose questions are written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluation.doctrain import (
    DOCTRAIN,
    MIN_UNANSWERABLE,
    corpus_folders,
    format_summary,
    load_corpus,
    load_doctrain,
    main,
    read_source,
    readme_text,
    summary,
)

PAGE = """# Caching

The `--cache-dir` option sets where downloads are kept. It defaults to **~/.cache/tool**.

The `--no-cache` flag turns the cache off for one run.
"""
SOURCE = """# Source: Tool documentation (MkDocs Markdown)

- Repository: https://github.com/example/tool
- Commit: `0123456789abcdef0123456789abcdef01234567` (2026-01-01)
- Licence: MIT (the repository's `LICENSE`, copied here)
"""


def _record(qid: str, *, corpus: str = "tool", **fields: Any) -> dict:
    base = {"id": qid, "set": corpus, "question": "Where does tool keep downloads by default?", "answerable": True,
            "answers": ["~/.cache/tool"], "source": "caching.md", "unit": "It defaults to ~/.cache/tool.",
            "kind": "fact", "near": "", "note": "", "split": "fit", "writer": "writer-A", "second_reader": "writer-B"}
    return {**base, **fields}


UNANSWERABLE: dict[str, Any] = {"answerable": False, "answers": [], "unit": "",
                                "question": "How large may the cache grow?",
                                "near": "The `--cache-dir` option sets where downloads are kept."}


def _corpus(root: Path, records: list[dict], corpus: str = "tool", source: str = SOURCE) -> Path:
    folder = root / corpus
    (folder / "pages").mkdir(parents=True)
    (folder / "pages" / "caching.md").write_text(PAGE, encoding="utf-8")
    (folder / "SOURCE.md").write_text(source, encoding="utf-8")
    (folder / "LICENSE").write_text("MIT License\n", encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


# --- the checks ---------------------------------------------------------------------------------

def test_a_good_corpus_loads_with_units_compared_folding_case_whitespace_and_markers(tmp_path):
    _corpus(tmp_path, [_record("t-1", unit="it  DEFAULTS to `~/.cache/tool`"), _record("t-2", **UNANSWERABLE)])
    questions = load_doctrain(tmp_path)
    assert [q.id for q in questions] == ["t-1", "t-2"]
    assert questions[0].origin.endswith("questions.jsonl:1") and questions[1].near


@pytest.mark.parametrize("bad, message", [
    ({"answers": ["/var/cache"]}, r"answer '/var/cache' not found in its unit"),
    ({"unit": "It defaults to /tmp."}, r"unit not found in its source page caching\.md"),
    ({**UNANSWERABLE, "near": "The cache is unlimited."}, r"near text not found in its source page"),
    ({**UNANSWERABLE, "near": ""}, r"an unanswerable question names its near text"),
    ({"source": "missing.md"}, r"source page 'missing\.md' not found"),
    ({"source": "../../SOURCE.md"}, r"source page '\.\./\.\./SOURCE\.md' not found"),
    ({"unit": ""}, r"an answerable question names its unit"),
    ({"answers": []}, r"an answerable question needs gold answers"),
    ({"kind": "opinion"}, r"kind 'opinion' is not one of number, "),
    ({"split": "train"}, r"split 'train' is not one of fit, choose, report"),
    ({"set": "other"}, r"set 'other' is not its corpus folder's name 'tool'"),
    ({"second_reader": "writer-A"}, r"the second reader 'writer-A' is its writer"),
    ({"writer": ""}, r"writer must be a non-empty string"),
])
def test_a_bad_record_fails_naming_its_line_and_the_problem(tmp_path, bad, message):
    _corpus(tmp_path, [_record("t-1"), _record("t-2", **bad)])
    with pytest.raises(ValueError, match=r"tool/questions\.jsonl:2: " + message):
        load_doctrain(tmp_path)


def test_a_record_missing_fields_names_them(tmp_path):
    record = _record("t-1")
    del record["split"], record["kind"]
    _corpus(tmp_path, [record])
    with pytest.raises(ValueError, match=r"questions\.jsonl:1: missing field\(s\) kind, split"):
        load_doctrain(tmp_path)


def test_a_line_that_is_no_json_names_its_line(tmp_path):
    folder = _corpus(tmp_path, [_record("t-1")])
    with (folder / "questions.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"id": "t-2",\n')
    with pytest.raises(ValueError, match=r"questions\.jsonl:2: not a JSON object"):
        load_doctrain(tmp_path)


def test_a_corpus_in_two_splits_fails_naming_the_line_that_differs(tmp_path):
    _corpus(tmp_path, [_record("t-1"), _record("t-2", **UNANSWERABLE), _record("t-3", split="report")])
    with pytest.raises(ValueError, match=r"questions\.jsonl:3: split 'report', but corpus tool is in 'fit' "
                                         r"\(.*questions\.jsonl:1\): a corpus is in one split"):
        load_doctrain(tmp_path)


def test_a_duplicate_id_fails_naming_both_lines_within_a_corpus_and_across_corpora(tmp_path):
    within = tmp_path / "within"
    _corpus(within, [_record("t-1"), _record("t-1", **UNANSWERABLE)])
    with pytest.raises(ValueError, match=r"tool/questions\.jsonl:2: duplicate question id 't-1' "
                                         r"\(first at .*tool/questions\.jsonl:1\)"):
        load_doctrain(within)
    across = tmp_path / "across"
    _corpus(across, [_record("a-1", corpus="alpha")], corpus="alpha")
    _corpus(across, [_record("b-1", corpus="beta"), _record("a-1", corpus="beta")], corpus="beta")
    with pytest.raises(ValueError, match=r"beta/questions\.jsonl:2: duplicate question id 'a-1' "
                                         r"\(first at .*alpha/questions\.jsonl:1\)"):
        load_doctrain(across)


@pytest.mark.parametrize("source, message", [
    (SOURCE.replace("0123456789abcdef0123456789abcdef01234567", "0123456"), r"names no 40-hex commit"),
    (SOURCE.replace("(MkDocs Markdown)", ""), r"names no format"),
    (SOURCE.replace("example/tool", "pallets/flask"), r"pallets/flask is kept for checks"),
])
def test_a_source_file_must_pin_repository_commit_licence_and_format(tmp_path, source, message):
    _corpus(tmp_path, [_record("t-1")], source=source)
    with pytest.raises(ValueError, match=r"tool/SOURCE\.md: .*" + message):
        load_doctrain(tmp_path)


def test_a_folder_without_questions_is_a_corpus_still_being_written(tmp_path):
    (tmp_path / "draft" / "pages").mkdir(parents=True)
    assert corpus_folders(tmp_path) == [] and load_doctrain(tmp_path) == []


# --- counts, the CLI and the README -------------------------------------------------------------

def test_summary_counts_per_corpus_split_and_kind(tmp_path):
    _corpus(tmp_path, [_record("a-1", corpus="alpha"), _record("a-2", corpus="alpha", **UNANSWERABLE)],
            corpus="alpha")
    _corpus(tmp_path, [_record(f"b-{i}", corpus="beta", split="report", kind="number", second_reader="",
                               **(UNANSWERABLE if i else {})) for i in range(3)], corpus="beta")
    counts = summary(load_doctrain(tmp_path))
    assert [(c.name, c.split, c.answerable, c.unanswerable) for c in counts.corpora] == [
        ("alpha", "fit", 1, 1), ("beta", "report", 1, 2)]
    assert [(c.name, c.questions) for c in counts.splits] == [("fit", 2), ("report", 3)]
    assert counts.total.questions == 5 and counts.total.second_read == 2
    assert round(counts.corpora[1].share_unanswerable, 2) == 0.67
    assert dict(counts.total.kinds) == {"fact": 2, "number": 3}
    table = format_summary(counts)
    assert "alpha" in table and "(report)" in table and "number 3, fact 2" in table


def test_the_cli_prints_the_table_and_writes_the_readme_from_the_source_files(tmp_path, capsys):
    _corpus(tmp_path, [_record("t-1"), _record("t-2", **UNANSWERABLE)])
    assert main(["--root", str(tmp_path), "--readme"]) == 0
    assert "tool" in capsys.readouterr().out
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "| `tool` | [example/tool](https://github.com/example/tool) | `0123456789` | MIT | MkDocs Markdown | " \
           "fit | 2 |" in readme
    assert "At least 40% of each corpus's questions are unanswerable" in readme


def test_the_cli_exits_non_zero_with_the_problem_when_the_data_is_bad(tmp_path, capsys):
    _corpus(tmp_path, [_record("t-1", answers=["/var/cache"])])
    assert main(["--root", str(tmp_path)]) == 1
    assert "questions.jsonl:1: answer '/var/cache' not found" in capsys.readouterr().err


# --- the real set: one case per corpus whose questions are written ------------------------------

@pytest.mark.parametrize("folder", corpus_folders(DOCTRAIN), ids=lambda p: p.name)
def test_each_written_corpus_passes_every_check_and_is_at_least_40_percent_unanswerable(folder):
    source = read_source(folder)
    assert (folder / "LICENSE").read_text(encoding="utf-8").strip(), source
    questions = load_corpus(folder)
    count = summary(questions).corpora[0]
    assert count.share_unanswerable >= MIN_UNANSWERABLE, (folder.name, count.unanswerable, count.questions)


@pytest.mark.skipif(not corpus_folders(DOCTRAIN), reason="no corpus has its questions written yet")
def test_the_written_set_has_unique_ids_one_split_per_corpus_and_an_up_to_date_readme():
    questions = load_doctrain(DOCTRAIN)
    assert (DOCTRAIN / "README.md").read_text(encoding="utf-8") == readme_text(DOCTRAIN, questions), \
        "evaluation/data/doctrain/README.md is stale: run `python -m evaluation.doctrain --readme`"
