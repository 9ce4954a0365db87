"""A process that forks workers never loads onnxruntime (orchestration/retrieval/forking.py).

onnxruntime starts a thread at import; a worker forked after that aborted (SIGABRT,
`std::system_error: Invalid argument`) or hung when it exited (issue 22, item 7).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from orchestration.paths import REPO_ROOT
from orchestration.retrieval import forking


@pytest.fixture
def held():
    forking.hold()
    yield
    forking.release()


def test_the_mark_holds_in_this_process_and_never_in_a_forked_child(held):
    assert forking.held()
    pid = os.fork()
    if pid == 0:  # the child: free without doing anything
        os._exit(0 if not forking.held() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_held_process_warms_the_embedder_without_importing_onnxruntime():
    code = ("import sys\n"
            "from orchestration.retrieval import forking\n"
            "from orchestration.retrieval.embedder import get_embedder\n"
            "forking.hold()\n"
            "embedder = get_embedder('minilm')\n"
            "embedder.warm_up()\n"
            "try:\n"
            "    embedder.queries(['A320 fuel burn'])\n"
            "except RuntimeError as exc:\n"
            "    print('refused:', exc)\n"
            "print('onnxruntime' in sys.modules, embedder.loaded)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=120, check=True)
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "False False", result.stdout + result.stderr
    assert lines[0].startswith("refused: onnxruntime must not be loaded in a process that forks workers")
