"""The pieces of a trace page (server/ui/, server/trace_sources.py), each on its own."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from server.trace_sources import shown_chunk_ids, visible_chunks
from server.ui.attempts import Moved, check_rows
from server.ui.highlight import answer_pieces, marked_pieces, supporting_spans
from server.ui.retrieval import candidates, filter_of
from server.ui.timeline import attempts_of, waterfall

TEXT = "Fuel burn\nIn 2023, the A320neo burns 2,290 kg\nof fuel per block hour. The 737 MAX 8 burns 2,360 kg."


def test_a_claim_is_found_in_its_chunk_across_line_breaks():
    claim = {"text": "In 2023, the A320neo burns 2,290 kg of fuel per block hour. [1]"}
    [(start, end)] = supporting_spans(claim, None, TEXT)
    assert TEXT[start:end] == "In 2023, the A320neo burns 2,290 kg\nof fuel per block hour"


def test_a_claim_the_chunk_does_not_write_falls_back_to_the_cited_unit_then_to_its_numbers():
    reworded = {"text": "The A320neo is more efficient [1].", "numbers": ["2,290 kg", "2,360 kg", "99 kg"]}
    snippet = "The 737 MAX 8 burns 2,360 kg."
    assert [TEXT[s:e] for s, e in supporting_spans(reworded, snippet, TEXT)] == ["The 737 MAX 8 burns 2,360 kg"]
    assert [TEXT[s:e] for s, e in supporting_spans(reworded, None, TEXT)] == ["2,290 kg", "2,360 kg"]
    assert supporting_spans({"text": "Nothing here [1]."}, None, TEXT) == []


def test_overlapping_spans_cut_the_text_into_pieces_covered_by_each_claim():
    pieces = marked_pieces("abcdef", [(0, 4, 0, "span-0-1"), (2, 6, 1, "span-1-1")])
    assert [(p.text, p.claims, p.anchors) for p in pieces] == [
        ("ab", [0], ["span-0-1"]), ("cd", [0, 1], ["span-1-1"]), ("ef", [1], [])]
    assert "".join(p.text for p in pieces) == "abcdef"


def test_an_answer_s_markers_become_citation_pieces():
    pieces = answer_pieces("A [1]. B [1, 2].")
    assert [(p.text, p.cite) for p in pieces] == [("A ", []), ("[1]", [1]), (". B ", []), ("[1, 2]", [1, 2]),
                                                  (".", [])]


def _op(op, ms, **params):
    return {"op": op, "stage": "x", "ms": ms, "params": params}


def test_bars_follow_each_other_and_a_nested_call_starts_with_its_parent():
    ops = [_op("perceive", 2), _op("route", 1, attempt=0), _op("compose.llm", 5, call=1), _op("compose", 6),
           _op("route", 1, attempt=1), _op("validate.citation", 2)]
    bars = waterfall(ops, total_ms=20)
    assert [b.start_ms for b in bars] == [0, 2, 3, 3, 9, 10]
    assert [b.attempt for b in bars] == [None, 0, 0, 0, 1, 1] == attempts_of(ops)
    assert bars[3].x == 150.0 and bars[3].width == 300.0  # 3 ms of 20 in a 1000-wide space, 6 ms wide
    assert bars[-1].label == "check citation" and bars[2].label == "compose.llm · call 1"


def test_a_rejection_names_its_filter():
    assert filter_of("published_at=2021-02-10 < 2023-01-01") == "published_at"
    assert filter_of("status=expired excluded") == "status"
    assert filter_of("(unreadable)") == "other"


def test_a_candidate_s_ranks_are_read_per_list_and_its_moves_in_order():
    [candidate] = candidates([{"chunk_id": "c#0", "kb": "m", "fused": 0.03, "credibility": 0.77,
                               "ranks": {"t1+t2:keyword": 4, "t3:keyword": 2, "t1+t2:vector": 1, "t1+t2": 3, "t3": 2},
                               "scores": {"t1+t2:keyword": 3.5, "t3:keyword": 4.0, "t1+t2:vector": 0.6,
                                          "t1+t2": 0.02, "t3": 0.03}}])
    assert candidate.keyword == [("t3", 2, 4.0), ("t1+t2", 4, 3.5)] and candidate.vector == [("t1+t2", 1, 0.6)]
    assert candidate.task == [("t3", 2, 0.03), ("t1+t2", 3, 0.02)]
    assert candidate.moved == "keyword 2 → vector 1 → fused 2 → 1"


def test_checks_per_claim_list_findings_about_the_whole_answer_last():
    verdict = {"checks_run": ["citation", "evidence"], "issues": [
        {"check": "citation", "kind": "unsupported_number", "claim": 1, "detail": "85%"},
        {"check": "evidence", "kind": "no_evidence", "claim": None, "detail": "never mentions Mars"}]}
    rows = check_rows(verdict, [{"text": "a"}, {"text": "b"}])
    assert [(r.claim, r.text) for r in rows] == [(0, "a"), (1, "b"), (None, None)]
    assert [len(found) for _, found in rows[1].cells] == [1, 0] and [len(f) for _, f in rows[2].cells] == [0, 1]
    assert [r.claim for r in check_rows(verdict, None)] == [1, None]  # an earlier attempt: claims with findings


@pytest.mark.parametrize("before, after, change", [(None, 1, "new"), (2, None, "dropped"), (3, 3, "same"),
                                                   (4, 1, "up 3"), (1, 2, "down 1")])
def test_how_a_chunk_moved_between_attempts(before, after, change):
    assert Moved("c", before, after).change == change


# --- what a stored trace quotes: through the caller's ACL ---------------------------------------

@dataclass
class _Chunk:
    row: int
    chunk_id: str
    title: str
    text: str


class _Columns:
    acl = [(), ("finance",), ()]

    def acl_mask(self, groups):
        if groups is None:
            return None
        return np.array([not g or bool(set(g) & set(groups)) for g in self.acl])


class _Store:
    chunks = [_Chunk(0, "p#0", "Public", "open text"), _Chunk(1, "s#0", "Salary bands", "secret text"),
              _Chunk(2, "q#0", "Other", "more open text")]

    def get_ids(self, ids):
        return [c for c in self.chunks if c.chunk_id in ids]


class _KB:
    ready = True

    def __init__(self, changed=None):
        self.columns, self.store, self._changed = _Columns(), _Store(), changed

    def changed(self):
        return self._changed


def test_a_stored_trace_quotes_only_chunks_its_caller_may_read():
    kbs = {"policies": _KB()}
    refs = [("policies", "p#0"), ("policies", "s#0"), ("policies", "nope#0"), ("gone", "x#0")]
    assert list(visible_chunks(kbs, refs, ())) == ["p#0"]
    assert list(visible_chunks(kbs, refs, ("finance",))) == ["p#0", "s#0"]
    assert list(visible_chunks(kbs, refs, None)) == ["p#0", "s#0"]  # an unrestricted caller
    assert visible_chunks({"policies": _KB(changed="truncated")}, refs, None) == {}  # a changed build is not read


def test_a_page_quotes_the_cited_chunks_and_for_a_refusal_the_closest():
    body = {"status": "answered", "citations": [{"kb": "m", "chunk_id": "a#0"}],
            "attempts": [{"candidates": [{"kb": "m", "chunk_id": "b#0"}]}]}
    assert shown_chunk_ids(body) == [("m", "a#0")]
    assert shown_chunk_ids({**body, "status": "insufficient", "citations": []}) == [("m", "b#0")]
