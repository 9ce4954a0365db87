"""Service settings: config/service.yaml, then environment variables, then command-line flags.

One `ServiceSettings` object tells the app factory, `gunicorn.conf.py` and `sightline serve`
where to listen, how many workers to run, which knowledge bases to serve, the request limits
and how often each worker looks for a changed router.yaml. Every environment variable is
listed in `ENV` (docs/SERVICE.md prints the same table).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core import configfile as check
from core.configfile import Where
from core.yamlconfig import parse_yaml
from orchestration import paths
from orchestration.compose.llm.settings import LLMSettings, url_problem

from .forwarded import DEFAULT_TRUSTED_PROXIES, parse_network
from .http.schemas import RequestLimits
from .traces import TraceLimits

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# environment variable -> settings field (the admin token is read by server/admin_token.py, never stored)
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
    "SIGHTLINE_TRUSTED_PROXY_HOPS": "trusted_proxy_hops",
    "SIGHTLINE_TRUSTED_PROXIES": "trusted_proxies",
    "SIGHTLINE_ADMIN_FREE_FAILURES": "admin_free_failures",
    "SIGHTLINE_TRACES_MAX_ENTRIES": "traces_max_entries",
    "SIGHTLINE_TRACES_MAX_MB": "traces_max_mb",
    "SIGHTLINE_TRACES_MAX_AGE_HOURS": "traces_max_age_hours",
}
# environment variable -> key of the `llm:` section (the default profile's LLM backend)
LLM_ENV = {
    "SIGHTLINE_LLM_BASE_URL": "base_url",
    "SIGHTLINE_LLM_MODEL": "model",
    "SIGHTLINE_LLM_TIMEOUT": "timeout",
    "SIGHTLINE_LLM_BUDGET": "budget_seconds",
    "SIGHTLINE_LLM_MAX_TOKENS": "max_tokens",
    "SIGHTLINE_LLM_CIRCUIT_FAILURES": "circuit_failures",
    "SIGHTLINE_LLM_CIRCUIT_COOLDOWN": "circuit_cooldown_seconds",
}
LLM_API_KEY_ENV = "SIGHTLINE_LLM_API_KEY"  # the key is read from the environment only, never a file
LLM_KEYS = ("base_url", "model", "timeout", "budget_seconds", "max_tokens", "temperature", "circuit_failures",
            "circuit_cooldown_seconds")
LLM_MARGIN_SECONDS = 5  # the LLM budget ends this long before gunicorn's worker timeout at the latest
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
        trusted_proxy_hops: reverse proxies in front whose X-Forwarded-For is believed (0: none,
            the socket's address is the client's). Set 1 behind the shipped HAProxy config, so
            per-address limits (failed admin attempts) see clients, not the proxy; never more
            than the proxies really there, or a client can pick its own address.
        trusted_proxies: addresses or networks (CIDR) of those proxies. The header is read only
            from a request whose socket peer is one of them (server/forwarded.py); any other
            caller is its socket address, whatever it sends. Default loopback (127.0.0.1, ::1):
            the shipped proxy runs on the service's host.
        admin_free_failures: failed admin attempts in a row an address may make before it is
            locked out (1 s, doubling, up to 300 s; server/auth_throttle.py).
        traces_max_entries, traces_max_mb, traces_max_age_hours: the bounds of the trace store
            behind /ui/trace/<id> (<data dir>/traces; server/traces.py): records, megabytes and
            hours kept at most; 0 entries keeps none.
        llm: the default profile's LLM backend (`llm:` in service.yaml, SIGHTLINE_LLM_* in the
            environment); None: every profile answers extractively.
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
    trusted_proxy_hops: int = 0
    trusted_proxies: tuple[str, ...] = DEFAULT_TRUSTED_PROXIES
    admin_free_failures: int = 5
    traces_max_entries: int = 1000
    traces_max_mb: int = 200
    traces_max_age_hours: float = 168.0
    llm: LLMSettings | None = None
    source: str | None = None

    @property
    def worker_count(self) -> int:
        return self.workers or default_workers()

    @property
    def metrics_path(self) -> Path:
        return paths.resolve(self.metrics_dir)

    @property
    def trace_limits(self) -> TraceLimits:
        """The trace store's bounds (server/traces.py)."""
        return TraceLimits(self.traces_max_entries, self.traces_max_mb * 1024 * 1024,
                           self.traces_max_age_hours * 3600.0)

    @property
    def router_path(self) -> Path:
        return paths.resolve(self.router_file) if self.router_file else paths.config_dir() / "router.yaml"

    def to_dict(self) -> dict[str, Any]:
        body = {f.name: getattr(self, f.name) for f in fields(self)}
        body["limits"] = {k: getattr(self.limits, k) for k in _LIMIT_KEYS}
        body["knowledge_bases"] = list(self.knowledge_bases) if self.knowledge_bases else None
        body["workers"] = self.worker_count
        body["llm"] = self.llm.describe() if self.llm is not None else None
        return body

    @property
    def access(self):
        """The access settings the caller resolver uses (server.callers.AccessSettings)."""
        from .callers import AccessSettings

        gateway = self.gateway or {}
        return AccessSettings(anonymous=self.anonymous, unrestricted_access=self.unrestricted_access,
                              gateway_groups_header=gateway.get("groups_header"),
                              gateway_user_header=gateway.get("user_header"))


