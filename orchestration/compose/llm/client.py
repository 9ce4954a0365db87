"""One chat completions request to an OpenAI-compatible server, with a hard deadline.

Promises:
- One HTTP request per call, never a retry (the answer loop decides whether to ask again).
- The whole exchange (connect, send, every read of the reply) ends by `timeout` seconds: the
  socket timeout is the time left before each step, so a server that trickles its reply
  byte by byte is cut off at the deadline like one that never answers.
- Every failure is an `UpstreamError` whose `reason` is the fallback label: timeout,
  connection, http_4xx, http_5xx or malformed. Messages never carry the API key.
- Standard library only (http.client): no client library to pin.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from core.errors import UpstreamError, UpstreamTimeout

from .settings import LLMSettings

MAX_REPLY_BYTES = 2 * 1024 * 1024  # a chat reply is a few kB; more is not a reply
READ_BYTES = 16 * 1024


@dataclass(frozen=True)
class ChatReply:
    """The parts of a chat completion the composer uses."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None
    model: str | None


class ChatClient:
    """Posts chat messages to `<base_url>/chat/completions` and reads the first choice."""

    def __init__(self, settings: LLMSettings) -> None:
        """Keep the settings; nothing is connected until `complete()`."""
        self.settings = settings
        parts = urlsplit(settings.base_url.strip())
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._path = parts.path.rstrip("/") + "/chat/completions"

    def complete(self, messages: Sequence[dict[str, str]], timeout: float) -> ChatReply:
        """Send the messages and return the reply.

        Args:
            messages: OpenAI chat messages ({"role", "content"}).
            timeout: seconds the whole call may take.

        Returns:
            The first choice's content, the token usage and the finish reason.

        Raises:
            UpstreamTimeout: the reply was not complete within `timeout`.
            UpstreamError: connection refused or reset (connection), a 4xx or 5xx status
                (http_4xx, http_5xx), or a body that is not a chat completion (malformed).
        """
        deadline = time.monotonic() + timeout
        body = json.dumps({"model": self.settings.model, "messages": list(messages), "stream": False,
                           "temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens})
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = kind(self._host, self._port, timeout=max(timeout, 0.001))
        try:
            conn.request("POST", self._path, body=body.encode("utf-8"), headers=headers)
            _arm(conn, deadline, timeout)
            response = conn.getresponse()
            raw = _read_all(conn, response, deadline, timeout)
        except TimeoutError:
            raise UpstreamTimeout(f"the LLM server did not reply within {timeout:.2f} s") from None
        except (OSError, http.client.HTTPException) as exc:
            raise UpstreamError(f"could not reach the LLM server at {self.settings.base_url}: "
                                f"{type(exc).__name__}: {exc}", reason="connection") from None
        finally:
            conn.close()
        if response.status >= 300:
            family = "http_4xx" if 400 <= response.status < 500 else "http_5xx"
            raise UpstreamError(f"the LLM server answered HTTP {response.status}: {_excerpt(raw)}", reason=family)
        return _parse(raw)


def _arm(conn: http.client.HTTPConnection, deadline: float, timeout: float) -> None:
    """Set the socket timeout to the time left; TimeoutError when none is left."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError(f"deadline of {timeout:.2f} s passed")
    if conn.sock is not None:
        conn.sock.settimeout(left)


def _read_all(conn: http.client.HTTPConnection, response: http.client.HTTPResponse, deadline: float,
              timeout: float) -> bytes:
    """The whole body, each read bounded by the time left before the deadline."""
    parts: list[bytes] = []
    size = 0
    while True:
        _arm(conn, deadline, timeout)
        piece = response.read1(READ_BYTES)
        if not piece:
            return b"".join(parts)
        parts.append(piece)
        size += len(piece)
        if size > MAX_REPLY_BYTES:
            raise UpstreamError(f"the LLM server's reply is larger than {MAX_REPLY_BYTES} bytes", reason="malformed")


def _parse(raw: bytes) -> ChatReply:
    """A chat completion body read into a ChatReply; UpstreamError(malformed) when it is none."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise UpstreamError(f"the LLM server's reply is not JSON: {_excerpt(raw)}", reason="malformed") from None
    choice = _first_choice(data)
    message = choice.get("message") if isinstance(choice, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if content is not None and not isinstance(content, str):
        content = None
    if content is None:
        raise UpstreamError("the LLM server's reply has no choices[0].message.content string: "
                            f"{_excerpt(raw)}", reason="malformed")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    return ChatReply(content=content, prompt_tokens=_count(usage.get("prompt_tokens")),
                     completion_tokens=_count(usage.get("completion_tokens")),
                     finish_reason=finish if isinstance(finish, str) else None,
                     model=data.get("model") if isinstance(data.get("model"), str) else None)


def _first_choice(data: Any) -> Any:
    choices = data.get("choices") if isinstance(data, dict) else None
    return choices[0] if isinstance(choices, list) and choices else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _excerpt(raw: bytes, limit: int = 160) -> str:
    """The start of a body, as text, for an error message."""
    text = raw.decode("utf-8", errors="replace").strip().replace("\n", " ")
    return (text[:limit] + "...") if len(text) > limit else (text or "(empty body)")
