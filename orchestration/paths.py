"""Where Sightline finds its config and writes its data.

The repository root holds `config/` (the YAML operators edit) and `var/` (built indexes).
`SIGHTLINE_CONFIG_DIR` and `SIGHTLINE_DATA_DIR` move them, e.g. for tests or a deployment
that keeps indexes on another volume. `SIGHTLINE_MODEL_DIR` moves the cache of models derived
from packaged ones (the int8 query model), which builds and tests share.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def config_dir() -> Path:
    """The directory holding router.yaml, perception.yaml and knowledge_bases.yaml."""
    return Path(os.environ.get("SIGHTLINE_CONFIG_DIR") or REPO_ROOT / "config")


def data_dir() -> Path:
    """The directory under which knowledge base builds are written."""
    return Path(os.environ.get("SIGHTLINE_DATA_DIR") or REPO_ROOT / "var")


def model_dir() -> Path:
    """The cache of derived models: `SIGHTLINE_MODEL_DIR`, else `$XDG_CACHE_HOME/sightline` (~/.cache)."""
    if os.environ.get("SIGHTLINE_MODEL_DIR"):
        return Path(os.environ["SIGHTLINE_MODEL_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "sightline" / "models"


def resolve(path: str | Path, base: Path = REPO_ROOT) -> Path:
    """A config path: absolute as given, relative to `base` (the repo root) otherwise."""
    path = Path(os.path.expandvars(str(path))).expanduser()
    return path if path.is_absolute() else base / path
