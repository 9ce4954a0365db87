"""A served build's files, watched while mapped: what changed on disk since the build was opened.

Builds are immutable (`manifest.write_manifest` seals every file read-only, 0444), and
`BuildFiles` remembers each file's size, modification time and inode as the build was
opened (after checking each size against the manifest). A file truncated under a live
mapping makes the next read of a page past its new end a SIGBUS, which kills the process
(numpy and FAISS read the mapping directly); so before a request touches a build, and on the
watcher's interval for /readyz, `changes()` compares the files with what was opened: a few
`stat` calls, no read of the data.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.errors import IndexUnavailable

from .manifest import MANIFEST

Stamp = tuple[int, int, int]  # (size, mtime_ns, inode): enough to tell truncated, rewritten, replaced


def stamp(path: str) -> Stamp | None:
    """The file's (size, mtime_ns, inode), None when it is gone."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino


class BuildFiles:
    """The files of one open build as they were when it was opened.

    Args:
        kb: the knowledge base's name (for messages).
        build_dir: the build directory.
        manifest: its manifest; every file it lists (and the manifest itself) is watched.
        rebuild_hint: how to rebuild, appended to every refusal.

    Raises:
        IndexUnavailable: a file's size differs from the manifest's record (it changed
            between the manifest check and the mapping).
    """

    def __init__(self, kb: str, build_dir: Path, manifest: dict[str, Any], rebuild_hint: str) -> None:
        self.kb, self.build_dir, self.rebuild_hint = kb, build_dir, rebuild_hint
        files: dict[str, Any] = manifest.get("files", {})
        self._paths = {name: str(build_dir / name) for name in [*files, MANIFEST]}
        self.opened: dict[str, Stamp | None] = {name: stamp(path) for name, path in self._paths.items()}
        for name, info in files.items():
            was = self.opened[name]
            if was is None or was[0] != info["bytes"]:
                found = "is missing" if was is None else f"has {was[0]} bytes"
                raise IndexUnavailable(f"knowledge base '{kb}' at {build_dir}: file {name} {found}, the manifest "
                                       f"says {info['bytes']} bytes (corrupted); {rebuild_hint}", field=kb)

    def changes(self) -> list[str]:
        """What changed on disk since the build was opened, one phrase per file (empty: intact).

        Promises: one `stat` per file and no read of the data (about 50 µs for a build's 17
        files here); a file whose size changed is named first, as reading its mapping may
        crash the process.
        """
        sized, other = [], []
        for name, path in self._paths.items():
            was, now = self.opened[name], stamp(path)
            if was is None or now == was:
                continue
            if now is None:
                other.append(f"{name} was deleted")
            elif now[0] != was[0]:
                how = "truncated" if now[0] < was[0] else "grew"
                sized.append(f"{name} {how} from {was[0]} to {now[0]} bytes")
            elif now[2] != was[2]:
                other.append(f"{name} was replaced by another file")
            else:
                other.append(f"{name} was rewritten (modified in place)")
        return sized + other

    def problem(self) -> str | None:
        """The reason the build must not be served, naming the KB and the files; None when intact."""
        changes = self.changes()
        if not changes:
            return None
        return (f"knowledge base '{self.kb}': build {self.build_dir} changed on disk since it was opened "
                f"({'; '.join(changes)}); builds are immutable, so it is not served; {self.rebuild_hint}")

    def require_intact(self) -> None:
        """Return when the files are as opened; IndexUnavailable (503, naming the files) otherwise."""
        problem = self.problem()
        if problem is not None:
            raise IndexUnavailable(problem, field=self.kb)
