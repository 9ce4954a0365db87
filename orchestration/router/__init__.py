"""The strategy router: config/router.yaml rules turn a Perception (+ retry hints) into a Plan.

    from orchestration.router import Router, load_router_config
    plan = Router(load_router_config()).run(perception)

Modules: `config` (typed config, validated at load), `conditions` (`when:`/`unless:`),
`templates` (`{placeholder}` query and reason text), `emit` (one rule -> draft tasks),
`hints` (validation hints -> plan changes), `planner` (the Router). docs/ROUTER.md is the
operator's guide to the rule language.
"""

from .config import RouterConfig, load_router_config, parse_router_config
from .planner import Router

__all__ = ["Router", "RouterConfig", "load_router_config", "parse_router_config"]
