"""Answer profiles: which composer answers, by name (the chat API's `model`, AskRequest.profile).

A chat client picks how Sightline answers by the model name it sends (GET /v1/models lists
them); `POST /rag` answers with the default profile. Retrieval, validation, access control and
the trace are the same for every profile.

| profile                | composer                                                                  |
|------------------------|---------------------------------------------------------------------------|
| `sightline` (default)  | the LLM when one is configured (SIGHTLINE_LLM_BASE_URL), else extractive  |
| `sightline-extractive` | always the extractive composer (deterministic, verbatim cited sentences)  |

An LLM answer that cannot be had (timeout, error, uncited reply) falls back to extractive.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import UnknownModel

COMPOSER_KINDS = ("auto", "extractive")
DEFAULT_PROFILE = "sightline"


@dataclass(frozen=True)
class Profile:
    """One answer profile.

    Attributes:
        name: what callers ask for (the chat API's `model`).
        composer: "auto" (the configured LLM, else extractive) or "extractive".
        description: a sentence for /v1/models and the docs.
    """

    name: str
    composer: str
    description: str


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile(DEFAULT_PROFILE, "auto", "The default answer profile: cited, validated answers from the knowledge "
            "bases; written by the configured LLM (SIGHTLINE_LLM_BASE_URL) with the extractive composer as "
            "fallback, or extractive when no LLM is configured."),
    Profile("sightline-extractive", "extractive", "Always the extractive composer: deterministic answers made of "
            "verbatim, cited sentences from the knowledge bases; no LLM."),
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
