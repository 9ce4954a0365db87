"""Native runtimes kept out of a process that forks workers (the gunicorn master).

onnxruntime (1.32 measured) starts a thread when it is imported, owned by a static object in
its extension module. fork() copies that object into every child but not the thread, so at a
child's exit the object's destructor joins a thread that does not exist there: the child
aborts (`terminate called after throwing an instance of 'std::system_error' what(): Invalid
argument`, gunicorn's `Worker (pid:...) was sent SIGABRT!`) or hangs in pthread_cond_destroy.
A child that imports onnxruntime itself exits 0. So the process that forks marks itself here
(`hold()`, in gunicorn.conf.py), the embedder defers its onnxruntime session while the mark
is on this process, and each worker makes its own session after the fork (server.service).
"""

from __future__ import annotations

import os

_held_pid: int | None = None


def hold() -> None:
    """Mark this process as one that forks: native runtimes wait for its children.

    Promises: `held()` is True in this process from now on, and False in every process it
    forks (the mark is a process id, so a child is free without doing anything).
    """
    global _held_pid
    _held_pid = os.getpid()


def held() -> bool:
    """Whether this process forks workers and must not load native runtimes (see the module doc)."""
    return _held_pid == os.getpid()


def release() -> None:
    """Drop the mark (tests; a process that stops forking)."""
    global _held_pid
    _held_pid = None
