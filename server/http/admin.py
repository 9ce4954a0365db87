"""Admin endpoints: see, replace and reload the router config of a running service.

All of /admin needs `Authorization: Bearer <token>` where the token is SIGHTLINE_ADMIN_TOKEN,
compared in constant time; with no token configured the endpoints answer 404 saying how to
enable them. Every change is logged with the time, the version before and after, the caller's
address and the request id.
"""

from __future__ import annotations

import logging

from flask import Blueprint, current_app, jsonify, request

from core.errors import (
    AdminDisabled,
    ConfigError,
    ConfigRejected,
    PreconditionFailed,
    TooManyAttempts,
    Unauthorized,
    UnsupportedMediaType,
)
from core.files import write_atomically
from core.yamlconfig import config_version, parse_yaml
from orchestration.router.config import parse_router_config

from .. import metrics
from ..admin_token import token_matches

log = logging.getLogger("sightline.admin")
YAML_TYPES = ("text/yaml", "application/yaml", "application/x-yaml", "text/x-yaml", "text/plain")
MAX_CONFIG_BYTES = 1024 * 1024

admin = Blueprint("admin", __name__, url_prefix="/admin")


def _service():
    return current_app.extensions["sightline"]


@admin.before_request
def _authorise() -> None:
    """Admin off without a token; a locked-out address waits (429); otherwise the token must match."""
    request.max_content_length = MAX_CONFIG_BYTES
    service = _service()
    if not service.admin_token:
        raise AdminDisabled("admin endpoints are disabled: set SIGHTLINE_ADMIN_TOKEN in the service's "
                            "environment and restart it to enable them")
    client = request.remote_addr or "unknown"
    wait = service.admin_throttle.retry_after(client)
    if wait:
        metrics.record_auth_failure("admin_throttled")
        raise TooManyAttempts(f"too many failed admin attempts from this address; try again in {wait} s",
                              retry_after=wait)
    authorization = request.headers.get("Authorization", "")
    if not token_matches(authorization, service.admin_token):
        # only a presented token is a guess; a request without one costs its address nothing
        lockout = service.admin_throttle.failed(client) if authorization else 0
        metrics.record_auth_failure("bad_admin_token")
        log.warning("admin request refused: bad or missing bearer token",
                    extra={"event": "admin_auth", "remote": client, "path": request.path, "lockout_seconds": lockout})
        raise Unauthorized("send 'Authorization: Bearer <token>' with the token from SIGHTLINE_ADMIN_TOKEN",
                           field="Authorization")
    service.admin_throttle.succeeded(client)
    service.require_ready()


def _who() -> dict:
    return {"remote": request.remote_addr, "user_agent": request.headers.get("User-Agent")}


@admin.get("/router")
def get_router():
    """The active router config (YAML text), its version and the worker that answered."""
    return jsonify(_service().router_state())


@admin.put("/router")
def put_router():
    """Validate a new router.yaml, write it atomically, and swap it in here (others follow)."""
    service = _service()
    mimetype = request.mimetype or ""
    if mimetype not in YAML_TYPES:
        raise UnsupportedMediaType(f"send the router config as YAML with Content-Type text/yaml or "
                                   f"application/yaml (got {mimetype or 'none'})", field="Content-Type")
    raw = request.get_data()
    path = service.settings.router_path
    current = config_version(path.read_bytes()) if path.exists() else ""
    expected = request.headers.get("If-Match", "").strip('"')
    if expected and expected != current:
        raise PreconditionFailed(f"If-Match {expected} does not match the file's current version {current}; "
                                 "GET /admin/router and edit that", field="If-Match")
    version = config_version(raw)
    try:
        data = parse_yaml(raw, "PUT /admin/router")
        parse_router_config(data, "PUT /admin/router", list(service.loop.retriever.knowledge_bases), version=version)
        text = raw.decode("utf-8")
    except ConfigError as exc:
        log.warning("router config refused (PUT)", extra={"event": "router_put", "result": "error",
                                                          "reason": exc.message, **_who()})
        metrics.record_reload("error")
        raise ConfigRejected(f"{exc.message}; nothing was written", field=exc.field) from None
    except Exception as exc:  # noqa: BLE001 - any failure of the validator refuses the config
        log.exception("router config validator failed (PUT)", extra={"event": "router_put", **_who()})
        metrics.record_reload("error")
        raise ConfigRejected(f"the config could not be validated ({type(exc).__name__}); nothing was written",
                             field="body") from None
    write_atomically(path, text)
    result = service.watcher.reload(cause="admin put")
    log.warning("router config written", extra={"event": "router_put", "result": result.result,
                                                "version_before": current, "version_after": version, **_who()})
    if result.result == "error":  # the file changed again under us and is invalid
        raise ConfigRejected(result.error or "the written config did not load", field="body")
    return jsonify(result.to_dict())


@admin.post("/reload")
def reload_router():
    """Re-read router.yaml in this worker now; 422 with the reason when it is invalid."""
    result = _service().watcher.reload(cause="admin reload")
    log.info("router reload requested", extra={"event": "router_reload_request", "result": result.result, **_who()})
    if result.result == "error":
        raise ConfigRejected(f"{result.error}; the last good config ({result.version_before}) keeps serving",
                             field="router.yaml")
    return jsonify(result.to_dict())
