"""What the LLM path costs and what validation does with faulty replies, measured with the stand-in.

    python -m benchmarks.llm_composer [--runs 5] [--json OUT.json]

Needs the demo knowledge bases (`sightline ingest --demo`; SIGHTLINE_DATA_DIR moves them). The
default profile answers through tests/llm_standin.py, a real HTTP server on loopback that
replays scripted replies, so nothing here says how good a model's answers are. It measures:

1. Faults x caught / repaired / flagged: each fault is scripted twice. Once the model makes it
   and corrects it when validation's feedback comes back ("repaired": the final status is
   answered and the fault is gone); once the model repeats it on every attempt ("flagged":
   the final status is partial or insufficient, never answered). "caught": the first
   attempt's verdict holds the expected issue kind. Transport faults fall back instead.
2. Fallback latency: the median request time (over --runs) per failure, beside the extractive
   path's, with the LLM timeout at 0.5 s.
3. The LLM path's own overhead: the stand-in answering at once, the request time minus the
   LLM call's time, against the extractive path on the same questions.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import socket
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from core.errors import SightlineError
from orchestration.compose.llm import LLMSettings
from server.bootstrap import build_loop
from server.callers import Caller
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest
from tests.llm_standin import Reply, StandIn

NOW = dt.date(2025, 7, 1)
OPERATOR = Caller("operator", "operator", unrestricted=True)  # sees every document
TIMEOUT = 0.5
E5102 = "What triggers error code E5102?"
FUEL = "Compare the fuel burn of the A320 and the B737 in 2023"
MARS = "What is the boiling point of mercury on Mars?"
GOOD = "E5102 is triggered when the APU does not reach 95% speed within 60 seconds {cite:95% speed within 60}."
EGT = "E5102 is also triggered when the exhaust gas temperature exceeds 1,038 °C {cite:exceeds 1,038}."
FUEL_ANSWER = ("In 2023 the A320neo burns 2,290 kg of fuel per block hour {cite:A320neo burns 2,290}, {word} the "
               "737 MAX 8 at 2,360 kg per block hour {cite:MAX 8 burns 2,360}.")


@dataclass(frozen=True)
class Fault:
    """A scripted fault: the faulty reply, the corrected one, the issue kinds that catch it."""

    name: str
    query: str
    faulty: str
    fixed: str | None
    kinds: tuple[str, ...]
    router: str = "default"


FAULTS = (
    Fault("drifts a number (95% -> 85%)", E5102, f"{GOOD.replace('reach 95%', 'reach 85%')} {EGT}", f"{GOOD} {EGT}",
          ("unsupported_number",)),
    Fault("cites the wrong [n]", E5102, f"{GOOD.replace('{cite:95% speed within 60}', '{cite:Ten consecutive}')} {EGT}",
          f"{GOOD} {EGT}", ("unsupported_number", "unsupported_term")),
    Fault("cites an index that does not exist", E5102, f"{GOOD.replace('{cite:95% speed within 60}', '[42]')} {EGT}",
          f"{GOOD} {EGT}", ("invalid_citation",)),
    Fault("adds a claim no chunk supports", E5102,
          f"{GOOD} The cabin crew clears E5102 from the overhead panel after landing {{cite:95% speed within 60}}.",
          GOOD, ("unsupported_term",)),
    Fault("states a draft rule as current", "Who handles an invoice that does not match the contract?",
          "Invoices that do not match the contract are handled by the Vendor Settlement Office "
          "{cite:Vendor Settlement Office, not the Procurement}.",
          "The Accounts Payable clerk routes the invoice to the Procurement department's Contract Management team "
          "{cite:routes the invoice to the Procurement}.", ("stale_status",), router="drafts"),
    Fault("gets a comparison's direction wrong", FUEL, FUEL_ANSWER.replace("{word}", "more than"),
          FUEL_ANSWER.replace("{word}", "less than"), ("wrong_direction",)),
    Fault("answers what the evidence cannot", MARS, "Mercury boils at 356.7 °C on Mars {cite:the}.", None,
          ("unanswered", "no_evidence", "unsupported_number", "unsupported_term")),
)
TRANSPORT = (
    ("times out", Reply(delay=2 * TIMEOUT), "timeout"),
    ("streams slowly", Reply(trickle=0.1), "timeout"),
    ("returns 500", Reply(status=500), "http_5xx"),
    ("returns malformed JSON", Reply(body=b'{"choices": [{"message": '), "malformed"),
    ("returns an uncited reply", Reply("E5102 is an APU start failure on the 737."), "uncited"),
    ("is down (connection refused)", None, "connection"),
)


def _loop(base: AnswerLoop, url: str, router: str = "default") -> AnswerLoop:
    from orchestration.router.config import load_router_config
    from orchestration.router.planner import Router
    from server.bootstrap import profile_composers

    llm = LLMSettings(base_url=url, model="standin-1", timeout=TIMEOUT, budget_seconds=4 * TIMEOUT)
    config, planner = base.router_config, base.router
    if router == "drafts":  # an operator's router that lets drafts in (the shipped one filters them out)
        import tempfile
        from pathlib import Path

        from orchestration import paths

        text = (paths.config_dir() / "router.yaml").read_text()
        path = Path(tempfile.mkdtemp()) / "router.yaml"
        path.write_text(text.replace("exclude_status: [draft, superseded, expired]", "exclude_status: [expired]"))
        config = load_router_config(path, known_kbs=list(base.retriever.knowledge_bases))
        planner = Router(config)
    return AnswerLoop(base.kb_config, config, base.retriever, base.executor, base.perception, planner, base.composer,
                      base.validator, composers=profile_composers(base.composer, llm))


def _ask(loop: AnswerLoop, standin: StandIn, query: str, replies: list[Reply], profile: str = "sightline"
         ) -> tuple[dict[str, Any], float]:
    standin.script(*replies)
    started = time.perf_counter()
    context = RequestContext.create(NOW, caller=OPERATOR, profile=profile)
    body = loop.answer(AskRequest(query=query, context=context)).to_body("full")
    return body, (time.perf_counter() - started) * 1000


def fault_table(loops: dict[str, AnswerLoop], standin: StandIn) -> list[dict[str, Any]]:
    """Each fault: caught (first verdict), repaired (faulty then fixed), flagged (faulty every time)."""
    rows = []
    for fault in FAULTS:
        loop = loops[fault.router]
        kept, _ = _ask(loop, standin, fault.query, [Reply(fault.faulty)] * 3)
        first = [i["kind"] for i in kept["attempts"][0]["verdict"]["issues"]]
        caught = [k for k in first if k in fault.kinds]
        repaired = None
        if fault.fixed is not None:
            fixed, _ = _ask(loop, standin, fault.query, [Reply(fault.faulty), Reply(fault.fixed)])
            repaired = {"status": fixed["status"], "attempts": len(fixed["attempts"]),
                        "used": fixed["composer"]["used"]}
        marked = "[unverified:" in kept["answer"]
        rows.append({"fault": fault.name, "caught": caught, "repaired": repaired,
                     "flagged": {"status": kept["status"], "attempts": len(kept["attempts"]), "marked": marked,
                                 "used": kept["composer"]["used"], "fallback": kept["composer"]["fallback"]}})
    return rows


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def fallback_latency(base: AnswerLoop, loop: AnswerLoop, standin: StandIn, runs: int) -> list[dict[str, Any]]:
    """Median request ms per transport fault, and the extractive path's, on the E5102 question."""
    rows = [{"case": "extractive profile (no LLM)", "fallback": None,
             "median_ms": _median([_ask(loop, standin, E5102, [], "sightline-extractive")[1] for _ in range(runs)])}]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        down = _loop(base, f"http://127.0.0.1:{sock.getsockname()[1]}/v1")
    for name, reply, reason in TRANSPORT:
        target = down if reply is None else loop
        times, seen = [], set()
        for _ in range(runs):
            body, ms = _ask(target, standin, E5102, [] if reply is None else [reply])
            times.append(ms)
            seen.add((body["status"], body["composer"]["fallback"]))
        rows.append({"case": name, "fallback": reason, "seen": sorted(seen), "median_ms": _median(times)})
    return rows


