"""The LLM composer on its own, against the stand-in server: client errors, reply parsing,
prompt, fallbacks, the session budget. No model is loaded: evidence is demo-KB chunks built
by the real chunker (tests/validation/conftest.py), perception is rules-only."""

from __future__ import annotations

import datetime as dt
import socket
import time

import pytest

from core.errors import UpstreamError, UpstreamTimeout
from orchestration.compose.comparison import make_side
from orchestration.compose.llm import LLMComposer, LLMSettings
from orchestration.compose.llm.client import ChatClient
from orchestration.compose.llm.prompt import build_messages
from orchestration.compose.llm.reply import parse_reply
from orchestration.types import Feedback
from perception import PerceptionAgent
from tests.llm_standin import Reply
from tests.validation.conftest import chunk

E5102 = chunk("manuals-fault-e5102", "95% speed")
E4027 = chunk("manuals-fault-e4027", "E4027")
FUEL = chunk("manuals-fuel-efficiency-comparison-2023", "2,290 kg")
DRAFT = chunk("policies-invoice-contract-mismatch-2025-draft", "Vendor Settlement Office")
EVIDENCE = [E4027, E5102, FUEL]
NOW = dt.date(2025, 7, 1)  # the request's date, as its context gives every layer


@pytest.fixture(scope="module")
def agent():
    return PerceptionAgent(use_ner=False)


def settings(url: str, **values) -> LLMSettings:
    return LLMSettings(**{"base_url": url, "model": "standin-1", "timeout": 0.5, "budget_seconds": 2.0} | values)


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


# --- the client: one request, a hard deadline, every failure a reason --------------------------

def test_client_reads_content_usage_and_finish_reason(standin):
    standin.script(Reply("E5102 is an APU start failure [2]."))
    reply = ChatClient(settings(standin.url)).complete([{"role": "user", "content": "Question: q"}], 0.5)
    assert reply.content == "E5102 is an APU start failure [2]."
    assert reply.completion_tokens == 7 and reply.prompt_tokens and reply.finish_reason == "stop"
    sent = standin.requests[-1]
    assert sent["model"] == "standin-1" and sent["temperature"] == 0 and sent["stream"] is False


@pytest.mark.parametrize(("reply", "reason"), [
    (Reply(status=500), "http_5xx"),
    (Reply(status=429), "http_4xx"),
    (Reply(body=b"{not json"), "malformed"),
    (Reply(body=b'{"choices": []}'), "malformed"),
    (Reply(delay=0.8), "timeout"),
    (Reply(trickle=0.05), "timeout"),  # a slow stream: every byte arrives, the whole reply does not
])
def test_client_failures_carry_their_fallback_reason(standin, reply, reason):
    standin.script(reply)
    started = time.monotonic()
    with pytest.raises(UpstreamError) as caught:
        ChatClient(settings(standin.url)).complete([{"role": "user", "content": "Question: q"}], 0.5)
    assert caught.value.reason == reason
    assert time.monotonic() - started < 0.75  # the deadline holds, slow stream included
    if reason == "timeout":
        assert isinstance(caught.value, UpstreamTimeout)


def test_client_connection_refused_is_a_connection_failure():
    with pytest.raises(UpstreamError, match="could not reach") as caught:
        ChatClient(settings(closed_port_url())).complete([], 0.5)
    assert caught.value.reason == "connection"


def test_api_key_is_sent_as_bearer_and_never_described(standin):
    standin.script(Reply("x [1]."))
    config = settings(standin.url, api_key="sk-secret-123")
    received = {}

    class Spy(ChatClient):
        def complete(self, messages, timeout):
            received["auth"] = f"Bearer {self.settings.api_key}"
            return super().complete(messages, timeout)

    Spy(config).complete([{"role": "user", "content": "Question: q"}], 0.5)
    assert received["auth"] == "Bearer sk-secret-123"
    assert "sk-secret" not in str(config.describe())


# --- the prompt -------------------------------------------------------------------------------

