"""The metadata schema of a document (DESIGN.md section 4) and its normalisation.

Metadata is read as documents carry it. A field a document names its own way reaches the field
with that meaning through an alias (`date`, `pubDate`, `created_at` -> published_at; `lastmod`
-> updated_at; `authors` -> author; `categories` -> tags), or through a knowledge base's own
`fields:` mapping (`FieldMap`), which replaces the aliases of the fields it names.

Fields with a meaning are type-checked and normalised: dates to ISO 8601 whatever their input
(a YAML date, ISO, RFC 2822, `05-Jul-2001`, a Unix timestamp), status and doc_type to lower
case, authority to an int 1-5, acl to a list of groups, author to a list of names, tags to a
list of strings. A date that cannot be read is dropped with a warning, never the document.
Unknown fields are kept: scalars and lists of them as they are, dates as ISO text, anything
nested as JSON text.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dateutil import parser as date_parser

DATE_FIELDS = ("published_at", "updated_at", "effective_date", "expires_at")
TEXT_FIELDS = ("source", "title", "url", "section", "version", "department", "language",
               "status", "doc_type", "category")
LIST_FIELDS = ("author", "tags")
LOWERCASE_FIELDS = ("status", "doc_type", "language")
# Every field with a meaning: a document field of one of these names is read as that field.
MEANINGFUL_FIELDS = DATE_FIELDS + TEXT_FIELDS + LIST_FIELDS + ("authority", "acl", "page")
# The fields a knowledge base's `fields:` mapping may point at its documents' own names.
MAPPABLE_FIELDS = tuple(f for f in MEANINGFUL_FIELDS if f != "title")
# The fields an ingest report counts (how many documents carry each).
COUNTED_FIELDS = DATE_FIELDS + ("status", "doc_type", "source", "author", "tags", "category", "url",
                                "version", "department", "language", "authority", "acl")
# The date a document is filtered and aged by: the first of these it carries.
DOCUMENT_DATE_FIELDS = ("published_at", "updated_at", "effective_date")

# The names documents commonly give a field with a meaning, in order of preference. Matched
# ignoring case, '_', '-' and spaces (pubDate = pubdate = pub_date); the field's own name in
# another spelling (PublishedAt, docType) is an alias too, preferred over these.
DEFAULT_ALIASES: dict[str, tuple[str, ...]] = {
    "published_at": ("published", "publish_date", "publication_date", "date_published", "pub_date",
                     "date", "created", "created_at", "creation_date", "date_created"),
    "updated_at": ("updated", "modified", "lastmod", "last_modified", "last_updated", "date_modified",
                   "modified_at"),
    "expires_at": ("expires", "expiry_date", "expiration_date"),
    "author": ("authors",),
    "tags": ("categories", "tag"),
}

_CHINESE_DATE = re.compile(r"^\s*(\d{4})\s*年\s*(\d{1,2})\s*月\s*(?:(\d{1,2})\s*日)?\s*$")
_RFC_2822 = re.compile(r"^\s*(?:[A-Za-z]{3},?\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d{1,2}:\d{2}")
_TIMESTAMP = re.compile(r"^\s*\d{9,}(?:\.\d+)?\s*$")
_ISO_PREFIX = re.compile(r"^\s*\d{4}-\d{1,2}-\d{1,2}")
_MILLISECONDS = 1e11  # a timestamp above this many seconds (year 5138) is in milliseconds
_MAX_DEPTH = 32
_DATE_HINT = "use ISO 8601, e.g. 2023-10-07"

# Splitting one author string into names: "A, B and C", "A; B", "A & B", "张三、李四".
_NAME_SEPARATORS = re.compile(r"\s*(?:[,;，；、]|\s&\s|\band\b)\s*", re.IGNORECASE)
_NAME_SUFFIX = re.compile(r"^(?:jr|sr|ii|iii|iv|ph\.?\s?d|md|m\.d)\.?$", re.IGNORECASE)
_ET_AL = re.compile(r"\bet\.?\s+al\.?$", re.IGNORECASE)
_EMAIL = re.compile(r"<[^>]*>|\([^)]*@[^)]*\)|\S+@\S+")
_NAME_KEYS = ("name", "full_name", "fullname", "display_name", "displayname", "username", "login", "handle")
_TAG_KEYS = ("name", "label", "title", "slug")


class MetadataError(ValueError):
    """A metadata value cannot be used; the message names the field and the fix."""


def field_key(name: str) -> str:
    """The spelling-free form aliases are matched by: 'pubDate' -> 'pubdate', 'last_modified' -> 'lastmodified'."""
    return re.sub(r"[\s_\-]", "", name).lower()


def _finite_timestamp(value: float) -> dt.datetime:
    if not math.isfinite(value):
        raise MetadataError(f"not a date: {value!r} ({_DATE_HINT})")
    seconds = value / 1000 if abs(value) > _MILLISECONDS else value
    try:
        return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        raise MetadataError(f"not a date: {value!r} (a Unix timestamp out of range)") from None


def _parse_text_date(text: str) -> dt.datetime:
    """A date written as text; dateutil fills a missing month or day with 1, a missing year is refused."""
    chinese = _CHINESE_DATE.match(text)
    if chinese:
        year, month, day = (int(g) if g else 1 for g in chinese.groups())
        return dt.datetime(year, month, day)
    if _TIMESTAMP.match(text):
        return _finite_timestamp(float(text))
    if _RFC_2822.match(text):
        try:
            return email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            pass  # dateutil below reads what the e-mail parser does not
    parsed = date_parser.parse(text, default=dt.datetime(2000, 1, 1))
    if parsed.year != date_parser.parse(text, default=dt.datetime(2001, 1, 1)).year:
        raise MetadataError(f"not a date: {text!r} has no year ({_DATE_HINT})")
    return parsed


def parse_date(value: Any) -> dt.datetime:
    """Parse a date or timestamp in any common format to an aware UTC datetime.

    Accepts ISO 8601 with or without time, zone or nanoseconds
    (`2023-11-27 08:45:59.000000000Z`, `2023-09-28T12:00:00+00:00`), RFC 2822
    (`Tue, 10 Jun 2003 04:00:00 GMT`), `05-Jul-2001`, `March 5, 2024` (`March 2024` is the 1st),
    `2024年3月5日`, YAML/Python date and datetime objects, Unix timestamps (numbers or digit
    strings; in seconds, or milliseconds when that large) and a bare year (`2023`, the number
    or the text) as 1 January. Naive times are taken as UTC.

    Raises:
        MetadataError: the value is not a date.
    """
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        parsed = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        parsed = dt.datetime(value, 1, 1)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        parsed = _finite_timestamp(value)
    elif isinstance(value, str) and value.strip():
        try:
            parsed = _parse_text_date(value.strip())
        except (ValueError, OverflowError) as exc:
            if isinstance(exc, MetadataError):
                raise
            raise MetadataError(f"not a date: {value!r} ({_DATE_HINT})") from exc
    else:
        raise MetadataError(f"not a date: {value!r} ({_DATE_HINT})")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.astimezone(dt.UTC)


class FieldMap:
    """Which document field feeds which field with a meaning: the default aliases, with a
    knowledge base's `fields:` mapping (field -> the documents' own names) replacing the
    aliases of each field it names. A field's exact name always feeds it, and wins.
    """

    def __init__(self, overrides: Mapping[str, Sequence[str]] | None = None) -> None:
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(MAPPABLE_FIELDS))
        if unknown:
            raise MetadataError(f"fields without a meaning: {', '.join(unknown)}; "
                                f"allowed: {', '.join(MAPPABLE_FIELDS)}")
        self.overrides = {name: tuple(sources) for name, sources in overrides.items()}
        self._table: dict[str, tuple[str, int]] = {}  # field_key(document field) -> (field, rank)
        for name in MAPPABLE_FIELDS:
            if name in self.overrides:
                continue
            for rank, alias in enumerate((name,) + DEFAULT_ALIASES.get(name, ())):
                self._table.setdefault(field_key(alias), (name, rank))
        for name, sources in self.overrides.items():
            for rank, source in enumerate(sources):
                self._table[field_key(source)] = (name, rank)

    def resolve(self, key: str) -> tuple[str, int] | None:
        """The field with a meaning a document field feeds and its rank (0 = the exact name,
        lower is preferred), or None for a field of the document's own."""
        if key in MEANINGFUL_FIELDS:
            return key, -1
        return self._table.get(field_key(key))


