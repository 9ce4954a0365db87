"""Who is asking: the caller of a request, resolved once in server/ before anything is searched.

A caller is one of
- a key holder: `Authorization: Bearer <key>` where the key's sha256 is listed in
  config/api_keys.yaml (server/keys.py) with its groups;
- a gateway user: only when the operator names a trusted gateway header in service.yaml
  (`gateway.groups_header`), the groups come from that header (a proxy in front that
  authenticates users and sets it; the service must then be reachable only through it);
- anonymous: no key, and `anonymous: true` (the default) in service.yaml. Anonymous callers
  see public documents only (documents whose `acl` is empty).

"Everything visible" is never a default: `unrestricted_access: true` in service.yaml makes
every caller see every document, and the service logs a warning saying so at start.

The caller's groups travel with the request to every search (`AskRequest.acl_groups`); the
caller's name (never the key) is in the response, the response headers and every log line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from core.errors import Unauthenticated
from core.names import GROUP_PATTERN, parse_groups

from .keys import KeyStore

KEY_PATTERN = re.compile(r"[A-Za-z0-9._~+/=-]{16,512}")  # fullmatch
# the label of sightline_auth_failures_total: why a caller (or an admin attempt) was refused
AUTH_FAILURE_REASONS = ("missing_key", "malformed_key", "unknown_key", "bad_gateway_header", "bad_admin_token",
                        "admin_throttled")


@dataclass(frozen=True)
class Caller:
    """The resolved caller of one request.

    Attributes:
        name: the key's name, the gateway user, "anonymous" or "operator" (CLI); never a secret.
        kind: "key", "gateway", "anonymous" or "operator".
        groups: the ACL groups the caller belongs to (empty: public documents only).
        unrestricted: sees every document (only by explicit operator setting or CLI flag).
    """

    name: str
    kind: str
    groups: tuple[str, ...] = ()
    unrestricted: bool = False

    @property
    def acl_groups(self) -> tuple[str, ...] | None:
        """What retrieval filters on: the groups, or None (no ACL filter) for an unrestricted caller."""
        return None if self.unrestricted else self.groups

    def to_dict(self) -> dict:
        """The caller as responses show it: name, kind, groups ("*" when unrestricted)."""
        return {"name": self.name, "kind": self.kind, "groups": ["*"] if self.unrestricted else list(self.groups)}


ANONYMOUS = Caller("anonymous", "anonymous")


@dataclass(frozen=True)
class AccessSettings:
    """The operator's access settings (service.yaml).

    Attributes:
        anonymous: keyless calls allowed (public documents only); False makes them 401.
        unrestricted_access: every caller sees every document (logged at start; never default).
        gateway_groups_header: a trusted header carrying comma-separated groups (None: off).
        gateway_user_header: a trusted header carrying the user name shown in logs.
    """

    anonymous: bool = True
    unrestricted_access: bool = False
    gateway_groups_header: str | None = None
    gateway_user_header: str | None = None


class CallerResolver:
    """Turns request headers into a Caller, or raises Unauthenticated with the reason.

    Args:
        settings: the operator's access settings.
        keys: the API key store (reloaded from its file without a restart).
    """

    def __init__(self, settings: AccessSettings, keys: KeyStore) -> None:
        self.settings = settings
        self.keys = keys

    def resolve(self, headers: Mapping[str, str]) -> Caller:
        """The caller of a request with these headers (case-insensitive mapping)."""
        caller = self._identify(headers)
        if self.settings.unrestricted_access:
            return Caller(caller.name, caller.kind, caller.groups, unrestricted=True)
        return caller

    def _identify(self, headers: Mapping[str, str]) -> Caller:
        authorization = headers.get("Authorization")
        if authorization is not None:
            return self._key_holder(authorization)
        gateway = self.settings.gateway_groups_header
        if gateway and headers.get(gateway) is not None:
            return self._gateway_user(headers)
        if not self.settings.anonymous:
            raise Unauthenticated("an API key is required: send 'Authorization: Bearer <key>' (an operator "
                                  "creates one with `sightline keys add NAME --groups ...`)", "missing_key")
        return ANONYMOUS

    def _key_holder(self, authorization: str) -> Caller:
        scheme, _, key = authorization.strip().partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not KEY_PATTERN.fullmatch(key):
            raise Unauthenticated("the Authorization header must be 'Bearer <key>' with a key from "
                                  "`sightline keys add`", "malformed_key")
        entry = self.keys.lookup(key)
        if entry is None:
            raise Unauthenticated("the API key is not known (revoked, mistyped, or from another service); "
                                  "ask the operator for a key", "unknown_key")
        return Caller(entry.name, "key", entry.groups)

    def _gateway_user(self, headers: Mapping[str, str]) -> Caller:
        header = self.settings.gateway_groups_header or ""
        try:
            groups = parse_groups(headers.get(header, ""), f"header {header}")
        except ValueError as exc:
            raise Unauthenticated(str(exc), "bad_gateway_header") from None
        user = (headers.get(self.settings.gateway_user_header) if self.settings.gateway_user_header else None) or ""
        user = user.strip()
        name = f"gateway:{user}" if user and GROUP_PATTERN.fullmatch(user) else "gateway"
        return Caller(name, "gateway", groups)
