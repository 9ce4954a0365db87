"""The W3C Trace Context `traceparent` header, and the OpenTelemetry trace id of a request.

A caller that is itself traced sends `traceparent: 00-<trace id>-<parent span id>-<flags>`
(https://www.w3.org/TR/trace-context/); Sightline's spans then join the caller's trace under
that span. Without one (or with one the standard says to ignore), the request's own trace id
(its X-Request-ID) becomes the OpenTelemetry trace id, so a trace found in Jaeger or Tempo
carries the id the response, the logs and /ui show. Nothing here imports OpenTelemetry.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

HEADER = "traceparent"
# version - trace id - parent span id - flags; a later version may append fields after a "-"
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?")
_HEX_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}")
SAMPLED = 0x01


@dataclass(frozen=True)
class TraceParent:
    """A caller's span, as its `traceparent` header names it.

    Attributes:
        trace_id: the caller's trace id, 32 lower-case hex digits (never all zeros).
        span_id: the caller's span, 16 lower-case hex digits (never all zeros): our root span's parent.
        flags: the trace flags byte (bit 0: the caller sampled this trace).
    """

    trace_id: str
    span_id: str
    flags: int

    @property
    def sampled(self) -> bool:
        return bool(self.flags & SAMPLED)

    @classmethod
    def parse(cls, header: str | None) -> TraceParent | None:
        """The header's parent, or None when there is none or the standard says to ignore it.

        Promises: None for an absent or malformed header, version ff, an all-zero trace or span
        id, or a version 00 header with anything after the flags; a later version's extra
        fields are ignored (the standard's forward compatibility).
        """
        if not header:
            return None
        match = _TRACEPARENT.fullmatch(header.strip())
        if match is None:
            return None
        version, trace_id, span_id, flags, rest = match.groups()
        if version == "ff" or (version == "00" and rest) or set(trace_id) == {"0"} or set(span_id) == {"0"}:
            return None
        return cls(trace_id, span_id, int(flags, 16))


def otel_trace_id(request_trace_id: str) -> int:
    """The 128-bit OpenTelemetry trace id of a request's trace id.

    Promises: a trace id of 32 hex digits (Sightline's own: `context.new_trace_id()`) is that number, so
    Jaeger and Tempo find the trace by the id the response carries; any other caller-chosen
    X-Request-ID maps to the first 128 bits of its SHA-256, the same id every time; never 0.
    """
    if _HEX_TRACE_ID.fullmatch(request_trace_id) and set(request_trace_id) != {"0"}:
        return int(request_trace_id, 16)
    digest = int.from_bytes(hashlib.sha256(request_trace_id.encode("utf-8")).digest()[:16], "big")
    return digest or 1