DEFAULT_FIELDS = FieldMap()


@dataclass
class Normalized:
    """A document's normalised metadata and what happened on the way.

    Attributes:
        metadata: the fields, normalised.
        warnings: values dropped (an unreadable date), each naming the field and the value.
        notes: choices made (an alias not used because the field itself is given).
        undated_date_fields: the document's own fields that hold a date but feed no date field.
    """

    metadata: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    undated_date_fields: list[str] = field(default_factory=list)


def _is_json_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _plain(value: Any, depth: int = 0) -> Any:
    """A value JSON can hold: dates as ISO text, mapping keys as text, sets and tuples as lists."""
    if depth > _MAX_DEPTH:
        raise MetadataError(f"nested more than {_MAX_DEPTH} levels")
    if isinstance(value, (dt.date, dt.datetime)):
        return parse_date(value).isoformat()
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(_plain(k, depth + 1)): _plain(v, depth + 1)
                for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if _is_json_scalar(value) else str(value)


def _own_field(value: Any) -> Any:
    """An unknown field's value: scalars and lists of them kept, dates as ISO, anything nested as JSON text."""
    plain = _plain(value)
    if _is_json_scalar(plain) or (isinstance(plain, list) and all(_is_json_scalar(v) for v in plain)):
        return plain
    return json.dumps(plain, ensure_ascii=False)


