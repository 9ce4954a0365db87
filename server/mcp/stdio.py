"""`sightline mcp`: the MCP server on stdin/stdout, for the one local caller the command was started as."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
from mcp.server.stdio import stdio_server

from .server import build_server
from .tools import Tools


def serve_stdio(tools: Tools) -> None:
    """Serve `tools` over stdio (newline-delimited JSON-RPC) until the client closes stdin.

    Promises: stdout carries protocol messages only; the SDK points file descriptor 1 at stderr
    while it serves, so a library that prints cannot corrupt the stream.
    """
    server = build_server(tools)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


@contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout (file descriptor 1, C libraries included) to stderr meanwhile.

    Loading models before the protocol starts may print; on stdout that would reach the client
    as a malformed message.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
