"""Reading an operator's YAML config: parsed, bounded and finite, or a ConfigError that says why.

Every config file Sightline reads (router.yaml, knowledge_bases.yaml, perception.yaml,
service.yaml, api_keys.yaml) goes through `parse_yaml`, so one set of rules holds for all of
them: the text is valid UTF-8 YAML, nests at most MAX_DEPTH levels (a deeper document made
the validators raise RecursionError, which took a worker down at boot), and holds no NaN or
infinite number anywhere (`half_life_days: .nan` was accepted and changed evidence silently).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import yaml

from .errors import ConfigError

MAX_DEPTH = 32


def parse_yaml(text: str | bytes, source: str) -> Any:
    """The YAML document in `text`, checked for depth and non-finite numbers.

    Args:
        text: the file's content (bytes are decoded as UTF-8).
        source: the file name shown in errors.

    Raises:
        ConfigError: not UTF-8, not YAML, nested too deeply, or a NaN/infinite number; the
            message names the file and the key.
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        data = yaml.safe_load(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not UTF-8 text; save the file as UTF-8", field=source) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML ({exc})", field=source) from None
    except RecursionError:
        raise ConfigError(f"{source}: nested too deeply to read (the limit is {MAX_DEPTH} levels)",
                          field=source) from None
    check_document(data, source)
    return data


def check_document(data: Any, source: str) -> None:
    """Refuse a parsed document that nests deeper than MAX_DEPTH or holds a NaN or infinity.

    Walks the document iteratively (no recursion), so any depth is safe to check.
    """
    stack: list[tuple[Any, str, int]] = [(data, "", 0)]
    while stack:
        value, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(f"{source}: {where or 'the document'} nests more than {MAX_DEPTH} levels deep; "
                              "a config needs only a few", field=where or source)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{source}: {where or 'value'}: {value} is not a finite number; use a real number",
                              field=where or source)
        if isinstance(value, dict):
            for key, item in value.items():
                stack.append((item, f"{where}.{key}" if where else str(key), depth + 1))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                stack.append((item, f"{where}[{index}]", depth + 1))


def config_version(content: bytes | str) -> str:
    """The version of a config: the first 12 hex digits of the SHA-256 of its exact bytes.

    The one definition: /readyz, /admin/router, If-Match, the metrics label and every log
    line name a config by this.
    """
    raw = content.encode("utf-8") if isinstance(content, str) else content
    return hashlib.sha256(raw).hexdigest()[:12]
