"""The proxy's settings (server/proxy.py) and the shipped HAProxy config they fill."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import replace

import pytest

from core.errors import ConfigError
from server.http.schemas import RequestLimits
from server.proxy import config_file, proxy_settings
from server.settings import ServiceSettings


def test_the_proxy_takes_its_deadline_body_limit_and_upstream_from_the_service_settings():
    settings = ServiceSettings(host="127.0.0.1", port=8000, workers=2, threads=4, timeout=60,
                               limits=replace(RequestLimits(), body_timeout_seconds=7, max_body_bytes=1000))
    env = proxy_settings(settings, listen="0.0.0.0:8080").environment()
    assert env == {"SIGHTLINE_PROXY_BIND": "0.0.0.0:8080", "SIGHTLINE_PROXY_UPSTREAM": "127.0.0.1:8000",
                   "SIGHTLINE_PROXY_UPSTREAM_CONNS": "8", "SIGHTLINE_PROXY_REQUEST_TIMEOUT": "7000ms",
                   "SIGHTLINE_PROXY_SERVER_TIMEOUT": "65000ms", "SIGHTLINE_PROXY_MAX_BODY": "1000"}
    assert proxy_settings(settings, request_timeout=3).request_timeout == 3


@pytest.mark.parametrize("address", ["8080", "localhost", "host:0", "host:70000", "host:80\n", ":80"])
def test_an_address_that_is_not_host_port_is_refused_with_the_flag(address):
    with pytest.raises(ConfigError, match="--listen .* is not host:port"):
        proxy_settings(ServiceSettings(), listen=address)


def test_the_shipped_config_is_valid_haproxy():
    binary = shutil.which("haproxy", path=os.pathsep.join((os.environ.get("PATH", ""), "/usr/sbin")))
    if binary is None:
        pytest.skip("haproxy is not installed: apt-get install haproxy (as root; .ci/run does this)")
    env = dict(os.environ, **proxy_settings(ServiceSettings()).environment())
    result = subprocess.run([binary, "-c", "-f", str(config_file())], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
