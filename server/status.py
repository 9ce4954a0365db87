"""The response status (answered / partial / insufficient) and the texts that go with it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.text import strip_markers
from orchestration.types import Answer, Plan
from perception.types import Perception
from validation.types import Verdict

from .sanitize import allowed_hosts, sanitize_answer

SUBSTANTIVE = ("fact", "relation")
# issue kinds that leave nothing worth stating: the answer is refused, with the reason
REFUSING = ("no_evidence", "unanswered")

INSUFFICIENT = {
    "en": "Insufficient information: the knowledge base does not hold an answer to this question.",
    "zh": "信息不足：知识库中没有可以回答这个问题的内容。",
}
SEARCHED = {"en": "Searched", "zh": "已检索"}
NOTHING_SEARCHED = {"en": "No knowledge base was searched.", "zh": "没有检索任何知识库。"}
UNVERIFIED = {"en": "unverified", "zh": "未核实"}
NOTE = {"en": "Note", "zh": "注意"}
WHY = {"en": "Why", "zh": "原因"}
PUNCTUATION = {"en": (" ", ": ", "."), "zh": ("", "：", "。")}  # between sentences, after a label, at the end
LIST_SEPARATOR = {"en": "; ", "zh": "；"}
OUTDATED = {"en": "the documents on this are outside the allowed age or time window",
            "zh": "相关文件超出了允许的时效或时间范围"}
AGE_KINDS = ("too_old", "outside_window")
UNAVAILABLE = {"en": "Knowledge base {names} could not be searched: {why}.",
               "zh": "知识库 {names} 暂时无法检索：{why}。"}
# what a caller is told of a KB left out (the operator reads the file and the fix at /readyz)
UNAVAILABLE_WHY = {"en": "its index cannot be read now (missing, damaged or being replaced); the others were searched",
                   "zh": "其索引目前无法读取（缺失、损坏或正在替换）；已检索其他知识库"}
LEFT_OUT = {"en": "Left out {n} statement{s} the cited sources do not support ({kinds}).",
            "zh": "已略去 {n} 条引用来源不支持的陈述（{kinds}）。"}
WRITTEN_BY_MODEL = ("llm",)  # composers whose text is their own words, not quotes of the evidence
_SPACES = re.compile(r"[ \t]{2,}")


def _lang(language: str) -> str:
    return language if language in INSUFFICIENT else "en"


def flagged_claims(verdict: Verdict) -> set[int]:
    """Indexes of claims some issue points at."""
    return {i.claim for i in verdict.issues if i.claim is not None}


def final_status(answer: Answer, verdict: Verdict) -> str:
    """answered: validated; partial: some supported claims, issues flagged; insufficient: none."""
    substantive = [k for k, c in enumerate(answer.claims) if c.kind in SUBSTANTIVE]
    if not substantive or any(i.kind in REFUSING for i in verdict.issues):
        return "insufficient"
    if verdict.ok:
        return "answered"
    flagged = flagged_claims(verdict)
    return "partial" if any(k not in flagged for k in substantive) else "insufficient"


def unavailable_note(names: Sequence[str], language: str) -> str:
    """The line an answer ends with when knowledge bases of its plan could not be searched."""
    lang = _lang(language)
    listed = LIST_SEPARATOR[lang].join(f"'{n}'" for n in names)
    return f"{NOTE[lang]}{PUNCTUATION[lang][1]}" + UNAVAILABLE[lang].format(names=listed, why=UNAVAILABLE_WHY[lang])


def rejected_by_validation(answer: Answer, verdict: Verdict) -> bool:
    """The answer stated something (a fact or a relation) and validation left none of it standing:
    what a composer may replace (`instead_of`); an answer that stated nothing refused by itself."""
    return any(c.kind in SUBSTANTIVE for c in answer.claims) and final_status(answer, verdict) == "insufficient"


def _describe_task(task) -> str:
    filters = task.filters.to_dict()
    extra = ", ".join(f"{k}={v if not isinstance(v, list) else '/'.join(v)}" for k, v in filters.items())
    return f"{task.kb} ({task.search}: \"{task.query}\"{', ' + extra if extra else ''})"


def insufficient_text(perception: Perception, plan: Plan, verdict: Verdict | None = None,
                      attempts: Sequence[Verdict] = ()) -> str:
    """A plain statement, in the query's language, that the KB does not answer, why (the refusing
    finding's reason, written in that language: validation/reasons.py) and what was searched.

    Why: when an attempt's answer (`attempts`: every attempt's verdict, the final one
    included) was on the question and was set aside only for its sources' age or date, that is
    the reason ("the documents on this are outside the allowed age or window: ..."); else the
    refusing issue's detail (what was missing, the closest text found)."""
    lang = _lang(perception.language)
    reasons = [i.text(lang) for i in verdict.issues if i.kind in REFUSING] if verdict is not None else []
    dated = _set_aside_for_age(attempts, lang)
    if dated:
        reasons = [OUTDATED[lang] + PUNCTUATION[lang][1] + LIST_SEPARATOR[lang].join(dated)]
    space, colon, stop = PUNCTUATION[lang]
    why = f"{space}{WHY[lang]}{colon}{reasons[0]}{stop}" if reasons else ""
    if not plan.tasks:
        return f"{INSUFFICIENT[lang]}{why}{space}{NOTHING_SEARCHED[lang]}"
    searched = "; ".join(_describe_task(t) for t in plan.tasks)
    return f"{INSUFFICIENT[lang]}{why}{space}{SEARCHED[lang]}{colon}{searched}{stop}"


