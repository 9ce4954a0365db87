"""`sightline serve`: exec gunicorn with gunicorn.conf.py."""

from __future__ import annotations

import argparse
import sys


def cmd_serve(args: argparse.Namespace) -> int:
    """Exec gunicorn with gunicorn.conf.py; flags win over env, env over config/service.yaml."""
    import os

    from orchestration import paths

    from ..admin_token import read_admin_token
    from ..settings import MULTIPROC_ENV, load_settings, prepare_metrics_dir

    settings = load_settings(host=args.host, port=args.port, workers=args.workers)
    read_admin_token()  # a guessable admin token stops the start here, in one line, not in gunicorn
    env = dict(os.environ, SIGHTLINE_HOST=settings.host, SIGHTLINE_PORT=str(settings.port),
               SIGHTLINE_WORKERS=str(settings.worker_count), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.setdefault(MULTIPROC_ENV, str(settings.metrics_path))
    # gunicorn's on_starting wipes it again; either way a restart starts at zero
    prepare_metrics_dir(env[MULTIPROC_ENV])
    conf = paths.REPO_ROOT / "gunicorn.conf.py"
    command = [sys.executable, "-m", "gunicorn", "--config", str(conf)]
    print(f"sightline serve: http://{settings.host}:{settings.port} with {settings.worker_count} worker(s); "
          f"loading the models and indexes first (a few seconds)", file=sys.stderr, flush=True)
    os.chdir(paths.REPO_ROOT)
    os.execve(sys.executable, command, env)
    return 0  # not reached
