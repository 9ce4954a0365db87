"""Service settings: config/service.yaml, then environment variables, then command-line flags.

One `ServiceSettings` object tells the app factory, `gunicorn.conf.py` and `sightline serve`
where to listen, how many workers to run, which knowledge bases to serve, the request limits
and how often each worker looks for a changed router.yaml. Every environment variable is
listed in `ENV` (docs/SERVICE.md prints the same table).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from core.yamlconfig import parse_yaml
from orchestration import paths

from .schemas import RequestLimits

ADMIN_TOKEN_ENV = "SIGHTLINE_ADMIN_TOKEN"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# environment variable -> settings field (the admin token is read where it is used, never stored)
ENV = {
    "SIGHTLINE_HOST": "host",
    "SIGHTLINE_PORT": "port",
    "SIGHTLINE_WORKERS": "workers",
    "SIGHTLINE_THREADS": "threads",
    "SIGHTLINE_TIMEOUT": "timeout",
    "SIGHTLINE_KBS": "knowledge_bases",
    "SIGHTLINE_RELOAD_SECONDS": "router_reload_seconds",
    "SIGHTLINE_LOG_LEVEL": "log_level",
    "SIGHTLINE_USE_NER": "use_ner",
    "SIGHTLINE_ANONYMOUS": "anonymous",
}
_LIMIT_KEYS = tuple(f.name for f in fields(RequestLimits))
MAX_DEFAULT_WORKERS = 4


def default_workers(cores: int | None = None) -> int:
    """Workers when none are configured: one per core, at most MAX_DEFAULT_WORKERS.

    The work is CPU-bound (embedding, scoring), so more workers than cores only queue on
    the CPU; each worker also holds its own copy of the model's activations and caches
    (~440 MB before sharing), so the cap keeps a large host from starting dozens of them.
    """
    cores = cores or os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_WORKERS))


@dataclass(frozen=True)
class ServiceSettings:
    """Everything the HTTP service is configured with.

    Attributes:
        host, port: where gunicorn listens.
        workers: gunicorn worker processes (None: one per core, at most 4).
        threads: connection threads per worker (gthread); the answer loop itself runs one
            request at a time per worker, the other threads read and write slow connections.
        timeout: seconds a worker may spend on one request before gunicorn restarts it.
        graceful_timeout: seconds workers get to finish requests on shutdown or reload.
        knowledge_bases: names to serve (None: every one in knowledge_bases.yaml).
        limits: request limits (body size, query length, top_k, max_retries).
        router_reload_seconds: how often a worker checks router.yaml for a change.
        use_ner: load the spaCy pipeline (False: rules-only perception, faster start).
        log_level: the level of the JSON application log.
        metrics_dir: PROMETHEUS_MULTIPROC_DIR when the start command sets none.
        router_file: the router config to serve and watch (None: router.yaml in the config dir).
        anonymous: keyless /rag and /kb calls allowed (they see public documents only);
            False makes them 401.
        unrestricted_access: every caller sees every document, ACL ignored. Never a default:
            for a single-tenant deployment, and logged as a warning at start.
        gateway: a trusted gateway's headers ({groups_header, user_header}); None: off. Turn it
            on only when the service is reachable solely through that gateway.
        source: the file the settings came from (None: built-in defaults).
    """

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int | None = None
    threads: int = 4
    timeout: int = 60
    graceful_timeout: int = 30
    knowledge_bases: tuple[str, ...] | None = None
    limits: RequestLimits = field(default_factory=RequestLimits)
    router_reload_seconds: float = 2.0
    use_ner: bool = True
    log_level: str = "info"
    metrics_dir: str = "var/prometheus"
    router_file: str | None = None
    anonymous: bool = True
    unrestricted_access: bool = False
    gateway: dict | None = None
    source: str | None = None

    @property
    def worker_count(self) -> int:
        return self.workers or default_workers()

    @property
    def metrics_path(self) -> Path:
        return paths.resolve(self.metrics_dir)

    @property
    def router_path(self) -> Path:
        return paths.resolve(self.router_file) if self.router_file else paths.config_dir() / "router.yaml"

    def to_dict(self) -> dict[str, Any]:
        body = {f.name: getattr(self, f.name) for f in fields(self)}
        body["limits"] = {k: getattr(self.limits, k) for k in _LIMIT_KEYS}
        body["knowledge_bases"] = list(self.knowledge_bases) if self.knowledge_bases else None
        body["workers"] = self.worker_count
        return body

    @property
    def access(self):
        """The access settings the caller resolver uses (server.callers.AccessSettings)."""
        from .callers import AccessSettings

        gateway = self.gateway or {}
        return AccessSettings(anonymous=self.anonymous, unrestricted_access=self.unrestricted_access,
                              gateway_groups_header=gateway.get("groups_header"),
                              gateway_user_header=gateway.get("user_header"))


def _fail(source: str, key: str, message: str) -> ConfigError:
    return ConfigError(f"{source}: {key}: {message}", field=key)


def _coerce(source: str, key: str, value: Any) -> Any:
    """A raw value (YAML or an env string) as the type of the settings field `key`."""
    if key in ("port", "workers", "threads", "timeout", "graceful_timeout"):
        if value is None and key == "workers":
            return None
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise _fail(source, key, f"must be an integer, got {value!r}") from None
        if number < 1 or (key == "port" and number > 65535):
            raise _fail(source, key, f"out of range: {number}")
        return number
    if key == "router_reload_seconds":
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            raise _fail(source, key, f"must be a number of seconds, got {value!r}") from None
        if not 0 <= seconds < float("inf"):
            raise _fail(source, key, f"must be a finite number of seconds, 0 or more; got {value!r}")
        return seconds
    if key == "gateway":
        return _gateway(source, value)
    if key in ("use_ner", "anonymous", "unrestricted_access"):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text not in ("1", "0", "true", "false", "yes", "no"):
            raise _fail(source, key, f"must be true or false, got {value!r}")
        return text in ("1", "true", "yes")
    if key == "knowledge_bases":
        if value is None or value == "" or value == "*":
            return None
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
            raise _fail(source, key, "must be a list of knowledge base names (env: comma-separated)")
        return tuple(n.strip() for n in names)
    if key == "log_level":
        level = str(value).lower()
        if level not in ("debug", "info", "warning", "error"):
            raise _fail(source, key, f"must be one of debug, info, warning, error; got {value!r}")
        return level
    return str(value)


GATEWAY_KEYS = ("groups_header", "user_header")
HEADER_NAME = __import__("re").compile(r"^[A-Za-z0-9-]{1,64}$")


def _gateway(source: str, data: Any) -> dict | None:
    """The trusted gateway headers, {groups_header, user_header?}, or None when off."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise _fail(source, "gateway", "must be a mapping with groups_header (and optionally user_header), or null")
    unknown = sorted(set(data) - set(GATEWAY_KEYS))
    if unknown:
        raise _fail(source, f"gateway.{unknown[0]}", f"unknown key; allowed: {', '.join(GATEWAY_KEYS)}")
    if not data.get("groups_header"):
        raise _fail(source, "gateway.groups_header", "is required when gateway is set (e.g. X-Sightline-Groups)")
    for key, value in data.items():
        if value is not None and (not isinstance(value, str) or not HEADER_NAME.match(value)):
            raise _fail(source, f"gateway.{key}", f"must be an HTTP header name, got {value!r}")
    if str(data["groups_header"]).lower() == "authorization":
        raise _fail(source, "gateway.groups_header", "cannot be Authorization (that header carries API keys)")
    return {k: data.get(k) for k in GATEWAY_KEYS}


