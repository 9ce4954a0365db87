"""The agents loop end to end on the demo knowledge bases, and its retries.

Real perception, router, BM25 + MiniLM + FAISS retrieval, composer and validation. The only
stand-in is `DriftingComposer`, which plays an LLM composer that misquotes a number once
(no LLM can run here); everything it wraps is the real extractive composer.
"""

import datetime as dt
import re

import pytest
import yaml

from core.errors import RequestError, UnknownKnowledgeBase
from orchestration.compose.extractive import ExtractiveComposer
from orchestration.paths import config_dir
from orchestration.router.config import parse_router_config
from perception import PerceptionAgent
from server.bootstrap import build_loop
from server.context import RequestContext
from server.http.schemas import parse_ask_request
from server.loop import AskRequest

NOW = dt.date(2025, 7, 10)


@pytest.fixture(scope="module")
def perception():
    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    return agent


@pytest.fixture(scope="module")
def loop(demo_kbs, perception):
    service = build_loop(kb_config=demo_kbs, perception=perception)
    service.warm_up()
    return service


def _ask(loop, query, kb=None, now=NOW, trace="full", **kw):
    return loop.run(AskRequest(query=query, kbs=kb, context=RequestContext.create(now, trace_level=trace), **kw))


def _router_without(names, **retry):
    """The shipped router config minus some rules (an operator's edit), retry table overridable."""
    data = yaml.safe_load((config_dir() / "router.yaml").read_text(encoding="utf-8"))
    data["rules"] = [r for r in data["rules"] if r["name"] not in names]
    for rule in data["rules"]:
        for emit in rule.get("emit", []):
            emit.get("filters", {}).pop("exclude_status", None)
    data.setdefault("retry", {}).update(retry)
    return parse_router_config(data, source="test-router.yaml", known_kbs=["manuals", "policies", "reports"])


# --- the seed scenarios ------------------------------------------------------------------

def test_a320_vs_b737_cites_both_sides_from_2023_and_never_the_superseded_manual(loop):
    body = _ask(loop, "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.")
    assert body["status"] == "answered"
    assert body["perception"]["action"] == "compare"
    relation = next(c for c in body["claims"] if c["kind"] == "relation")
    assert relation["relation"] in ("lower", "higher") and "2,290" in relation["text"]
    assert {"A320", "B737"} <= set(relation["values"])
    cited = [c["chunk_id"] for c in body["citations"]]
    assert not any(cid.startswith("manuals-a320neo-perf-2021") for cid in cited)
    assert all("2023" <= (c["published_at"] or "")[:4] <= "2023" for c in body["citations"])
    rejected = {cid: why for op in body["operations"] for cid, why in op["rejected"].items()}
    superseded = [why for cid, why in rejected.items() if cid.startswith("manuals-a320neo-perf-2021")]
    assert superseded and all(("superseded" in why) or ("< 2023-01-01" in why) for why in superseded)


def test_chinese_q2_closed_test_reports(loop):
    body = _ask(loop, "查询 2025 年第二季度状态为已关闭的测试报告")
    assert body["status"] == "answered"
    assert body["perception"]["constraints"]["time"]["start"] == "2025-04-01"
    assert body["citations"]
    for citation in body["citations"]:
        assert citation["status"] == "closed"
        assert "2025-04-01" <= citation["published_at"][:10] <= "2025-06-30"
    assert re.search(r"[\u4e00-\u9fff]", body["answer"]), "answered in Chinese"


@pytest.mark.parametrize("query,effective", [
    ("Invoice amount does not match the contract: who handles it?", "policies-invoice-contract-mismatch-2024#"),
    ("项目验收时发现发票金额和合同不一致，应该找哪个部门处理，流程是什么？",
     "policies-invoice-contract-mismatch-2024-zh#"),
])
def test_invoice_mismatch_cites_the_effective_policy_and_rejects_the_draft_with_reason(loop, query, effective):
    body = _ask(loop, query)
    assert body["status"] == "answered"
    cited = [c["chunk_id"] for c in body["citations"]]
    assert any(cid.startswith(effective) for cid in cited)
    assert not any("draft" in cid for cid in cited)
    reasons = [why for op in body["operations"] for cid, why in op["rejected"].items() if "2025-draft" in cid]
    assert reasons and all(why == "status=draft excluded" for why in reasons)


