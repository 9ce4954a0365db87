"""Admin endpoints in-process: off without a token, constant-time bearer check, PUT/reload semantics."""

from __future__ import annotations

import hashlib

import yaml

from .conftest import INVOICE_EN, NOW

TOKEN = "s3cret-token-for-the-admin-tests-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _version(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _reweighted(text: str, weight: float) -> str:
    data = yaml.safe_load(text)
    next(r for r in data["rules"] if r["name"] == "broad")["emit"][0]["weight"] = weight
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def test_admin_is_off_without_a_token(make_app):
    client = make_app(token=None).test_client()
    for method, path in (("GET", "/admin/router"), ("PUT", "/admin/router"), ("POST", "/admin/reload")):
        response = client.open(path, method=method, headers=AUTH)
        assert response.status_code == 404
        assert response.json["error"]["code"] == "admin_disabled"
        assert "SIGHTLINE_ADMIN_TOKEN" in response.json["error"]["message"]


def test_wrong_or_missing_token_is_401(make_app):
    client = make_app(token=TOKEN).test_client()
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN},
                    {"Authorization": f"Basic {TOKEN}"}, {"Authorization": f"Bearer {TOKEN}x"}):
        response = client.get("/admin/router", headers=headers)
        assert response.status_code == 401, headers
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/admin/router", headers={"Authorization": f"bearer {TOKEN}"}).status_code == 200


def test_get_router_shows_the_active_config(make_app):
    client = make_app(token=TOKEN).test_client()
    body = client.get("/admin/router", headers=AUTH).json
    text = make_app.router.read_text(encoding="utf-8")
    assert body["version"] == _version(text) and body["yaml"] == text
    assert "broad" in body["rules"] and body["last_error"] is None


def test_put_validates_writes_and_swaps(make_app, answer_loop):
    client = make_app(token=TOKEN).test_client()
    original = make_app.router.read_text(encoding="utf-8")
    edited = _reweighted(original, 0.3)
    response = client.put("/admin/router", data=edited, headers={**AUTH, "Content-Type": "text/yaml"})
    assert response.status_code == 200, response.json
    assert response.json == {**response.json, "result": "ok", "version_before": _version(original),
                             "version_after": _version(edited)}
    assert make_app.router.read_text(encoding="utf-8") == edited
    assert not list(make_app.router.parent.glob(".router.yaml.*"))  # no temp file left behind
    body = client.post("/rag", json={"query": INVOICE_EN, "now": NOW}).json
    assert body["config_version"] == _version(edited)
    assert {t["weight"] for t in body["plan"]["tasks"] if t["rule"] == "broad"} == {0.3}


def test_put_refuses_invalid_config_without_writing(make_app):
    client = make_app(token=TOKEN).test_client()
    original = make_app.router.read_text(encoding="utf-8")
    cases = [("rules: [", "not valid YAML"),
             (original.replace('kb: "*"\n', "kb: regs\n", 1), "regs"),
             ("limits: {max_tasks: -1}\nrules: []\n", "max_tasks")]
    for text, words in cases:
        response = client.put("/admin/router", data=text, headers={**AUTH, "Content-Type": "application/yaml"})
        assert response.status_code == 422, text
        assert response.json["error"]["code"] == "config_rejected" and words in response.json["error"]["message"]
        assert make_app.router.read_text(encoding="utf-8") == original
    assert client.put("/admin/router", data=original, headers=AUTH).status_code == 415  # no YAML content type


def test_file_edits_are_picked_up_and_broken_ones_refused(make_app):
    from prometheus_client import REGISTRY

    def reloads(result):
        return REGISTRY.get_sample_value("sightline_router_reloads_total", {"result": result}) or 0.0

    client = make_app(token=TOKEN).test_client()  # router_reload_seconds=0: checked before each request
    original = make_app.router.read_text(encoding="utf-8")
    ok, errors = reloads("ok"), reloads("error")
    make_app.router.write_text(_reweighted(original, 0.4), encoding="utf-8")
    body = client.post("/rag", json={"query": INVOICE_EN, "now": NOW, "trace": "none"}).json
    assert body["config_version"] == _version(_reweighted(original, 0.4))
    assert reloads("ok") == ok + 1
    good = body["config_version"]
    make_app.router.write_text("rules: [oops", encoding="utf-8")
    body = client.post("/rag", json={"query": INVOICE_EN, "now": NOW, "trace": "none"}).json
    assert body["config_version"] == good  # the last good config keeps serving
    assert reloads("error") == errors + 1
    client.get("/readyz")  # another check of the same bad file is not counted again
    assert reloads("error") == errors + 1
    ready = client.get("/readyz").json
    assert ready["ready"] and "not valid YAML" in ready["checks"]["router"]["file_error"]
    forced = client.post("/admin/reload", headers=AUTH)
    assert forced.status_code == 422 and good in forced.json["error"]["message"]
    assert reloads("error") == errors + 2  # a forced reload is always counted
    make_app.router.write_text(original, encoding="utf-8")
    fixed = client.post("/admin/reload", headers=AUTH).json  # the watch (checked first) or the forced reload swaps it
    assert fixed["version_after"] == _version(original) and reloads("ok") == ok + 2
    assert client.post("/admin/reload", headers=AUTH).json["result"] == "unchanged"
