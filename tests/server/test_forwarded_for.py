"""Which address a request comes from: X-Forwarded-For is believed only from a trusted proxy.

Issue 34, item 5b: with `trusted_proxy_hops: 1` a caller that reached gunicorn directly sent a
new `X-Forwarded-For` with every admin token guess and was never throttled, since each guess
came "from" another address. The header is now read only when the socket's peer is one of
`trusted_proxies` (loopback by default: the shipped HAProxy runs on the service's host).
"""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from server.forwarded import client_address, parse_networks
from server.settings import ServiceSettings, load_settings

GOOD = "k" * 20 + "-good-admin-token-0123"
WRONG = "Bearer " + "w" * 40
DIRECT = "203.0.113.9"  # a caller on the network, not a proxy


def _admin(client, remote: str, forwarded: str | None = None, token: str = f"Bearer {GOOD}") -> int:
    headers = {"Authorization": token}
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    return client.get("/admin/router", headers=headers, environ_base={"REMOTE_ADDR": remote}).status_code


def test_a_direct_caller_forging_x_forwarded_for_is_throttled_as_its_own_address(make_app):
    client = make_app(token=GOOD, trusted_proxy_hops=1, admin_free_failures=2).test_client()
    guesses = [_admin(client, DIRECT, f"198.51.100.{n}", token=WRONG) for n in range(3)]
    assert guesses == [401, 401, 401]  # two free, the third locks the caller's own address out
    assert _admin(client, DIRECT, "198.51.100.200") == 429  # a fresh forged address changes nothing
    assert _admin(client, DIRECT) == 429
    # the forged addresses were never charged: a client behind the proxy that has one is not held back
    assert _admin(client, "127.0.0.1", "198.51.100.0") == 200


def test_behind_the_proxy_each_client_is_throttled_by_its_own_address(make_app):
    client = make_app(token=GOOD, trusted_proxy_hops=1, admin_free_failures=2).test_client()
    # HAProxy appends the address it saw; what the client sent before it is not read
    guesses = [_admin(client, "127.0.0.1", f"10.{n}.0.1, 198.51.100.1", token=WRONG) for n in range(3)]
    assert guesses == [401, 401, 401]
    assert _admin(client, "127.0.0.1", "198.51.100.1") == 429
    assert _admin(client, "127.0.0.1", "198.51.100.2") == 200  # another client of the same proxy
    assert _admin(client, "127.0.0.1") == 200  # the proxy's own address was not charged
    assert [_admin(client, "::1", "2001:db8::5", token=WRONG) for _ in range(3)] == [401, 401, 401]
    assert _admin(client, "::1", "2001:db8::5") == 429 and _admin(client, "::1", "2001:db8::6") == 200


def test_without_trusted_hops_the_header_is_never_read(make_app):
    client = make_app(token=GOOD, admin_free_failures=2).test_client()
    assert [_admin(client, "127.0.0.1", f"198.51.100.{n}", token=WRONG) for n in range(3)] == [401] * 3
    assert _admin(client, "127.0.0.1", "198.51.100.9") == 429


NETWORKS = parse_networks(["127.0.0.1", "::1", "10.0.0.0/8"])


@pytest.mark.parametrize(("peer", "header", "hops", "client"), [
    (DIRECT, "198.51.100.1", 1, DIRECT),                      # not a proxy: its header is not read
    ("127.0.0.1", "198.51.100.1", 1, "198.51.100.1"),         # the proxy's entry
    ("127.0.0.1", "6.6.6.6, 198.51.100.1", 1, "198.51.100.1"),  # what the client wrote before it: not read
    ("127.0.0.1", "198.51.100.1", 0, "127.0.0.1"),            # no hops configured: never read
    ("127.0.0.1", None, 1, "127.0.0.1"),
    ("127.0.0.1", " ", 1, "127.0.0.1"),
    ("127.0.0.1", "unknown", 1, "127.0.0.1"),                 # not an address: the proxy's own is kept
    ("::ffff:127.0.0.1", "198.51.100.1", 1, "198.51.100.1"),  # loopback as an IPv4-mapped IPv6 peer
    ("::1", "2001:DB8::5", 1, "2001:db8::5"),
    ("10.1.2.3", "198.51.100.1, 10.0.0.2", 2, "198.51.100.1"),  # two proxies, both trusted
    ("10.1.2.3", "198.51.100.1, 203.0.113.9", 2, "203.0.113.9"),  # 203.0.113.9 reached the inner proxy directly
    ("10.1.2.3", "198.51.100.1", 2, "198.51.100.1"),          # fewer entries than hops
])
def test_the_client_is_read_from_the_header_only_through_trusted_proxies(peer, header, hops, client):
    assert client_address(peer, header, NETWORKS, hops) == client


def test_trusted_proxies_default_to_loopback_and_are_read_from_the_file_and_the_environment(tmp_path):
    assert ServiceSettings().trusted_proxies == ("127.0.0.1", "::1")
    path = tmp_path / "service.yaml"
    path.write_text("trusted_proxy_hops: 1\ntrusted_proxies: [10.0.0.0/8, 192.0.2.7]\n")
    assert load_settings(path, env={}).trusted_proxies == ("10.0.0.0/8", "192.0.2.7")
    env = {"SIGHTLINE_TRUSTED_PROXIES": "10.1.2.3, ::1"}
    assert load_settings(path, env=env).trusted_proxies == ("10.1.2.3", "::1")


@pytest.mark.parametrize(("value", "words"), [
    ("proxy.local", "not an IP address or network"),
    ("10.0.0.1/8", "10.0.0.0/8"),
    ("[]", "at least one"),
])
def test_a_bad_trusted_proxy_is_refused_naming_the_setting_and_the_fix(tmp_path, value, words):
    path = tmp_path / "service.yaml"
    path.write_text(f"trusted_proxies: {value}\n")
    with pytest.raises(ConfigError, match="trusted_proxies") as refused:
        load_settings(path, env={})
    assert words in refused.value.message