def _holds_date(value: Any) -> bool:
    return isinstance(value, (dt.date, dt.datetime)) or (isinstance(value, str) and bool(_ISO_PREFIX.match(value)))


def _clean_name(text: str) -> str:
    bare = _EMAIL.sub("", text).strip(" \t\"'")
    return " ".join(bare.split()) or text.strip()


def split_names(text: str) -> list[str]:
    """The names in one author string: 'A, B and C', 'A; B', 'A & B', 'A <a@x.org>', 'Jane Roe, Jr.'.

    E-mail addresses are dropped, 'et al.' too; a 'Jr.'/'PhD' part stays with the name before it.
    """
    names: list[str] = []
    for part in _NAME_SEPARATORS.split(_ET_AL.sub("", _EMAIL.sub("", text))):
        part = " ".join(part.split()).strip(" \t\"'")
        if not part:
            continue
        if names and _NAME_SUFFIX.match(part):
            names[-1] = f"{names[-1]}, {part}"
        else:
            names.append(part)
    return names or ([_clean_name(text)] if text.strip() else [])


def _object_name(value: dict) -> str | None:
    """The name in an author object: {name: ..., email: ...}, {given: ..., family: ...}."""
    keyed = {field_key(str(k)): v for k, v in value.items()}
    for key in _NAME_KEYS:
        if isinstance(keyed.get(key), str) and keyed[key].strip():
            return _clean_name(keyed[key])
    parts = [keyed.get(k) for k in ("given", "givenname", "firstname", "first", "family", "familyname",
                                    "lastname", "last")]
    joined = " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())
    return joined or None


def _authors(value: Any) -> list[str]:
    """Author names from a string ('A, B' or 'A and B'), a list of names, or objects ({name, email})."""
    if isinstance(value, str):
        return split_names(value)
    if isinstance(value, dict):
        name = _object_name(value)
        return [name] if name else []
    if isinstance(value, (list, tuple)):
        names: list[str] = []
        for item in value:
            if isinstance(item, dict):
                name = _object_name(item)
            elif isinstance(item, str) or (_is_json_scalar(item) and item is not None):
                name = _clean_name(str(item)) if str(item).strip() else None
            else:
                name = None
            if name:
                names.append(name)
        return names
    return [str(_plain(value))] if _is_json_scalar(value) else []


def _tags(value: Any) -> list[str]:
    """Tags from a comma-separated string, a list of strings (or of objects with a name), or one object."""
    items = [t for t in re.split(r"\s*[,，、]\s*", value)] if isinstance(value, str) else (
        list(value) if isinstance(value, (list, tuple, set)) else [value])
    tags: list[str] = []
    for item in items:
        if isinstance(item, dict):
            keyed = {field_key(str(k)): v for k, v in item.items()}
            name = next((keyed[k] for k in _TAG_KEYS if isinstance(keyed.get(k), str)), None)
            item = name if name is not None else json.dumps(_plain(item), ensure_ascii=False)
        text = str(_plain(item)).strip() if item is not None else ""
        if text:
            tags.append(text)
    return tags


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _meaningful(name: str, value: Any) -> Any:
    """The normalised value of a field with a meaning, or None when nothing usable is in it.

    Raises:
        MetadataError: naming the field, what it holds and what it should hold.
    """
    if name in DATE_FIELDS:
        return parse_date(value).isoformat()
    if name == "authority":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) \
                or not str(value).strip().isdigit() or not 1 <= int(value) <= 5:
            raise MetadataError(f"field 'authority' must be an integer 1-5, got {value!r}")
        return int(value)
    if name == "acl":
        groups = [value] if isinstance(value, str) else value
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise MetadataError(f"field 'acl' must be a list of group names, got {value!r}")
        return sorted({g.strip() for g in groups if g.strip()})
    if name == "author":
        return _unique(_authors(value)) or None
    if name == "tags":
        return _unique(_tags(value)) or None
    if name in TEXT_FIELDS:
        if isinstance(value, (dt.date, dt.datetime)):
            value = value.isoformat()
        if not _is_json_scalar(value):
            raise MetadataError(f"field '{name}' must be text, got {type(value).__name__}")
        text = str(value).strip()
        return text.lower().replace(" ", "_") if name in LOWERCASE_FIELDS else text
    # page
    return value if _is_json_scalar(value) else str(value)


