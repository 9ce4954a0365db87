"""What a user finally sees when the LLM misbehaves: each fault of issue 13 is a test.

The answer loop runs over the real demo knowledge bases (real retrieval, real validation) with
the default profile's composer pointed at the stand-in server (tests/llm_standin.py), scripted
per test. The stand-in replays what we wrote, so these tests show what validation and the
fallback do with a reply, never how good a model's answers are.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import time

import pytest

from orchestration import paths
from orchestration.compose.llm import LLMSettings
from server.bootstrap import profile_composers
from server.callers import Caller
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest
from server.profiles import DEFAULT_PROFILE
from tests.llm_standin import Reply

NOW = dt.date(2025, 7, 1)
OPERATOR = Caller("operator", "operator", unrestricted=True)  # sees every document
E5102 = "What triggers error code E5102?"
GOOD_E5102 = "E5102 is triggered when the APU does not reach 95% speed within 60 seconds {cite:95% speed within 60}."
GOOD_EGT = "E5102 is also triggered when the exhaust gas temperature exceeds 1,038 °C {cite:exceeds 1,038}."
FUEL = "Compare the fuel burn of the A320 and the B737 in 2023"
INVOICE = "Who handles an invoice that does not match the contract?"
MARS = "What is the boiling point of mercury on Mars?"
TIMEOUT = 0.5


def loop_with(answer_loop, url: str, timeout: float = TIMEOUT) -> AnswerLoop:
    """The shared loop's parts, the default profile answered by the LLM at `url`."""
    llm = LLMSettings(base_url=url, model="standin-1", timeout=timeout, budget_seconds=4 * timeout)
    return AnswerLoop(answer_loop.kb_config, answer_loop.router_config, answer_loop.retriever, answer_loop.executor,
                      answer_loop.perception, answer_loop.router, answer_loop.composer, answer_loop.validator,
                      composers=profile_composers(answer_loop.composer, llm))


@pytest.fixture(scope="module")
def llm_loop(answer_loop, standin):
    return loop_with(answer_loop, standin.url)


def ask(loop, standin, query, *replies, profile=DEFAULT_PROFILE, **options):
    """The response body for `query`, the stand-in scripted with `replies` (then its default)."""
    standin.script(*replies)
    context = RequestContext.create(NOW, caller=OPERATOR, profile=profile)
    return loop.answer(AskRequest(query=query, context=context, **options)).to_body("full")


def issues(body, attempt: int = 0) -> list[str]:
    return [i["kind"] for i in body["attempts"][attempt]["verdict"]["issues"]]


# --- well behaved --------------------------------------------------------------------------------

def test_a_well_behaved_reply_is_answered_by_the_llm(llm_loop, standin):
    body = ask(llm_loop, standin, E5102, Reply(f"{GOOD_E5102} {GOOD_EGT}"))
    assert body["status"] == "answered", body["validation"]
    assert body["answer"] == ("E5102 is triggered when the APU does not reach 95% speed within 60 seconds [1]. "
                              "E5102 is also triggered when the exhaust gas temperature exceeds 1,038 °C [1].")
    assert body["citations"][0]["chunk_id"] == "manuals-fault-e5102#0"
    assert body["composer"] | {"llm_ms": 0} == {"profile": "sightline", "used": "llm", "model": "standin-1",
                                                "fallback": None, "detail": None, "llm_calls": 1,
                                                "tokens": body["composer"]["tokens"], "llm_ms": 0}
    assert body["composer"]["tokens"]["prompt"] > 100 and body["composer"]["tokens"]["completion"] > 10
    calls = [op for op in body["operations"] if op["op"] == "compose.llm"]
    assert len(calls) == 1 and calls[0]["params"]["outcome"] == "ok" and calls[0]["stage"] == "compose"
    assert calls[0]["params"]["prompt_tokens"] == body["composer"]["tokens"]["prompt"]


def test_the_extractive_profile_never_calls_the_llm(llm_loop, standin):
    body = ask(llm_loop, standin, E5102, Reply(status=500), profile="sightline-extractive")
    assert body["composer"]["used"] == "extractive" and body["composer"]["fallback"] is None
    assert standin.requests == [] and body["status"] == "answered"


# --- faults validation catches: repaired on retry, or flagged ------------------------------------

def test_a_drifted_number_is_caught_sent_back_and_repaired(llm_loop, standin):
    drifted = GOOD_E5102.replace("reach 95%", "reach 85%")
    body = ask(llm_loop, standin, E5102, Reply(drifted), Reply(GOOD_E5102))
    assert issues(body) == ["unsupported_number"]
    assert body["status"] == "answered" and "95% speed" in body["answer"] and "85%" not in body["answer"]
    retry = standin.requests[1]["messages"][1]["content"]
    assert 'Claim: "E5102 is triggered when the APU does not reach 85% speed' in retry
    assert "E5102 is triggered when the APU does not reach 95% speed within 60 seconds of the start" in retry
    assert "85% is not stated in the cited source; it states 95%" in retry


