"""The manifest of a knowledge base build: what built it, what it holds, checksums.

It is written last, so a build directory without a manifest is an unfinished build; writing it
seals the build (every file read-only: builds are immutable). Opening a knowledge base checks
every file the manifest lists exists with its recorded size; `verify()` also re-computes the
checksums, and integrity.BuildFiles watches the sizes while the build is served. A KB on an
engine backend is served without the files the engine holds (`served_files`): its hosts may be
given the build without `dense/`.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from core.errors import IndexUnavailable

MANIFEST = "manifest.json"
# per backend: the build's folders a serving process never reads, since the engine holds them
ENGINE_HELD = {"milvus": ("dense/",)}
FORMAT_VERSION = 2  # 2: the BM25 index stores term frequencies and row lengths (per-caller statistics)
READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH  # 0444


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe_files(build_dir: Path) -> dict[str, dict[str, Any]]:
    """{relative path: {bytes, sha256}} for every file of a build except the manifest."""
    out = {}
    for path in sorted(p for p in build_dir.rglob("*") if p.is_file() and p.name != MANIFEST):
        out[path.relative_to(build_dir).as_posix()] = {"bytes": path.stat().st_size,
                                                       "sha256": file_sha256(path)}
    return out


def write_manifest(build_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest atomically (temp file, fsync, rename), recording every file's size and
    SHA-256, then seal the build (`seal`)."""
    body = dict(manifest, format_version=FORMAT_VERSION, files=describe_files(build_dir))
    tmp = build_dir / (MANIFEST + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(body, handle, indent=2, ensure_ascii=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, build_dir / MANIFEST)
    seal(build_dir)


def seal(build_dir: Path) -> None:
    """Make every file of a finished build read-only (0444); directories stay writable, so
    pruning can still delete the build. A file of a served build that is truncated kills the
    workers mapping it (SIGBUS): read-only files keep a stray write or `truncate` from doing it."""
    for path in build_dir.rglob("*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(READ_ONLY)


def served_files(manifest: dict[str, Any], backend: str = "local") -> dict[str, Any]:
    """The files of a build (the manifest's `files`) that a process serving it on `backend`
    reads: all of them locally; on milvus all but the dense index, whose vectors are the
    engine's (the build host keeps it: the next ingest reuses its vectors)."""
    held = ENGINE_HELD.get(backend, ())
    return {name: info for name, info in manifest.get("files", {}).items() if not name.startswith(held)}


def read_manifest(build_dir: Path, rebuild_hint: str, backend: str = "local") -> dict[str, Any]:
    """The manifest of a build, after checking the files served on `backend` (`served_files`)
    exist with their recorded sizes.

    Raises:
        IndexUnavailable: naming the directory, what is wrong and `rebuild_hint`.
    """
    path = build_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexUnavailable(f"{build_dir} has no manifest (unfinished or damaged build); "
                               f"{rebuild_hint}", field=str(build_dir)) from None
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"{path} is unreadable ({exc}); {rebuild_hint}", field=str(build_dir)) from exc
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexUnavailable(f"{build_dir} was built by an incompatible version "
                               f"(format {manifest.get('format_version')}, expected {FORMAT_VERSION}); "
                               f"{rebuild_hint}", field=str(build_dir))
    for name, info in served_files(manifest, backend).items():
        file = build_dir / name
        if not file.is_file():
            raise IndexUnavailable(f"{build_dir}: file {name} is missing; {rebuild_hint}", field=str(build_dir))
        if file.stat().st_size != info["bytes"]:
            raise IndexUnavailable(f"{build_dir}: file {name} has {file.stat().st_size} bytes, the manifest "
                                   f"says {info['bytes']} (corrupted); {rebuild_hint}", field=str(build_dir))
    return manifest


def verify(build_dir: Path, manifest: dict[str, Any]) -> list[str]:
    """Files whose SHA-256 differs from the manifest (empty when the build is intact)."""
    return [name for name, info in manifest.get("files", {}).items()
            if file_sha256(build_dir / name) != info["sha256"]]
