"""Installing the package prints no setuptools warning banner (`make serve` and `make setup` showed one).

The editable install `make setup` runs (`pip install -e .`) printed setuptools' "Please be
careful with folders in your working directory ..." banner between `!!` lines: with the
packages found at the repository root but no package directory named, setuptools installs
through a meta path finder and warns. `package-dir = {"" = "."}` in pyproject.toml makes the
install one .pth line, with nothing to warn about.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "perception", "orchestration", "validation", "server", "benchmarks", "evaluation")


def test_the_packages_directory_is_named_so_an_editable_install_is_a_plain_path():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert config.get("package-dir") == {"": "."}
    assert all((REPO / name / "__init__.py").is_file() for name in PACKAGES)


@pytest.mark.slow
def test_an_editable_install_prints_no_warning_banner(tmp_path):
    """The install `make setup` runs, into a scratch target (build dependencies come from pip's index)."""
    copy = tmp_path / "src"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, copy / name)
    for name in PACKAGES:
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-input", "-e", str(copy),
                           "--target", str(tmp_path / "target")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout + done.stderr
    assert "!!" not in printed and "Please be careful" not in printed, printed[-3000:]
    assert (tmp_path / "target" / "__editable__.sightline-0.1.0.pth").read_text().strip() == str(copy.resolve())
