"""Building the AnswerLoop: configs read, knowledge bases opened, the three agents put together.

The one place that knows how the parts are wired. `POST /rag` (server.service), `sightline
ask`, `sightline eval` and the benchmarks all get their loop from `build_loop()`, so they run
the same composition; `AnswerLoop` itself only runs requests through the parts it is given.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from core.errors import ConfigError
from orchestration.compose.extractive import ExtractiveComposer
from orchestration.compose.llm import LLMComposer, LLMSettings
from orchestration.compose.ranker import LearnedRanker, LexicalRanker
from orchestration.executor import Executor
from orchestration.kb.config import KBConfig, load_kb_config
from orchestration.kb.registry import open_knowledge_bases
from orchestration.retrieval.embedder import get_embedder
from orchestration.retrieval.search import Retriever
from orchestration.router.config import RouterConfig, load_router_config
from orchestration.router.planner import Router
from perception import PerceptionAgent
from validation.agent import ValidationAgent

from .loop import AnswerLoop
from .profiles import PROFILES


def select_knowledge_bases(config: KBConfig, names: tuple[str, ...] | None) -> KBConfig:
    """The KB config restricted to `names` (None: all); ConfigError lists the configured ones."""
    if not names:
        return config
    unknown = [n for n in names if n not in config.knowledge_bases]
    if unknown:
        raise ConfigError(f"service setting knowledge_bases: unknown knowledge base '{unknown[0]}'; "
                          f"configured in {config.source}: {', '.join(sorted(config.knowledge_bases))}",
                          field="knowledge_bases")
    return replace(config, knowledge_bases={n: config.knowledge_bases[n] for n in names})


def limit_threads(workers: int) -> None:
    """One OpenMP thread per worker for FAISS when several workers share the cores.

    Set before FAISS is first used in the master: OpenMP pools created before fork() are not
    usable in the children (a known cause of hangs), and with one thread none is created. The
    embedders get their thread count from `embedder_threads` (set to 1 here by build_loop).
    """
    if workers <= 1:
        return
    try:
        import faiss

        faiss.omp_set_num_threads(1)
    except (ImportError, AttributeError):
        pass


ANSWER_MODEL_ENV = "SIGHTLINE_ANSWER_MODEL"


def answer_model_enabled() -> bool:
    """Whether the extractive composer's ranker is the learned one (orchestration/compose/ranker.py),
    which ranks and refuses with the answer model: SIGHTLINE_ANSWER_MODEL=1
    (off by default: on the PEPs and RGB it still refuses less than the rules, docs/ANSWER_MODEL.md).

    Raises:
        ConfigError: the variable holds something other than 0/1/true/false/on/off.
    """
    value = os.environ.get(ANSWER_MODEL_ENV, "").strip().lower()
    if value in ("", "0", "false", "off", "no"):
        return False
    if value in ("1", "true", "on", "yes"):
        return True
    raise ConfigError(f"{ANSWER_MODEL_ENV}={value!r}: use 1 to rank and refuse with the answer model, 0 to keep "
                      f"the lexical ranking and validation's rules")


def profile_composers(extractive: ExtractiveComposer, llm: LLMSettings | None
                      ) -> dict[str, ExtractiveComposer | LLMComposer]:
    """The profiles (server/profiles.py) not answered by the extractive composer, and their composer:
    "auto" profiles get the LLM when one is configured (its fallback is `extractive`)."""
    if llm is None:
        return {}
    generative = LLMComposer(llm, fallback=extractive)
    return {name: generative for name, profile in PROFILES.items() if profile.composer == "auto"}


def build_loop(kb_config: KBConfig | None = None, router_config: RouterConfig | None = None,
               perception: PerceptionAgent | None = None, use_ner: bool = True,
               router_path: Path | None = None, knowledge_bases: tuple[str, ...] | None = None,
               workers: int = 1, llm: LLMSettings | None = None) -> AnswerLoop:
    """An AnswerLoop over the configured knowledge bases (cheap: call `warm_up()` to load models).

    Args:
        kb_config: the knowledge bases (default: config/knowledge_bases.yaml).
        router_config: a validated router config (default: loaded from `router_path`).
        perception: a Perception agent to share (default: a new one, with NER when `use_ner`).
        use_ner: whether a new Perception agent runs the spaCy NER model.
        router_path: the router file when `router_config` is not given (default: config/router.yaml).
        knowledge_bases: serve only these KBs of the config (None: all).
        workers: processes that will share the cores; above 1, FAISS gets one thread and the
            embedders one thread each unless the KB config sets embedder_threads.
        llm: the default profile's LLM backend (None: every profile answers extractively).

    Raises:
        ConfigError: a config file (or `knowledge_bases`) is invalid.
        SightlineError: an index cannot be opened (the message names the rebuild command).
    """
    kb_config = select_knowledge_bases(kb_config or load_kb_config(), knowledge_bases)
    if workers > 1 and kb_config.embedder_threads is None:
        kb_config = replace(kb_config, embedder_threads=1)
    limit_threads(workers)
    opened = open_knowledge_bases(kb_config)
    router_config = router_config or load_router_config(router_path, known_kbs=list(opened))
    embedder = get_embedder(kb_config.embedder, kb_config.embedder_threads)
    retriever = Retriever(opened, embedder, router_config.credibility)
    extractive = ExtractiveComposer(ranker=LearnedRanker.name if answer_model_enabled() else LexicalRanker.name)
    return AnswerLoop(kb_config=kb_config, router_config=router_config, retriever=retriever,
                      executor=Executor(retriever), perception=perception or PerceptionAgent(use_ner=use_ner),
                      router=Router(router_config), composer=extractive, validator=ValidationAgent(),
                      composers=profile_composers(extractive, llm))
