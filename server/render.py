"""Rendering an answer response as text for a terminal (`sightline ask` without --json)."""

from __future__ import annotations

from typing import Any

from .citation_place import headings, web_address


def _citation_line(c: dict[str, Any]) -> str:
    """One source: [n] title > headings (source, date, status, p. N) URL kb:chunk_id; the
    parentheses only when there is something to put in them, the URL only when the document has one."""
    date = (c.get("published_at") or c.get("updated_at") or "")[:10]
    page = f"p. {c['page']}" if c.get("page") else ""
    details = [p for p in (c.get("source"), date, c.get("status"), page) if p]
    line = f"  [{c['n']}] " + " > ".join([c["title"] or c["chunk_id"], *headings(c)])
    if details:
        line += f" ({', '.join(details)})"
    where = [w for w in (web_address(c), f"{c['kb']}:{c['chunk_id']}") if w]
    return f"{line}  {'  '.join(where)}"


def _operation_line(op: dict[str, Any]) -> str:
    params = op.get("params", {})
    label = " ".join(str(params[k]) for k in ("task", "kb", "attempt") if k in params)
    line = f"  {op['op']:<22} {label:<16} in={op['input_count']:<6} out={op['output_count']:<4} {op['ms']:>8.2f} ms"
    if op.get("reason"):
        line += f"  ({op['reason']})"
    rejected = op.get("rejected") or {}
    for chunk_id, reason in list(rejected.items())[:5]:
        line += f"\n      rejected {chunk_id}: {reason}"
    if len(rejected) > 5:
        line += f"\n      ... and {len(rejected) - 5} more rejected"
    return line


def render_answer(body: dict[str, Any], show_trace: bool = True) -> str:
    """The answer, its sources, and a readable trace of how it was reached."""
    lines = [f"status: {body['status']}    trace_id: {body['trace_id']}    router config: {body['config_version']}",
             ""]
    short = body.get("short_answer")
    if short:  # the asked-for value first, then the units that state it
        lines += [f"answer: {short['text']} [{short['citation']}]", ""]
    lines += [body["answer"], ""]
    if body["citations"]:
        lines.append("sources:")
        lines += [_citation_line(c) for c in body["citations"]]
        lines.append("")
    if not show_trace:
        return "\n".join(lines)
    p = body["perception"]
    c = p["constraints"]
    window = f"{c['time']['start']}..{c['time']['end']} (\"{c['time']['text']}\")" if c.get("time") else "none"
    lines += ["perception:",
              f"  language={p['language']} action={p['action']} time={window}",
              f"  entities: {', '.join(e['text'] + '/' + e['label'] for e in p['entities']) or 'none'}",
              f"  status={c['status']} doc_type={c['doc_type']} source={c['source']} quantitative={c['quantitative']}",
              ""]
    for attempt in body.get("attempts", []):
        lines.append(f"attempt {attempt['attempt'] + 1}:")
        for hint in attempt.get("hints_in", []):
            lines.append(f"  hint from validation: {hint['action']} {hint['params']} ({hint['reason']})")
        for task in attempt.get("plan", {}).get("tasks", []):
            lines.append(f"  {task['id']} {task['search']:<7} kb={task['kb']:<9} w={task['weight']:<4} "
                         f"\"{task['query']}\" filters={task['filters']}")
            lines.append(f"     rule {task['rule']}: {task['reason']}")
        verdict = attempt["verdict"]
        if verdict["ok"]:
            lines.append("  validation: ok")
        for issue in verdict["issues"]:
            lines.append(f"  issue {issue['check']}/{issue['kind']}: {issue['detail']}")
        lines.append("")
    if body.get("operations"):
        lines.append("operations:")
        lines += [_operation_line(op) for op in body["operations"]]
        lines.append("")
    lines.append("timing (ms): " + ", ".join(f"{k} {v}" for k, v in body["timing"].items()))
    return "\n".join(lines)
