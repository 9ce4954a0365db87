"""A reply must not tell an outside caller what a document it may not read says (issue 34, item 1).

Found: the refusal "no knowledge base searched ever writes X" was given only when no document at
all wrote X; when only a restricted document did, another refusal came back. Asking "Is <name> on
the restructuring list?" anonymously, once with a name from a restricted HR list and once with an
invented one, gave two different replies: the hidden list could be read one guess at a time.

Here one knowledge base is served by real gunicorn twice: built with the restricted list, then
rebuilt without it. The same 50 questions about words only the list writes, asked anonymously
of both builds, must get the same replies, field for field, once the trace id and the timings
are taken out: status, refusal reason, quoted text, citations, every count, id and score.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from orchestration import paths
from orchestration.kb import layout
from orchestration.kb.config import parse_kb_config
from orchestration.kb.ingest import ingest
from tests.live import start_service

from .conftest import add_key

pytestmark = pytest.mark.slow

PUBLIC = {
    "leave.md": "# Parental leave\n\nEmployees receive 16 weeks of paid parental leave. Requests go to the "
                "People team at least 30 days before the leave starts.\n",
    "restructuring.md": "# Restructuring process\n\nWhen a team is restructured, affected employees are told by "
                        "their manager first. The restructuring list is kept by the People team and reviewed by "
                        "legal counsel.\n\nSeverance is two weeks of pay per year of service, with a minimum of "
                        "eight weeks.\n",
    "travel.md": "# Travel\n\nEconomy class is booked for flights under six hours. Hotels are reimbursed up to "
                 "180 euros a night.\n",
}
LISTED = ["Marguerite Okonkwo", "Tobias Lindqvist", "Priya Raghunathan", "Ezekiel Moreau", "Annika Szabo",
          "Casimir Delacroix", "Oluwaseun Adeyemi", "Leopoldine Fairweather"]
INVENTED = ["Bartholomew Quince", "Solveig Arrhenius", "Dmitri Vasquez", "Hortense Blackwood", "Ignatius Pym",
            "Rosalind Achterberg", "Thaddeus Okafor", "Wilhelmina Strand"]
HIDDEN = ("---\ntitle: Restructuring list 2025\nacl: [hr]\n---\n\n# Restructuring list 2025\n\n"
          f"The following employees are on the restructuring list: {', '.join(LISTED)}.\n\n"
          "Project Nightjar closes on 30 September; its budget of 2.4 million euros moves to the Kestrel "
          "platform.\n\nThe Halvorsen warehouse in Tromsø is sold to Brightwater Logistics.\n")
TOPICS = ["Project Nightjar", "the Kestrel platform", "the Halvorsen warehouse", "Brightwater Logistics"]
QUESTIONS = ([f"Is {name} on the restructuring list?" for name in LISTED + INVENTED]
             + [f"When does {name} leave the company?" for name in LISTED + INVENTED]
             + [template.format(topic) for topic in TOPICS
                for template in ("What happens to {}?", "Who takes over {}?", "Summarize the plan for {}.")]
             + ["Is the Halvorsen warehouse in Tromsø being sold?", "How much budget moves to the Kestrel platform?",
                "Where is the Halvorsen warehouse?", "What does Brightwater Logistics buy?",
                "Is Project Nightjar closing?", "Which project's budget moves to Kestrel?"])
NOW = "2026-01-05"


def _same_for_comparison(body: dict) -> dict:
    """The reply without what differs between any two requests: the trace id, the timings, and
    whether the answering worker had embedded the question before (its query-vector cache)."""
    body = json.loads(json.dumps(body))
    body.pop("trace_id")
    body.pop("timing")
    for op in body["operations"]:
        op.pop("ms")
        if op["op"] == "embed":
            op["params"].pop("cached")
            op.pop("output_count")  # texts embedded now, not read from the cache
    return body


def _differences(a, b, where: str = "") -> list[str]:
    """Where two JSON values differ, as paths with both values (the first few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for key in sorted(a.keys() | b.keys())
                for d in _differences(a.get(key), b.get(key), f"{where}.{key}")][:5]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for k, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{where}[{k}]")][:5]
    return [] if a == b else [f"{where}: {str(a)[:120]!r} != {str(b)[:120]!r}"]


@pytest.fixture(scope="module")
def hr(tmp_path_factory, embedder):
    """(service, KB settings, KB dir, docs dir, key of an HR caller) over KB 'hr' with the restricted list."""
    root = tmp_path_factory.mktemp("side-channel")
    docs = root / "docs"
    docs.mkdir()
    for name, text in {**PUBLIC, "restructuring-list-2025.md": HIDDEN}.items():
        (docs / name).write_text(text, encoding="utf-8")
    config_dir = root / "config"
    shutil.copytree(paths.REPO_ROOT / "config", config_dir)
    kb_yaml = {"data_dir": str(root / "data"), "knowledge_bases": {"hr": {"paths": [str(docs)]}}}
    (config_dir / "knowledge_bases.yaml").write_text(yaml.safe_dump(kb_yaml), encoding="utf-8")
    config = parse_kb_config(kb_yaml, base_dir=root, data_dir=root / "data")
    settings, kb_dir = config.knowledge_bases["hr"], config.kb_dir("hr")
    ingest(settings, kb_dir, embedder, progress=False)
    keys_file = str(root / "api_keys.yaml")
    key = add_key(keys_file, "hr-app", "hr")
    (root / "svc").mkdir()
    live = start_service(config, root / "svc", config_dir=config_dir, env={"SIGHTLINE_API_KEYS": keys_file})
    yield live, settings, kb_dir, docs, key
    live.stop()


def _ask_all(live) -> list[dict]:
    replies = []
    for question in QUESTIONS:
        status, _h, body = live.request("POST", "/rag", {"query": question, "now": NOW, "trace": "full"})
        assert status == 200, body
        replies.append(_same_for_comparison(body))
    return replies


def test_an_outside_caller_gets_the_same_replies_whether_a_restricted_document_exists_or_not(hr, embedder):
    live, settings, kb_dir, docs, key = hr
    assert len(QUESTIONS) == 50
    # the list is there and readable by its group: the questions are about what it writes
    status, _h, body = live.request("POST", "/rag", {"query": QUESTIONS[0], "now": NOW},
                                    {"Authorization": f"Bearer {key}"})
    assert status == 200 and "restructuring-list-2025#0" in {c["chunk_id"] for c in body["citations"]}, body
    with_list = _ask_all(live)

    (docs / "restructuring-list-2025.md").unlink()
    new = ingest(settings, kb_dir, embedder, progress=False, rebuild=True).build_dir.name
    live.wait_every_worker(lambda b: b["checks"]["builds"]["hr"]["build"] == new, f"every worker on build {new}")
    assert layout.current_build(kb_dir).name == new
    without_list = _ask_all(live)

    differing = {q: _differences(a, b) for q, a, b in zip(QUESTIONS, with_list, without_list, strict=True) if a != b}
    assert differing == {}
    # not vacuous: the questions reach the refusal that used to differ, and nothing names the list
    reasons = {i["reason"]["code"] for body in with_list for i in body["validation"]["issues"] if i.get("reason")}
    assert "unwritten" in reasons
    assert not any(secret in json.dumps(body) for body in with_list
                   for secret in ("restructuring-list-2025", "30 September", "2.4 million"))