def overhead(loop: AnswerLoop, standin: StandIn, runs: int) -> list[dict[str, Any]]:
    """The LLM path with an instant stand-in vs the extractive path: request ms, LLM call ms, the difference."""
    cases = ((E5102, f"{GOOD} {EGT}"), (FUEL, FUEL_ANSWER.replace("{word}", "less than")))
    rows = []
    for query, reply in cases:
        extractive = [_ask(loop, standin, query, [], "sightline-extractive")[1] for _ in range(runs)]
        totals, calls, statuses = [], [], set()
        for _ in range(runs):
            body, ms = _ask(loop, standin, query, [Reply(reply)])
            totals.append(ms)
            calls.append(body["composer"]["llm_ms"])
            statuses.add((body["status"], body["composer"]["used"]))
        without_model = [t - c for t, c in zip(totals, calls, strict=True)]
        compose_llm = [op for op in body["operations"] if op["op"] == "compose"][0]["ms"] - calls[-1]
        rows.append({"query": query, "statuses": sorted(statuses), "extractive_ms": _median(extractive),
                     "llm_path_ms": _median(totals), "llm_call_ms": _median(calls),
                     "llm_path_without_call_ms": _median(without_model),
                     "overhead_ms": round(_median(without_model) - _median(extractive), 1),
                     "llm_compose_without_call_ms": round(compose_llm, 1)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args(argv)
    try:
        base = build_loop()
        base.warm_up()
    except SightlineError as exc:
        print(f"{exc.message}\nbuild the demo knowledge bases first: sightline ingest --demo", file=sys.stderr)
        return 2
    standin = StandIn().start()
    try:
        loops = {"default": _loop(base, standin.url), "drafts": _loop(base, standin.url, "drafts")}
        results = {"faults": fault_table(loops, standin),
                   "fallback_latency": fallback_latency(base, loops["default"], standin, args.runs),
                   "overhead": overhead(loops["default"], standin, args.runs), "runs": args.runs,
                   "llm_timeout_seconds": TIMEOUT}
    finally:
        standin.stop()
    print(render(results))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=2, ensure_ascii=False)
    return 0


def render(results: dict[str, Any]) -> str:
    """The three tables as Markdown."""
    lines = ["| fault | caught (first verdict) | repaired (fixed on retry) | flagged (model repeats it) |",
             "|---|---|---|---|"]
    for row in results["faults"]:
        fix = row["repaired"]
        repaired = "n/a" if fix is None else f"{fix['status']} ({fix['attempts']} attempts, by {fix['used']})"
        flagged = row["flagged"]
        mark = ", claim marked" if flagged["marked"] else ""
        by = flagged["used"] + (f" after fallback: {flagged['fallback']}" if flagged["fallback"] else "")
        lines.append(f"| {row['fault']} | {', '.join(row['caught']) or 'NOT CAUGHT'} | {repaired} | "
                     f"{flagged['status']} ({flagged['attempts']} attempts{mark}, by {by}) |")
    lines += ["", f"| the LLM ... | fallback | what the user gets | median request ms ({results['runs']} runs) |",
              "|---|---|---|---|"]
    for row in results["fallback_latency"]:
        seen = "; ".join(f"{status}" for status, _ in row.get("seen", [])) or "answered"
        lines.append(f"| {row['case']} | {row['fallback'] or '-'} | {seen} | {row['median_ms']} |")
    lines += ["", "| question | extractive ms | LLM path ms | LLM call ms | LLM path without the call ms | "
              "difference ms | LLM compose step without the call ms |", "|---|---|---|---|---|---|---|"]
    for row in results["overhead"]:
        lines.append(f"| {row['query']} | {row['extractive_ms']} | {row['llm_path_ms']} | {row['llm_call_ms']} | "
                     f"{row['llm_path_without_call_ms']} | {row['overhead_ms']} | "
                     f"{row['llm_compose_without_call_ms']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