@pytest.mark.parametrize("query,marker", [
    ("What is the range of the A321XLR?", "Insufficient information"),
    ("A321XLR 的航程是多少？", "信息不足"),
])
def test_unanswerable_question_is_insufficient_and_says_what_was_searched(loop, query, marker):
    body = _ask(loop, query)
    assert body["status"] == "insufficient"
    assert body["answer"].startswith(marker)
    assert "manuals" in body["answer"] and body["citations"] == []


def test_a_chinese_refusal_says_why_in_chinese(loop):
    """Issue 24: the refusal names what the question asked and the closest unit "in the question's
    language"; a Chinese question's reason was English ("原因: the question asks for a amount ...")."""
    body = _ask(loop, "E4027 故障码的维修费用是多少？")
    assert body["status"] == "insufficient", body["answer"]
    answer = body["answer"]
    assert "原因：问题问的是金额或数量" in answer and "最接近的是：“" in answer and "已检索：" in answer, answer
    why = answer.split("原因：")[1].split("已检索：")[0]
    assert not re.search(r"\b(?:the|question|asks|closest)\b", why), why  # no English sentence in it
    [issue] = [i for i in body["validation"]["issues"] if i["kind"] == "unanswered"]
    reason = issue["reason"]  # the rules' reason, or the answer model's carrying the rules' as `rules`
    rules = reason if reason["code"] == "slot_unfilled" else reason["values"]["rules"]
    assert rules["code"] == "slot_unfilled" and reason["values"]["slot"] == rules["values"]["slot"] == "amount"
    assert issue["detail"].startswith("the question asks for an amount")  # the trace keeps the English


@pytest.mark.parametrize("query, closest", [
    # the documents mention reimbursing insurance payments and travel costs, never an internet allowance
    ("What is the monthly internet reimbursement?", "closest"),
    ("What is the parental leave policy?", "closest"),
])
def test_on_topic_text_that_does_not_answer_is_refused_with_the_closest_text(loop, query, closest):
    body = _ask(loop, query)
    assert body["status"] == "insufficient", body["answer"]
    assert "Why:" in body["answer"] and closest in body["answer"] and body["citations"] == []
    assert any(i["kind"] == "unanswered" for i in body["validation"]["issues"])


def test_a_freshness_retry_that_leaves_only_off_topic_text_ends_insufficient_with_the_reason(loop):
    """The README example asked years after the policy: the retries filter the 2024 policy out and
    used to answer about APU fault E5102, `answered`; now the refusal names the policy and the limit."""
    body = _ask(loop, "项目验收时发现发票金额和合同不一致，应该找哪个部门处理，流程是什么？", now=dt.date(2027, 12, 1))
    assert body["status"] == "insufficient"
    assert "E5102" not in body["answer"] and body["citations"] == []
    assert "policies-invoice-contract-mismatch-2024-zh" in body["answer"] and "只允许 730 天" in body["answer"]
    first = body["attempts"][0]["verdict"]["issues"]
    assert {i["kind"] for i in first} == {"too_old"}, "the first attempt was on the question, only too old"


# --- retries: each fixed by the loop where the KB holds a fix ----------------------------

def test_stale_source_is_caught_and_the_retry_answers_from_the_current_revision(demo_kbs, perception):
    # An operator removed the status exclusions, so the superseded 2021 manual ("The 2021 fuel
    # figures did not include the engine performance improvement package") gets cited.
    # Validation flags it; the retry filters superseded documents out and the answer comes from
    # the 2023 revision (the package installed in 2022). (The question used to be "What engine
    # deterioration allowance ...?", which since table rows are read now gets the fleet table
    # quoted instead of the 2021 manual on the first attempt.)
    loop = build_loop(kb_config=demo_kbs, perception=perception,
                      router_config=_router_without(["compare-per-entity", "compare-codes-keyword"]))
    loop.warm_up()
    body = _ask(loop, "Did the A320neo fuel figures include the engine performance improvement package?",
                kb=["manuals"])
    first = body["attempts"][0]
    assert any(i["kind"] == "stale_status" for i in first["verdict"]["issues"])
    assert "The 2021 fuel figures did not include" in first["answer"]
    assert any(h["action"] == "exclude_status" for h in body["attempts"][1]["hints_in"])
    assert not any(c["status"] == "superseded" for c in body["citations"])
    assert body["status"] == "answered" and "installed in 2022" in body["answer"]
    assert "The 2021 fuel figures" not in body["answer"]


