"""Metadata filters applied inside retrieval, with a reason for every rejected chunk.

At build time the filterable metadata of every chunk is written as small columns (a day
number and category codes). A filter becomes one boolean mask over all rows, which both
arms apply before they take their top k, so a filter never starves the result list. The
reasons ("status=draft not in [effective]", "published_at=2021-03-15 < 2023-01-01") are only
computed for candidates that would have ranked without the filter.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..kb.metadata import DOCUMENT_DATE_FIELDS, document_date
from .arrays import load_mapped

EPOCH = dt.date(1970, 1, 1)
NO_DATE = np.iinfo(np.int32).min
CATEGORICAL = ("status", "doc_type", "source")


def _day(value: dt.date) -> int:
    return (value - EPOCH).days


@dataclass(frozen=True)
class Filters:
    """What a retrieval task may return. Empty tuples and None mean "no condition".

    Attributes:
        time_start / time_end: inclusive window on the document date (published, else
            updated, else effective).
        status, doc_type, source: allowed values (case-insensitive).
        exclude_status: values never returned (e.g. draft, superseded).
        keep_undated: whether chunks with no date pass a time window.
    """

    time_start: dt.date | None = None
    time_end: dt.date | None = None
    status: tuple[str, ...] = ()
    doc_type: tuple[str, ...] = ()
    source: tuple[str, ...] = ()
    exclude_status: tuple[str, ...] = ()
    keep_undated: bool = False

    @property
    def empty(self) -> bool:
        """True when the filter lets everything through."""
        return not (self.time_start or self.time_end or self.status or self.doc_type
                    or self.source or self.exclude_status)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: only the conditions that are set; dates as ISO strings."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in (None, (), False):
                continue
            out[f.name] = value.isoformat() if isinstance(value, dt.date) else (
                list(value) if isinstance(value, tuple) else value)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Filters:
        """Inverse of to_dict; accepts lists or single strings for the value lists."""
        data = dict(data or {})
        kwargs: dict[str, Any] = {}
        for key in ("time_start", "time_end"):
            if data.get(key):
                value = data[key]
                kwargs[key] = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])
        for key in CATEGORICAL + ("exclude_status",):
            value = data.get(key) or ()
            kwargs[key] = tuple([value] if isinstance(value, str) else value)
        kwargs["keep_undated"] = bool(data.get("keep_undated", False))
        return cls(**kwargs)


@dataclass
class FilterColumns:
    """Per-row filterable metadata: a day number and category codes, plus ACL groups."""

    day: np.ndarray                       # int32, NO_DATE when the chunk has no date
    codes: dict[str, np.ndarray]          # name -> int32 code per row, -1 when absent
    vocab: dict[str, list[str]]           # name -> value of each code (lower case)
    acl_code: np.ndarray                  # int32 code per row into acl_groups
    fresh_day: np.ndarray                 # int32 day of the latest of updated_at/published_at, NO_DATE if none
    authority: np.ndarray                 # int8 authority 1-5, 0 when absent
    acl_groups: list[list[str]] = field(default_factory=list)  # code -> groups ([] = public)
    display: dict[str, list[str]] = field(default_factory=dict)  # name -> values as first written

    # --- build and persistence ---------------------------------------------------------

    @classmethod
    def build(cls, metadatas: Iterable[dict[str, Any]]) -> FilterColumns:
        """Columns for chunks given their metadata, in row order."""
        days: list[int] = []
        fresh: list[int] = []
        authority: list[int] = []
        codes: dict[str, list[int]] = {name: [] for name in CATEGORICAL}
        index: dict[str, dict[str, int]] = {name: {} for name in CATEGORICAL}
        display: dict[str, list[str]] = {name: [] for name in CATEGORICAL}
        acl_index: dict[tuple[str, ...], int] = {(): 0}
        acl_codes: list[int] = []
        for meta in metadatas:
            date = document_date(meta)
            days.append(_day(date) if date else NO_DATE)
            stamps = [dt.date.fromisoformat(meta[k][:10]) for k in ("updated_at", "published_at") if meta.get(k)]
            fresh.append(_day(max(stamps)) if stamps else NO_DATE)
            authority.append(int(meta.get("authority") or 0))
            for name in CATEGORICAL:
                value = meta.get(name)
                if value is None:
                    codes[name].append(-1)
                    continue
                key = str(value).lower()
                if key not in index[name]:
                    index[name][key] = len(index[name])
                    display[name].append(str(value))
                codes[name].append(index[name][key])
            groups = tuple(meta.get("acl") or ())
            acl_codes.append(acl_index.setdefault(groups, len(acl_index)))
        return cls(
            day=np.asarray(days, dtype=np.int32),
            codes={n: np.asarray(c, dtype=np.int32) for n, c in codes.items()},
            vocab={n: list(index[n]) for n in CATEGORICAL},
            acl_code=np.asarray(acl_codes, dtype=np.int32),
            acl_groups=[list(g) for g in acl_index],
            display=display,
            fresh_day=np.asarray(fresh, dtype=np.int32),
            authority=np.asarray(authority, dtype=np.int8),
        )

    def save(self, directory: Path) -> None:
        """Write the columns as .npy files plus a JSON vocabulary."""
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / "day.npy", self.day)
        np.save(directory / "acl.npy", self.acl_code)
        np.save(directory / "fresh_day.npy", self.fresh_day)
        np.save(directory / "authority.npy", self.authority)
        for name, array in self.codes.items():
            np.save(directory / f"{name}.npy", array)
        (directory / "vocab.json").write_text(
            json.dumps({"vocab": self.vocab, "acl_groups": self.acl_groups, "display": self.display},
                       ensure_ascii=False),
            encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> FilterColumns:
        """Map saved columns read-only."""
        meta = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
        return cls(
            day=load_mapped(directory / "day.npy"),
            codes={n: load_mapped(directory / f"{n}.npy") for n in CATEGORICAL},
            vocab=meta["vocab"],
            acl_code=load_mapped(directory / "acl.npy"),
            acl_groups=meta["acl_groups"],
            display=meta.get("display", meta["vocab"]),
            fresh_day=load_mapped(directory / "fresh_day.npy"),
            authority=load_mapped(directory / "authority.npy"),
        )

    def credibility_inputs(self, row: int) -> dict:
        """The metadata the credibility multiplier reads, from the columns (no JSON parsing)."""
        out: dict = {}
        fresh = int(self.fresh_day[row])
        if fresh != NO_DATE:
            out["updated_at"] = (EPOCH + dt.timedelta(days=fresh)).isoformat()
        if int(self.authority[row]):
            out["authority"] = int(self.authority[row])
        status = self._value("status", row)
        if status:
            out["status"] = status
        return out

    def credibility_multipliers(self, rows: np.ndarray, now: dt.date, params: Any) -> np.ndarray:
        """The credibility multiplier of many rows at once (the same formula as `credibility()`)."""
        rows = np.asarray(rows, dtype=np.int64)
        fresh = np.asarray(self.fresh_day[rows], dtype=np.float64)
        age = np.maximum(_day(now) - fresh, 0.0)
        recency = np.where(fresh == NO_DATE, 1.0,
                           np.maximum(params.recency_floor, 0.5 ** (age / params.half_life_days)))
        authority = np.asarray(self.authority[rows], dtype=np.float64)
        authority = np.where(authority == 0, 1.0, 1.0 + params.authority_weight * (authority - 3) / 2)
        by_code = np.array([params.status.get(v, 1.0) for v in self.vocab["status"]] + [1.0])
        status = by_code[np.asarray(self.codes["status"][rows])]  # code -1 picks the trailing 1.0
        return recency * authority * status

    def values(self, name: str) -> list[str]:
        """The distinct values of a categorical field as first written (e.g. "TechCrunch")."""
        return list(self.display.get(name, self.vocab[name]))

    def public_values(self, name: str) -> list[str]:
        """The distinct values of a categorical field on public rows only (no ACL groups).

        What may be shared with every caller, e.g. the source names Perception recognises:
        a source that only restricted documents carry must not show in anyone's parse.
        """
        public = self.acl_mask(())
        codes = np.unique(np.asarray(self.codes[name])[public])
        shown = self.display.get(name, self.vocab[name])
        return [shown[int(c)] for c in codes if c >= 0]

    def visible_counts(self, groups: Sequence[str] | None, chunk_ids: Sequence[str]) -> tuple[int, int]:
        """(chunks, documents) a caller with `groups` may see; None counts everything.

        Documents are counted by chunk id prefix (`<doc id>#<n>`).
        """
        mask = self.acl_mask(groups)
        rows = range(len(chunk_ids)) if mask is None else np.flatnonzero(mask).tolist()
        documents = {chunk_ids[r].rsplit("#", 1)[0] for r in rows}
        return len(rows), len(documents)

    # --- evaluation --------------------------------------------------------------------

    def acl_mask(self, groups: Sequence[str] | None) -> np.ndarray | None:
        """Rows the caller may see: public rows plus rows sharing a group with the caller.

        None means no ACL enforcement (operator tools); returns None then.
        """
        codes = self.readable_codes(groups)
        if codes is None:
            return None
        visible = np.zeros(len(self.acl_groups), dtype=bool)
        visible[codes] = True
        return visible[self.acl_code]

    def readable_codes(self, groups: Sequence[str] | None) -> list[int] | None:
        """The ACL codes (`acl_code`'s values: one per distinct group list) whose rows a caller with
        `groups` may see: the public code and those sharing a group with it; None for None (no
        enforcement). An engine filters on these codes (`acl_code in [...]`), a scalar test."""
        if groups is None:
            return None
        caller = set(groups)
        return [code for code, g in enumerate(self.acl_groups) if not g or caller.intersection(g)]

    def _codes_for(self, name: str, values: Sequence[str]) -> list[int]:
        wanted = {v.lower() for v in values}
        return [code for code, value in enumerate(self.vocab[name]) if value in wanted]

    def mask(self, filters: Filters) -> np.ndarray | None:
        """Rows that pass `filters` (ACL excluded); None when the filter is empty."""
        if filters.empty:
            return None
        allowed = np.ones(self.day.shape[0], dtype=bool)
        if filters.time_start or filters.time_end:
            dated = self.day != NO_DATE
            in_window = dated.copy()
            if filters.time_start:
                in_window &= self.day >= _day(filters.time_start)
            if filters.time_end:
                in_window &= self.day <= _day(filters.time_end)
            allowed &= in_window | (~dated if filters.keep_undated else False)
        for name in CATEGORICAL:
            values = getattr(filters, name)
            if values:
                allowed &= np.isin(self.codes[name], self._codes_for(name, values))
        if filters.exclude_status:
            allowed &= ~np.isin(self.codes["status"], self._codes_for("status", filters.exclude_status))
        return allowed

    def _value(self, name: str, row: int) -> str | None:
        code = int(self.codes[name][row])
        return None if code < 0 else self.vocab[name][code]

    def reasons(self, rows: Sequence[int] | np.ndarray, filters: Filters) -> list[str]:
        """Why each row fails `filters`, as `field=value op bound`: the conditions are tested on
        the rows as arrays, in order (date window, categories, excluded statuses), and a row
        takes the first one it breaks; "filtered" when it breaks none."""
        rows = np.asarray(rows, dtype=np.int64)
        out = ["filtered"] * len(rows)
        pending = np.ones(len(rows), dtype=bool)

        def first_broken(broken: np.ndarray, say) -> None:
            for i in np.flatnonzero(broken & pending).tolist():
                out[i] = say(i)
            pending[broken] = False

        if filters.time_start or filters.time_end:
            day = self.day[rows]
            date_name = "/".join(DOCUMENT_DATE_FIELDS[:1])
            undated = day == NO_DATE
            shown = lambda i: (EPOCH + dt.timedelta(days=int(day[i]))).isoformat()  # noqa: E731
            if not filters.keep_undated:
                first_broken(undated, lambda i: f"{date_name}=missing, window requires a date")
            if filters.time_start:
                start = filters.time_start
                first_broken(~undated & (day < _day(start)), lambda i: f"{date_name}={shown(i)} < {start.isoformat()}")
            if filters.time_end:
                end = filters.time_end
                first_broken(~undated & (day > _day(end)), lambda i: f"{date_name}={shown(i)} > {end.isoformat()}")
        for name in CATEGORICAL:
            values = getattr(filters, name)
            if values:
                codes, vocab, listed = self.codes[name][rows], self.vocab[name], ", ".join(values)
                first_broken(~np.isin(codes, self._codes_for(name, values)),
                             lambda i, name=name, codes=codes, vocab=vocab, listed=listed:
                             f"{name}={(vocab[codes[i]] if codes[i] >= 0 else None) or 'missing'} not in [{listed}]")
        if filters.exclude_status:
            codes, vocab = self.codes["status"][rows], self.vocab["status"]
            excluded = [c for c in self._codes_for("status", filters.exclude_status) if vocab[c]]
            first_broken(np.isin(codes, excluded), lambda i: f"status={vocab[codes[i]]} excluded")
        return out

    def reason(self, row: int, filters: Filters) -> str:
        """Why `row` fails `filters`: the first condition it breaks, as `field=value op bound`
        ("filtered" when it breaks none); `reasons` for one row."""
        return self.reasons([row], filters)[0]
