"""The README's first examples answer as a new user would expect, whatever day they are run.

The Chinese example once ran against the day it was typed: the 2024 policy became too old,
retries filtered it away, and the final answer was about APU fault E5102, reported answered.
Every example now states its date (`--now` / "now"), and each is run here as written.
"""

from __future__ import annotations

import json
import re
import shlex

import pytest

from orchestration import paths
from server.http.schemas import parse_ask_request

pytestmark = pytest.mark.model


def _examples() -> list[dict]:
    """The request of every `curl ... /rag -d '{...}'` and `sightline ask "..."` line of the README's first block."""
    readme = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(.*?)```", readme[readme.index("```sh", readme.index("```sh") + 1):], re.S).group(1)
    block = block.replace("\\\n", " ")
    requests = []
    for line in block.splitlines():
        if "/rag" in line and " -d " in line:
            requests.append(json.loads(shlex.split(line.split(" -d ", 1)[1].split("|")[0])[0]))
        elif "sightline ask" in line:
            words = shlex.split(line.split("sightline ask", 1)[1])
            request = {"query": words[0]}
            if "--now" in words:
                request["now"] = words[words.index("--now") + 1]
            requests.append(request)
    return requests


def test_the_readme_examples_all_state_their_date():
    examples = _examples()
    assert len(examples) == 2
    assert all(example.get("now") for example in examples), examples


@pytest.mark.parametrize("index, expected_doc, never", [
    (0, "manuals", "E5102"),
    (1, "policies", "E5102"),
])
def test_each_readme_example_answers_from_the_right_documents(answer_loop, index, expected_doc, never):
    body = answer_loop.run(parse_ask_request(dict(_examples()[index], trace="summary")))
    assert body["status"] in ("answered", "partial"), body["answer"]
    assert body["citations"] and all(c["kb"] == expected_doc for c in body["citations"]), body["citations"]
    assert never not in body["answer"]
