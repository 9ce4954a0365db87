"""The shape of a POST /rag reply, checked before `sightline ask --server` prints it.

A reply comes from another process (or whatever answers at that URL: a proxy's error page, a
different service), so it is read as untrusted input: `reply_problem` names the first field
that is missing or of the wrong type, and `sightline ask` reports it as one line instead of
failing while it prints. Only what the CLI reads is checked; extra fields are the service's.
"""

from __future__ import annotations

from typing import Any

# field -> the type it must have, for every reply
TOP_LEVEL: dict[str, type | tuple[type, ...]] = {
    "trace_id": str, "status": str, "answer": str, "citations": list, "config_version": str}
# field -> type of each citation (what the terminal rendering prints)
CITATION: dict[str, type | tuple[type, ...]] = {"n": int, "kb": str, "chunk_id": str, "title": str}
# what the rendered trace reads, when it is shown
TRACE: dict[str, type | tuple[type, ...]] = {"perception": dict, "timing": dict}
PERCEPTION: dict[str, type | tuple[type, ...]] = {
    "language": str, "action": str, "entities": list, "constraints": dict}
ATTEMPTS_AND_OPERATIONS: dict[str, type | tuple[type, ...]] = {"attempts": list, "operations": list}
ATTEMPT: dict[str, type | tuple[type, ...]] = {"attempt": int, "verdict": dict}
VERDICT: dict[str, type | tuple[type, ...]] = {"ok": bool, "issues": list}
OPERATION: dict[str, type | tuple[type, ...]] = {"op": str, "input_count": int, "output_count": int,
                                                 "ms": (int, float)}

_TYPE_NAMES = {str: "str", int: "int", float: "float", list: "list", dict: "dict", bool: "bool",
               type(None): "null"}

_JSON_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def _kind(value: Any) -> str:
    """The JSON kind of a value as the message names it."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _fields(record: dict[str, Any], spec: dict[str, type | tuple[type, ...]], where: str,
            optional: bool = False) -> str | None:
    """The first field of `record` that `spec` requires and is missing or mistyped, as words."""
    for name, wanted in spec.items():
        if name not in record:
            if optional:
                continue
            return f"{where}missing {name}"
        if not isinstance(record[name], wanted):
            expected = wanted if isinstance(wanted, tuple) else (wanted,)
            return f"{where}{name} is {_kind(record[name])}, not {' or '.join(_TYPE_NAMES[t] for t in expected)}"
    return None


def reply_problem(body: Any, with_trace: bool) -> str | None:
    """What makes `body` unusable as a POST /rag reply, or None when it can be shown.

    Promises: None means every field the terminal rendering (and `--json`'s reader) relies on
    is present with its type: the top-level fields and each citation always, the perception,
    timing, attempts and operations too when `with_trace`.
    """
    if not isinstance(body, dict):
        return f"a JSON {_JSON_KINDS.get(type(body), _kind(body))}, not an object"
    problem = _fields(body, TOP_LEVEL, "")
    for i, citation in enumerate(body["citations"] if problem is None else ()):
        problem = problem or _record(citation, CITATION, f"citations[{i}]")
    if problem or not with_trace:
        return problem
    problem = _fields(body, TRACE, "") or _fields(body, ATTEMPTS_AND_OPERATIONS, "", optional=True)
    problem = problem or _fields(body["perception"], PERCEPTION, "perception ")
    for i, attempt in enumerate(body.get("attempts", []) if problem is None else ()):
        problem = problem or _record(attempt, ATTEMPT, f"attempts[{i}]")
        problem = problem or _fields(attempt["verdict"], VERDICT, f"attempts[{i}].verdict ")
    for i, operation in enumerate(body.get("operations", []) if problem is None else ()):
        problem = problem or _record(operation, OPERATION, f"operations[{i}]")
    return problem


def _record(value: Any, spec: dict[str, type | tuple[type, ...]], where: str) -> str | None:
    """What is wrong with one list item that must be an object holding `spec`'s fields."""
    if not isinstance(value, dict):
        return f"{where} is {_kind(value)}, not dict"
    return _fields(value, spec, f"{where} ")
