"""Knowledge bases added while the service runs: `sightline ingest PATH --kb NEW` is served at once.

`sightline ingest` on a new name adds the KB to knowledge_bases.yaml once its build is written.
Each serving process notices the changed file (a stat first, as the router watcher does, from
the watch thread, before requests and in the gunicorn master before it forks), opens every KB
the file names that it does not serve yet and that has a build, and only then swaps it in
under the loop lock: the retriever searches it, the loop knows its settings (max age), the
router config in force is re-validated with it known, Perception learns its sources. A KB
listed but not built yet is retried on every check until its build appears. A service started
for named KBs only (`knowledge_bases` in service.yaml) adds none. Removing a KB from the file
does not stop serving it (restart for that); editing an existing KB's settings neither.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.errors import SightlineError
from core.files import file_stat
from orchestration.kb import layout
from orchestration.kb.config import KBConfig, load_kb_config
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.kb.registry import accepted_embedders

log = logging.getLogger("sightline.kbs")


class NewKBWatcher:
    """Adds the knowledge bases knowledge_bases.yaml gains to one process's loop.

    Args:
        path: the knowledge_bases.yaml to watch.
        loop: the AnswerLoop (its retriever, kb_config and router config are extended).
        lock: the lock a request holds while it runs; additions take it too.
        add_to_router: called (under the lock) with the new KB names, to re-validate and swap in
            the router config with them known.
        on_added: called (under the lock) after KBs were added (sources, metrics).
        interval: seconds between checks (0: before every request).
    """

    def __init__(self, path: Path, loop: Any, lock: threading.RLock, add_to_router: Callable[[list[str]], None],
                 on_added: Callable[[list[str]], None] | None = None, interval: float = 2.0) -> None:
        self.path = Path(path)
        self.loop = loop
        self.lock = lock
        self.add_to_router = add_to_router
        self.on_added = on_added
        self.interval = interval
        self.waiting: dict[str, str] = {}  # configured, not served yet -> why (not built, refused)
        self._stat = self._stat_now()
        self._config: KBConfig | None = None
        self._last_check = time.monotonic()
        self._check_lock = threading.Lock()

    def _stat_now(self) -> tuple | None:
        return file_stat(self.path)

    def maybe_check(self) -> list[str]:
        """check() if `interval` has passed since the last one."""
        if time.monotonic() - self._last_check < self.interval:
            return []
        return self.check()

    def check(self) -> list[str]:
        """Serve every KB the file names that has a build and is not served yet; the names added."""
        with self._check_lock:
            self._last_check = time.monotonic()
            stat = self._stat_now()
            if stat != self._stat:
                self._stat = stat
                try:
                    self._config = load_kb_config(self.path)
                except SightlineError as exc:
                    log.error("knowledge_bases.yaml changed but is invalid; no knowledge base added",
                              extra={"event": "kb_add", "result": "error", "reason": exc.message})
                    return []
                served = self.loop.retriever.knowledge_bases
                self.waiting = {n: "not built yet" for n in self._config.knowledge_bases if n not in served}
            if not self.waiting or self._config is None:
                return []
            opened = self._open_built(self._config)
            if not opened:
                return []
            with self.lock:
                self.loop.retriever.knowledge_bases.update(opened)
                settings = {name: kb.settings for name, kb in opened.items()}
                kb_config = self.loop.kb_config
                self.loop.kb_config = replace(kb_config, knowledge_bases={**kb_config.knowledge_bases, **settings})
                self.add_to_router(list(opened))
                if self.on_added:
                    self.on_added(list(opened))
            for name in opened:
                self.waiting.pop(name, None)
                log.warning("knowledge base added", extra={"event": "kb_add", "result": "ok", "kb": name,
                                                           "chunks": opened[name].describe().get("chunks")})
            return list(opened)

    def _open_built(self, config: KBConfig) -> dict[str, KnowledgeBase]:
        """The waiting KBs whose build exists, opened whole (a damaged one stays waiting, logged)."""
        opened = {}
        for name in list(self.waiting):
            kb_dir = config.kb_dir(name)
            if layout.current_build(kb_dir) is None:
                continue
            kb = KnowledgeBase(config.get(name), kb_dir, accepted_embedders(config, config.get(name)))
            try:
                kb.warm_up()
                self.loop.retriever.embedder_for(kb).warm_up()
            except SightlineError as exc:
                if self.waiting.get(name) != exc.message:
                    log.error("new knowledge base not served", extra={"event": "kb_add", "result": "error",
                                                                       "kb": name, "reason": exc.message})
                self.waiting[name] = exc.message
                continue
            opened[name] = kb
        return opened
