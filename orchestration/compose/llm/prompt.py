"""The chat messages: the rules, the numbered evidence (source, date, status) and any feedback.

Promises: evidence chunk k (1-based, in evidence order) is shown as `[k]`, the numbers the
model must cite; the same inputs give the same messages (no clock, no randomness); feedback
names the previous attempt's cited chunks by source and quotes them, never by number.
"""

from __future__ import annotations

from collections.abc import Sequence

from orchestration.kb.metadata import document_date
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Feedback
from perception.types import Perception

CHUNK_CHARS = 1800  # a chunk is ~200 words; longer ones are cut here
REFUSAL = {"en": "The knowledge base does not say.", "zh": "知识库没有说明。"}

SYSTEM = """You answer questions from numbered evidence chunks, and from nothing else.
Rules:
1. Use only the evidence chunks. Never add a fact, number, date or name that no chunk states.
2. End every sentence that states a fact with the number of the chunk it comes from, such as [2] \
(or [1, 3] for two chunks). Cite only the chunk numbers shown.
3. Copy numbers, units and dates exactly as the chunk writes them.
4. A chunk whose status is draft, superseded or expired is not the current rule: never present \
it as current; say that it is a draft (or superseded) if you use it at all.
5. For a comparison, give each side's value with its citation, and say which is higher, lower, \
earlier or later only as those values show.
6. If the chunks do not answer the question, reply with exactly: {refusal}
7. Answer in the language of the question, in a few plain sentences. No headings, no list of \
sources: the citations are enough."""


def build_messages(perception: Perception, evidence: Sequence[ScoredChunk], feedback: Sequence[Feedback] = (),
                   excluded_claims: Sequence[str] = ()) -> list[dict[str, str]]:
    """The system and user messages for one call.

    Args:
        perception: the question (its text and language).
        evidence: the chunks, best first; chunk k is shown as [k].
        feedback: what validation found wrong with the previous attempt's claims.
        excluded_claims: statements an earlier attempt was refused for (not to be repeated).
    """
    language = perception.language if perception.language in REFUSAL else "en"
    system = SYSTEM.format(refusal=REFUSAL[language] if language == "en" else
                           f"{REFUSAL['zh']} (in English: {REFUSAL['en']})")
    parts = [f"Question: {perception.query}", "", "Evidence:"]
    parts += [_chunk_block(k, chunk) for k, chunk in enumerate(evidence, start=1)]
    if feedback:
        parts += ["", _feedback_block(feedback)]
    leftover = [c for c in excluded_claims if not any(f.claim == c for f in feedback)]
    if leftover:
        parts += ["", "Do not state these again, they were found unsupported earlier:"]
        parts += [f"- {claim}" for claim in leftover]
    parts += ["", "Answer the question from the evidence, citing [n] after every sentence."]
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n".join(parts)}]


def _chunk_block(k: int, chunk: ScoredChunk) -> str:
    """`[k] title (source: ..., date: ..., status: ...)` and the chunk's text."""
    meta = chunk.metadata or {}
    facts = [f"{key}: {value}" for key, value in (("source", meta.get("source")), ("date", _date(meta)),
                                                   ("status", meta.get("status"))) if value]
    head = f"[{k}] {chunk.title or meta.get('title') or chunk.chunk_id}"
    if facts:
        head += f" ({'; '.join(facts)})"
    text = chunk.text if len(chunk.text) <= CHUNK_CHARS else chunk.text[:CHUNK_CHARS].rstrip() + " ..."
    return f"{head}\n{text}\n"


def _date(meta: dict) -> str | None:
    try:
        day = document_date(meta)
    except (TypeError, ValueError):
        return None
    return day.isoformat() if day else None


def _feedback_block(feedback: Sequence[Feedback]) -> str:
    """The previous attempt's failed claims: the claim, the chunks it cited (quoted), what is wrong."""
    lines = ["Your previous answer was checked against the evidence, and these problems were found:"]
    for k, item in enumerate(feedback, start=1):
        lines.append(f"{k}. {('Claim: ' + repr_quote(item.claim)) if item.claim else 'The answer as a whole'}")
        for cited in item.cited:
            where = ", ".join(str(v) for v in (cited.get("source"), cited.get("title")) if v) or "a chunk"
            status = f" (status: {cited['status']})" if cited.get("status") else ""
            lines.append(f"   It cited {where}{status}: {repr_quote(cited.get('text') or '')}")
        lines.append(f"   Problem ({item.kind}): {item.problem}")
    lines.append("Write the whole answer again from the evidence above (it may have changed): correct each "
                 "failed claim from the evidence or leave it out; do not repeat it unchanged.")
    return "\n".join(lines)


def repr_quote(text: str, limit: int = 300) -> str:
    """Text in double quotes, cut at `limit` characters."""
    text = " ".join(text.split())
    return f"\"{text[:limit]}{'...' if len(text) > limit else ''}\""