def test_prompt_numbers_evidence_with_source_date_status_and_sends_feedback(agent):
    perception = agent.run("What triggers error code E5102?", NOW)
    feedback = [Feedback("unsupported_number", "85% is not stated in the cited source; it states 95%",
                         "E5102 needs 85% speed", [{"source": "Aurora", "title": "E5102", "status": "effective",
                                                    "text": "E5102 is triggered when the APU does not reach 95%"}])]
    system, user = build_messages(perception, [E5102, DRAFT], feedback)
    assert "Cite only the chunk numbers shown" in system["content"]
    assert "The knowledge base does not say." in system["content"]
    assert user["content"].startswith("Question: What triggers error code E5102?")
    assert "[1] Fault Code E5102" in user["content"] and "[2] DRAFT" in user["content"]
    assert "status: draft" in user["content"] and "date: 2025-05-20" in user["content"]
    assert 'Claim: "E5102 needs 85% speed"' in user["content"] and "it states 95%" in user["content"]


# --- parsing a reply ------------------------------------------------------------------------------

def test_reply_is_renumbered_by_first_use_and_markers_stay_with_their_sentence():
    parsed = parse_reply("E5102 is triggered below 95% speed. [2] E4027 is an engine vibration code [1].\n\n"
                         "Sources:\n[1] Fault code E4027\n[2] Fault code E5102", EVIDENCE)
    assert [c.text for c in parsed.claims] == ["E5102 is triggered below 95% speed. [1]",
                                               "E4027 is an engine vibration code [2]."]
    assert [(c.n, c.chunk_id) for c in parsed.citations] == [(1, E5102.chunk_id), (2, E4027.chunk_id)]
    assert parsed.claims[0].numbers == ["95%"] and parsed.cited
    assert "95% speed" in parsed.citations[0].snippet  # the chunk's sentence closest to the claim
    assert parsed.text == "E5102 is triggered below 95% speed. [1] E4027 is an engine vibration code [2]."


def test_a_trailing_list_of_sources_is_dropped_but_one_cited_line_is_a_claim():
    listed = parse_reply("E5102 is triggered below 95% speed [2].\n\n[1] Fault code E4027\n[2] Fault code E5102",
                         EVIDENCE)
    assert [c.text for c in listed.claims] == ["E5102 is triggered below 95% speed [1]."]
    single = parse_reply("E4027 is a vibration code [1].\n[2] E5102 is triggered below 95% speed.", EVIDENCE)
    assert [c.citations for c in single.claims] == [[1], [2]]


def test_an_index_beyond_the_evidence_keeps_its_number_and_has_no_citation():
    parsed = parse_reply("- E5102 is an APU start failure [7].\n- E4027 is a vibration code [1].", EVIDENCE)
    assert [c.citations for c in parsed.claims] == [[7], [1]]
    assert [c.chunk_id for c in parsed.citations] == [E4027.chunk_id]
    assert parsed.notes == ["the reply cites [7], which no evidence chunk has"]


def test_a_refusal_is_a_notice_and_an_uncited_reply_is_flagged():
    refusal = parse_reply("The knowledge base does not say.", EVIDENCE)
    assert [c.kind for c in refusal.claims] == ["notice"] and refusal.refused and not refusal.cited
    uncited = parse_reply("E5102 is an APU start failure.", EVIDENCE)
    assert not uncited.cited and not uncited.refused and uncited.claims[0].citations == []


def test_a_comparison_sentence_becomes_a_relation_claim():
    sides = [make_side("A320"), make_side("B737")]
    parsed = parse_reply("The A320neo burns 2,290 kg per block hour [3], more than the 737 MAX 8 at "
                         "2,360 kg [3].", EVIDENCE, sides)
    claim = parsed.claims[0]
    assert claim.kind == "relation" and claim.relation == "higher"
    assert claim.values == {"A320": {"value": 2290.0, "unit": "kg", "n": 1}, "B737": {"value": 2360.0, "unit": "kg",
                                                                                   "n": 1}}
    plain = parse_reply("The A320neo burns 70 kg less per hour than the 737 MAX 8 [3].", EVIDENCE, sides)
    assert plain.claims[0].kind == "fact"  # one value only: no relation to judge


# --- the composer: answers, fallbacks, the session --------------------------------------------------

