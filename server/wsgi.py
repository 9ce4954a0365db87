"""The WSGI entry point gunicorn loads (`server.wsgi:app`): the app built from service.yaml + env."""

from __future__ import annotations

from .http.app import create_app
from .logs import configure_logging
from .settings import load_settings

_settings = load_settings()
configure_logging(_settings.log_level, root=True)  # every library's log records as JSON lines too
app = create_app(_settings)
