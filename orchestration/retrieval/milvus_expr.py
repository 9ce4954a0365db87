"""Sightline's filters and a caller's ACL groups as a Milvus boolean expression.

The expression selects the rows `FilterColumns.mask(filters) & FilterColumns.acl_mask(groups)`
selects, over the fields `milvus_client.schema` writes: the document date as an epoch day (`day`,
NO_DATE when undated), `status` / `doc_type` / `source` lower-cased ("" when absent), the ACL
groups as an array (empty = public) and their code in the build (`acl_code`). Only operators a
Milvus cluster documents are used: comparisons, `in`, `not in`, `and`, `or`, and on a collection
built before `acl_code`, `array_contains_any` and `array_length`.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence

from .filters import CATEGORICAL, EPOCH, NO_DATE, Filters


def _day(value: dt.date) -> int:
    """The epoch day of a date, as the `day` field holds it."""
    return (value - EPOCH).days


def _strings(values: Sequence[str]) -> str:
    """A list of string literals (JSON's escaping is the expression language's)."""
    return json.dumps(list(values), ensure_ascii=False)


def acl_expression(groups: Sequence[str] | None, readable: Sequence[int] | None = None) -> str | None:
    """Rows a caller with `groups` may read: public rows and rows sharing a group with it; with
    `readable` (the build's ACL codes the caller may read, `FilterColumns.readable_codes`) as one
    scalar test on `acl_code`, else on the `acl` array (a collection built before `acl_code`).

    Promises: None for None (no ACL enforcement, operator tools); public rows only for no groups.
    """
    if groups is None:
        return None
    if readable is not None:
        return f"acl_code in {json.dumps(sorted(int(c) for c in readable))}"
    public = "array_length(acl) == 0"
    if not groups:
        return public
    return f"(array_contains_any(acl, {_strings(sorted(set(groups)))}) or {public})"


def filter_expression(filters: Filters) -> str | None:
    """Rows that pass `filters` (ACL excluded), as `FilterColumns.mask` decides; None when empty.

    Promises: a conjunction whose `or` is parenthesised, so it can be and-ed with more.
    """
    if filters.empty:
        return None
    parts: list[str] = []
    if filters.time_start or filters.time_end:
        window = [f"day != {NO_DATE}"]
        if filters.time_start:
            window.append(f"day >= {_day(filters.time_start)}")
        if filters.time_end:
            window.append(f"day <= {_day(filters.time_end)}")
        dated = " and ".join(window)
        parts.append(f"(({dated}) or day == {NO_DATE})" if filters.keep_undated else f"({dated})")
    for name in CATEGORICAL:
        values = getattr(filters, name)
        if values:
            parts.append(f"{name} in {_strings(sorted({v.lower() for v in values}))}")
    if filters.exclude_status:
        excluded = sorted({v.lower() for v in filters.exclude_status} - {""})
        if excluded:
            parts.append(f"status not in {_strings(excluded)}")
    return " and ".join(parts) if parts else None


def expression(filters: Filters, groups: Sequence[str] | None, readable: Sequence[int] | None = None) -> str:
    """The whole condition of one search: the filters and the caller's ACL ("" when none)."""
    return " and ".join(p for p in (acl_expression(groups, readable), filter_expression(filters)) if p)