def _set_aside_for_age(attempts: Sequence[Verdict], lang: str) -> list[str]:
    """What the age/window issues of the first attempt that answered the question say, in `lang`."""
    for verdict in attempts:
        kinds = {i.kind for i in verdict.issues}
        if kinds & set(REFUSING):
            continue
        dated = [i.text(lang) for i in verdict.issues if i.kind in AGE_KINDS]
        if dated:
            return list(dict.fromkeys(dated))[:2]
    return []


def flag_issues(answer: Answer, verdict: Verdict, language: str) -> str:
    """The answer text with every claim that has an unresolved issue dealt with, and the rest listed.

    Promises: an extractive answer quotes its documents, so a claim with an issue stays, marked
    in place ("[unverified: kind]"). A model's answer (composer in WRITTEN_BY_MODEL) shows only
    what validation supports: a claim with an issue is left out, a note says how many were and
    why, and no listed issue detail quotes a left-out claim (the trace keeps them all).
    """
    if answer.composer in WRITTEN_BY_MODEL:
        return _leave_out_issues(answer, verdict, _lang(language))
    lang = _lang(language)
    text = answer.text
    by_claim = _kinds_by_claim(answer, verdict)
    general = [i.text(lang) for i in verdict.issues if i.claim is None or i.claim >= len(answer.claims)]
    for index, kinds in sorted(by_claim.items()):
        claim = answer.claims[index].text
        marker = f" [{UNVERIFIED[lang]}: {', '.join(dict.fromkeys(kinds))}]"
        if claim in text:
            text = text.replace(claim, claim + marker, 1)
    if general:
        text += f"\n\n{NOTE[lang]}{PUNCTUATION[lang][1]}" + PUNCTUATION[lang][0].join(dict.fromkeys(general))
    return text


def _kinds_by_claim(answer: Answer, verdict: Verdict) -> dict[int, list[str]]:
    """The issue kinds of each claim some issue points at, by the claim's index."""
    by_claim: dict[int, list[str]] = {}
    for issue in verdict.issues:
        if issue.claim is not None and issue.claim < len(answer.claims):
            by_claim.setdefault(issue.claim, []).append(issue.kind)
    return by_claim


def _leave_out_issues(answer: Answer, verdict: Verdict, lang: str) -> str:
    """A model's answer without its claims that have an issue, with a note saying so."""
    by_claim = _kinds_by_claim(answer, verdict)
    text = answer.text
    left_out = [answer.claims[index].text for index in sorted(by_claim)]
    for claim in left_out:
        text = text.replace(claim, "", 1)
    paragraphs = [_SPACES.sub(" ", p).strip() for p in text.split("\n\n")]
    text = "\n\n".join(p for p in paragraphs if p)
    notes: list[str] = []
    if left_out:
        kinds = ", ".join(dict.fromkeys(k for kinds in by_claim.values() for k in kinds))
        n = len(left_out)
        notes.append(LEFT_OUT[lang].format(n=n, s="" if n == 1 else "s", kinds=kinds))
    quoted = [strip_markers(c).strip() for c in left_out]
    notes += [i.text(lang) for i in verdict.issues if (i.claim is None or i.claim >= len(answer.claims))
              and not any(q and q[:40] in i.detail for q in quoted)]
    if notes:
        text += f"\n\n{NOTE[lang]}{PUNCTUATION[lang][1]}" + PUNCTUATION[lang][0].join(dict.fromkeys(notes))
    return text


def shown_claims(answer: Answer, verdict: Verdict) -> list[dict]:
    """The answer's claims as a response shows them: a model's claim that validation rejected
    has its text withheld (`text: null`, `withheld`: the issue kinds); every shown text is
    sanitised for Markdown renderers as the answer is (server/sanitize.py)."""
    hosts = allowed_hosts(c.url for c in answer.citations)
    by_model = answer.composer in WRITTEN_BY_MODEL
    rejected = _kinds_by_claim(answer, verdict) if by_model else {}
    shown = []
    for index, claim in enumerate(answer.claims):
        body = claim.to_dict()
        if index in rejected:
            body.update(text=None, withheld=sorted(set(rejected[index])))
        else:
            body["text"] = sanitize_answer(claim.text, hosts, quotes_documents=not by_model)
        shown.append(body)
    return shown


def shown_text(answer: Answer, verdict: Verdict) -> str:
    """An attempt's answer as the response's attempts show it: a model's answer keeps only what
    validation supported (as `flag_issues` leaves it), and every text is sanitised."""
    by_model = answer.composer in WRITTEN_BY_MODEL
    text = _leave_out_issues(answer, verdict, "en") if by_model else answer.text
    return sanitize_answer(text, allowed_hosts(c.url for c in answer.citations), quotes_documents=not by_model)