def test_too_old_source_is_replaced_by_a_current_one_on_retry(demo_kbs, perception):
    loop = build_loop(kb_config=demo_kbs, perception=perception,
                      router_config=_router_without(["compare-per-entity", "compare-codes-keyword"]))
    loop.warm_up()
    # the engine options guide (updated 2023-04-05, past the manuals' 730 days) says it first; the
    # 2023 performance manual says the same (the question used to ask for the 2021 manual's 2,350 kg,
    # which the answer model answers from the 2023 manual on the first attempt)
    body = _ask(loop, "What fuel burn figure covers both A320neo engine options?", kb=["manuals"])
    first = body["attempts"][0]["verdict"]
    too_old = [i for i in first["issues"] if i["kind"] == "too_old"]
    assert too_old, first
    assert any(h["action"] == "add_time_filter" for h in body["attempts"][1]["hints_in"])
    assert too_old[0]["chunk_id"] not in [c["chunk_id"] for c in body["citations"]]
    details = [i["detail"] for i in body["validation"]["issues"]]
    assert body["status"] == "answered" and body["validation"]["ok"], details
    assert "The figures apply to both engine options" in body["answer"]


def test_missing_comparison_side_gets_its_own_task_on_retry(demo_kbs, perception):
    # Without the per-entity rules, one broad task with top_k=1 finds only one ticket;
    # validation reports the other side missing and the retry searches for it alone.
    loop = build_loop(kb_config=demo_kbs, perception=perception,
                      router_config=_router_without(["compare-per-entity", "compare-codes-keyword"]))
    loop.warm_up()
    body = _ask(loop, "Compare ticket TCK-1043 and ticket TCK-1038", kb=["reports"], top_k=1)
    first = body["attempts"][0]["verdict"]["issues"]
    assert [(i["kind"], i["entity"]) for i in first if i["kind"] == "missing_side"] == [("missing_side", "TCK-1043")]
    assert [t for t in body["plan"]["tasks"] if t["rule"] == "retry:missing_side"]
    cited = " ".join(c["chunk_id"] for c in body["citations"])
    assert "tck-1043" in cited and "tck-1038" in cited
    assert body["status"] == "answered"