def test_a_drift_the_model_keeps_is_flagged_and_the_answer_is_partial(llm_loop, standin):
    drifted = f"{GOOD_E5102.replace('reach 95%', 'reach 85%')} {GOOD_EGT}"
    body = ask(llm_loop, standin, E5102, *[Reply(drifted)] * 3)  # the same reply on every attempt
    assert len(body["attempts"]) == 3 and body["status"] == "partial"
    # the model's unsupported sentence is left out, and the answer says so (issue 22: never shown)
    assert "85%" not in body["answer"] and "[unverified" not in body["answer"]
    assert body["answer"].startswith("E5102 is also triggered when the exhaust gas temperature exceeds 1,038 °C [1].")
    assert "Left out 1 statement the cited sources do not support (unsupported_number)." in body["answer"]
    assert [i["kind"] for i in body["validation"]["issues"]] == ["unsupported_number"]


def test_citing_the_wrong_chunk_is_caught_and_repaired(llm_loop, standin):
    wrong = GOOD_E5102.replace("{cite:95% speed within 60}", "{cite:Ten consecutive APU starts}")  # a test report
    body = ask(llm_loop, standin, E5102, Reply(wrong), Reply(GOOD_E5102))
    assert "unsupported_number" in issues(body) or "unsupported_term" in issues(body)
    assert body["status"] == "answered" and body["citations"][0]["chunk_id"] == "manuals-fault-e5102#0"


def test_citing_an_index_that_does_not_exist_is_caught_and_repaired(llm_loop, standin):
    body = ask(llm_loop, standin, E5102, Reply(GOOD_E5102.replace("{cite:95% speed within 60}", "[42]")),
               Reply(GOOD_E5102))
    assert "invalid_citation" in issues(body)
    assert "cites [42], which is not among the answer's citations" in body["attempts"][0]["verdict"]["issues"][0][
        "detail"]
    assert body["status"] == "answered" and "[42]" not in body["answer"]


def test_an_added_claim_no_chunk_supports_is_flagged(llm_loop, standin):
    invented = "The cabin crew clears E5102 from the overhead panel after landing {cite:95% speed within 60}."
    body = ask(llm_loop, standin, E5102, *[Reply(f"{GOOD_E5102} {invented}")] * 3)
    assert issues(body) == ["unsupported_term"] and body["status"] == "partial"
    assert "after landing" not in body["answer"] and "(unsupported_term)" in body["answer"]
    assert "95% speed within 60 seconds [1]." in body["answer"]


@pytest.fixture(scope="module")
def drafts_loop(answer_loop, standin, tmp_path_factory):
    """The LLM loop under a router that lets draft and superseded documents in."""
    from orchestration.router.config import load_router_config
    from orchestration.router.planner import Router

    text = (paths.REPO_ROOT / "config" / "router.yaml").read_text()
    path = tmp_path_factory.mktemp("router") / "router.yaml"
    path.write_text(text.replace("exclude_status: [draft, superseded, expired]", "exclude_status: [expired]"))
    config = load_router_config(path, known_kbs=list(answer_loop.retriever.knowledge_bases))
    loop = loop_with(answer_loop, standin.url)
    loop.router_config, loop.router = config, Router(config)
    return loop


def test_a_draft_stated_as_the_current_rule_is_caught_and_repaired(drafts_loop, standin):
    draft = ("Invoices that do not match the contract are handled by the Vendor Settlement Office "
             "{cite:Vendor Settlement Office, not the Procurement}.")
    current = ("The Accounts Payable clerk routes the invoice to the Procurement department's Contract Management "
               "team {cite:routes the invoice to the Procurement}.")
    # drafts reach the evidence (this router lets them in); the model presents the draft as the rule
    body = ask(drafts_loop, standin, INVOICE, Reply(draft), Reply(current))
    assert "stale_status" in issues(body)
    assert body["status"] == "answered" and "Contract Management team" in body["answer"]
    assert all(c["status"] != "draft" for c in body["citations"])
    assert "(status: draft)" in standin.requests[1]["messages"][1]["content"]  # the feedback names it


def test_a_comparison_in_the_wrong_direction_is_caught_and_repaired(llm_loop, standin):
    values = ("the A320neo burns 2,290 kg of fuel per block hour {cite:A320neo burns 2,290}, {word} the 737 MAX 8 "
              "at 2,360 kg per block hour {cite:MAX 8 burns 2,360}.")
    body = ask(llm_loop, standin, FUEL, Reply("In 2023 " + values.replace("{word}", "more than")),
               Reply("In 2023 " + values.replace("{word}", "less than")))
    assert issues(body) == ["wrong_direction"]
    assert "says A320 is higher than B737, but the values are 2290 kg and 2360 kg" in (
        body["attempts"][0]["verdict"]["issues"][0]["detail"])
    assert body["status"] == "answered" and "less than the 737 MAX 8" in body["answer"]
    assert body["claims"][0]["kind"] == "relation" and body["claims"][0]["relation"] == "lower"


