"""The words every layer shares: entity labels, document statuses and types, search types, issue kinds.

One definition each, so the router's config checks, Perception, the composer and the
validator cannot drift apart. Nothing here imports anything of ours.
"""

from __future__ import annotations

LANGUAGES = ("en", "zh")
ACTIONS = ("compare", "explain", "how_to", "list", "summarize", "lookup")

# --- entities ---------------------------------------------------------------------------
ENTITY_LABELS = ("CODE", "ORG", "PERSON", "PLACE", "PRODUCT", "SOURCE", "TERM", "QUOTED", "EVENT", "WORK")
# labels of a thing with a name: an aircraft, a code, a company, a person, a place, a work, an event
NAMED_LABELS = frozenset({"CODE", "PRODUCT", "ORG", "PERSON", "PLACE", "WORK", "EVENT"})
# what a question can be about: a named thing or a quoted phrase (comparison sides, per-entity
# tasks, the subjects evidence must mention); never a source (who said it) or a plain term
SUBJECT_LABELS = NAMED_LABELS | {"QUOTED"}
# names a sentence can mention that make it about the question: named things and sources
MENTION_LABELS = NAMED_LABELS | {"SOURCE"}

# --- documents --------------------------------------------------------------------------
STATUS_VALUES = ("effective", "draft", "superseded", "expired", "open", "closed")
STALE_STATUSES = ("draft", "superseded", "expired")  # left out unless the query asks for them
DOC_TYPE_VALUES = (
    "test_report", "regulation", "manual", "policy", "order", "ticket", "news", "report", "guide",
)

# --- retrieval --------------------------------------------------------------------------
SEARCH_TYPES = ("hybrid", "keyword", "vector")  # what a task may ask for
ARM_TYPES = ("keyword", "vector")               # what runs (hybrid = both, fused)

# --- validation -------------------------------------------------------------------------
# check -> the issue kinds it can report (the keys of the router's retry table)
# English month and weekday names, January / Monday first (dates in text, core.text.CALENDAR_WORD).
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# What kind of fact answers a query (perception/slots.py decides; validation checks it is filled).
SLOTS = ("relation", "procedure", "list", "duration", "amount", "number", "date", "actor", "place", "yes_no",
         "definition", "fact")

ISSUE_KINDS = {
    "citation": ("missing_citation", "invalid_citation", "unsupported_number", "unsupported_date",
                 "unsupported_term"),
    "freshness": ("outside_window", "stale_status", "too_old"),
    "comparison": ("missing_side", "wrong_direction", "unit_mismatch", "other_period", "other_variant"),
    "evidence": ("no_evidence",),
    "answerability": ("unanswered",),
    "conflict": ("conflicting_sources",),
}
ALL_ISSUE_KINDS = tuple(kind for kinds in ISSUE_KINDS.values() for kind in kinds)
