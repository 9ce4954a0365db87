"""The on-disk layout of a knowledge base and the atomic switch between builds.

    <data_dir>/kb/<name>/
        current -> builds/<build id>     symlink, replaced atomically (rename)
        builds/<build id>/               immutable once its manifest is written
            manifest.json  chunks.sqlite  bm25/  dense/  columns/

A build writes into a new directory and only then points `current` at it, so killing an
ingest at any moment leaves the previous build serving and intact.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path

from .manifest import MANIFEST

CURRENT = "current"
BUILDS = "builds"


def current_build(kb_dir: Path) -> Path | None:
    """The build `current` points to, or None when the knowledge base was never built."""
    link = kb_dir / CURRENT
    if not link.is_symlink() and not link.exists():
        return None
    return (kb_dir / os.readlink(link)) if link.is_symlink() else link


def new_build_dir(kb_dir: Path) -> Path:
    """A fresh, empty build directory (named by UTC time and process id)."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    path = kb_dir / BUILDS / f"{stamp}-{os.getpid()}"
    path.mkdir(parents=True)
    return path


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def switch_to(kb_dir: Path, build_dir: Path) -> None:
    """Point `current` at `build_dir` in one atomic rename."""
    target = build_dir.relative_to(kb_dir).as_posix()
    tmp = kb_dir / f".{CURRENT}.{os.getpid()}.tmp"
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    os.symlink(target, tmp)
    os.replace(tmp, kb_dir / CURRENT)
    _fsync_dir(kb_dir)


def prune(kb_dir: Path, keep: int = 2) -> list[Path]:
    """Delete unfinished builds of dead processes and all but the `keep` newest finished ones.

    The current build is never deleted. Returns the removed directories.
    """
    builds_root = kb_dir / BUILDS
    if not builds_root.is_dir():
        return []
    current = current_build(kb_dir)
    current = current.resolve() if current else None
    finished = []
    removed = []
    for build in sorted(builds_root.iterdir()):
        if (build / MANIFEST).is_file():
            finished.append(build)
            continue
        pid = build.name.rsplit("-", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(build, ignore_errors=True)
            removed.append(build)
    for build in finished[:-keep] if keep else finished:
        if current is None or build.resolve() != current:
            shutil.rmtree(build, ignore_errors=True)
            removed.append(build)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