class DriftingComposer(ExtractiveComposer):
    """An LLM-like composer that misquotes the first number once (87% -> 85%)."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def run(self, perception, evidence, excluded_claims=(), **context):
        answer = super().run(perception, evidence, excluded_claims, **context)
        self.calls += 1
        if self.calls == 1:
            for claim in answer.claims:
                drifted = re.sub(r"\b87%", "85%", claim.text)
                if drifted != claim.text:
                    answer.text = answer.text.replace(claim.text, drifted)
                    claim.text = drifted
                    claim.numbers = [n.replace("87%", "85%") for n in claim.numbers]
                    break
        return answer


def test_drifted_number_is_caught_and_the_retry_answers_without_it(demo_kbs, perception):
    loop = build_loop(kb_config=demo_kbs, perception=perception)
    loop.composer = DriftingComposer()
    loop.warm_up()
    body = _ask(loop, "What defect closure rate does the quality summary report?", kb=["reports"])
    first = body["attempts"][0]["verdict"]
    assert any(i["kind"] == "unsupported_number" for i in first["issues"]), first
    assert "85%" in body["attempts"][0]["answer"]
    assert "85%" in body["attempts"][0]["answer"] and "2025 was 85%" not in body["answer"]
    assert body["status"] in ("answered", "partial")
    # the rejected sentence reaches the composer through the next plan, not through the loop
    retry_plan = body["attempts"][1]["plan"]
    assert any("85%" in text for text in retry_plan["dropped_claims"]), retry_plan


def test_every_attempt_and_operation_is_in_the_response(loop):
    body = _ask(loop, "How is error code E4027 triggered?")
    ops = [o["op"] for o in body["operations"]]
    for required in ("perceive", "route", "embed", "retrieve.keyword", "fuse.tasks", "dedupe", "budget", "compose",
                     "validate.citation", "validate.freshness"):
        assert required in ops
    assert all({"op", "params", "input_count", "output_count", "kept", "rejected", "ms", "reason"} <= set(o)
               for o in body["operations"])
    assert set(body["timing"]) == {"perceive", "route", "retrieve", "compose", "validate", "total"}
    assert body["config_version"] == loop.router_config.version
    # the compose step says, per candidate sentence, why it was chosen or not
    compose = next(o for o in body["operations"] if o["op"] == "compose")
    assert compose["kept"] and all("@" in k for k in compose["kept"])
    assert compose["rejected"] and all(why.startswith("not chosen: ") for why in compose["rejected"].values())
    # and how it weighed the question's terms: the rare "e4027" counts more than "trigger"
    weights = compose["params"]["term_weights"]
    assert 0 < weights["trigger"] < weights["e4027"] <= 2.0, weights
    # every operation carries the stage it ran in; stage times are wall times inside the total
    stage_of = {o["op"]: o["stage"] for o in body["operations"]}
    assert {stage_of[op] for op in ("embed", "retrieve.keyword", "fuse.tasks", "dedupe", "budget")} == {"retrieve"}
    assert (stage_of["perceive"], stage_of["route"], stage_of["compose"], stage_of["validate.citation"]) == (
        "perceive", "route", "compose", "validate")
    stages = sum(v for k, v in body["timing"].items() if k != "total")
    assert 0 < stages <= body["timing"]["total"] + 0.01
    assert body["timing"]["retrieve"] >= sum(o["ms"] for o in body["operations"] if o["stage"] == "retrieve") - 0.01


def test_trace_levels_trim_the_response(loop):
    summary = _ask(loop, "E4027 reset procedure", trace="summary")
    assert summary["operations"] and "kept" not in summary["operations"][0]
    none = _ask(loop, "E4027 reset procedure", trace="none")
    assert none["operations"] == [] and none["attempts"] == []


def test_max_retries_zero_runs_one_attempt(demo_kbs, perception):
    loop = build_loop(kb_config=demo_kbs, perception=perception, router_config=_router_without(["compare-per-entity"]))
    loop.warm_up()
    body = _ask(loop, "What engine deterioration allowance did the A320neo fuel figures use?", kb=["manuals"],
                max_retries=0)
    assert len(body["attempts"]) == 1


def test_a_retry_that_repeats_an_earlier_plan_stops_with_that_answer(loop):
    """A third attempt re-ran the second one's plan: the same evidence, answer and verdict for
    ~10 ms more (79 of 93 third attempts on MultiHop dev). The loop stops there and says why."""
    query = "What is the gym membership allowance?"  # no policy grants one: every attempt refuses
    body = _ask(loop, query)
    assert len(body["attempts"]) == 2
    stop = next(o for o in body["operations"] if o["op"] == "retry.stop")
    assert stop["params"] == {"attempt": 2, "repeats": 1, "same": "plan"} and "deterministic" in stop["reason"]
    one_retry = _ask(loop, query, max_retries=1)  # exactly the attempts that ran
    assert (body["status"], body["answer"]) == (one_retry["status"], one_retry["answer"]) == (
        "insufficient", one_retry["answer"])


def test_a_retry_that_retrieves_the_same_evidence_is_not_composed_again(loop):
    """The widened retry of an unanswerable question found the very same chunks: composing and
    validating them again can only repeat the first answer, so the attempt reuses it and stops."""
    body = _ask(loop, "What is the range of the A321XLR?")
    first, second = body["attempts"]
    assert second["evidence"] == first["evidence"] and second["plan"] != first["plan"]
    assert (second["answer"], second["verdict"]) == (first["answer"], first["verdict"])
    assert [o["params"]["attempt"] for o in body["operations"] if o["op"] == "compose"] == [0]
    stop = next(o for o in body["operations"] if o["op"] == "retry.stop")
    assert stop["params"] == {"attempt": 1, "repeats": 0, "same": "evidence"}
    assert body["status"] == "insufficient"


def test_unknown_kb_is_refused_with_the_known_ones(loop):
    with pytest.raises(UnknownKnowledgeBase, match="known: manuals, policies, reports"):
        _ask(loop, "anything", kb=["regs"])


@pytest.mark.parametrize("body,field", [
    ({}, "query"), ({"query": 5}, "query"), ({"query": "  "}, "query"), ({"query": "x" * 2001}, "query"),
    ({"query": "q", "top_k": 0}, "top_k"), ({"query": "q", "top_k": "5"}, "top_k"),
    ({"query": "q", "now": "yesterday"}, "now"), ({"query": "q", "trace": "all"}, "trace"),
    ({"query": "q", "filters": {"color": "red"}}, "filters.color"), ({"query": "q", "kb": []}, "kb"),
    ({"query": "q", "max_retries": 9}, "max_retries"), ({"query": "q", "extra": 1}, "extra"), ([1], "body"),
])
def test_bad_requests_name_the_field(body, field):
    with pytest.raises(RequestError) as info:
        parse_ask_request(body)
    assert info.value.field == field
