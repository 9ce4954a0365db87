"""The client address of a request: the socket's peer, or the one a trusted proxy forwarded.

`X-Forwarded-For` is a header anyone can send, so it is believed only when the socket's peer
(REMOTE_ADDR) is one of the configured `trusted_proxies` (addresses or networks; loopback by
default, where the shipped HAProxy connects from), and then for at most `trusted_proxy_hops`
entries from its right end: each proxy appends the address it saw, so the last entry is
the trusted proxy's own view of its client. A further entry is read only while the one
before it is itself a trusted proxy, so a caller that reaches an inner proxy directly cannot
name an outer client. Per-address limits (the admin lock-out, server/auth_throttle.py) and
the logs then see the client, never the proxy, and a caller that reaches gunicorn directly
is always its own socket address, whatever it writes in the header.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from typing import Any

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_TRUSTED_PROXIES = ("127.0.0.1", "::1")
PEER_KEY = "sightline.peer"  # the WSGI environ key keeping the socket's own peer address


def parse_network(text: str) -> Network:
    """The network `text` names: an address ("127.0.0.1", "::1", one host) or a CIDR network
    ("10.0.0.0/8"). ValueError saying what to write for anything else, host bits set included."""
    try:
        return ipaddress.ip_network(text.strip())
    except ValueError:
        try:
            network = ipaddress.ip_network(text.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{text!r} is not an IP address or network (e.g. 127.0.0.1, ::1, 10.0.0.0/8)") from None
        raise ValueError(f"{text!r} has bits set after the prefix; write the network {network}") from None


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """parse_network of each value, in order."""
    return tuple(parse_network(value) for value in values)


def _address(text: str | None) -> Address | None:
    """The IP address in `text` (IPv4-mapped IPv6 as IPv4, "[::1]" as "::1"); None if it is none."""
    if not text:
        return None
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: Address | None, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address.version == net.version and address in net for net in networks)


def client_address(peer: str, forwarded_for: str | None, networks: tuple[Network, ...], hops: int) -> str:
    """The address per-client limits and logs use for a request from `peer` with that header.

    Promises: `peer` itself unless it is in `networks` and `hops` > 0; otherwise the header's
    entries from the right, at most `hops` of them, stopping after the first that is not
    itself a trusted proxy (that one is the client). An entry that is not an IP address ends
    the walk at the last trusted address, so a broken header never yields a made-up client.
    """
    current = _address(peer)
    if hops <= 0 or not forwarded_for or not _trusted(current, networks):
        return peer
    client = peer
    for entry in reversed(forwarded_for.split(",")[-hops:]):
        address = _address(entry)
        if address is None:
            break
        client = str(address)
        if not _trusted(address, networks):
            break
    return client


class ForwardedFor:
    """WSGI middleware: REMOTE_ADDR becomes `client_address(...)` of the request; the socket's
    own peer stays in environ[PEER_KEY].

    Args:
        app: the WSGI app to call.
        trusted_proxies: addresses or networks of the proxies whose header is believed.
        hops: proxies in front (trusted_proxy_hops); 0 reads no header.
    """

    def __init__(self, app: Callable[..., Any], trusted_proxies: Iterable[str], hops: int) -> None:
        self.app = app
        self.networks = parse_networks(trusted_proxies)
        self.hops = hops

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        peer = environ.get("REMOTE_ADDR") or ""
        environ[PEER_KEY] = peer
        environ["REMOTE_ADDR"] = client_address(peer, environ.get("HTTP_X_FORWARDED_FOR"), self.networks,
                                                 self.hops)
        return self.app(environ, start_response)
