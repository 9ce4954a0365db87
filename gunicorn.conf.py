"""gunicorn settings for the Sightline service (`sightline serve` runs gunicorn with this file).

Values come from config/service.yaml and the SIGHTLINE_* environment variables
(server/settings.py; `sightline serve --host/--port/--workers` sets those). Why each choice:

- workers: one per core, at most 4, by default. Answering is CPU-bound (embedding, scoring),
  so more processes than cores only queue; with preload the model weights are shared but each
  worker still grows to a few hundred MB of activations and caches.
- preload_app: the master builds the AnswerLoop (indexes mmapped, spaCy and jieba loaded)
  before forking, so workers share those pages. With more than one worker torch and FAISS are
  set to one thread first: an OpenMP pool started in the master does not survive fork() and
  can hang the children. onnxruntime is never imported in the master (`forking.hold()` below):
  it starts a thread at import, and every worker forked after that aborted at exit
  (SIGABRT, `std::system_error: Invalid argument`) or hung; each worker loads the embedder
  and answers two warm-up questions in post_worker_init (~1 s), before it accepts a connection.
- shutdown: SIGTERM to the master (graceful; SIGINT and SIGQUIT are quick) stops accepting;
  workers finish their in-flight requests within graceful_timeout (default 30 s) and exit 0.
- gthread workers with a few threads (service.yaml `threads`, default 4), timeout 60 s. With
  sync workers two clients that send headers and never finish the body stopped the whole
  service (2 workers) for 60 s. With gthread a stalled client holds one thread, and the app
  reads a body within one deadline for the whole body (`limits.body_timeout_seconds`, 408
  after it; server/http/deadline.py), while the CPU-bound answer loop still runs one request
  at a time per worker (the loop lock), so the CPU path stays one request per core. Threads
  are few, though: 200 slow connections held them all. In production run HAProxy in front
  (`sightline proxy`, config/haproxy/sightline.cfg, docs/SERVICE.md): it takes each request
  whole before gunicorn sees it.
- pre_fork: before forking a worker the master takes up the last good router config any
  worker accepted (server/reload.py), so a replacement worker never boots from a bad file.
- metrics: PROMETHEUS_MULTIPROC_DIR must be set before prometheus_client is imported, so it
  is set here (default var/prometheus) if the start command did not; `on_starting` wipes it,
  `child_exit` folds a dead worker's counters into an archive file (server/metrics_archive.py).
- logs: JSON lines on stderr; the access log carries the request id (X-Request-ID).
- OpenTelemetry (OTEL_EXPORTER_OTLP_ENDPOINT set): each worker makes its tracer provider after
  the fork (post_worker_init) and `worker_exit` sends the spans still queued (server/otel).
"""

import os

from orchestration.retrieval import forking
from server.settings import MULTIPROC_ENV, load_settings, prepare_metrics_dir

forking.hold()  # this process forks the workers: no onnxruntime here (orchestration/retrieval/forking.py)
_settings = load_settings()
os.environ.setdefault(MULTIPROC_ENV, str(_settings.metrics_path))
os.makedirs(os.environ[MULTIPROC_ENV], exist_ok=True)
if _settings.worker_count > 1:
    # before torch or FAISS is imported anywhere in the master
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

wsgi_app = "server.wsgi:app"
bind = [f"{_settings.host}:{_settings.port}"]
workers = _settings.worker_count
worker_class = "gthread"
threads = _settings.threads
timeout = _settings.timeout
graceful_timeout = _settings.graceful_timeout
keepalive = 2
preload_app = True
max_requests = 0  # workers are expensive to replace; no periodic recycling
proc_name = "sightline"
control_socket_disable = True  # not used; a fixed socket path would clash between instances

accesslog = "-"
errorlog = "-"
loglevel = _settings.log_level
logger_class = "server.logs.GunicornJsonLogger"


def on_starting(server):
    """Master start: wipe the metrics directory so a previous run's files do not count."""
    prepare_metrics_dir(os.environ[MULTIPROC_ENV])
    server.log.info(f"sightline: {workers} workers on {', '.join(bind)}, metrics in {os.environ[MULTIPROC_ENV]}")


def pre_fork(server, worker):
    """In the master, before each fork: adopt the service's last good router config (and builds)."""
    service = server.app.wsgi().extensions.get("sightline") if hasattr(server.app, "wsgi") else None
    if service is not None:
        service.before_fork()


def post_worker_init(worker):
    """In each worker after fork: start the router watcher thread and set the per-worker gauges."""
    service = worker.wsgi.extensions.get("sightline") if hasattr(worker.wsgi, "extensions") else None
    if service is not None:
        service.worker_started()


def worker_exit(server, worker):
    """In a worker as it exits: send the OpenTelemetry spans still queued (server/otel; nothing when off)."""
    from server import otel

    otel.shutdown()


def child_exit(server, worker):
    """A worker exited: drop its live gauges, fold its counters into the archive (totals kept)."""
    from server.metrics import mark_dead

    try:
        mark_dead(worker.pid)
    except Exception:  # noqa: BLE001 - the master must outlive a failed merge (the files stay, still counted)
        server.log.exception(f"sightline: could not archive the metrics of worker {worker.pid}")
