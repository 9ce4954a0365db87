"""Follow-up questions in a conversation: carry the previous turn's subject, topic and constraints.

A chat sends the whole conversation; "and the 737 MAX 8?" after "What is the fuel burn of the
A320neo in 2023?" means "What is the fuel burn of the 737 MAX 8 in 2023?". This module turns
such a turn into a standalone question, deterministically: the previous user turns are
perceived again (same `now`, same agent), and the resolved question is perceived like any other.
Assistant and system messages are not read.

The rule (each part is tested in tests/perception/test_followup.py):

1. Opener. A turn that starts with a follow-up opener is a follow-up candidate: English "and",
   "also", "what about", "how about", "what of", "same for" (case-insensitive, a whole word);
   Chinese 那 / 那么 / 还有 / 另外 / 如果是 / 换成 at the start, or 呢 at the end ("B737呢？").
   The opener is stripped before the turn is perceived on its own.
2. Short. Without an opener, a turn is a candidate when it is short (at most SHORT_WORDS words;
   Chinese: at most SHORT_ZH_UNITS Chinese characters, a Latin word or a number counting as
   one), has no action and no topic of its own (no
   glossary term, no keyword beyond the names it mentions) and names something: a subject
   (a code, product, organisation, ...) or a constraint (a time, status, document type, source).
   "the 737 MAX 8?" and "2024?" are; "thanks" and "What triggers E4027?" are not.
3. Carry-over, for a candidate whose previous user turn has something to carry: an entity, a
   constraint or at least two keywords (a greeting or a thanks has none of them):
   - no topic of its own (a bare "and the 737 MAX 8?", "what about last year?"): the previous
     question is asked again with the turn's subjects put in place of the previous subjects
     (one for one; fewer replace the last ones) and its time phrase in place of the previous
     one; what it does not name (topic, time, status, ...) is carried as it was.
   - a topic of its own ("and its maintenance intervals?"): the turn is kept, and only when it
     names no subject are the previous subjects added, with the previous constraints it
     does not state (time, status, document type, source).
   A candidate that takes nothing over (it names its own subject and topic) is a new question.
4. Chains: turns are resolved oldest first, each against the resolved previous turn, so a
   third "and the A350?" still carries the first turn's topic. At most MAX_TURNS previous user
   turns are read.

Subjects are entities other than glossary terms (TERM, the topic) and sources (a constraint);
entities separated by spaces only form one mention ("Boeing 737 MAX 8").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, Protocol

from perception.types import Perception

SHORT_WORDS = 6
SHORT_ZH_UNITS = 10
MAX_TURNS = 4
TOPIC_LABELS = frozenset({"TERM"})
CONSTRAINT_LABELS = frozenset({"SOURCE"})

EN_OPENER = re.compile(r"^\s*(?:and\s+what\s+about|and\s+how\s+about|what\s+about|how\s+about|what\s+of|"
                       r"same\s+(?:question\s+)?for|and\s+also|and|also)\b[\s,:]*", re.IGNORECASE)
ZH_OPENER = re.compile(r"^\s*(?:那么|那如果|如果是|换成|还有|另外|那(?![个些里儿种样边时]))[\s,，:：]*")
ZH_CLOSER = re.compile(r"[\s]*呢(?=[\s?？!！。.]*$)")
TRAILING = re.compile(r"[\s?？!！。.]*$")
HAN = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


class Perceiver(Protocol):
    """What the rule needs of the Perception agent."""

    def run(self, query: str, now: date) -> Perception: ...


@dataclass(frozen=True)
class FollowUp:
    """How one turn was read as a follow-up of an earlier one (the trace shows it).

    Attributes:
        query: the turn as the user wrote it.
        resolved: the standalone question perceived instead.
        from_turn: the user turn it carries from (1-based, counting user messages only).
        base: that turn's question (itself resolved when it was a follow-up).
        trigger: why it is a follow-up ("opener 'and'", "short, no topic of its own").
        carried: what was taken over: subjects, topic, time, status, doc_type, source.
        replaced: previous subject or time text -> the turn's.
    """

    query: str
    resolved: str
    from_turn: int
    base: str
    trigger: str
    carried: dict[str, Any] = field(default_factory=dict)
    replaced: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as the trace operation's params."""
        return {"query": self.query, "resolved": self.resolved, "from_turn": self.from_turn, "base": self.base,
                "trigger": self.trigger, "carried": dict(self.carried), "replaced": dict(self.replaced)}

    @property
    def reason(self) -> str:
        """One sentence for a person reading the trace."""
        parts = [f"{key} {', '.join(map(str, v)) if isinstance(v, list) else v}" for key, v in self.carried.items()]
        swapped = "; ".join(f"{old} -> {new}" for old, new in self.replaced.items())
        return (f"follow-up ({self.trigger}) of user turn {self.from_turn}: carried {'; '.join(parts) or 'nothing'}"
                + (f"; replaced {swapped}" if swapped else "") + f"; read as {self.resolved!r}")


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    text: str


