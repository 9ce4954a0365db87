"""The on-disk layout of a knowledge base and the atomic switch between builds.

    <data_dir>/kb/<name>/
        current -> builds/<build id>     symlink, replaced atomically (rename)
        builds/<build id>/               immutable once its manifest is written
            manifest.json  chunks.sqlite  bm25/  dense/  columns/

A build writes into a new directory and only then points `current` at it, so killing an
ingest at any moment leaves the previous build serving and intact.

A process serving a build holds a shared `flock` on the build directory (`hold()`) for as
long as it has it open; forked workers inherit the hold. `prune()` deletes a build only
after taking the exclusive lock without waiting, so a build any live process still serves
is never deleted; it goes at the first prune after the last holder lets go.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import shutil
from collections.abc import Iterator
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
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = kb_dir / BUILDS / f"{stamp}-{os.getpid()}"
    path.mkdir(parents=True)
    return path


def fsync_dir(path: Path) -> None:
    """Make the directory's entries (a file created or renamed in it) durable."""
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
    fsync_dir(kb_dir)


def hold(build_dir: Path) -> int:
    """Take a shared hold on a build (an open directory descriptor with LOCK_SH); returns the fd.

    Close the fd with `release()` (never unlock it: a forked child shares the lock, and an
    explicit unlock would drop the hold for every process).

    Raises:
        OSError: the directory cannot be opened, or is being deleted (exclusively locked).
    """
    fd = os.open(build_dir, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise
    return fd


def release(fd: int | None) -> None:
    """Let go of a hold taken by `hold()` (the lock goes once no process has the fd open)."""
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


@contextlib.contextmanager
def _exclusive(build: Path) -> Iterator[bool]:
    """Try the exclusive lock on a build without waiting: yields True when no process holds it
    (False when one does or the directory is gone); the lock is kept for the block."""
    try:
        fd = os.open(build, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _remove_unless_held(build: Path) -> bool:
    """Delete a build unless some process holds it; True when it was deleted."""
    with _exclusive(build) as free:
        if free:
            shutil.rmtree(build, ignore_errors=True)
        return free


def is_held(build: Path) -> bool:
    """Whether some live process holds this build open (for reports and tests)."""
    if not build.is_dir():
        return False
    with _exclusive(build) as free:
        return not free


def prune(kb_dir: Path, keep: int = 2) -> list[Path]:
    """Delete unfinished builds of dead processes and all but the `keep` newest finished ones.

    The current build is never deleted, nor one that a live process holds (`hold()`); such a
    build is deleted by a later prune once it is released. Returns the removed directories.
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
        if (current is None or build.resolve() != current) and _remove_unless_held(build):
            removed.append(build)
    return removed


def remove_all(kb_dir: Path) -> tuple[list[Path], list[Path]]:
    """Delete a knowledge base's data: `current` and every build no live process holds.

    Promises: a build a running service holds (`hold()`) is never deleted, so its open files
    stay whole; the directory itself goes once nothing is left in it.

    Returns:
        (the builds deleted, the builds kept because a live process holds them).
    """
    link = kb_dir / CURRENT
    if link.is_symlink() or link.exists():
        link.unlink()
    removed: list[Path] = []
    kept: list[Path] = []
    builds_root = kb_dir / BUILDS
    for build in sorted(builds_root.iterdir()) if builds_root.is_dir() else []:
        (removed if _remove_unless_held(build) else kept).append(build)
    if not kept:
        shutil.rmtree(kb_dir, ignore_errors=True)
    return removed, kept


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
