"""An OTLP/HTTP trace receiver for tests: a real HTTP server that decodes what exporters send.

It stands where Jaeger, Tempo or an OpenTelemetry Collector would: `POST /v1/traces` on a free
loopback port, from a thread of the calling process, with a protobuf `ExportTraceServiceRequest`
body (gzip or not), decoded with `opentelemetry-proto`, answered with an empty
`ExportTraceServiceResponse` as the OTLP/HTTP specification says.

    receiver = Receiver().start()          # receiver.endpoint: the OTEL_EXPORTER_OTLP_ENDPOINT value
    spans = receiver.wait_for(lambda spans: len(spans) >= 10)
    receiver.stop()

Each received span is a `ReceivedSpan` with ids as hex, attributes as plain Python values and
its resource's attributes.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

PROTOBUF = "application/x-protobuf"


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as a receiver stores it."""

    trace_id: str
    span_id: str
    parent_span_id: str  # "" for a root without a remote parent
    name: str
    kind: str  # SPAN_KIND_SERVER, SPAN_KIND_INTERNAL, ...
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    status: str  # STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR
    status_message: str
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str = ""


def value_of(value: AnyValue) -> Any:
    """An OTLP AnyValue as a Python value (arrays as lists)."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return [value_of(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: value_of(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, which) if which else None


def decode(body: bytes) -> list[ReceivedSpan]:
    """Every span of an ExportTraceServiceRequest body."""
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: value_of(kv.value) for kv in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(ReceivedSpan(
                    trace_id=span.trace_id.hex(), span_id=span.span_id.hex(), parent_span_id=span.parent_span_id.hex(),
                    name=span.name, kind=Span.SpanKind.Name(span.kind), start_ns=span.start_time_unix_nano,
                    end_ns=span.end_time_unix_nano, attributes={kv.key: value_of(kv.value) for kv in span.attributes},
                    status=Status.StatusCode.Name(span.status.code), status_message=span.status.message,
                    resource=resource, scope=scope_spans.scope.name))
    return spans


class Receiver:
    """A thread serving POST /v1/traces on 127.0.0.1 and a free port; `spans` holds what arrived."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "start() the receiver first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path != "/v1/traces" or self.headers.get("Content-Type") != PROTOBUF:
                    self.send_response(404)
                    self.end_headers()
                    return
                received = decode(body)
                with receiver._lock:
                    receiver.spans.extend(received)
                    receiver.requests += 1
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", PROTOBUF)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def clear(self) -> None:
        with self._lock:
            self.spans.clear()

    def wait_for(self, done: Callable[[list[ReceivedSpan]], bool], timeout: float = 15.0) -> list[ReceivedSpan]:
        """The spans received so far once `done(spans)` holds; AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                spans = list(self.spans)
            if done(spans):
                return spans
            if time.monotonic() > deadline:
                raise AssertionError(f"the receiver did not get what was awaited in {timeout} s: "
                                     f"{len(spans)} spans from {self.requests} requests")
            time.sleep(0.05)

    def trace(self, trace_id: str, timeout: float = 15.0) -> list[ReceivedSpan]:
        """The spans of one trace, once its root (the span without a local parent) has arrived."""
        def has_root(spans: list[ReceivedSpan]) -> bool:
            ours = [s for s in spans if s.trace_id == trace_id]
            ids = {s.span_id for s in ours}
            return any(s.parent_span_id not in ids for s in ours)
        return [s for s in self.wait_for(has_root, timeout) if s.trace_id == trace_id]