def strip_opener(text: str) -> tuple[str, str | None]:
    """(the turn without its follow-up opener, the opener) or (text, None) when it has none."""
    for pattern in (EN_OPENER, ZH_OPENER):
        match = pattern.match(text)
        if match and match.end() < len(text.rstrip()):
            return text[match.end():], match.group(0).strip(" ,，:：")
    closer = ZH_CLOSER.search(text)
    if closer:
        return text[:closer.start()] + text[closer.end():], "呢"
    return text, None


def is_short(text: str) -> bool:
    """At most SHORT_WORDS words; with Chinese, at most SHORT_ZH_UNITS characters and Latin words or numbers."""
    if HAN.search(text):
        return len(HAN.findall(text)) + len(WORD.findall(text)) <= SHORT_ZH_UNITS
    return len(WORD.findall(text)) <= SHORT_WORDS


def subject_mentions(p: Perception) -> list[_Mention]:
    """The subjects a query names, entities separated only by spaces joined into one mention."""
    out: list[_Mention] = []
    for e in sorted((e for e in p.entities if e.label not in TOPIC_LABELS | CONSTRAINT_LABELS),
                    key=lambda e: e.span):
        start, end = e.span
        if out and out[-1].end <= start and not p.query[out[-1].end:start].strip():
            out[-1] = _Mention(out[-1].start, end, p.query[out[-1].start:end])
        elif not out or start >= out[-1].end:
            out.append(_Mention(start, end, p.query[start:end]))
    return out


def time_mentions(p: Perception) -> list[_Mention]:
    """The time phrases Perception understood, as spans of the query."""
    return [_Mention(n["span"][0], n["span"][1], p.query[n["span"][0]:n["span"][1]]) for n in p.notes
            if str(n.get("rule", "")).startswith("time.") and n.get("rule") != "time.not_understood"
            and n.get("span") and isinstance(n.get("produced"), dict)]


def has_own_action(p: Perception) -> bool:
    """True unless the action is the default one (no action rule fired)."""
    return not any(n.get("rule") == "action.default" for n in p.notes)


def own_topic(p: Perception) -> list[str]:
    """The turn's topic: glossary terms and keywords that are neither a name it mentions nor a constraint word."""
    names = [e.text.lower() for e in p.entities if e.label not in TOPIC_LABELS]
    names += [e.normalized.lower() for e in p.entities if e.label not in TOPIC_LABELS]
    names += [str(n.get("text", "")).lower() for n in p.notes  # status and doc type words are constraints
              if str(n.get("rule", "")).startswith(("status.", "doc_type.")) and n.get("text")]
    terms = [e.text for e in p.entities if e.label in TOPIC_LABELS]
    words = [k for k in p.keywords if not any(k.lower() in name or name in k.lower() for name in names)
             and not any(k.lower() in t.lower() for t in terms)]
    return terms + words


def _has_constraint(p: Perception) -> bool:
    c = p.constraints
    return bool(c.time or c.status or c.doc_type or c.source)


