"""JSON log lines, one object per line, each carrying the request id of the request it is about.

The request id lives in a context variable set by the app for the duration of a request, so
any module that logs through `logging` gets it without passing it around. The gunicorn
logger class below writes the access log and gunicorn's own messages in the same shape.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import os
import sys
from typing import Any

from gunicorn.glogging import Logger as GunicornLogger

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# the name of the caller of the request being served (a key's name, never the key)
caller_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)
_STANDARD = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime"}


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object: time, level, logger, message, request_id, pid, extras."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {"time": _now(), "level": record.levelname.lower(), "logger": record.name,
                                "message": record.getMessage(), "request_id": request_id_var.get(),
                                "caller": caller_var.get(), "pid": os.getpid()}
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                body[key] = value
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        text = json.dumps(body, ensure_ascii=False, default=str)
        # a lone surrogate cannot be written as UTF-8: escape it rather than lose the line
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


class _StderrHandler(logging.StreamHandler):
    """A handler writing to whatever sys.stderr is at the time of each record."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)
        self.setFormatter(JsonFormatter())

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(level: str = "info", root: bool = False) -> None:
    """JSON lines on stderr (idempotent).

    Args:
        level: the level of Sightline's loggers.
        root: also make the root logger JSON, so every library's records (perception.*,
            orchestration.*, ...) come out in the same shape: what the service process wants.
            Without it only the `sightline` loggers are set (an embedding app or a test
            runner keeps its own logging).
    """
    logger = logging.getLogger("sightline")
    logger.setLevel(level.upper())
    if root:
        top = logging.getLogger()
        if not any(isinstance(h, _StderrHandler) for h in top.handlers):
            top.handlers = [h for h in top.handlers if not isinstance(h, logging.StreamHandler)] + [_StderrHandler()]
        top.setLevel(logging.WARNING if level.lower() != "debug" else logging.DEBUG)
        logger.handlers = [h for h in logger.handlers if not isinstance(h, _StderrHandler)]
        logger.propagate = True
        return
    if logging.getLogger().handlers and any(isinstance(h, _StderrHandler) for h in logging.getLogger().handlers):
        return  # the process already logs JSON from the root
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        logger.addHandler(_StderrHandler())
    logger.propagate = False


class GunicornJsonLogger(GunicornLogger):
    """gunicorn's logger with JSON access lines (request id included) and a JSON error log."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for handler in self.error_log.handlers + self.access_log.handlers:
            handler.setFormatter(_RawFormatter() if handler in self.access_log.handlers else JsonFormatter())

    def access(self, resp, req, environ, request_time) -> None:
        if not (self.cfg.accesslog or self.cfg.logconfig or self.cfg.logconfig_dict or self.cfg.syslog):
            return
        headers = dict((name.lower(), value) for name, value in (resp.headers or []))
        status = resp.status.split(None, 1)[0] if isinstance(resp.status, str) else resp.status
        body = {"time": _now(), "level": "info", "logger": "gunicorn.access",
                "request_id": headers.get("x-request-id") or environ.get("HTTP_X_REQUEST_ID"),
                "caller": headers.get("x-sightline-caller"),
                "method": environ.get("REQUEST_METHOD"), "path": environ.get("PATH_INFO"),
                "query": environ.get("QUERY_STRING") or None, "status": int(status),
                "bytes": getattr(resp, "sent", None),
                "ms": round(request_time.total_seconds() * 1000, 3),
                "remote": environ.get("REMOTE_ADDR"), "user_agent": environ.get("HTTP_USER_AGENT"),
                "pid": os.getpid()}
        try:
            self.access_log.info(json.dumps(body, ensure_ascii=True))
        except Exception:  # noqa: BLE001 - a log line must never fail a request
            self.error(f"access log failed for {body.get('path')}")


class _RawFormatter(logging.Formatter):
    """The access line is already JSON: write the message alone."""

    def format(self, record: logging.LogRecord) -> str:
        return record.getMessage()
