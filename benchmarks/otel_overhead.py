"""What OpenTelemetry export costs a request, off and on, side by side on the in-process loop.

    python -m benchmarks.otel_overhead [--passes 6] [--repeat 4] [--json OUT.json]

Needs the demo knowledge bases (`sightline ingest --demo`; SIGHTLINE_DATA_DIR moves them).
Each request runs as POST /rag runs it: `AnswerLoop.answer`, then `otel.export(result)` (what
`Service.answer` calls after the loop). Passes alternate between export off
(OTEL_EXPORTER_OTLP_ENDPOINT unset) and on (set, to an OTLP/HTTP sink in another process that
answers 200 and counts what it receives), after one untimed warm-up pass of each; every pass
asks the same questions, `--repeat` times over, back to back, so the exporter thread runs while
requests do (as in a busy worker) and takes its share of the GIL from them. Per mode it prints
the median and p95 of:

- `export ms`: the export call on the request path: off, reading two environment variables;
  on, building the span records and starting and ending the SDK spans (the batching processor
  encodes and sends them in its own thread, off the request path);
- `loop ms`: the loop before it, to read the export against, and to see what the exporter
  thread's work, running beside the requests, costs them;
- `cpu ms`: the process CPU time per request over the whole pass, the batching thread's
  encoding and sending included (the sink runs in another process, so its decoding is not).

Then the exporter's steps one by one, thread CPU per trace: the span records, the SDK spans,
the OTLP protobuf encoding.

The machine may be shared: read the modes side by side, interleaved as they run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

QUESTIONS = (
    "Compare the fuel burn of the A320 and the B737 in 2023",
    "What triggers error code E4027?",
    "Who handles an invoice that does not match the contract and what is the process?",
    "发票金额与合同不一致，应该找哪个部门处理，流程是什么？",
    "2025 年第二季度已关闭的测试报告有哪些？",
    "Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?",
    "What is the boiling point of mercury on Mars?",
    "What is the restart procedure after fault E5102?",
)
NOW = dt.date(2025, 7, 10)
# An OTLP/HTTP sink: answers every POST with an empty ExportTraceServiceResponse, counts requests and bytes
SINK = r"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
seen = {"requests": 0, "bytes": 0}
class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        seen["bytes"] += len(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        seen["requests"] += 1
        self.send_response(200); self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0"); self.end_headers()
    def do_GET(self):
        body = ("%(requests)d %(bytes)d" % seen).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""
ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank q-quantile (as benchmarks.loop_latency.percentile)."""
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def _sink_counts(url: str) -> tuple[int, int]:
    """(export requests, bytes) the sink has received."""
    from urllib.request import urlopen

    with urlopen(url, timeout=5) as response:  # noqa: S310 - a loopback URL of this benchmark
        requests, size = response.read().decode().split()
    return int(requests), int(size)


def _pass(loop: Any, on: bool, endpoint: str, repeat: int) -> dict[str, list[float]]:
    """One pass, QUESTIONS `repeat` times, export on or off: per request export ms and loop ms, CPU ms per request."""
    from server import otel
    from server.context import RequestContext
    from server.loop import AskRequest

    if on:
        os.environ[ENDPOINT] = endpoint
    else:
        os.environ.pop(ENDPOINT, None)
    otel.configure()  # as a service reads the environment at start
    figures: dict[str, list[float]] = {"export_ms": [], "loop_ms": []}
    cpu = time.process_time()
    for question in QUESTIONS * repeat:
        ask = AskRequest(query=question, context=RequestContext.create(NOW, trace_level="summary"))
        started = time.perf_counter()
        result = loop.answer(ask)
        answered = time.perf_counter()
        otel.export(result)
        figures["loop_ms"].append((answered - started) * 1000)
        figures["export_ms"].append((time.perf_counter() - answered) * 1000)
    if on:
        otel.flush()  # the batches of this pass are sent (and their CPU counted) before the next begins
    figures["cpu_ms"] = [(time.process_time() - cpu) * 1000 / (len(QUESTIONS) * repeat)]
    return figures