def _splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, new) edit applied, right to left."""
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _append(text: str, added: list[str], zh: bool, bracket: bool) -> str:
    """`text` with `added` put before its closing punctuation (in brackets when asked)."""
    if not added:
        return text
    tail = TRAILING.search(text)
    core, punct = (text[:tail.start()], tail.group(0).strip()) if tail else (text, "")
    if bracket:
        extra = f"（{'，'.join(added)}）" if zh else f" ({', '.join(added)})"
    else:
        extra = ("" if zh else " ") + (" and " if not zh else "和").join(added)
    return core + extra + punct


def _join(texts: list[str], zh: bool) -> str:
    return ("和" if zh else " and ").join(texts)


def resolve_turn(agent: Perceiver, query: str, previous: str, from_turn: int,
                 now: date) -> FollowUp | None:
    """Read `query` against the (resolved) previous user turn; None when it is a question of its own.

    Args:
        agent: the Perception agent.
        query: this turn's text.
        previous: the previous user turn, already resolved.
        from_turn: that turn's 1-based number among the user turns.
        now: the reference date (the request's).
    """
    stripped, opener = strip_opener(query)
    cur = agent.run(stripped, now)
    cur_subjects, cur_times = subject_mentions(cur), time_mentions(cur)
    topic = own_topic(cur)
    if opener is not None:
        trigger = f"opener {opener!r}"
    elif (is_short(stripped) and not topic and not has_own_action(cur)
          and (cur_subjects or _has_constraint(cur))):
        trigger = "short, no topic of its own"
    else:
        return None
    prev = agent.run(previous, now)
    if not (prev.entities or _has_constraint(prev) or len(prev.keywords) >= 2):
        return None
    zh = cur.language == "zh" or prev.language == "zh"
    prev_subjects, prev_times = subject_mentions(prev), time_mentions(prev)
    carried: dict[str, Any] = {}
    replaced: dict[str, str] = {}
    if not topic and not has_own_action(cur):
        # the previous question again, with this turn's subjects and time in place of its own
        edits: list[tuple[int, int, str]] = []
        appended: list[str] = []
        news = [m.text for m in cur_subjects]
        if news and prev_subjects:
            targets = prev_subjects[-len(news):] if len(news) <= len(prev_subjects) else prev_subjects
            fill = news if len(news) <= len(prev_subjects) else news[:len(targets) - 1] + [
                _join(news[len(targets) - 1:], zh)]
            for target, new in zip(targets, fill, strict=True):
                edits.append((target.start, target.end, new))
                replaced[target.text] = new
        elif news:
            appended.append(_join(news, zh))
        kept = [m.text for m in prev_subjects if m.text not in replaced]
        if kept:
            carried["subjects"] = kept
        if cur_times:
            new_time = cur.query[cur_times[0].start:cur_times[-1].end]
            if prev_times:
                edits.append((prev_times[0].start, prev_times[0].end, new_time))
                edits += [(m.start, m.end, "") for m in prev_times[1:]]
                replaced[prev.query[prev_times[0].start:prev_times[-1].end]] = new_time
            else:
                appended.append(new_time)
        elif prev.constraints.time:
            carried["time"] = prev.constraints.time.text
        carried["topic"] = own_topic(prev) or [k for k in prev.keywords]
        resolved = _append(_splice(prev.query, edits), appended, zh, bracket=False)
        resolved = re.sub(r"[ \t]{2,}", " ", resolved)
    else:
        # a topic of its own: add the previous subjects (and constraints) it does not name
        if cur_subjects:
            return None
        added = [m.text for m in prev_subjects]
        if added:
            carried["subjects"] = list(added)
        if not cur_times and prev_times:
            added.append(prev.query[prev_times[0].start:prev_times[-1].end])
            carried["time"] = added[-1]
        if not added:
            return None
        resolved = _append(stripped.strip(), added, zh, bracket=True)
    for key in ("status", "doc_type", "source"):
        if not getattr(cur.constraints, key) and getattr(prev.constraints, key):
            carried[key] = list(getattr(prev.constraints, key))
    return FollowUp(query=query, resolved=resolved, from_turn=from_turn, base=previous, trigger=trigger,
                    carried=carried, replaced=replaced)


def resolve(agent: Perceiver, query: str, history: Sequence[str], now: date
            ) -> tuple[Perception, FollowUp | None]:
    """The Perception of a conversation's last user turn, and how it was read as a follow-up (or None).

    Args:
        agent: the Perception agent.
        query: the last user turn (the question to answer).
        history: the earlier user turns, oldest first (only the last MAX_TURNS are read).
        now: the reference date of the request.
    """
    turns = [t for t in history if isinstance(t, str) and t.strip()][-MAX_TURNS:]
    offset = len([t for t in history if isinstance(t, str) and t.strip()]) - len(turns)
    resolved: list[str] = []
    for index, turn in enumerate(turns):
        earlier = resolve_turn(agent, turn, resolved[-1], offset + index, now) if resolved else None
        resolved.append(earlier.resolved if earlier else turn)
    followup = resolve_turn(agent, query, resolved[-1], offset + len(turns), now) if resolved else None
    if followup is None:
        return agent.run(query, now), None
    p = agent.run(followup.resolved, now)
    current = agent.run(strip_opener(query)[0], now).constraints
    lists: dict[str, list[str]] = {}
    for key in ("status", "doc_type", "source"):  # what this turn states wins over what was carried
        if getattr(current, key):
            lists[key] = list(getattr(current, key))
        elif key in followup.carried and not getattr(p.constraints, key):
            lists[key] = list(followup.carried[key])
    constraints = replace(p.constraints, status=lists.get("status", p.constraints.status),
                          doc_type=lists.get("doc_type", p.constraints.doc_type),
                          source=lists.get("source", p.constraints.source))
    note = {"rule": "followup", "text": query, "produced": followup.to_dict()}
    return replace(p, constraints=constraints, notes=[note, *p.notes]), followup