@pytest.mark.parametrize(("reply", "reason"), [
    (Reply(delay=0.8), "timeout"), (Reply(status=503), "http_5xx"), (Reply(body=b"<html>"), "malformed"),
    (Reply("   "), "empty"), (Reply("E5102 is an APU start failure."), "uncited"),
])
def test_every_failure_falls_back_to_the_extractive_answer_and_says_why(standin, agent, reply, reason):
    standin.script(reply)
    composer = LLMComposer(settings(standin.url))
    answer = composer.run(agent.run("What triggers error code E5102?", NOW), [E5102, E4027])
    assert answer.composer == "extractive" and answer.fallback == reason
    assert any(c.citations for c in answer.claims)  # the extractive answer, cited
    assert answer.llm_calls[0].outcome == reason and "the LLM answer was not used" in answer.notes[-1]


def test_a_reply_the_parser_chokes_on_falls_back(standin, agent, monkeypatch):
    from orchestration.compose.llm import composer as module

    def broken(*args, **kwargs):
        raise IndexError("a parser bug")

    monkeypatch.setattr(module, "parse_reply", broken)
    standin.script(Reply("E5102 [1]."))
    answer = LLMComposer(settings(standin.url)).run(agent.run("What triggers error code E5102?", NOW), [E5102])
    assert answer.fallback == "malformed" and answer.composer == "extractive"


def test_a_failure_is_remembered_for_the_rest_of_the_request(standin, agent):
    standin.script(Reply(delay=0.8))
    composer = LLMComposer(settings(standin.url))
    session = composer.session()
    perception = agent.run("What triggers error code E5102?", NOW)
    first = composer.run(perception, [E5102], session=session)
    second = composer.run(perception, [E5102], session=session)
    assert first.fallback == second.fallback == "timeout"
    assert len(standin.requests) == 1 and second.llm_calls == []  # no second call


def test_the_call_timeout_is_cut_to_the_budget_left(standin, agent):
    standin.script(Reply(delay=0.4))
    composer = LLMComposer(settings(standin.url, timeout=0.5, budget_seconds=0.5))
    session = composer.session()
    time.sleep(0.3)  # most of the budget already spent by this request
    started = time.monotonic()
    answer = composer.run(agent.run("What triggers error code E5102?", NOW), [E5102], session=session)
    assert answer.fallback == "timeout" and time.monotonic() - started < 0.35


def test_no_budget_left_means_no_call(standin, agent):
    composer = LLMComposer(settings(standin.url, timeout=0.5, budget_seconds=0.5))
    session = composer.session()
    session.deadline = time.monotonic()  # spent
    standin.script()
    answer = composer.run(agent.run("What triggers error code E5102?", NOW), [E5102], session=session)
    assert answer.fallback == "budget" and standin.requests == []


def test_a_good_reply_is_the_answer_with_its_call_recorded(standin, agent):
    standin.script(Reply("E5102 is triggered when the APU does not reach 95% speed within 60 seconds "
                         "{cite:95% speed}."))
    answer = LLMComposer(settings(standin.url)).run(agent.run("What triggers error code E5102?", NOW),
                                                    [E4027, E5102])
    assert answer.composer == "llm" and answer.fallback is None
    assert answer.text == "E5102 is triggered when the APU does not reach 95% speed within 60 seconds [1]."
    assert answer.citations[0].chunk_id == E5102.chunk_id
    call = answer.llm_calls[0]
    assert call.outcome == "ok" and call.prompt_tokens and call.completion_tokens and call.ms > 0


@pytest.mark.parametrize(("values", "message"), [
    ({"base_url": "localhost:11434"}, "base_url must be an http"),
    ({"model": " "}, "model must be a non-empty string"),
    ({"timeout": 0}, "timeout must be a number of seconds > 0"),
    ({"timeout": 5, "budget_seconds": 2}, "longer than budget_seconds"),
    ({"max_tokens": 4}, "max_tokens must be an integer >= 16"),
])
def test_settings_name_the_bad_value(values, message):
    with pytest.raises(ValueError, match=message):
        LLMSettings(**{"base_url": "http://127.0.0.1:1/v1", "model": "m"} | values)
