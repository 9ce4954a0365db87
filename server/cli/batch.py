"""`sightline batch IN.jsonl --out OUT.jsonl`: a file of questions answered into a file of answers.

Each answer is the one POST /rag gives the same question, caller and date: the loop is built
as the service builds it (server/asking.py) and run once per question. Each output line holds
`id`, `query`, `trace_id`, `status`, `answer`, `citations` and `timing` (ms per stage and total);
a question the service would refuse with an error (a knowledge base whose index cannot be read
now) gets `status: "error"` and the `error` object instead. A progress bar with an ETA runs on
stderr; the summary of statuses goes to stdout (`--json`: one JSON object).

Run it again with the same --out after an interruption (Ctrl-C, `kill -9`, a reboot) and it
answers only the questions not yet in the file (batch_files.py: whole lines, synced).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import SightlineError

from .options import acl_groups, iso_date

if TYPE_CHECKING:  # the command imports them when it runs: `sightline --help` loads no agent
    from .batch_files import Answers, Question

STATUSES = ("answered", "partial", "insufficient", "error")
SHOWN_PROBLEMS = 20  # bad input lines listed before "... and N more"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `batch` subcommand and its options."""
    batch = sub.add_parser("batch", help="answer a JSONL file of questions into a JSONL file of answers (resumable)")
    batch.add_argument("input", type=Path, metavar="IN.jsonl",
                       help='one question a line: {"query": "..."}, optionally "id" (default: the line number) and '
                            'the POST /rag fields kb, now, filters, top_k, max_retries')
    batch.add_argument("--out", type=Path, required=True, metavar="OUT.jsonl",
                       help="the answers, one JSON line per question; an existing file is resumed: questions whose "
                            "id it holds are not asked again")
    batch.add_argument("--kb", action="append", help="search only this knowledge base (repeatable), for lines that "
                                                     "name none")
    batch.add_argument("--now", type=iso_date, help="resolve relative times and ages against this date, for lines "
                                                    "that give none")
    batch.add_argument("--groups", type=acl_groups, default=(), metavar="G1,G2",
                       help="answer as a caller in these ACL groups (default: none, public documents only)")
    batch.add_argument("--all-groups", action="store_true", dest="all_groups",
                       help="see every document, ACL ignored (operator use)")
    batch.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    batch.add_argument("--quiet", action="store_true", help="no progress bar")
    batch.set_defaults(func=cmd_batch)


def cmd_batch(args: argparse.Namespace) -> int:
    """Answer every question of IN not yet in OUT, then print the summary of OUT's statuses."""
    from ..settings import load_settings
    from .batch_files import Answers

    if args.out.resolve() == args.input.resolve():
        raise SightlineError("--out is the input file; give the answers a file of their own", field="out")
    settings = load_settings()
    questions = _questions(args, settings)
    with Answers(args.out) as answers:
        wanted = {q.key for q in questions}
        stray = next((key for key in answers.records if key not in wanted), None)
        if stray is not None:
            raise SightlineError(f"--out: {args.out} holds an answer to id {stray}, which {args.input} does not ask: "
                                 "it is another batch's output; give another --out", field="out")
        if answers.dropped:
            print(f"sightline batch: dropped a partial last line of {answers.dropped} bytes from {args.out} (the "
                  "write an interruption cut short); its question is asked again", file=sys.stderr)
        todo = [q for q in questions if q.key not in answers.records]
        run: dict[str, Any] = {"answered": 0, "seconds": 0.0, "load_seconds": 0.0, "ms": []}
        if todo:
            run = _answer(args, todo, len(questions), answers, settings.limits)
        summary = _summary(args, questions, answers, run)
    if run.get("interrupted"):
        print(f"sightline batch: interrupted after {run['answered']} answers; {len(todo) - run['answered']} "
              "questions left: run the same command to resume", file=sys.stderr)
        return 130
    print(json.dumps(summary, ensure_ascii=False) if args.json else _summary_text(summary))
    return 0