def run(passes: int, repeat: int) -> dict[str, Any]:
    """Warm up both modes, then `passes` timed passes alternating off and on; the figures per mode."""
    from server import otel
    from server.bootstrap import build_loop

    sink = subprocess.Popen([sys.executable, "-c", SINK], stdout=subprocess.PIPE, text=True)
    try:
        assert sink.stdout is not None
        port = int(sink.stdout.readline())
        endpoint = f"http://127.0.0.1:{port}"
        os.environ.setdefault("OTEL_BSP_SCHEDULE_DELAY", "5000")  # the SDK's default; spans leave in batches
        loop = build_loop()
        loop.warm_up()
        for on in (False, True):
            _pass(loop, on, endpoint, 1)
        timed: dict[str, dict[str, list[float]]] = {"off": {}, "on": {}}
        for number in range(passes):
            for mode in (("off", "on") if number % 2 == 0 else ("on", "off")):
                for key, values in _pass(loop, mode == "on", endpoint, repeat).items():
                    timed[mode].setdefault(key, []).extend(values)
        requests, size = _sink_counts(endpoint)
        spans = len(loop.answer(_question()).operations)
        steps = breakdown(loop)
    finally:
        otel.shutdown()
        sink.terminate()
    figures = {mode: {key: {"median": round(statistics.median(v), 4), "p95": round(percentile(v, 0.95), 4)}
                      for key, v in values.items()} for mode, values in timed.items()}
    return {"passes": passes, "questions": len(QUESTIONS), "requests_per_mode": passes * repeat * len(QUESTIONS),
            "sink": {"export_requests": requests, "bytes": size}, "operations_of_first_question": spans,
            "exporter_cpu_per_trace": steps,
            "load": " ".join(f"{x:.2f}" for x in os.getloadavg()), "modes": figures}


def breakdown(loop: Any, rounds: int = 50) -> dict[str, float]:
    """Thread CPU ms per trace of each step the exporter's threads take, over `rounds` traces of the
    first two questions: the span records, the SDK spans (into memory), the OTLP protobuf encoding."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from server.context import RequestContext
    from server.loop import AskRequest
    from server.otel.sdk import Exporter
    from server.otel.spans import request_spans
    from server.traceparent import otel_trace_id

    results = [loop.answer(AskRequest(query=q, context=RequestContext.create(NOW))) for q in QUESTIONS[:2]]
    memory = InMemorySpanExporter()
    exporter = Exporter("benchmark", memory)
    spent = {"records_ms": 0.0, "sdk_spans_ms": 0.0}
    for n in range(rounds):
        result = results[n % 2]
        started = time.thread_time()
        records = request_spans(result, time.perf_counter())
        made = time.thread_time()
        exporter.emit(records, otel_trace_id(result.context.trace_id), None)
        spent["records_ms"] += (made - started) * 1000
        spent["sdk_spans_ms"] += (time.thread_time() - made) * 1000
    exporter.flush()
    spans = memory.get_finished_spans()
    started = time.thread_time()
    encoded = encode_spans(spans).SerializePartialToString()
    spent["encode_ms"] = (time.thread_time() - started) * 1000
    exporter.shutdown()
    out = {key: round(ms / rounds, 3) for key, ms in spent.items()}
    out.update(spans_per_trace=len(spans) / rounds, bytes_per_trace=round(len(encoded) / rounds))
    return out


def _question() -> Any:
    from server.context import RequestContext
    from server.loop import AskRequest

    return AskRequest(query=QUESTIONS[0], context=RequestContext.create(NOW))


def table(figures: dict[str, Any]) -> str:
    """The figures as a Markdown table, a row per mode."""
    lines = ["| export | export ms median / p95 | loop ms median / p95 | CPU ms per request (median pass) |",
             "|---|---:|---:|---:|"]
    for mode, f in figures["modes"].items():
        lines.append(f"| {mode} | {f['export_ms']['median']} / {f['export_ms']['p95']} | "
                     f"{f['loop_ms']['median']:.2f} / {f['loop_ms']['p95']:.2f} | {f['cpu_ms']['median']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.otel_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=6, help="timed passes per mode (alternating off and on)")
    parser.add_argument("--repeat", type=int, default=4, help="times each pass asks the questions, back to back")
    parser.add_argument("--json", type=str, help="also write the figures here")
    args = parser.parse_args(argv)
    figures = run(args.passes, args.repeat)
    print(table(figures))
    print(f"\n{figures['requests_per_mode']} requests per mode; the sink received {figures['sink']['export_requests']} "
          f"export requests, {figures['sink']['bytes']} bytes; load {figures['load']}")
    print(f"the exporter's threads, CPU per trace: {figures['exporter_cpu_per_trace']}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
