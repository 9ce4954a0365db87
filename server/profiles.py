"""Answer profiles: the `model` names of the OpenAI-compatible API (GET /v1/models).

A chat client picks how Sightline answers by the model name it sends. Each profile is one
way of composing the answer; retrieval, validation, access control and the trace are the same
for all of them.

- `sightline` (the default): the default composer. Today that is the extractive composer;
  when an LLM is configured (`SIGHTLINE_LLM_BASE_URL`, issue 13 part 2) this profile answers
  with it and falls back to the extractive composer.
- `sightline-extractive`: always the extractive composer (deterministic, verbatim extracts).

`POST /rag` answers with the default profile. The profile travels as `AskRequest.profile`.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import UnknownModel

DEFAULT_PROFILE = "sightline"


@dataclass(frozen=True)
class Profile:
    """One answer profile: its model name and what it does, for a person choosing it."""

    name: str
    description: str


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile(DEFAULT_PROFILE, "The default answer profile: cited, validated answers from the knowledge bases; "
            "the extractive composer, or the configured LLM (SIGHTLINE_LLM_BASE_URL) with the extractive "
            "composer as fallback."),
    Profile("sightline-extractive", "Always the extractive composer: deterministic answers made of verbatim, "
            "cited sentences from the knowledge bases; no LLM."),
)}


def list_profiles() -> list[Profile]:
    """Every profile, the default first."""
    return list(PROFILES.values())


def get_profile(name: str) -> Profile:
    """The profile called `name`; UnknownModel (404) listing the known ones otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        shown = ascii(name[:60]) if len(name) > 60 else repr(name)
        raise UnknownModel(f"The model {shown} does not exist; known models: {', '.join(PROFILES)} "
                             "(GET /v1/models)", field="model") from None
