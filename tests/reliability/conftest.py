"""A service with access control configured: API keys made by `sightline keys add`, a gateway header.

`secured` is `sightline serve` (gunicorn, 2 workers) over the demo knowledge bases with three
keys (finance, engineering, hr) created through the real CLI, and a trusted gateway header
turned on in its service.yaml, so one service serves every kind of caller the ACL tests try.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest
import yaml

from orchestration import paths
from tests.live import Live, start_service

GATEWAY_GROUPS = "X-Sightline-Groups"
GATEWAY_USER = "X-Sightline-User"


@dataclass
class Secured:
    """The service and the keys its callers use."""

    live: Live
    keys: dict[str, str]          # key name -> the key (as printed once by `sightline keys add`)
    keys_file: str


def add_key(keys_file: str, name: str, groups: str) -> str:
    """Run `sightline keys add NAME --groups G` and return the key it printed as its last stdout line."""
    result = subprocess.run([sys.executable, "-m", "server.cli", "keys", "add", name, "--groups", groups],
                            cwd=paths.REPO_ROOT, env=dict(os.environ, SIGHTLINE_API_KEYS=keys_file),
                            capture_output=True, text=True, check=True)
    return result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def secured(demo_kbs, tmp_path_factory) -> Secured:
    root = tmp_path_factory.mktemp("secured")
    config_dir = root / "config"
    shutil.copytree(paths.REPO_ROOT / "config", config_dir)
    service_yaml = config_dir / "service.yaml"
    settings = yaml.safe_load(service_yaml.read_text())
    settings["gateway"] = {"groups_header": GATEWAY_GROUPS, "user_header": GATEWAY_USER}
    settings["limits"]["body_timeout_seconds"] = 3  # stalled-client tests wait this long, not the default 10 s
    # schemathesis sends thousands of mangled admin tokens from 127.0.0.1: the lock-out would then refuse
    # its valid ones (tests/server/test_admin_token.py tests the lock-out itself)
    settings["admin_free_failures"] = 1_000_000
    service_yaml.write_text(yaml.safe_dump(settings))
    keys_file = str(root / "api_keys.yaml")
    keys = {name: add_key(keys_file, name, groups)
            for name, groups in (("finance-app", "finance"), ("eng-app", "engineering"), ("hr-app", "hr"))}
    live = start_service(demo_kbs, root, config_dir=config_dir, env={"SIGHTLINE_API_KEYS": keys_file})
    yield Secured(live, keys, keys_file)
    live.stop()
