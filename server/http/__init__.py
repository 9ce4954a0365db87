"""The HTTP edge of the service: everything that speaks HTTP and nothing that answers questions.

- app.py: the Flask app factory (`create_app`), its routes, request ids, body limits and logging.
- schemas.py: validating a request body (or CLI arguments) into an AskRequest, and the request limits.
- errors.py: the one error handler, turning every error into `{"error": {"code", "message", "field"?}}`
  (OpenAI's error shape under /v1/, a page under /ui).
- admin.py: the token-guarded `/admin/*` endpoints (router config, reloads).
- chat.py: the OpenAI-compatible `/v1/chat/completions` and `/v1/models` (chat frontends).
- body.py: reading a request body within its size and time limits, as JSON.
- openapi.py: the OpenAPI document served at /openapi.json.
- ui.py: the /ui pages (ask, and a stored trace at /ui/trace/<id>) and the hook that keeps each
  answer's trace (server/traces.py).

The answering itself (the loop, the service, settings, metrics) lives one level up in server/.
Modules here import the standard library's `http` as `http` too: every import is absolute or
explicitly relative, so `server.http` shadows nothing.
"""
