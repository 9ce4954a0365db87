"""Each request's trace as OpenTelemetry spans, sent over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set.

Off (the variable unset, or OTEL_SDK_DISABLED=true), `export()` returns after reading the
environment and the SDK is never imported. On, every answered request becomes one trace: a root
span `sightline.<endpoint>` (sightline.rag, sightline.chat, ...), a span per stage entry and a
span per operation, with real start times (server/otel/spans.py) and the attributes
server/otel/attributes.py allows (counts, rules, weights, statuses, issue kinds; never a
document's words or ids). Its trace id is the caller's from a W3C `traceparent` header (the
root span then hangs under the caller's span), else the request's own trace id
(server/traceparent.py). A request the loop refuses (unknown or unreadable knowledge base) is a
root span with status ERROR and the error's code.

One tracer provider and one exporter thread per process, made after the fork (`start()` in the
worker's start-up, or on the first export). The request only queues its finished result (a few
microseconds: docs/BENCHMARKS.md); the exporter thread makes the spans and a batching processor
sends them; `shutdown()` on worker exit sends what is queued.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.errors import ConfigError

from ..traceparent import otel_trace_id
from .spans import SpanRecord, failure_spans, request_spans

if TYPE_CHECKING:
    from ..context import RequestContext
    from ..loop import AnswerResult
    from .sdk import Exporter

log = logging.getLogger("sightline.otel")
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
PROTOCOL_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
PROTOCOL = "http/protobuf"

_lock = threading.Lock()
_enabled: bool | None = None  # read from the environment once (`configure()` reads it again)
_exporter: Exporter | None = None
_pid: int | None = None


def enabled() -> bool:
    """Whether spans are exported: an OTLP endpoint is set and OTEL_SDK_DISABLED is not true.

    Promises: the environment is read once per configuration; later calls cost a global read."""
    global _enabled
    if _enabled is None:
        environ = os.environ
        _enabled = (any(environ.get(name) for name in ENDPOINT_VARIABLES)
                    and environ.get("OTEL_SDK_DISABLED", "").strip().lower() != "true")
    return _enabled


def configure() -> None:
    """Read the environment again (a service starting), and refuse an OTLP protocol other than
    OTLP/HTTP protobuf, the one exporter installed.

    Raises:
        ConfigError: names the variable, its value and the fix.
    """
    global _enabled
    _enabled = None
    if not enabled():
        return
    for name in PROTOCOL_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value and value != PROTOCOL:
            raise ConfigError(f"environment variable {name}: {value!r} is not supported; Sightline exports "
                              f"OTLP over HTTP ({PROTOCOL}): unset it and point OTEL_EXPORTER_OTLP_ENDPOINT at "
                              "the collector's OTLP/HTTP port (4318 by default)", field=name)


def start() -> None:
    """Make this process's tracer provider and exporter thread now (a worker, after the fork), so no
    request pays for loading the SDK; nothing when export is off or they exist."""
    if enabled():
        _current()


def export(result: AnswerResult) -> None:
    """Queue an answered request's trace for export (nothing when export is off); never raises."""
    if not enabled():
        return
    ended = time.perf_counter()
    _submit(result.context, lambda: request_spans(result, ended))


def export_failure(context: RequestContext, error: BaseException) -> None:
    """Queue the one span of a request that ended in `error` (nothing when export is off); never raises."""
    if not enabled():
        return
    ended = time.perf_counter()
    code, status = getattr(error, "code", "internal_error"), getattr(error, "http_status", 500)
    _submit(context, lambda: failure_spans(context, str(code), int(status), ended))


def flush(timeout_millis: int = 10000) -> bool:
    """Emit and send every trace queued so far in this process; True when there was nothing to send."""
    exporter = _exporter if _pid == os.getpid() else None
    return exporter.flush(timeout_millis) if exporter is not None else True


def shutdown() -> None:
    """Send what is queued and stop this process's exporter (a worker's exit, a command's end); the
    environment is read again by the next export."""
    global _enabled, _exporter, _pid
    with _lock:
        exporter, mine = _exporter, _pid == os.getpid()
        _enabled, _exporter, _pid = None, None, None
    if exporter is not None and mine:
        exporter.shutdown()


def _current() -> Exporter:
    """This process's exporter, made on first use (a forked child never uses its parent's)."""
    global _exporter, _pid
    with _lock:
        if _exporter is None or _pid != os.getpid():
            from importlib.metadata import version

            from .sdk import Exporter

            _exporter, _pid = Exporter(version("sightline")), os.getpid()
            log.info("OpenTelemetry export on", extra={"event": "otel", "protocol": PROTOCOL})
        return _exporter


def _submit(context: RequestContext, records: Callable[[], list[SpanRecord]]) -> None:
    """Hand a request's span records (built in the exporter thread) to this process's exporter;
    a failure is logged, never raised."""
    try:
        _current().submit(records, otel_trace_id(context.trace_id), context.parent)
    except Exception:  # noqa: BLE001 - tracing must never fail the request it describes
        log.exception("OpenTelemetry export failed", extra={"event": "otel"})