LOG_LEVELS = ("debug", "info", "warning", "error")
GATEWAY_KEYS = ("groups_header", "user_header")
HEADER_NAME = re.compile(r"[A-Za-z0-9-]{1,64}")  # fullmatch


def _optional(read: Callable[[Where, Any], Any]) -> Callable[[Where, Any], Any]:
    """`read`, with null meaning "not set"."""
    return lambda where, value: None if value is None else read(where, value)


def _knowledge_bases(where: Where, value: Any) -> tuple[str, ...] | None:
    """A list of names, or a comma-separated string of them (the environment's form); null, '' or '*': all."""
    if value is None or value == "" or value == "*":
        return None
    names = [name.strip() for name in value.split(",")] if isinstance(value, str) else value
    if not isinstance(names, list):
        raise where.fail(f"must be a list of knowledge base names, e.g. [manuals, policies] (environment: "
                         f"comma-separated), or null for all; got {value!r}")
    return tuple(dict.fromkeys(name.strip() for name in check.strings(where, names, "knowledge base name")))


def _log_level(where: Where, value: Any) -> str:
    return check.choice(where, value.lower() if isinstance(value, str) else value, LOG_LEVELS, "log level")


def _header(where: Where, value: Any) -> str:
    if not isinstance(value, str) or not HEADER_NAME.fullmatch(value):
        raise where.fail(f"must be an HTTP header name (letters, digits, '-'), got {value!r}")
    return value


def _gateway(where: Where, value: Any) -> dict | None:
    """The trusted gateway headers, {groups_header, user_header?}, or None when off."""
    if value is None:
        return None
    data = check.mapping(where, value, GATEWAY_KEYS)
    if not data.get("groups_header"):
        raise where.at("groups_header").fail("is required when gateway is set, e.g. X-Sightline-Groups; "
                                             "or set gateway: null")
    headers = {key: None if data.get(key) is None else _header(where.at(key), data[key]) for key in GATEWAY_KEYS}
    if str(headers["groups_header"]).lower() == "authorization":
        raise where.at("groups_header").fail("cannot be Authorization (that header carries API keys); "
                                             "use e.g. X-Sightline-Groups")
    return headers


def _networks(where: Where, value: Any) -> tuple[str, ...]:
    """Proxy addresses or CIDR networks: a list, or a comma-separated string (the environment's
    form); at least one, each as ipaddress writes it."""
    items = [item.strip() for item in value.split(",")] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise where.fail("must list at least one proxy address or network, e.g. [127.0.0.1, ::1] or "
                         f"[10.0.0.0/8] (environment: comma-separated); got {value!r}. With no proxy in front "
                         "set trusted_proxy_hops: 0 instead")
    networks = []
    for item in check.strings(where, items, "proxy address"):
        try:
            network = parse_network(item)
        except ValueError as exc:
            raise where.fail(str(exc)) from None
        networks.append(str(network.network_address) if network.num_addresses == 1 else str(network))
    return tuple(dict.fromkeys(networks))


def _limits(where: Where, value: Any) -> RequestLimits:
    data = check.mapping(where, value, _LIMIT_KEYS)
    return RequestLimits(**{key: check.integer(where.at(key), item, minimum=0 if key == "max_retries" else 1)
                            for key, item in data.items()})


def _integer(minimum: int, maximum: int | None = None) -> Callable[[Where, Any], int]:
    return lambda where, value: check.integer(where, value, minimum, maximum)


# settings field -> (its check, the type its text has in an environment variable or a flag)
_READ: dict[str, tuple[Callable[[Where, Any], Any], type]] = {
    "host": (check.text, str),
    "port": (_integer(1, 65535), int),
    "workers": (_optional(_integer(1)), int),
    "threads": (_integer(1), int),
    "timeout": (_integer(1), int),
    "graceful_timeout": (_integer(1), int),
    "knowledge_bases": (_knowledge_bases, str),
    "limits": (_limits, dict),
    "router_reload_seconds": (lambda where, value: check.number(where, value, minimum=0, finite=True), float),
    "use_ner": (check.boolean, bool),
    "log_level": (_log_level, str),
    "metrics_dir": (check.text, str),
    "router_file": (_optional(check.text), str),
    "anonymous": (check.boolean, bool),
    "unrestricted_access": (check.boolean, bool),
    "gateway": (_gateway, dict),
    "trusted_proxy_hops": (_integer(0, 5), int),
    "trusted_proxies": (lambda where, value: _networks(where, value), str),
    "admin_free_failures": (_integer(1, 1_000_000), int),
    "traces_max_entries": (_integer(0, 1_000_000), int),
    "traces_max_mb": (_integer(1, 1_000_000), int),
    "traces_max_age_hours": (lambda where, value: check.number(where, value, minimum=0, exclusive_minimum=True,
                                                               maximum=24 * 366, finite=True), float),
}


