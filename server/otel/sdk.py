"""The OpenTelemetry SDK behind server/otel: one tracer provider per process, spans out in batches.

Imported only when export is on (server/otel/__init__.py imports it lazily), so a service
without OTEL_EXPORTER_OTLP_ENDPOINT never loads the SDK. The request thread only queues the
finished request (`submit`, a few microseconds); this process's exporter thread turns it into
span records (server/otel/spans.py) and SDK spans, and the SDK's `BatchSpanProcessor`
(OTEL_BSP_*) encodes and sends them as OTLP/HTTP protobuf (`OTLPSpanExporter`, configured by the
standard OTEL_EXPORTER_OTLP_* variables: endpoint, headers, timeout, compression, certificates).
Making the spans on the request thread cost 1.3 ms a request (median, 45 spans), more than the
target of 1 ms (docs/BENCHMARKS.md). The provider is not made global: other OpenTelemetry users
in the process keep theirs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from ..traceparent import TraceParent
from .spans import SpanRecord

SCOPE = "sightline"
MAX_PENDING = 512  # requests queued for the exporter thread; beyond, a request's trace is dropped (and logged)
POLL_SECONDS = 0.1  # how often the exporter thread looks for queued requests
log = logging.getLogger("sightline.otel")
Job = tuple[Callable[[], Sequence[SpanRecord]], int, TraceParent | None]


class RequestIds(RandomIdGenerator):
    """Random span ids; the trace id of the request being exported, when one is pending in this thread."""

    def __init__(self) -> None:
        self._pending = threading.local()

    def use(self, trace_id: int) -> None:
        """Make `trace_id` the id of the next trace this thread starts."""
        self._pending.trace_id = trace_id

    def generate_trace_id(self) -> int:
        pending = getattr(self._pending, "trace_id", None)
        if pending is None:
            return super().generate_trace_id()
        self._pending.trace_id = None
        return pending

    def is_trace_id_random(self) -> bool:
        return False  # a caller's X-Request-ID may be any token: not promised random (W3C level 2 flag)


class Exporter:
    """This process's tracer provider, batching span processor and exporter thread.

    Args:
        version: the service version, the resource's `service.version`.
        span_exporter: where batches go (tests); default OTLP/HTTP as the environment configures it.
    """

    def __init__(self, version: str, span_exporter: SpanExporter | None = None) -> None:
        # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these
        attributes = {"service.name": "sightline", "service.version": version,
                      **OTELResourceDetector().detect().attributes}
        self.ids = RequestIds()
        self.provider = TracerProvider(resource=Resource.create(attributes), id_generator=self.ids,
                                       shutdown_on_exit=False)
        self.provider.add_span_processor(BatchSpanProcessor(span_exporter or OTLPSpanExporter()))
        self.tracer = self.provider.get_tracer(SCOPE, version)
        # a deque, not a queue.Queue: appending takes no lock the exporter thread could hold while it
        # waits for the GIL (with a Queue, the request thread then waited up to 5 ms at p95)
        self._jobs: deque[Job | threading.Event | None] = deque()
        self._dropped = 0
        self._thread = threading.Thread(target=self._work, name="sightline-otel", daemon=True)
        self._thread.start()

    def submit(self, records: Callable[[], Sequence[SpanRecord]], trace_id: int, parent: TraceParent | None) -> None:
        """Queue one request's trace for the exporter thread: `records()` is called there.

        Promises: never blocks; when MAX_PENDING requests are already waiting, this one's trace
        is dropped and counted in the log (a collector far too slow must not slow the service)."""
        if len(self._jobs) < MAX_PENDING:
            self._jobs.append((records, trace_id, parent))
            return
        self._dropped += 1
        if self._dropped == 1 or self._dropped % 1000 == 0:
            log.warning("OpenTelemetry export queue full: traces dropped", extra={
                "event": "otel", "dropped": self._dropped, "max_pending": MAX_PENDING})

    def _work(self) -> None:
        """The exporter thread: every POLL_SECONDS, emit each queued request's spans; a flush marker
        is set when reached; None stops the thread."""
        while True:
            try:
                job = self._jobs.popleft()
            except IndexError:
                time.sleep(POLL_SECONDS)
                continue
            if job is None:
                return
            if isinstance(job, threading.Event):
                job.set()
                continue
            records, trace_id, parent = job
            try:
                self.emit(records(), trace_id, parent)
            except Exception:  # noqa: BLE001 - one bad trace must not stop the thread
                log.exception("OpenTelemetry export failed", extra={"event": "otel"})
            time.sleep(0)  # hand the GIL to a request waiting for it now, not after the 5 ms switch interval

    def emit(self, records: Sequence[SpanRecord], trace_id: int, parent: TraceParent | None) -> None:
        """Start and end one span per record (each parent before its children) in one trace:
        under the caller's span when `parent` names one, else with `trace_id` as its id."""
        context = None
        if parent is not None:
            remote = SpanContext(int(parent.trace_id, 16), int(parent.span_id, 16), is_remote=True,
                                 trace_flags=TraceFlags(parent.flags))
            context = trace.set_span_in_context(NonRecordingSpan(remote))
        else:
            self.ids.use(trace_id)
        spans: list[trace.Span] = []
        for record in records:
            within = context if record.parent is None else trace.set_span_in_context(spans[record.parent])
            spans.append(self.tracer.start_span(record.name, context=within, attributes=record.attributes,
                                                start_time=record.start_ns,
                                                kind=SpanKind.SERVER if record.served else SpanKind.INTERNAL))
        for span, record in zip(spans, records, strict=True):
            if record.error is not None:
                span.set_status(Status(StatusCode.ERROR, record.error))
            span.end(end_time=record.end_ns)

    def flush(self, timeout_millis: int = 10000) -> bool:
        """Emit every queued request and send every span so far; False when the timeout passed first."""
        reached = threading.Event()
        self._jobs.append(reached)
        return reached.wait(timeout_millis / 1000) and self.provider.force_flush(timeout_millis)

    def shutdown(self, timeout_seconds: float = 10.0) -> None:
        """Emit what is queued, send it and stop both threads."""
        self._jobs.append(None)
        self._thread.join(timeout_seconds)
        if self._thread.is_alive():
            log.warning("OpenTelemetry exporter thread did not drain its queue", extra={"event": "otel"})
        self.provider.shutdown()
