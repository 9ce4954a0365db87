"""X-Forwarded-For with the real service and the real HAProxy in front (issue 34, item 5b).

`sightline serve` (one worker, so one lock-out table) with `trusted_proxy_hops: 1` and two free
admin failures, `sightline proxy` in front of it. Callers connect from their own loopback
addresses (127.0.0.5, 127.0.0.6, 127.0.0.7: Linux routes all of 127/8 to lo), so the proxy sees
each one as the client it is, while only 127.0.0.1, where the proxy connects from, is a trusted
proxy. Found: a caller reaching gunicorn directly named a new address in the header with every
wrong token and was never locked out.
"""

from __future__ import annotations

import http.client

import pytest

from tests.live import ADMIN_TOKEN, HAPROXY_INSTALL, haproxy_missing, start_proxy, start_service

WRONG = "w" * 44


@pytest.fixture(scope="module")
def fronted(demo_kbs, tmp_path_factory):
    """(service port, proxy port): the service behind the proxy, trusting one hop from loopback."""
    if haproxy_missing():
        pytest.skip(f"haproxy is not installed: {HAPROXY_INSTALL} (as root; .ci/run does this) to run the "
                    "proxy test")
    root = tmp_path_factory.mktemp("forwarded")
    live = start_service(demo_kbs, root, workers=1, env={"SIGHTLINE_TRUSTED_PROXY_HOPS": "1",
                                                         "SIGHTLINE_ADMIN_FREE_FAILURES": "2",
                                                         "SIGHTLINE_USE_NER": "false"})
    try:
        process, port = start_proxy(live.config_dir, live.port, root / "proxy.log")
        try:
            yield live.port, port
        finally:
            process.terminate()
            process.wait(timeout=10)
    finally:
        live.stop()


def _admin(port: int, source: str, token: str, forwarded: str | None = None) -> int:
    """The status of GET /admin/router sent to `port` from the loopback address `source`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    headers = {"Authorization": f"Bearer {token}"}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    try:
        conn.request("GET", "/admin/router", headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.mark.slow
def test_a_direct_caller_is_throttled_as_itself_and_clients_behind_the_proxy_one_by_one(fronted):
    service, proxy = fronted
    # straight to gunicorn, a new forged address with every guess: locked out as 127.0.0.7 all the same
    guesses = [_admin(service, "127.0.0.7", WRONG, f"198.51.100.{n}") for n in range(3)]
    assert guesses == [401, 401, 401]
    assert _admin(service, "127.0.0.7", ADMIN_TOKEN, "198.51.100.99") == 429
    assert _admin(proxy, "127.0.0.7", ADMIN_TOKEN) == 429  # the same address through the proxy
    # through the proxy: the address it appends counts, not the one the client wrote before it
    assert [_admin(proxy, "127.0.0.5", WRONG, "198.51.100.50") for _ in range(3)] == [401, 401, 401]
    assert _admin(proxy, "127.0.0.5", ADMIN_TOKEN, "198.51.100.51") == 429
    assert _admin(proxy, "127.0.0.6", ADMIN_TOKEN) == 200  # another client of the same proxy
    assert _admin(proxy, "127.0.0.6", ADMIN_TOKEN, "127.0.0.5") == 200  # naming a locked one changes nothing
