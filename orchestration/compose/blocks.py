"""An answer's claims laid out as Markdown text: quoted code as a fenced block on lines of its own.

Chat windows render an answer as Markdown (CommonMark). A fence opens a code block only at the
start of a line ("Use the following command: ```" opens none) and closes it only on a line of
its own (a closing fence with a marker after it, "``` [1]", closes nothing, so the block runs on
to the end of the reply and swallows what follows it, the Sources list included).

Promises:
- `code_block(code, n)` is the code as written between fences longer than any run of backticks
  in it, its citation marker on the line after the closing fence.
- `answer_text(sections)` joins each section's claims with a space into a paragraph, except that
  a code block is a paragraph of its own; paragraphs are apart by a blank line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orchestration.types import Claim

_BACKTICKS = re.compile(r"`+")
_OPENING_FENCE = re.compile(r"`{3,}\n")
MIN_FENCE = 3


def code_block(code: str, n: int) -> str:
    """The code as a fenced block cited [n]: the fence longer than any run of backticks in the
    code (so no line of it can close the block early), the marker on the line after the block."""
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(MIN_FENCE, longest + 1)
    return f"{fence}\n{code}\n{fence}\n[{n}]"


def is_code_block(text: str) -> bool:
    """True for a claim text that is a fenced code block (`code_block`)."""
    return _OPENING_FENCE.match(text) is not None


def answer_text(sections: Sequence[Sequence[Claim]]) -> str:
    """The answer text of the claims, section by section (see the module docstring)."""
    paragraphs: list[str] = []
    for section in sections:
        sentences: list[str] = []
        for claim in section:
            if not is_code_block(claim.text):
                sentences.append(claim.text)
                continue
            if sentences:
                paragraphs.append(" ".join(sentences))
                sentences = []
            paragraphs.append(claim.text)
        if sentences:
            paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs)