# `llm:` key -> (its check, the type its text has in an environment variable)
_LLM_READ: dict[str, tuple[Callable[[Where, Any], Any], type]] = {
    "base_url": (lambda where, value: _base_url(where, value), str),
    "model": (check.text, str),
    "timeout": (lambda where, value: check.number(where, value, minimum=0, exclusive_minimum=True, finite=True),
                float),
    "budget_seconds": (lambda where, value: check.number(where, value, minimum=0, exclusive_minimum=True,
                                                         finite=True), float),
    "max_tokens": (_integer(16, 1_000_000), int),
    "temperature": (lambda where, value: check.number(where, value, minimum=0, maximum=2), float),
    "circuit_failures": (_integer(1, 1000), int),
    "circuit_cooldown_seconds": (lambda where, value: check.number(where, value, minimum=0, maximum=86400,
                                                                   exclusive_minimum=True, finite=True), float),
}


def _base_url(where: Where, value: Any) -> str:
    problem = url_problem(value)
    if problem:
        raise where.fail(problem)
    return str(value).strip()


def _llm(file_section: Any, top: Where | None, env: Mapping[str, str], worker_timeout: int) -> LLMSettings | None:
    """The LLM backend from the file's `llm:` section and the SIGHTLINE_LLM_* variables (they win).

    Raises:
        ConfigError: a bad value, settings without a base URL, a model missing, or a timeout
            that does not fit the budget or the budget that does not end before gunicorn's.
    """
    values: dict[str, Any] = {}
    where_of: dict[str, Where] = {}
    if file_section is not None and top is not None:
        section = top.at("llm")
        data = check.mapping(section, file_section, LLM_KEYS)
        for key, value in data.items():
            read, kind = _LLM_READ[key]
            where_of[key] = section.at(key)
            values[key] = read(where_of[key], check.from_text(value, kind) if isinstance(value, str) else value)
    for name, key in LLM_ENV.items():
        if env.get(name) not in (None, ""):
            read, kind = _LLM_READ[key]
            where_of[key] = Where.environment(name, f"llm.{key}")
            values[key] = read(where_of[key], check.from_text(env[name], kind))
    if "base_url" not in values:
        if values:
            first = next(iter(values))
            raise where_of[first].fail("is set but no LLM base URL is: set SIGHTLINE_LLM_BASE_URL (or llm.base_url) "
                                       "to the server's API root, e.g. http://127.0.0.1:11434/v1, or unset it")
        return None
    if "model" not in values:
        raise where_of["base_url"].fail("needs a model: set SIGHTLINE_LLM_MODEL (or llm.model) to the name the "
                                        "server serves, e.g. llama3.1:8b (Ollama) or vLLM's --served-model-name")
    timeout = values.get("timeout", LLMSettings.timeout)
    ceiling = worker_timeout - LLM_MARGIN_SECONDS
    budget = values.get("budget_seconds", max(timeout, min(LLMSettings.budget_seconds, ceiling)))
    if timeout > budget:
        raise where_of.get("timeout", where_of["base_url"]).fail(
            f"the timeout of one LLM call ({timeout:g} s) is longer than the LLM budget of a request "
            f"({budget:g} s, llm.budget_seconds / SIGHTLINE_LLM_BUDGET); lower the timeout or raise the budget")
    if budget > ceiling:
        raise where_of.get("budget_seconds", where_of.get("timeout", where_of["base_url"])).fail(
            f"the LLM budget of a request ({budget:g} s) must end at least {LLM_MARGIN_SECONDS} s before the "
            f"worker timeout ({worker_timeout} s, SIGHTLINE_TIMEOUT), so a slow model falls back to the "
            f"extractive answer instead of the worker being killed; lower it or raise the worker timeout")
    values["budget_seconds"] = budget
    return LLMSettings(api_key=env.get(LLM_API_KEY_ENV) or None, **values)


def _read(where: Where, key: str, value: Any) -> Any:
    """A value of the settings field `key`, checked.

    Text (an environment variable, a flag, a quoted YAML value) is first read as the field's
    type, so SIGHTLINE_PORT=9100 and `port: "9100"` both pass the integer check.
    """
    read, kind = _READ[key]
    return read(where, check.from_text(value, kind) if isinstance(value, str) else value)


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
    llm_section, top = None, None
    if path.exists():
        source = str(path)
        top = Where(source, "", "")
        data = dict(check.mapping(top, parse_yaml(path.read_bytes(), source), (*_READ, "llm")))
        llm_section = data.pop("llm", None)
        settings = replace(settings, source=source, **{key: _read(top.at(key), key, value)
                                                       for key, value in data.items()})
    for name, key in ENV.items():
        if env.get(name) not in (None, ""):
            settings = replace(settings, **{key: _read(Where.environment(name, key), key, env[name])})
    given = {k: v for k, v in overrides.items() if v is not None}
    for key, value in given.items():
        if key != "limits" and key in _READ:
            given[key] = _read(Where("command line", key, key), key, value)
    settings = replace(settings, **given)
    return replace(settings, llm=_llm(llm_section, top, env, settings.timeout))
