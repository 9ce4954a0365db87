"""Live router edits: each worker notices a changed router.yaml, validates it and swaps it in.

A worker checks the file at most every `interval` seconds, from a daemon thread and before
each request: a stat first (mtime, size, inode), the content hash only when the stat moved.
A valid change is swapped into the AnswerLoop between requests (the loop lock is held, so
no request sees half of two configs); an invalid one is refused, logged with the reason and
counted once per distinct content, and the last good config keeps serving. Every change is
logged with the time, the version before and after, and what caused it.

Every process of a service agrees on one config: the last good one any of them accepted. A
process that accepts a config publishes its exact text to a snapshot file in the service's
state directory (`snapshot`); every watcher adopts a snapshot whose version differs from its
own, and the gunicorn master adopts it before forking a worker. So a worker started after a
valid PUT and a bad edit on disk serves the PUT's version, never the master's boot config,
and never the bad file. Any exception while loading (not only ConfigError: a validator's
RecursionError once killed workers at boot) is a refused config.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from core.files import file_stat, write_atomically
from core.yamlconfig import config_version, parse_yaml
from orchestration.router.config import RouterConfig, load_router_config, parse_router_config

from . import metrics

log = logging.getLogger("sightline.router")


@dataclass
class ReloadResult:
    """What one reload did: result ok|unchanged|error, versions before/after, the error if any."""

    result: str
    version_before: str
    version_after: str
    error: str | None = None
    cause: str = "watch"

    def to_dict(self) -> dict[str, Any]:
        body = {"result": self.result, "version_before": self.version_before, "version_after": self.version_after,
                "cause": self.cause, "worker": os.getpid()}
        if self.error:
            body["error"] = self.error
        return body


class RouterWatcher:
    """Keeps one worker's router config in step with the file.

    Args:
        path: the router.yaml to watch.
        known_kbs: knowledge base names a rule may use (validation).
        apply: called with a validated RouterConfig to swap it in (under the loop lock).
        lock: the lock a request holds while it runs; swaps take it too.
        current: the config serving now.
        interval: seconds between checks (0: check before every request).
        snapshot: the service's last-good-config file shared by its processes (None: none).
    """

    def __init__(self, path: Path, known_kbs: list[str], apply: Callable[[RouterConfig], None],
                 lock: threading.RLock, current: RouterConfig, interval: float = 2.0,
                 snapshot: Path | None = None) -> None:
        self.path = Path(path)
        self.snapshot = Path(snapshot) if snapshot else None
        self._snapshot_stat: tuple | None = None
        self.known_kbs = known_kbs
        self.apply = apply
        self.lock = lock
        self.current = current
        self.interval = interval
        self.last_error: str | None = None
        self._stat: tuple | None = self._stat_now()
        self._refused_hash: str | None = None
        self._last_check = time.monotonic()
        self._check_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._thread_pid: int | None = None

    # --- checks ------------------------------------------------------------------------

    def _stat_now(self, path: Path | None = None) -> tuple | None:
        return file_stat(path or self.path)

    # --- the shared last good config -----------------------------------------------------

    def publish(self, text: str) -> None:
        """Write the text of the config just accepted as the service's last good one."""
        if self.snapshot is None:
            return
        try:
            write_atomically(self.snapshot, text)
            self._snapshot_stat = self._stat_now(self.snapshot)
        except OSError as exc:
            log.error("cannot write the router snapshot", extra={"event": "router_snapshot", "error": str(exc)})

    def adopt_snapshot(self) -> ReloadResult | None:
        """Swap in the last good config another process accepted, if it differs from ours."""
        if self.snapshot is None:
            return None
        with self._check_lock:
            stat = self._stat_now(self.snapshot)
            if stat is None or stat == self._snapshot_stat:
                return None
            self._snapshot_stat = stat
            try:
                raw = self.snapshot.read_bytes()
            except OSError:
                return None
            if config_version(raw) == self.current.version:
                return None
            before = self.current.version
            try:
                config = load_router_config(self.snapshot, known_kbs=self.known_kbs)
            except Exception as exc:  # noqa: BLE001 - a damaged snapshot must not stop the watcher
                log.error("router snapshot unreadable; keeping this process's config",
                          extra={"event": "router_snapshot", "error": f"{type(exc).__name__}: {exc}"})
                return None
            with self.lock:
                self.apply(config)
                self.current = config
            metrics.set_router_version(before, config.version)
            log.warning("router config changed", extra={"event": "router_reload", "result": "ok",
                                                        "version_before": before, "version_after": config.version,
                                                        "cause": "snapshot"})
            return ReloadResult("ok", before, config.version, cause="snapshot")

    def maybe_check(self) -> ReloadResult | None:
        """Check the file if `interval` has passed since the last check (cheap when unchanged)."""
        if time.monotonic() - self._last_check < self.interval:
            return None
        return self.check()

    def check(self) -> ReloadResult | None:
        """Adopt another process's newer good config, then reload when the file's stat moved."""
        adopted = self.adopt_snapshot()
        with self._check_lock:
            self._last_check = time.monotonic()
            stat = self._stat_now()
            if stat == self._stat:
                return adopted
            self._stat = stat
        return self.reload(cause="watch", count_unchanged=False)

    def reload(self, cause: str = "admin", count_unchanged: bool = True) -> ReloadResult:
        """Read, validate and swap in the file now (POST /admin/reload, PUT /admin/router)."""
        with self._check_lock:
            self._stat = self._stat_now()
            before = self.current.version
            try:
                raw = self.path.read_bytes()
            except OSError as exc:
                return self._refuse(before, f"{self.path}: cannot read the router config ({exc.strerror})",
                                    None, cause)
            digest = config_version(raw)
            if digest == before:
                self.last_error = None
                if count_unchanged:
                    metrics.record_reload("unchanged")
                    log.info("router config unchanged", extra={"event": "router_reload", "result": "unchanged",
                                                                 "version_before": before, "version_after": before,
                                                                 "cause": cause})
                return ReloadResult("unchanged", before, before, cause=cause)
            try:
                config = load_router_config(self.path, known_kbs=self.known_kbs)
            except ConfigError as exc:
                return self._refuse(before, exc.message, digest, cause)
            except Exception as exc:  # noqa: BLE001 - whatever the loader raises, the file is refused
                log.exception("router config loader failed", extra={"event": "router_reload", "cause": cause})
                return self._refuse(before, f"{self.path.name}: the config could not be loaded "
                                    f"({type(exc).__name__}: {str(exc)[:200]})", digest, cause)
            with self.lock:
                self.apply(config)
                self.current = config
            self.publish(raw.decode("utf-8"))
            self.last_error = None
            self._refused_hash = None
            metrics.record_reload("ok")
            metrics.set_router_version(before, config.version)
            log.warning("router config changed", extra={"event": "router_reload", "result": "ok",
                                                        "version_before": before, "version_after": config.version,
                                                        "cause": cause, "file": str(self.path)})
            return ReloadResult("ok", before, config.version, cause=cause)

    def _refuse(self, before: str, reason: str, digest: str | None, cause: str) -> ReloadResult:
        """Keep the last good config; log and count once per distinct bad content (always when forced)."""
        self.last_error = reason
        if digest is None or digest != self._refused_hash or cause != "watch":
            metrics.record_reload("error")
            log.error("router config refused; the last good config keeps serving",
                      extra={"event": "router_reload", "result": "error", "version_before": before,
                             "version_after": before, "cause": cause, "reason": reason, "file": str(self.path)})
        self._refused_hash = digest
        return ReloadResult("error", before, before, error=reason, cause=cause)

    def add_knowledge_bases(self, names: list[str]) -> None:
        """Know these KBs from now on: the config in force is re-validated with them and swapped
        in (same text, same version), so `kb: "*"` rules search them (called under the loop lock)."""
        known = self.known_kbs + [n for n in names if n not in self.known_kbs]
        if known == self.known_kbs:
            return
        config = parse_router_config(parse_yaml(self.current.text.encode("utf-8"), str(self.path)),
                                     str(self.path), known, version=self.current.version, text=self.current.text)
        self.known_kbs = known
        self.apply(config)
        self.current = config

    # --- background thread -------------------------------------------------------------

    def start(self) -> None:
        """Start the polling thread in this process (threads do not survive fork: once per worker)."""
        if self.interval <= 0 or (self._thread is not None and self._thread_pid == os.getpid()
                                  and self._thread.is_alive()):
            return
        self._thread_pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name="router-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            try:
                self.check()
            except Exception:  # noqa: BLE001 - the watcher must outlive any one bad check
                log.exception("router watch failed")
