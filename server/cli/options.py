"""Argument types shared by the subcommands: each refuses a bad value with a message argparse shows."""

from __future__ import annotations

import argparse
import datetime as dt


def iso_date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date: {text!r} (use YYYY-MM-DD)") from None


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def acl_groups(text: str) -> tuple[str, ...]:
    from core.names import parse_groups

    try:
        return parse_groups(text, "--groups")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