def _questions(args: argparse.Namespace, settings: Any) -> list[Question]:
    """The questions of IN with the command's --kb and --now as defaults; every bad line reported, then refused."""
    from orchestration.kb.config import load_kb_config

    from ..bootstrap import select_knowledge_bases
    from .batch_files import read_questions

    served = select_knowledge_bases(load_kb_config(), settings.knowledge_bases).knowledge_bases
    defaults: dict[str, Any] = {}
    if args.kb:
        defaults["kb"] = list(args.kb)
    if args.now:
        defaults["now"] = args.now.isoformat()
    questions, problems = read_questions(args.input, defaults, settings.limits, list(served))
    for problem in problems[:SHOWN_PROBLEMS]:
        print(problem, file=sys.stderr)
    if len(problems) > SHOWN_PROBLEMS:
        print(f"... and {len(problems) - SHOWN_PROBLEMS} more", file=sys.stderr)
    if problems:
        raise SightlineError(f"{len(problems)} line(s) of {args.input} are not questions (listed above); fix them and "
                             "run again: nothing was answered", field="input")
    if not questions:
        raise SightlineError(f"{args.input} holds no question; write one JSON object a line, such as "
                             '{"query": "..."}', field="input")
    return questions


def _answer(args: argparse.Namespace, todo: list[Question], total: int, answers: Answers, limits: Any
            ) -> dict[str, Any]:
    """Ask every question of `todo` in order, each answer appended to `answers` before the next question.

    Returns: {"answered", "seconds" (answering only), "load_seconds", "ms" (per question), "interrupted"?}.
    """
    from tqdm import tqdm

    from ..asking import operator_caller, service_loop

    started = time.perf_counter()
    loop = service_loop()
    load_seconds = time.perf_counter() - started
    caller = operator_caller(args.groups, args.all_groups)
    counts: Counter[str] = Counter(answers.records.values())
    run: dict[str, Any] = {"answered": 0, "load_seconds": round(load_seconds, 2), "ms": []}
    began = time.perf_counter()
    with tqdm(total=total, initial=total - len(todo), unit="q", desc="batch", file=sys.stderr, disable=args.quiet,
              dynamic_ncols=True) as bar:
        try:
            for question in todo:
                record = _record(loop, question, caller, limits)
                answers.append(record)
                counts[record["status"]] += 1
                run["answered"] += 1
                run["ms"].append(record["timing"]["total"])
                bar.set_postfix({s: counts[s] for s in STATUSES if counts[s]}, refresh=False)
                bar.update(1)
        except KeyboardInterrupt:
            run["interrupted"] = True
    run["seconds"] = round(time.perf_counter() - began, 2)
    return run


def _record(loop: Any, question: Question, caller: Any, limits: Any) -> dict[str, Any]:
    """The answer record of one question: POST /rag's reply fields and timing, or the error it would get."""
    from ..asking import reply_fields
    from ..context import RequestContext
    from ..http.schemas import parse_ask_request

    started = time.perf_counter()
    ask = parse_ask_request(question.body, limits, RequestContext.create(caller=caller, endpoint="batch"))
    try:
        result = loop.answer(ask)
    except SightlineError as exc:
        return {"id": question.id, "query": ask.query, "trace_id": ask.context.trace_id, "status": "error",
                "answer": "", "citations": [], "error": exc.to_dict(),
                "timing": {"total": round((time.perf_counter() - started) * 1000, 3)}}
    return {"id": question.id, "query": ask.query, **reply_fields(result.to_body("none")),
            "timing": dict(result.timing)}


def _summary(args: argparse.Namespace, questions: list[Question], answers: Answers, run: dict[str, Any]
             ) -> dict[str, Any]:
    """The summary of OUT (every answer in it, this run's and earlier runs') and of this run."""
    counts = Counter(answers.records.values())
    ms = sorted(run["ms"])
    per_question = {"median": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1)} \
        if ms else None
    return {"input": str(args.input), "out": str(args.out), "questions": len(questions),
            "answers": len(answers.records), "statuses": {status: counts[status] for status in STATUSES},
            "this_run": {"answered": run["answered"], "already_in_out": len(answers.records) - run["answered"],
                         "seconds": run["seconds"], "load_seconds": run["load_seconds"],
                         "ms_per_question": per_question},
            "dropped_partial_line_bytes": answers.dropped}


def _summary_text(summary: dict[str, Any]) -> str:
    """The summary as two lines for a person."""
    statuses = ", ".join(f"{status} {count}" for status, count in summary["statuses"].items())
    run = summary["this_run"]
    lines = [f"{summary['answers']} of {summary['questions']} questions answered in {summary['out']}: {statuses}"]
    if run["answered"]:
        per = run["ms_per_question"]
        lines.append(f"this run: {run['answered']} answered in {run['seconds']} s (loading {run['load_seconds']} s; "
                     f"per question median {per['median']} ms, p95 {per['p95']} ms); {run['already_in_out']} were "
                     "already in the file")
    else:
        lines.append("this run: nothing left to answer")
    return "\n".join(lines)
