"""The buffering proxy in front of gunicorn: HAProxy with config/haproxy/sightline.cfg.

The config file is static and takes its addresses and limits from SIGHTLINE_PROXY_*
environment variables (HAProxy expands "${NAME}" itself); this module derives them from the
service settings, so the proxy's deadline is the service's body timeout and its body limit the
service's, and finds the haproxy binary. `sightline proxy` (server/cli/proxy.py) runs it.
Why HAProxy and not nginx: docs/SERVICE.md, "Behind the proxy".
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from core.errors import ConfigError
from orchestration.paths import config_dir

from .settings import ServiceSettings

INSTALL_HINT = "install it: apt-get install haproxy (Debian/Ubuntu; .ci/run does this)"
SERVER_MARGIN_SECONDS = 5  # the proxy waits this much longer for an answer than gunicorn lets a worker take
ADDRESS = re.compile(r"(?P<host>\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(?P<port>[0-9]{1,5})")


@dataclass(frozen=True)
class ProxySettings:
    """What the proxy config is filled with.

    Attributes:
        listen: host:port the proxy accepts clients on.
        upstream: host:port of gunicorn (`sightline serve`).
        upstream_conns: requests inside gunicorn at once (workers x threads); more wait in the proxy.
        request_timeout: seconds a client has for its whole request, headers and body (then 408).
        server_timeout: seconds the proxy waits for gunicorn's answer.
        max_body: bytes a declared body may have (larger: 413 at once).
    """

    listen: str
    upstream: str
    upstream_conns: int
    request_timeout: float
    server_timeout: float
    max_body: int

    def environment(self) -> dict[str, str]:
        """The SIGHTLINE_PROXY_* variables config/haproxy/sightline.cfg reads (times in ms)."""
        return {"SIGHTLINE_PROXY_BIND": self.listen, "SIGHTLINE_PROXY_UPSTREAM": self.upstream,
                "SIGHTLINE_PROXY_UPSTREAM_CONNS": str(self.upstream_conns),
                "SIGHTLINE_PROXY_REQUEST_TIMEOUT": f"{round(self.request_timeout * 1000)}ms",
                "SIGHTLINE_PROXY_SERVER_TIMEOUT": f"{round(self.server_timeout * 1000)}ms",
                "SIGHTLINE_PROXY_MAX_BODY": str(self.max_body)}


def check_address(text: str, flag: str) -> str:
    """`text` when it is host:port with a port in 1..65535; ConfigError naming `flag` otherwise."""
    match = ADDRESS.fullmatch(text)
    if match is None or not 0 < int(match["port"]) < 65536:
        raise ConfigError(f"{flag} {text!r} is not host:port (e.g. 0.0.0.0:8080 or 127.0.0.1:8000)", field=flag)
    return text


def proxy_settings(settings: ServiceSettings, listen: str = "127.0.0.1:8080", upstream: str | None = None,
                   request_timeout: float | None = None) -> ProxySettings:
    """The proxy's settings for a service run with `settings` (its host, port, limits, workers).

    Promises: the request deadline defaults to the service's body timeout, the body limit is
    the service's, and the upstream defaults to where `sightline serve` listens.
    """
    limits = settings.limits
    return ProxySettings(listen=check_address(listen, "--listen"),
                         upstream=check_address(upstream or f"{settings.host}:{settings.port}", "--upstream"),
                         upstream_conns=settings.worker_count * settings.threads,
                         request_timeout=request_timeout or limits.body_timeout_seconds,
                         server_timeout=settings.timeout + SERVER_MARGIN_SECONDS,
                         max_body=limits.max_body_bytes)


def config_file() -> Path:
    """config/haproxy/sightline.cfg in the config directory (SIGHTLINE_CONFIG_DIR)."""
    return config_dir() / "haproxy" / "sightline.cfg"


def haproxy_binary() -> str:
    """The haproxy executable (on PATH or in /usr/sbin); ConfigError with the install line when absent."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path=os.pathsep.join(("/usr/sbin", "/usr/local/sbin")))
    if found is None:
        raise ConfigError(f"haproxy is not installed; {INSTALL_HINT}", field="proxy")
    return found


def proxy_command(config: Path | None = None) -> list[str]:
    """haproxy in the foreground (-db: logs on stderr, SIGTERM/SIGUSR1 stop it) with the config."""
    return [haproxy_binary(), "-db", "-f", str(config or config_file())]