def _limits(source: str, data: Any) -> RequestLimits:
    if data is None:
        return RequestLimits()
    if not isinstance(data, dict):
        raise _fail(source, "limits", "must be a mapping")
    unknown = sorted(set(data) - set(_LIMIT_KEYS))
    if unknown:
        raise _fail(source, f"limits.{unknown[0]}", f"unknown key; allowed: {', '.join(_LIMIT_KEYS)}")
    values = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if key == "max_retries" else 1):
            raise _fail(source, f"limits.{key}", f"must be a positive integer, got {value!r}")
        values[key] = value
    return RequestLimits(**values)


def prepare_metrics_dir(directory: str | os.PathLike) -> None:
    """Create the Prometheus multiprocess directory and empty it: a previous run's files must not count.

    Lives here, not in server.metrics, because prometheus_client must not be imported before
    the directory exists (it opens its files at import when PROMETHEUS_MULTIPROC_DIR is set).
    """
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):
        if name.endswith(".db"):
            os.remove(os.path.join(directory, name))


def service_config_path() -> Path:
    """$SIGHTLINE_SERVICE_CONFIG, else service.yaml in the config directory."""
    env = os.environ.get("SIGHTLINE_SERVICE_CONFIG")
    return Path(env) if env else paths.config_dir() / "service.yaml"


def load_settings(path: Path | None = None, env: Mapping[str, str] | None = None,
                  **overrides: Any) -> ServiceSettings:
    """The settings from the YAML file (absent: defaults), then env variables, then `overrides`.

    Raises:
        ConfigError: a value has the wrong type or an unknown key (names file, key and fix).
    """
    env = os.environ if env is None else env
    path = path or service_config_path()
    settings = ServiceSettings()
    allowed = [f.name for f in fields(ServiceSettings) if f.name != "source"]
    if path.exists():
        source = str(path)
        data = parse_yaml(path.read_bytes(), source) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{source}: must be a mapping of settings", field=source)
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise _fail(source, unknown[0], f"unknown setting; allowed: {', '.join(allowed)}")
        values: dict[str, Any] = {k: (_limits(source, v) if k == "limits" else _coerce(source, k, v))
                                  for k, v in data.items()}
        settings = replace(settings, source=source, **values)
    for name, key in ENV.items():
        if env.get(name) not in (None, ""):
            settings = replace(settings, **{key: _coerce(f"environment {name}", key, env[name])})
    given = {k: v for k, v in overrides.items() if v is not None}
    for key, value in given.items():
        given[key] = value if key == "limits" else _coerce("command line", key, value)
    return replace(settings, **given)
