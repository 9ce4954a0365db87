"""Perception agent: deterministic query understanding (English and Chinese).

    from perception import parse
    parse("Compare A320 and B737 in 2023", now="2025-07-10").to_dict()
"""

from perception.agent import PerceptionAgent, extract_entities, parse
from perception.types import Constraints, Entity, Perception, TimeWindow

__all__ = ["PerceptionAgent", "parse", "extract_entities", "Perception",
           "Entity", "Constraints", "TimeWindow"]
