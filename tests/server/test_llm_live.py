"""The real service under gunicorn with SIGHTLINE_LLM_BASE_URL pointing at the stand-in.

Follows the README's "Generated answers" steps with the stand-in in place of a model server:
the README's environment variables start the service, its request is sent, the answer comes
from the LLM; then the stand-in fails and the same service falls back, and a real Prometheus
server scraping it returns data for every panel of the dashboard's LLM row.
"""

from __future__ import annotations

import json
import re
import shlex
import urllib.request

import pytest

from orchestration import paths
from tests.live import start_service
from tests.llm_standin import Reply

from .test_prometheus import dashboard_queries, run_prometheus

pytestmark = pytest.mark.slow
README = paths.REPO_ROOT / "README.md"
SECTION = "## Generated answers (an LLM)"


def readme_steps() -> tuple[dict[str, str], dict]:
    """(the SIGHTLINE_LLM_* variables of the README's serve line, the JSON body of its /rag request)."""
    text = README.read_text()
    block = text[text.index(SECTION):].split("```sh", 1)[1].split("```", 1)[0]
    serve = next(line for line in block.splitlines() if "sightline serve" in line)
    env = dict(word.split("=", 1) for word in shlex.split(serve) if word.startswith("SIGHTLINE_LLM_"))
    rag = next(line for line in block.splitlines() if "/rag" in line)
    body = json.loads(shlex.split(rag)[shlex.split(rag).index("-d") + 1])
    return env, body


@pytest.fixture(scope="module")
def llm_live(demo_kbs, standin, tmp_path_factory):
    env, _ = readme_steps()
    assert set(env) >= {"SIGHTLINE_LLM_BASE_URL", "SIGHTLINE_LLM_MODEL"}
    env |= {"SIGHTLINE_LLM_BASE_URL": standin.url, "SIGHTLINE_LLM_MODEL": standin.model,
            "SIGHTLINE_LLM_TIMEOUT": "0.5", "SIGHTLINE_LLM_BUDGET": "2"}
    service = start_service(demo_kbs, tmp_path_factory.mktemp("llm-live"), workers=1, env=env)
    yield service
    service.stop()


def test_the_readme_steps_answer_with_the_llm_and_fall_back_when_it_fails(llm_live, standin, tmp_path_factory):
    _, body = readme_steps()
    # step 2: the server answers the API
    with urllib.request.urlopen(standin.url + "/models", timeout=5) as response:
        assert json.loads(response.read())["data"][0]["id"] == standin.model
    # step 4: the answer comes from the model, validated
    standin.script(Reply("E5102 is triggered when the APU does not reach 95% speed within 60 seconds "
                         "{cite:95% speed within 60}."))
    status, _h, answer = llm_live.request("POST", "/rag", body | {"now": "2025-07-01"})
    assert status == 200 and answer["status"] == "answered", answer["validation"]
    assert answer["composer"]["used"] == "llm" and answer["composer"]["fallback"] is None
    assert answer["answer"] == "E5102 is triggered when the APU does not reach 95% speed within 60 seconds [1]."
    tokens = answer["composer"]["tokens"]
    assert tokens["prompt"] > 100 and tokens["completion"] > 10
    # the model fails three ways: every answer still comes, extractive, and says why
    for reply, reason in ((Reply(status=500), "http_5xx"), (Reply(delay=1.0), "timeout"),
                          (Reply(body=b"not json"), "malformed")):
        standin.script(reply)
        status, _h, answer = llm_live.request("POST", "/rag", body | {"now": "2025-07-01"})
        assert status == 200 and answer["status"] == "answered"
        assert (answer["composer"]["used"], answer["composer"]["fallback"]) == ("extractive", reason)
    # the service's log never holds the prompt's evidence or a key; it does say which LLM serves
    starts = [line for line in llm_live.log_lines() if line.get("message") == "service ready"]
    assert starts and starts[0]["llm"]["model"] == standin.model and starts[0]["llm"]["api_key"] is None

    # the dashboard's LLM row, against a real Prometheus scraping this service
    with run_prometheus(llm_live.url, tmp_path_factory.mktemp("prometheus-llm")) as prometheus:
        prometheus.wait_scrapes(2)
        standin.script(Reply("E5102 is triggered when the APU does not reach 95% speed within 60 seconds "
                             "{cite:95% speed within 60}."))  # a call Prometheus sees happen (rates need two samples)
        assert llm_live.request("POST", "/rag", body | {"now": "2025-07-01"})[2]["composer"]["used"] == "llm"
        prometheus.wait_scrapes(3)
        queries = dashboard_queries("Generated answers (LLM)")
        assert len(queries) >= 4
        for title, expr in queries:
            result = prometheus.query(expr)
            assert result, f"panel '{title}' has no data: {expr}"
        reasons = {r["metric"]["reason"] for r in prometheus.query(
            'sightline_composer_fallbacks_total{job="sightline"} > 0')}
        assert reasons == {"http_5xx", "timeout", "malformed"}
        assert prometheus.scalar('sum(sightline_llm_seconds_count{job="sightline", outcome="ok"})') == 2
        assert prometheus.scalar('sum(sightline_llm_seconds_count{job="sightline", outcome="failed"})') == 3
        completion = prometheus.scalar('sum(sightline_llm_tokens_total{job="sightline", kind="completion"})')
        assert completion == 2 * tokens["completion"]
        latency = prometheus.scalar('histogram_quantile(0.5, sum by (le) (rate(sightline_llm_seconds_bucket'
                                    '{job="sightline", outcome="ok"}[1m])))')
        assert 0 < latency < 1
    assert re.search(r'sightline_composer_fallbacks_total\{reason="timeout"\} 1\.0',
                     llm_live.request("GET", "/metrics")[2])
