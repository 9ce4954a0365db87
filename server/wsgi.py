"""The WSGI entry point gunicorn loads (`server.wsgi:app`): the app built from service.yaml + env."""

from __future__ import annotations

from .app import create_app

app = create_app()
