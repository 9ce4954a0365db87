"""benchmarks/worker_memory.py: its smaps_rollup reading on live processes, and PSS halving a shared file."""

from __future__ import annotations

import mmap
import multiprocessing
import os
from pathlib import Path

import pytest

from benchmarks.worker_memory import parse_smaps_rollup, read_rollup, reading, scale_questions, table

SIZE = 64 * 2**20  # the shared file: large against the few MB other mappings move by
PAGE = mmap.PAGESIZE


def _touch(view: mmap.mmap) -> int:
    """Read one byte of every page, so each is mapped (resident) in this process."""
    return sum(view[i] for i in range(0, len(view), PAGE))


def _child(path: str, go, mapped, done, readings) -> None:
    """Map and touch the file when told, report Pss_File before and after, hold it until `done`."""
    go.wait(30)
    before = read_rollup()["Pss_File"]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        _touch(view)
        readings.put((before, read_rollup()["Pss_File"]))
        mapped.set()
        done.wait(60)


def test_parser_reads_this_process_and_pss_is_at_most_rss():
    rollup = read_rollup()
    assert {"Rss", "Pss", "Pss_Anon", "Pss_File", "Private_Dirty", "Shared_Clean"} <= set(rollup)
    assert 0 < rollup["Pss"] <= rollup["Rss"]
    assert rollup["Private_Clean"] + rollup["Private_Dirty"] <= rollup["Pss"]
    assert rollup["Pss_Anon"] + rollup["Pss_File"] + rollup.get("Pss_Shmem", 0) == pytest.approx(rollup["Pss"], abs=4)
    assert parse_smaps_rollup("00400000-7ff ---p 00000000 00:00 0   [rollup]\nRss:  12 kB\nPss:   7 kB\n") == \
        {"Rss": 12, "Pss": 7}
    with pytest.raises(ValueError):
        parse_smaps_rollup("Name: python\n")


def test_two_processes_mapping_one_file_each_get_half_of_its_pages_in_pss_file(tmp_path: Path):
    path = tmp_path / "shared.bin"
    path.write_bytes(os.urandom(SIZE))
    context = multiprocessing.get_context("fork")
    go, mapped, done, readings = context.Event(), context.Event(), context.Event(), context.Queue()
    child = context.Process(target=_child, args=(str(path), go, mapped, done, readings))
    child.start()
    try:
        base = read_rollup()["Pss_File"]  # the child alive already: the libraries it shares count from here
        with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
            _touch(view)
            alone = read_rollup()["Pss_File"]
            go.set()
            assert mapped.wait(60), "the child did not map the file"
            shared = read_rollup()["Pss_File"]
            child_rollup = read_rollup(child.pid)  # another process's file, read from here
            child_before, child_after = readings.get(timeout=10)
            done.set()
    finally:
        done.set()
        child.join(30)
    kb = SIZE // 1024
    assert alone - base == pytest.approx(kb, rel=0.1)  # mapped here only: every page counts whole
    assert shared - base == pytest.approx(kb / 2, rel=0.1)  # mapped by two: half of each page
    assert child_after - child_before == pytest.approx(kb / 2, rel=0.1)
    assert child_rollup["Pss"] <= child_rollup["Rss"] and child_rollup["Rss"] >= kb
    assert child.exitcode == 0


def test_reading_lists_a_parent_and_its_children_in_mb():
    context = multiprocessing.get_context("fork")
    done = context.Event()
    children = [context.Process(target=done.wait, args=(30,)) for _ in range(2)]
    for c in children:
        c.start()
    try:
        rows = reading(os.getpid())
    finally:
        done.set()
        for c in children:
            c.join(30)
    assert [r["role"] for r in rows[:1]] == ["master"] and rows[0]["pid"] == os.getpid()
    assert {c.pid for c in children} <= {r["pid"] for r in rows[1:]}
    for row in rows:
        assert 0 < row["Pss"] <= row["Rss"] and 0 < row["USS"] <= row["Rss"]
    assert "| master |" in table({"now": rows})


def test_scale_questions_are_the_questions_scale_py_asks():
    """scale.py's own `_loop_times` asks, with a loop that only records, what `scale_questions` replays."""
    from benchmarks.scale import QUESTION_FORMS, _loop_times, worker_texts

    class Recorder:
        def __init__(self) -> None:
            self.asked: list[str] = []
            self.retriever = self

        def forget_vectors(self) -> None:
            pass

        def answer(self, request) -> None:
            self.asked.append(request.query)

    chunks, queries, questions = 1000, 5, 4
    texts, rows, drawn, _ = worker_texts(chunks, queries, questions, seed=0)  # what worker() draws
    recorder = Recorder()
    _loop_times(recorder, drawn)
    asked, replayed = scale_questions(chunks, queries=queries, questions=questions)
    assert (asked, replayed) == (recorder.asked, texts) and len(asked) == questions + 1
    assert len(rows) == 20 and len(set(rows.tolist())) == 20
    assert [q.split()[0] for q in asked] == [form.split()[0] for form in (*QUESTION_FORMS, QUESTION_FORMS[0])]
