"""The admin bearer token: read once from SIGHTLINE_ADMIN_TOKEN, refused when it is guessable.

A token is the only thing between the network and `/admin/*` (replace the router config,
see full paths in `/readyz`), so the service refuses to start with one that is short or
that holds whitespace inside it. Whitespace around it (a newline from `$(cat token.txt)`, a
space pasted with it) is stripped and logged: left in, it would make every request fail
while looking right, since clients send the token without it.
"""

from __future__ import annotations

import hmac
import logging
import os
from collections.abc import Mapping

from core.errors import ConfigError

log = logging.getLogger("sightline.admin")
ADMIN_TOKEN_ENV = "SIGHTLINE_ADMIN_TOKEN"
MIN_TOKEN_CHARS = 32
MAKE_ONE = "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


def read_admin_token(env: Mapping[str, str] | None = None) -> str | None:
    """The admin token from the environment; None when unset or empty (admin endpoints off).

    Promises: a returned token has no whitespace or control characters and is at least
    MIN_TOKEN_CHARS long.

    Raises:
        ConfigError: the token is too short or holds whitespace or control characters inside
            it; the message says why and how to make a good one, never the token itself.
    """
    raw = (os.environ if env is None else env).get(ADMIN_TOKEN_ENV)
    if raw is None or not raw.strip():
        return None
    token = raw.strip()
    if token != raw:
        log.warning(f"{ADMIN_TOKEN_ENV}: whitespace around the token was stripped (clients send it without)",
                    extra={"event": "admin_token", "stripped": len(raw) - len(token)})
    if any(c.isspace() or not c.isprintable() for c in token):
        raise ConfigError(f"{ADMIN_TOKEN_ENV} holds whitespace or control characters inside it; a bearer token "
                          f"is one printable word. Make one with: {MAKE_ONE}", field=ADMIN_TOKEN_ENV)
    if len(token) < MIN_TOKEN_CHARS:
        raise ConfigError(f"{ADMIN_TOKEN_ENV} is {len(token)} characters; it must be at least {MIN_TOKEN_CHARS} "
                          f"so it cannot be guessed (it guards the router config). Make one with: {MAKE_ONE}",
                          field=ADMIN_TOKEN_ENV)
    return token


def token_matches(authorization: str, token: str | None) -> bool:
    """True when an Authorization header is `Bearer <token>` (scheme case-insensitive, constant time)."""
    if not token:
        return False
    scheme, _, given = authorization.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode("utf-8", "replace"),
                                                              token.encode("utf-8"))
