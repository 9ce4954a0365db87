"""Whether a statement is negated: the reader behind a yes/no answer's verdict.

A sentence is read clause by clause (commas, semicolons, "but"; "，；但是" in Chinese), because a
negation speaks for its own clause: in "If you do not pass --retry-lock, restic fails at once."
the negation is in the condition and the statement ("restic fails at once") is affirmed. The
caller picks the clause that carries the question's terms (`clauses`) and asks `negation_cue` of
it; `shift_cue` finds what keeps an affirmed statement from saying yes ("was moved to a plugin").
Code spans are not read: `--no-root` is a flag's name, not a negation.

What counts as a negation: English "not", "n't", "no" (a determiner: "no built-in way"),
"never", "cannot", "none", "neither", "nor", "no longer"; Chinese 不/没/没有/无/未/非/别 and the
words made of them (不支持, 无法, 并非), less the words that only start with one (不同 "different",
未来 "future", 非常 "very", 无论 "whatever", 不得不 "have to").
"""

from __future__ import annotations

import re

# inline code and flags are names, not prose
_CODE = re.compile(r"`[^`]*`|(?<![\w-])--?[\w][\w.-]*")
_CLAUSE_BREAK = re.compile(r"\s*[,;:()]\s+|\s*[;:]\s*|\s+(?:but|however|whereas|although|though|except)\s+"
                           r"|[，；：（）]|但是|但|然而|不过|可是", re.I)
# conditions and concessions set the scene; the statement is the other clause
SUBORDINATE = re.compile(r"^(?:if|unless|when|whenever|once|while|because|since|as long as|even if)\b"
                         r"|^(?:如果|若|假如|当|除非|因为|即使)", re.I)
_EN_NOT_NEGATIONS = re.compile(r"\bnot only\b|\bwhether or not\b|\bno matter\b|\bif not\b|\bno sooner\b", re.I)
_EN_NEGATION = re.compile(r"\b(?:not|never|cannot|none|neither|nor|no longer|no)\b|\w+n['’]t\b", re.I)
_ZH_NOT_NEGATIONS = re.compile(r"不同|不断|不仅|不但|不少|不久|不错|不得不|差不多|不管|无论|非常|未来|非洲|无线|"
                               r"不过|无限|除非|是否|能否|可否|与否")
_ZH_NEGATION = re.compile(r"不|没有|没|无|未|非|别|并非")
# Words that say a thing changed or holds only in part ("The shell command was moved to a plugin",
# "look up packages only from the configured sources"): a statement carrying one, without a
# negation, neither affirms nor denies a yes/no question on it.
_EN_SHIFT = re.compile(r"\b(?:only|exclusively|instead|moved|removed|deprecated|replaced|renamed|rather than|"
                       r"except|unless|no longer|anymore|but)\b", re.I)
_ZH_SHIFT = re.compile(r"只|仅|改为|改成|移到|移至|取代|替代|弃用|废弃|除了")


def clauses(text: str) -> list[str]:
    """The clauses of a sentence, in order, code spans blanked (never empty for non-empty text)."""
    prose = _CODE.sub(" ", text)
    parts = [p.strip() for p in _CLAUSE_BREAK.split(prose) if p and p.strip()]
    return parts or ([prose.strip()] if prose.strip() else [])


def negation_cue(clause: str) -> str:
    """The first word that negates the clause ("not", "doesn't", 不), or "" when it is affirmed.
    Negations do not cancel: "No, it does not." repeats one far more often than a clause
    negates a negation."""
    english = _EN_NOT_NEGATIONS.sub(" ", clause)
    cues = [m.group(0) for m in _EN_NEGATION.finditer(english)]
    chinese = _ZH_NOT_NEGATIONS.sub(" ", clause)
    cues += [m.group(0) for m in _ZH_NEGATION.finditer(chinese)]
    return cues[0] if cues else ""


def shift_cue(text: str) -> str:
    """The first word that says the statement changed or holds only in part ("moved", "only",
    "instead", 仅), or "": such a statement, unless it negates, does not say yes."""
    prose = _CODE.sub(" ", text)
    match = _EN_SHIFT.search(prose) or _ZH_SHIFT.search(prose)
    return match.group(0) if match else ""
