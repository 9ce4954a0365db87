"""A stand-in LLM server: a real HTTP server speaking the OpenAI chat completions protocol.

No model runs on these machines, so tests (and benchmarks/llm_composer.py) point Sightline at
this server instead. It answers `POST /v1/chat/completions` (and `GET /v1/models`) on a free
loopback port, from a thread of the calling process, and misbehaves on purpose as each test
scripts it:

    standin = StandIn().start()
    standin.script(Reply("The APU must reach 85% speed {cite:95% speed}."))    # next request
    standin.on("E5102", Reply(...), Reply(...))        # requests whose question contains "E5102"
    standin.requests                                   # every request body received, parsed

A reply's content may hold `{cite:PHRASE}`: the `[k]` of the evidence chunk (as the prompt
numbered it) whose text contains PHRASE, so scripts cite real, retrieved evidence whatever
order retrieval put it in. Content may also be a function of the `Prompt`. Misbehaviours:
`status` (500, 429, ...), `body` (raw bytes instead of a completion, e.g. malformed JSON),
`delay` (seconds before the headers: a timeout), `trickle` (seconds between 16-byte pieces of
the body: a slow stream). Without a script the default reply quotes the evidence sentence
that shares the most words with the question, citing it: a well-behaved model.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_BLOCK = re.compile(r"^\[(\d+)\] (.*)$", re.M)
_CITE = re.compile(r"\{cite:([^}]+)\}")
_WORD = re.compile(r"\w+")


@dataclass
class Prompt:
    """What a request asked: the question, the numbered evidence, any feedback on a retry."""

    question: str
    evidence: dict[int, str]
    feedback: str
    body: dict[str, Any]

    @classmethod
    def read(cls, body: dict[str, Any]) -> Prompt:
        user = next((m.get("content", "") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        question = user.split("\n", 1)[0].removeprefix("Question: ")
        head, _, feedback = user.partition("Your previous answer was checked")
        evidence: dict[int, str] = {}
        starts = list(_BLOCK.finditer(head))
        for k, match in enumerate(starts):
            end = starts[k + 1].start() if k + 1 < len(starts) else len(head)
            evidence[int(match.group(1))] = head[match.start():end]
        return cls(question, evidence, feedback, body)

    def cite(self, phrase: str) -> str:
        """`[k]` of the first chunk holding the phrase (case-insensitive), `[?]` when none does."""
        for k, text in self.evidence.items():
            if phrase.lower() in text.lower():
                return f"[{k}]"
        return "[?]"

    def fill(self, content: str) -> str:
        return _CITE.sub(lambda m: self.cite(m.group(1)), content)


def quote_best(prompt: Prompt) -> str:
    """A well-behaved answer: the two evidence sentences sharing most words with the question, cited.

    Words match on their first five letters ("triggers" meets "triggered")."""
    def stems(text: str) -> set[str]:
        return {w.lower()[:5] for w in _WORD.findall(text) if len(w) > 3 or any(ch.isdigit() for ch in w)}

    asked = stems(prompt.question)
    scored: list[tuple[float, int, str]] = []
    for k, block in prompt.evidence.items():
        for sentence in re.split(r"(?<=[.!?])\s+|\n+", block.split("\n", 1)[-1]):
            if len(sentence.split()) >= 4:
                found = stems(sentence)
                scored.append((len(asked & found) - 0.01 * len(found), k, sentence.strip().rstrip(".")))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:2]
    if not best or best[0][0] <= 0:
        return "The knowledge base does not say."
    return " ".join(f"{sentence} [{k}]." for _, k, sentence in best)


@dataclass
class Reply:
    """One scripted answer (see the module docstring)."""

    content: str | Callable[[Prompt], str] = quote_best
    status: int = 200
    body: bytes | None = None
    delay: float = 0.0
    trickle: float = 0.0
    finish_reason: str = "stop"

    def render(self, prompt: Prompt, model: str) -> bytes:
        if self.body is not None:
            return self.body
        if self.status >= 400:
            return json.dumps({"error": {"message": "stand-in failure", "type": "server_error",
                                         "code": self.status}}).encode()
        text = self.content(prompt) if callable(self.content) else prompt.fill(self.content)
        prompt_words = sum(len(_WORD.findall(m.get("content", ""))) for m in prompt.body.get("messages", []))
        return json.dumps({
            "id": "chatcmpl-standin", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": self.finish_reason}],
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": len(_WORD.findall(text)),
                      "total_tokens": prompt_words + len(_WORD.findall(text))},
        }).encode()


@dataclass
class StandIn:
    """The server; `start()` binds a free port and serves from a daemon thread."""

    model: str = "standin-1"
    default: Reply = field(default_factory=Reply)
    requests: list[dict[str, Any]] = field(default_factory=list)
    _queue: list[Reply] = field(default_factory=list)
    _routes: list[tuple[str, list[Reply]]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The API root to configure (SIGHTLINE_LLM_BASE_URL)."""
        assert self._server is not None, "start() the stand-in first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> StandIn:
        handler = _handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="llm-standin", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def script(self, *replies: Reply) -> None:
        """Replace the queue: the next requests get these replies, in order, then the default."""
        with self._lock:
            self._queue[:] = list(replies)
            self._routes.clear()
            self.requests.clear()

    def on(self, question_part: str, *replies: Reply) -> None:
        """Requests whose question contains `question_part` get these replies in order (the last repeats)."""
        with self._lock:
            self._routes.append((question_part.lower(), list(replies)))

    def _next(self, prompt: Prompt) -> Reply:
        with self._lock:
            for part, replies in self._routes:
                if part in prompt.question.lower():
                    return replies.pop(0) if len(replies) > 1 else replies[0]
            return self._queue.pop(0) if self._queue else self.default


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            pass

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, json.dumps({"object": "list", "data": [
                    {"id": standin.model, "object": "model", "owned_by": "standin"}]}).encode())
            else:
                self._send(404, b'{"error": {"message": "not found"}}')

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.endswith("/chat/completions"):
                self._send(404, b'{"error": {"message": "not found"}}')
                return
            body = json.loads(raw)
            with standin._lock:
                standin.requests.append(body)
            prompt = Prompt.read(body)
            reply = standin._next(prompt)
            if reply.delay:
                time.sleep(reply.delay)
            self._send(reply.status, reply.render(prompt, body.get("model") or standin.model), reply.trickle)

        def _send(self, status: int, data: bytes, trickle: float = 0.0) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if not trickle:
                    self.wfile.write(data)
                    return
                for start in range(0, len(data), 16):
                    self.wfile.write(data[start:start + 16])
                    self.wfile.flush()
                    time.sleep(trickle)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its deadline): that is the point of a slow reply

    return Handler
