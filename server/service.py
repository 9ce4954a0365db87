"""The state one service process holds: the warmed AnswerLoop, its router watcher, readiness.

Built once, before gunicorn forks (`preload_app`), so indexes are mapped and spaCy and jieba
are loaded in the master and shared copy-on-write by every worker. The embedder's onnxruntime
session is the exception: onnxruntime must not be imported in a process that forks
(orchestration/retrieval/forking.py), so each worker makes its own. `worker_started()` runs
once per process after the fork (gunicorn's `post_worker_init`, and lazily on the first
request elsewhere): it loads the embedder, answers the warm-up questions, starts the router
watcher thread and sets the per-worker gauges, all before the worker accepts a connection.

If the knowledge bases or the config cannot be loaded, the process still starts: /healthz
answers, /readyz and /rag return 503 with the reason, and loading is retried (at most every
few seconds) so fixing the index or the file brings the service up without a restart.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from core.errors import ConfigError, NotReady, SightlineError
from orchestration.paths import config_dir
from orchestration.retrieval import forking
from orchestration.router.config import RouterConfig

from . import metrics, otel
from .admin_token import read_admin_token
from .auth_throttle import FailureThrottle
from .builds import BuildWatcher
from .callers import Caller, CallerResolver
from .context import RequestContext
from .keys import KeyStore, keys_path
from .new_kbs import NewKBWatcher
from .reload import RouterWatcher
from .settings import ServiceSettings

log = logging.getLogger("sightline.service")
RETRY_LOAD_SECONDS = 5.0


WARM_UP_QUERIES = ("A320 fuel burn in 2023", "发票与合同不一致")


def warm_requests(loop: Any) -> None:
    """Answer one English and one Chinese question once, so lazy loads happen before the first request.

    `warm_up()` maps indexes and loads the models, but the first encode still sets up the
    embedder's buffers; done in each worker before it accepts a connection (the embedder lives
    in the workers, see `forking`), so no caller pays for it. The extractive profile answers
    them: the LLM is never called at start (it may be down, or slow).
    """
    from .http.schemas import parse_ask_request

    for query in WARM_UP_QUERIES:
        context = RequestContext.create(profile="sightline-extractive", endpoint="warm-up")
        loop.run(parse_ask_request({"query": query, "trace": "none", "max_retries": 0}, context=context))


class Service:
    """One process's answering machinery and what /readyz reports about it.

    Args:
        settings: the service settings.
        loop: an AnswerLoop to use as is (tests); by default one is built and warmed here.
    """

    def __init__(self, settings: ServiceSettings, loop: Any = None) -> None:
        self.settings = settings
        self.lock = threading.RLock()
        self.loop = loop
        self.watcher: RouterWatcher | None = None
        self.new_kbs: NewKBWatcher | None = None  # KBs added to knowledge_bases.yaml while serving
        self.error: SightlineError | None = None
        self.loaded_at: str | None = None
        self._last_attempt = 0.0
        self._load_lock = threading.Lock()
        self._worker_pid: int | None = None
        self.admin_token = read_admin_token()  # ConfigError (no start) when it is guessable
        self.admin_throttle = FailureThrottle(free=settings.admin_free_failures)
        otel.configure()  # reads OTEL_*; ConfigError (no start) for an OTLP protocol it cannot send
        self.state_dir = _state_dir()
        self.keys = KeyStore(keys_path(), settings.router_reload_seconds,
                             snapshot=self.state_dir / "api_keys.good.yaml")
        self.resolver = CallerResolver(settings.access, self.keys)
        self.keys_error: str | None = None
        self._load_keys()
        _log_access_settings(settings, self.keys)
        if loop is not None:
            self._attach(loop, loop.router_config)
        else:
            self.load()

    # --- callers -----------------------------------------------------------------------

    def _load_keys(self) -> None:
        """Read the API key file; an invalid file at start accepts no key and makes /readyz say why."""
        try:
            self.keys.load()
            self.keys_error = None
        except ConfigError as exc:
            self.keys_error = exc.message
            self.keys.last_error = exc.message
            log.error("API key file refused at start: no key is accepted until it is fixed",
                      extra={"event": "startup", "reason": exc.message})

    def resolve_caller(self, headers) -> Caller:
        """The caller of a request (server.callers); Unauthenticated (401) when refused."""
        return self.resolver.resolve(headers)

    # --- loading -----------------------------------------------------------------------

    def load(self) -> bool:
        """Build and warm the AnswerLoop; on failure keep the reason for /readyz and return False."""
        with self._load_lock:
            if self.loop is not None:
                return True
            self._last_attempt = time.monotonic()
            started = time.perf_counter()
            try:
                from .bootstrap import build_loop

                loop = build_loop(use_ner=self.settings.use_ner, router_path=self.settings.router_path,
                                  knowledge_bases=self.settings.knowledge_bases, workers=self.settings.worker_count,
                                  llm=self.settings.llm)
                config = loop.router_config
                loop.warm_up()  # in a master that forks, the embedder waits for the workers
                if not forking.held():
                    warm_requests(loop)
            except SightlineError as exc:
                self.error = exc
                log.error("service not ready: %s", exc.message, extra={"event": "startup", "code": exc.code})
                return False
            self._attach(loop, config)
            log.info("service ready", extra={"event": "startup",
                                             "knowledge_bases": list(loop.retriever.knowledge_bases),
                                             "router_version": config.version, "workers": self.settings.worker_count,
                                             "llm": self.settings.llm.describe() if self.settings.llm else None,
                                             "seconds": round(time.perf_counter() - started, 2)})
            return True

    def _attach(self, loop: Any, config: RouterConfig) -> None:
        self.loop = loop
        self.error = None
        self.loaded_at = _now()
        self.watcher = RouterWatcher(self.settings.router_path, list(loop.retriever.knowledge_bases),
                                     self._apply, self.lock, config, self.settings.router_reload_seconds,
                                     snapshot=self.state_dir / "router.good.yaml")
        if config.text:
            self.watcher.publish(config.text)
        self.builds = BuildWatcher(loop.retriever, self.lock, self._refresh_sources,
                                   self.settings.router_reload_seconds)
        # a service started for named KBs only serves those; otherwise KBs added to the file join
        self.new_kbs = None if self.settings.knowledge_bases else NewKBWatcher(
            loop.kb_config.source or config_dir() / "knowledge_bases.yaml", loop, self.lock,
            self.watcher.add_knowledge_bases, self._added_kbs, self.settings.router_reload_seconds)

    def _added_kbs(self, names: list[str]) -> None:
        """After KBs were added while serving: Perception's sources, the chunk gauges."""
        self._refresh_sources()
        for name in names:
            metrics.add_knowledge_base(name, self.loop.retriever.knowledge_bases[name].describe().get("chunks"))

    def _checks(self) -> list:
        """The watchers' checks, in order: router config, new builds, new KBs."""
        assert self.watcher is not None and self.builds is not None  # _attach sets them
        return [self.watcher.check, self.builds.check] + ([self.new_kbs.check] if self.new_kbs else [])

    def _refresh_sources(self) -> None:
        """After a build switch: Perception recognises the sources the new builds' public documents name."""
        self.loop.perception.set_known_sources(self.loop.retriever.public_sources())

    def _apply(self, config: RouterConfig) -> None:
        """Swap a validated config into the loop (called by the watcher under the loop lock)."""
        self.loop.set_router_config(config)
        self.loaded_at = _now()

    def before_fork(self) -> None:
        """In the gunicorn master before it forks a worker: take up the service's last good config.

        A worker inherits the master's state, so the master adopts what the workers accepted
        since it loaded (never the file itself: a bad file on disk must not reach a new worker),
        and the service's last good API keys (a removed key must stay removed in a new worker).
        """
        try:
            self.keys.refresh()
        except Exception:  # noqa: BLE001 - the master must keep forking whatever happens here
            log.exception("master could not refresh the API keys")
        if self.watcher is not None:
            try:
                self.watcher.adopt_snapshot()
                self.builds.check()
                if self.new_kbs is not None:
                    self.new_kbs.check()
            except Exception:  # noqa: BLE001 - the master must keep forking whatever happens here
                log.exception("master could not adopt the router snapshot or a new build")

    def worker_started(self) -> None:
        """Once per process after fork: zero the counters' label sets, set gauges, start the watcher."""
        if self._worker_pid == os.getpid():
            return
        self._worker_pid = os.getpid()
        if self.loop is None:
            return
        assert self.watcher is not None  # _attach sets it with the loop
        self._warm_worker()
        otel.start()  # after the fork: the exporter's threads live in the worker
        kbs = self.loop.retriever.knowledge_bases
        metrics.initialise({name: kb.describe().get("chunks") for name, kb in kbs.items()},
                           self.watcher.current.version, kbs)
        breaker = self.llm_breaker()
        if breaker is not None:
            metrics.watch_llm_circuit(breaker)
        for check in self._checks():  # a late fork must not serve stale state
            try:
                check()
            except Exception:  # noqa: BLE001 - a worker must boot whatever a check raises
                log.exception("start-up check failed; serving the state inherited from the master",
                              extra={"event": "worker_start"})
        self._start_watch_thread()

    def _warm_worker(self) -> None:
        """After the fork: load the embedders (never in the master) and answer the warm-up questions.

        Promises: nothing is done when every embedder is loaded already (a loop warmed in this
        process, as tests and one-process servers have); a failure is logged, never raised.
        """
        if all(e.loaded for e in self.loop.retriever.embedders().values()):
            return
        try:
            self.loop.retriever.warm_up()
            warm_requests(self.loop)
        except Exception:  # noqa: BLE001 - a worker must boot; the first request meets the error again
            log.exception("worker warm-up failed; loading on first use", extra={"event": "worker_start"})

    def answer(self, loop: Any, ask: Any) -> Any:
        """Answer one request with the loop (one at a time per worker: the loop lock) and export its
        trace to OpenTelemetry (server/otel; nothing when it is off).

        Args:
            loop: the AnswerLoop `require_ready()` returned.
            ask: the AskRequest, in its context.

        Returns:
            The AnswerResult. An error the loop raises is exported as a failed request, then raised.
        """
        try:
            with self.lock:
                result = loop.answer(ask)
        except Exception as exc:
            otel.export_failure(ask.context, exc)
            raise
        otel.export(result)
        return result

    def require_ready(self) -> Any:
        """The AnswerLoop, or NotReady with the reason (retrying a failed load now and then)."""
        if self.loop is None and time.monotonic() - self._last_attempt >= RETRY_LOAD_SECONDS:
            if self.load():
                self._worker_pid = None
                self.worker_started()
        if self.loop is None:
            reason = self.error.message if self.error else "still loading"
            raise NotReady(f"not ready: {reason}", field=self.error.field if self.error else None)
        assert self.watcher is not None  # _attach sets it with the loop
        self.watcher.maybe_check()
        self.builds.maybe_check()
        if self.new_kbs is not None:
            self.new_kbs.maybe_check()
        return self.loop

    def _start_watch_thread(self) -> None:
        """One daemon thread per process polling router.yaml and the KB builds (threads do not survive fork)."""
        interval = self.settings.router_reload_seconds
        if interval <= 0:
            return

        def watch() -> None:
            while True:
                time.sleep(interval)
                for check in self._checks():
                    try:
                        check()
                    except Exception:  # noqa: BLE001 - the watcher must outlive any one bad check
                        log.exception("watch check failed", extra={"event": "watch"})

        threading.Thread(target=watch, name="sightline-watch", daemon=True).start()

    # --- readiness ---------------------------------------------------------------------

    def readiness(self) -> tuple[bool, dict[str, Any]]:
        """(ready, body) for /readyz: models and indexes loaded, a valid router config serving, and no
        served build changed on disk since it was opened (checks.builds.<kb>.changed says how).

        `worker` is the answering process: each gunicorn worker keeps its own state, so an operator
        (or a test) can tell which worker is behind."""
        try:
            self.require_ready()
        except NotReady as exc:
            return False, {"ready": False, "reason": exc.message, "worker": os.getpid(),
                           "checks": {"loop": "not loaded"}}
        assert self.watcher is not None  # require_ready returned: the loop and its watcher are set
        # a build directory deleted under a live process (by hand: pruning never does) is not ready
        kbs = {name: kb.ready and kb.build_dir is not None and kb.build_dir.is_dir()
               for name, kb in self.loop.retriever.knowledge_bases.items()}
        builds = {name: {"build": kb.describe().get("build_id"), "refused_build": self.builds.refused.get(name),
                         "changed": self.builds.changed.get(name)}
                  for name, kb in self.loop.retriever.knowledge_bases.items()}
        embedder = all(e.loaded for e in self.loop.retriever.embedders().values())
        self.keys.maybe_reload()
        checks = {"knowledge_bases": kbs, "embedder": embedder,
                  "router": {"version": self.watcher.current.version, "file_error": self.watcher.last_error},
                  "builds": builds,
                  "api_keys": {"keys": len(self.keys.names), "file_error": self.keys.last_error},
                  "llm": self._llm_check()}
        missing = [f"knowledge base '{n}' is not loaded" + (f": {why}" if (why := self._failure_of(n)) else "")
                   for n, ok in kbs.items() if not ok]
        missing += [self.builds.changed[n] for n in kbs if n in self.builds.changed]  # files changed under it
        if not embedder:
            missing.append("the embedding model is not loaded")
        if self.keys_error and self.keys.last_error:  # invalid since start: no last good keys exist
            missing.append(f"the API key file is invalid, no key is accepted: {self.keys.last_error}")
        elif self.keys_error:
            self.keys_error = None
        reason = "; ".join(missing) or None
        return reason is None, {"ready": reason is None, "reason": reason, "worker": os.getpid(), "checks": checks}

    def _failure_of(self, name: str) -> str | None:
        """Why a KB that is not open was refused (its build's file and the fix), None when unknown."""
        assert self.loop is not None  # readiness asks only of a loaded loop
        return self.loop.retriever.knowledge_bases[name].failure

    def llm_breaker(self) -> Any:
        """This worker's LLM circuit breaker (orchestration/compose/llm/breaker.py), None without an LLM."""
        composers = self.loop.composers.values() if self.loop is not None else ()
        return next((c.breaker for c in composers if getattr(c, "breaker", None) is not None), None)

    def _llm_check(self) -> dict[str, Any] | None:
        """checks.llm of /readyz: this worker's circuit (an open circuit still answers, extractively)."""
        breaker = self.llm_breaker()
        return None if breaker is None else dict(breaker.describe(), worker=os.getpid())

    def router_state(self) -> dict[str, Any]:
        """What GET /admin/router shows: the active config of this worker."""
        assert self.watcher is not None  # admin routes call require_ready first
        config = self.watcher.current
        return {"version": config.version, "file": str(self.settings.router_path), "worker": os.getpid(),
                "loaded_at": self.loaded_at, "last_error": self.watcher.last_error,
                "rules": [r.name for r in config.rules], "yaml": config.text}


def _log_access_settings(settings: ServiceSettings, keys: KeyStore) -> None:
    """Say at start who can see what; unrestricted access is a warning, never silent."""
    access = settings.access
    extra = {"event": "access", "anonymous": access.anonymous, "unrestricted_access": access.unrestricted_access,
             "gateway_header": access.gateway_groups_header, "api_keys": len(keys.names),
             "api_keys_file": str(keys.path)}
    if access.unrestricted_access:
        log.warning("unrestricted_access is on: EVERY caller sees EVERY document, ACL groups are ignored",
                    extra=extra)
    else:
        log.info("access control on: keyless callers %s; documents with ACL groups only reach keys or gateway "
                 "users in those groups" % ("see public documents only" if access.anonymous else "are refused (401)"),
                 extra=extra)


def _state_dir() -> Path:
    """A private directory for state this service's processes share (the last good router config).

    Made in the master before fork (workers inherit the path) and removed when the master exits.
    """
    import atexit
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="sightline-state-"))
    owner = os.getpid()
    atexit.register(lambda: shutil.rmtree(path, ignore_errors=True) if os.getpid() == owner else None)
    return path


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
