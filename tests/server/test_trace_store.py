"""The trace store behind /ui/trace/<id> (server/traces.py): bounded, private, owned, safe across processes."""

from __future__ import annotations

import multiprocessing
import os
import stat
import time

import pytest

from server.traces import TraceLimits, TraceStore, may_view

FINANCE = {"name": "finance-app", "kind": "key", "groups": ["finance"]}
ENGINEERING = {"name": "eng-app", "kind": "key", "groups": ["engineering"]}
ANONYMOUS = {"name": "anonymous", "kind": "anonymous", "groups": []}


def _store(tmp_path, **limits) -> TraceStore:
    return TraceStore(tmp_path / "traces", TraceLimits(**limits))


def test_a_record_reads_back_as_written_in_a_private_file_named_by_a_hash_of_its_id(tmp_path):
    store = _store(tmp_path)
    assert store.put("../../etc/passwd", FINANCE, {"body": {"answer": "x"}})
    record = store.get("../../etc/passwd")
    assert (record.trace_id, record.owner, record.content) == ("../../etc/passwd", FINANCE, {"body": {"answer": "x"}})
    files = list((tmp_path / "traces").iterdir())
    assert [f.name for f in files] == [store.path_of("../../etc/passwd").name] and len(files[0].stem) == 64
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "traces").stat().st_mode) == 0o700
    assert store.get("another-id") is None


def test_the_oldest_records_go_first_beyond_the_entry_bound(tmp_path):
    store = _store(tmp_path, max_entries=3)
    for k in range(5):
        store.put(f"id-{k}", FINANCE, {"k": k})
        os.utime(store.path_of(f"id-{k}"), (time.time() - 100 + k,) * 2)  # distinct ages, oldest first
    store.prune()
    assert [k for k in range(5) if store.get(f"id-{k}")] == [2, 3, 4]


def test_the_oldest_records_go_first_beyond_the_byte_bound(tmp_path):
    store = _store(tmp_path, max_bytes=2500)
    for k in range(4):
        store.put(f"id-{k}", FINANCE, {"text": "x" * 1000})
        os.utime(store.path_of(f"id-{k}"), (time.time() - 100 + k,) * 2)
    store.prune()
    kept = [k for k in range(4) if store.get(f"id-{k}")]
    assert kept == [2, 3]
    assert sum(f.stat().st_size for f in (tmp_path / "traces").iterdir()) <= 2500


def test_a_record_past_its_age_is_never_shown_and_is_deleted(tmp_path):
    now = [time.time()]
    store = TraceStore(tmp_path / "traces", TraceLimits(max_age_seconds=3600), clock=lambda: now[0])
    store.put("old", FINANCE, {})
    assert store.get("old") is not None
    now[0] += 3601
    assert store.get("old") is None
    assert store.prune() == 1 and not list((tmp_path / "traces").iterdir())


def test_another_caller_cannot_take_over_an_id_but_its_owner_can_rewrite_it(tmp_path):
    store = _store(tmp_path)
    assert store.put("chat-123", FINANCE, {"v": 1})
    assert not store.put("chat-123", ENGINEERING, {"v": "theirs"})
    assert store.get("chat-123").content == {"v": 1} and store.get("chat-123").owner == FINANCE
    assert store.put("chat-123", FINANCE, {"v": 2})
    assert store.get("chat-123").content == {"v": 2}


def test_an_expired_record_of_another_caller_gives_its_id_up(tmp_path):
    now = [time.time()]
    store = TraceStore(tmp_path / "traces", TraceLimits(max_age_seconds=60), clock=lambda: now[0])
    store.put("chat-123", FINANCE, {"v": 1})
    now[0] += 61
    assert store.put("chat-123", ENGINEERING, {"v": 2})
    assert store.get("chat-123").owner == ENGINEERING


def test_a_store_of_zero_entries_keeps_nothing(tmp_path):
    store = _store(tmp_path, max_entries=0)
    assert not store.enabled and not store.put("x", FINANCE, {})
    assert not (tmp_path / "traces").exists()


def test_a_dead_writer_s_temporary_file_is_cleaned_up(tmp_path):
    store = _store(tmp_path)
    store.put("x", FINANCE, {})
    stale = tmp_path / "traces" / ".abandoned.tmp"
    stale.write_text("half a record")
    os.utime(stale, (time.time() - 120, time.time() - 120))
    store.prune()
    assert not stale.exists() and store.get("x") is not None


@pytest.mark.parametrize("owner, viewer, admin, shown", [
    (FINANCE, FINANCE, False, True),
    (FINANCE, ENGINEERING, False, False),
    (FINANCE, {**FINANCE, "groups": ["finance", "hr"]}, False, False),  # same name, other groups: not the same key
    (FINANCE, {**FINANCE, "kind": "gateway"}, False, False),
    (FINANCE, ANONYMOUS, False, False),
    (FINANCE, None, False, False),
    (FINANCE, None, True, True),
    (ANONYMOUS, ENGINEERING, False, True),
    (ANONYMOUS, ANONYMOUS, False, True),
    (ANONYMOUS, None, False, False),  # keyless viewers where keyless callers are refused
    ({**ANONYMOUS, "groups": ["*"]}, ENGINEERING, False, False),  # unrestricted anonymous: not public content
])
def test_who_may_see_a_record(owner, viewer, admin, shown):
    assert may_view(owner, viewer, admin) is shown


def _writer(directory: str, worker: int) -> None:
    store = TraceStore(directory, TraceLimits(max_entries=20))
    for k in range(40):
        store.put(f"w{worker}-{k}", FINANCE, {"text": "x" * 2000, "k": k})


def test_several_processes_writing_and_pruning_at_once_leave_whole_records_within_the_bound(tmp_path):
    directory = str(tmp_path / "traces")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(directory, w)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    store = TraceStore(directory, TraceLimits(max_entries=20))
    store.prune()
    names = os.listdir(directory)
    assert 0 < len(names) <= 20 and not [n for n in names if n.endswith(".tmp")]
    readable = [f"w{w}-{k}" for w in range(4) for k in range(40) if store.get(f"w{w}-{k}") is not None]
    assert len(readable) == len(names)  # every file left is a whole record