def _has_content(value: Any) -> bool:
    """False for '', whitespace, [] and {}: a template's empty field, dropped without a warning."""
    if isinstance(value, str):
        return bool(value.strip())
    return bool(value) if isinstance(value, (list, dict)) else True


def _named(name: str, key: str) -> str:
    return f"field '{name}'" if key == name else f"field '{name}' (from '{key}')"


def normalize(raw: Any, fields: FieldMap | None = None) -> Normalized:
    """Check and normalise a document's metadata mapping, reading each field by its meaning.

    Args:
        raw: the metadata as the document carries it (a mapping, or None).
        fields: which document field feeds which field with a meaning (default: the aliases).

    Returns:
        Normalized: dates as ISO strings (`2023-11-27T08:45:59+00:00`), authority an int 1-5,
        acl a sorted list of group names, author a list of names, tags a list of strings,
        status/doc_type/language lower case, other fields kept; with warnings and notes.

    Raises:
        MetadataError: a value that no document may carry (authority 9, an acl object, a
            nested source): naming the field, what it holds and what it should hold.
    """
    result = Normalized()
    if raw is None:
        return result
    if not isinstance(raw, dict):
        raise MetadataError(f"metadata must be an object of fields, got {type(raw).__name__}")
    fields = fields or DEFAULT_FIELDS
    candidates: dict[str, list[tuple[int, int, str, Any]]] = {}
    own: dict[str, Any] = {}
    for order, (key, value) in enumerate(raw.items()):
        if not isinstance(key, str):
            raise MetadataError(f"metadata keys must be strings, got {key!r}")
        if value is None:
            continue
        target = fields.resolve(key)
        if target is None:
            own[key] = value
        else:
            candidates.setdefault(target[0], []).append((target[1], order, key, value))
    out = result.metadata
    for name, given in candidates.items():
        winner: str | None = None
        for _rank, _order, key, value in sorted(given, key=lambda c: (c[0], c[1])):
            if winner is not None:
                result.notes.append(f"'{key}' not read as {name}: the document gives it as '{winner}' "
                                    f"(kept as field '{key}')")
                own[key] = value
                continue
            try:
                normalised = _meaningful(name, value)
            except MetadataError as exc:
                if name not in DATE_FIELDS:
                    raise MetadataError(str(exc) if key == name else f"{exc} (given as '{key}')") from None
                result.warnings.append(f"{_named(name, key)}: {exc}; dropped (the document is ingested without it)")
                continue
            if normalised is None:
                if _has_content(value):
                    result.warnings.append(f"{_named(name, key)}: nothing usable in {value!r}; dropped")
                continue
            out[name], winner = normalised, key
    for key, value in own.items():
        try:
            out[key] = _own_field(value)
        except (MetadataError, RecursionError, ValueError) as exc:
            result.warnings.append(f"field '{key}': cannot be kept ({exc}); dropped")
            continue
        if _holds_date(value):
            result.undated_date_fields.append(key)
    return result


def normalize_metadata(raw: Any, fields: FieldMap | None = None) -> dict[str, Any]:
    """The normalised metadata alone (see `normalize`; its warnings and notes are dropped).

    Raises:
        MetadataError: naming the field, what it holds and what it should hold.
    """
    return normalize(raw, fields).metadata


def document_date(metadata: dict[str, Any]) -> dt.date | None:
    """The date a document is filtered and aged by (published, else updated, else effective)."""
    for key in DOCUMENT_DATE_FIELDS:
        if key in metadata:
            return dt.datetime.fromisoformat(metadata[key]).date()
    return None