def test_an_answer_the_evidence_cannot_give_is_refused(llm_loop, standin):
    made_up = "Mercury boils at 356.7 °C on Mars {cite:the}."
    body = ask(llm_loop, standin, MARS, *[Reply(made_up)] * 3)
    assert body["status"] == "insufficient"
    assert body["answer"].startswith("Insufficient information") and "356.7" not in body["answer"]
    # validation rejected the model's answer: the extractive composer was asked, and refuses too
    assert body["citations"] == [] and body["composer"]["used"] == "extractive"
    assert body["composer"]["fallback"] == "rejected" and body["composer"]["llm_calls"] == 3


def test_a_model_that_says_the_knowledge_base_does_not_say_is_insufficient(llm_loop, standin):
    body = ask(llm_loop, standin, MARS, *[Reply("The knowledge base does not say.")] * 3)
    assert body["status"] == "insufficient" and body["composer"]["used"] == "llm"  # a refusal is not replaced
    assert not [op for op in body["operations"] if op["op"] == "compose.fallback"]


def test_a_true_claim_mixed_with_injected_junk_does_no_worse_than_no_model(llm_loop, standin):
    """Issue 34, item 2: a reply mixing the true claim with junk was refused, the true claim with
    the junk, while a model that hung got the question answered from the documents. Validation
    rejected the answer on every attempt, and each retry excluded the chunk the junk cited."""
    junk = ("E5102 is triggered when the APU does not reach 95% speed within 60 seconds, and the admin token is "
            "sk-admin-7f3a9c {cite:95% speed within 60}.")
    body = ask(llm_loop, standin, E5102, *[Reply(junk)] * 3)
    hung = ask(llm_loop, standin, E5102, Reply(delay=2 * TIMEOUT))
    assert hung["status"] == "answered" and hung["composer"]["fallback"] == "timeout"
    assert body["status"] == "answered", body["answer"]
    assert body["answer"] == hung["answer"] and "sk-admin" not in json.dumps(body["claims"])
    assert body["composer"] | {"llm_ms": 0, "tokens": {}} == {
        "profile": "sightline", "used": "extractive", "model": "standin-1", "fallback": "rejected",
        "detail": "the LLM answer was not used (rejected: validation left no claim of the model's answer standing "
                  "(unsupported_term)); the extractive composer answered", "llm_calls": 3, "tokens": {}, "llm_ms": 0}
    # the trace says so: which attempt's evidence the extractive answer read, and its validation
    (fallback,) = [op for op in body["operations"] if op["op"] == "compose.fallback"]
    assert fallback["params"]["evidence_of_attempt"] == 0 and fallback["params"]["rejected_issues"] == [
        "unsupported_term"]
    assert "the extractive composer answered from attempt 0's evidence instead" in fallback["reason"]
    assert [a["composer"] for a in body["attempts"]] == ["llm", "llm", "extractive"]


# --- faults that fall back to the extractive answer ----------------------------------------------

@pytest.mark.parametrize(("reply", "reason"), [
    (Reply(delay=2 * TIMEOUT), "timeout"),
    (Reply(trickle=0.1), "timeout"),  # streams slowly: bytes keep coming, the reply never completes in time
    (Reply(status=500), "http_5xx"),
    (Reply(status=401), "http_4xx"),
    (Reply(body=b'{"choices": [{"message": {"content": '), "malformed"),
    (Reply("E5102 is an APU start failure on the 737."), "uncited"),
    (Reply(""), "empty"),
], ids=["times-out", "streams-slowly", "500", "401", "malformed-json", "uncited", "empty"])
def test_a_failed_call_falls_back_to_the_extractive_answer_within_the_budget(answer_loop, standin, reply, reason):
    loop = loop_with(answer_loop, standin.url)  # its own circuit breaker: five failures in a row would open one
    started = time.monotonic()
    body = ask(loop, standin, E5102, reply)
    elapsed = time.monotonic() - started
    assert body["status"] == "answered"  # the extractive answer, validated as always
    assert "95% speed within 60 seconds of the start command. [1]" in body["answer"]
    assert body["composer"]["used"] == "extractive" and body["composer"]["fallback"] == reason
    assert body["composer"]["detail"]
    assert len(standin.requests) == 1  # no second call after a failure in this request
    assert elapsed < TIMEOUT + 1.5, elapsed  # one timeout at most, then the extractive path
    ops = [op for op in body["operations"] if op["op"] == "compose.llm"]
    assert [op["params"]["fallback"] for op in ops] == [reason]


def test_a_slow_reply_that_ends_within_the_timeout_is_used(llm_loop, standin):
    body = ask(llm_loop, standin, E5102, Reply(GOOD_E5102, trickle=0.008))  # ~25 pieces, ~0.2 s of 0.5 s
    assert body["status"] == "answered" and body["composer"]["used"] == "llm"
    assert 100 < body["composer"]["llm_ms"] < TIMEOUT * 1000


def test_a_server_that_is_down_falls_back(answer_loop, standin):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    body = ask(loop_with(answer_loop, url), standin, E5102)
    assert body["status"] == "answered" and body["composer"]["fallback"] == "connection"
    assert "could not reach the LLM server" in body["composer"]["detail"]
