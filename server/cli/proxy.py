"""`sightline proxy`: run HAProxy in front of `sightline serve` (config/haproxy/sightline.cfg)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys


def cmd_proxy(args: argparse.Namespace) -> int:
    """Check the config and exec haproxy in the foreground; `--print-env` prints its variables instead."""
    from ..proxy import config_file, proxy_command, proxy_settings
    from ..settings import load_settings

    settings = proxy_settings(load_settings(), listen=args.listen, upstream=args.upstream,
                              request_timeout=args.request_timeout)
    env = settings.environment()
    if args.print_env:
        for name, value in env.items():
            print(f"export {name}={value}")
        return 0
    command = proxy_command(config_file())
    full_env = dict(os.environ, **env)
    check = subprocess.run([*command, "-c", "-q"], env=full_env, capture_output=True, text=True)
    if check.returncode != 0:
        print(f"sightline proxy: error: {config_file()} is not valid:\n{check.stdout}{check.stderr}", file=sys.stderr)
        return 1
    print(f"sightline proxy: http://{settings.listen} -> http://{settings.upstream} (whole request within "
          f"{settings.request_timeout:g} s, else 408; at most {settings.upstream_conns} requests in gunicorn)",
          file=sys.stderr, flush=True)
    os.execve(command[0], command, full_env)
    return 0  # not reached
