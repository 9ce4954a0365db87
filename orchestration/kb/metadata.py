"""The metadata schema of a document (DESIGN.md section 4) and its normalisation.

Known fields are type-checked and normalised (dates to ISO 8601 whatever their input format,
status and doc_type to lower case, authority to an int 1-5, acl to a list of groups); unknown
fields are kept as they are, provided they are JSON scalars or lists of them.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from dateutil import parser as date_parser

DATE_FIELDS = ("published_at", "updated_at", "effective_date", "expires_at")
TEXT_FIELDS = ("source", "title", "url", "section", "version", "department", "language",
               "status", "doc_type", "author", "category")
LOWERCASE_FIELDS = ("status", "doc_type", "language")
# The date a document is filtered and aged by: the first of these it carries.
DOCUMENT_DATE_FIELDS = ("published_at", "updated_at", "effective_date")

_CHINESE_DATE = re.compile(r"^\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(?:(\d{1,2})\s*日)?\s*$")


class MetadataError(ValueError):
    """A metadata value cannot be used; the message names the field and the fix."""


def parse_date(value: Any) -> dt.datetime:
    """Parse a date or timestamp in any common format to an aware UTC datetime.

    Accepts ISO 8601 with or without time, zone or nanoseconds
    (`2023-11-27 08:45:59.000000000Z`, `2023-09-28T12:00:00+00:00`), `March 5, 2024`,
    `2024年3月5日`, date/datetime objects and Unix timestamps. Naive times are taken as UTC.

    Raises:
        MetadataError: the value is not a date.
    """
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        parsed = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        parsed = dt.datetime.fromtimestamp(value, tz=dt.UTC)
    elif isinstance(value, str) and value.strip():
        chinese = _CHINESE_DATE.match(value)
        try:
            if chinese:
                year, month, day = (int(g) if g else 1 for g in chinese.groups())
                parsed = dt.datetime(year, month, day)
            else:
                parsed = date_parser.parse(value.strip())
        except (ValueError, OverflowError) as exc:
            raise MetadataError(f"not a date: {value!r} (use ISO 8601, e.g. 2023-10-07)") from exc
    else:
        raise MetadataError(f"not a date: {value!r} (use ISO 8601, e.g. 2023-10-07)")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.astimezone(dt.UTC)


def _is_json_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def normalize_metadata(raw: Any) -> dict[str, Any]:
    """Check and normalise a document's metadata mapping.

    Returns:
        A new dict: dates as ISO strings (`2023-11-27T08:45:59+00:00`), authority an int 1-5,
        acl a sorted list of group names, status/doc_type/language lower case, other fields kept.

    Raises:
        MetadataError: naming the field, what it holds and what it should hold.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise MetadataError(f"metadata must be an object of fields, got {type(raw).__name__}")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise MetadataError(f"metadata keys must be strings, got {key!r}")
        if value is None:
            continue
        if key in DATE_FIELDS:
            try:
                out[key] = parse_date(value).isoformat()
            except MetadataError as exc:
                raise MetadataError(f"field '{key}': {exc}") from None
        elif key == "authority":
            if isinstance(value, bool) or not isinstance(value, (int, float, str)) \
                    or not str(value).strip().isdigit() or not 1 <= int(value) <= 5:
                raise MetadataError(f"field 'authority' must be an integer 1-5, got {value!r}")
            out[key] = int(value)
        elif key == "acl":
            groups = [value] if isinstance(value, str) else value
            if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
                raise MetadataError(f"field 'acl' must be a list of group names, got {value!r}")
            out[key] = sorted({g.strip() for g in groups if g.strip()})
        elif key in TEXT_FIELDS:
            if not _is_json_scalar(value):
                raise MetadataError(f"field '{key}' must be text, got {type(value).__name__}")
            text = str(value).strip()
            out[key] = text.lower().replace(" ", "_") if key in LOWERCASE_FIELDS else text
        elif key == "page":
            out[key] = value if _is_json_scalar(value) else str(value)
        elif _is_json_scalar(value) or (isinstance(value, list) and all(_is_json_scalar(v) for v in value)):
            out[key] = value
        else:
            raise MetadataError(
                f"field '{key}' has unsupported type {type(value).__name__}; "
                "metadata values must be text, numbers, booleans or lists of them")
    return out


def document_date(metadata: dict[str, Any]) -> dt.date | None:
    """The date a document is filtered and aged by (published, else updated, else effective)."""
    for key in DOCUMENT_DATE_FIELDS:
        if key in metadata:
            return dt.datetime.fromisoformat(metadata[key]).date()
    return None
