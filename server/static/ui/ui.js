// Sightline /ui: asks POST /ui/answer with the key typed here (in the Authorization header, never in
// an address); the reply is the answer's trace page, rendered by the host that answered, so no
// second request is needed. Its address, /ui/trace/<id>, goes into the history only when the trace
// was stored (X-Sightline-Trace-Stored). A stored trace page is fetched with the same header.
// Pages arrive as HTML the service rendered and escaped; this script only moves that HTML into
// place and sets text.
"use strict";
(() => {
  const byId = (id) => document.getElementById(id);
  const say = (text) => { byId("status").textContent = text; };
  const onTracePage = () => location.pathname.startsWith("/ui/trace/");
  let shown = location.pathname; // the address whose page #result holds

  function headers(extra) {
    const key = byId("api-key").value.trim();
    return key ? Object.assign({}, extra, { Authorization: "Bearer " + key }) : Object.assign({}, extra);
  }

  const parse = (html) => new DOMParser().parseFromString(html, "text/html");

  // Put the #result of a page the service rendered (a parsed document) in place of this page's.
  function swap(page) {
    const result = page.getElementById("result");
    if (!result) {
      say("The service answered with something that is not a Sightline page.");
      return;
    }
    byId("result").replaceWith(document.importNode(result, true));
    document.title = page.title;
    byId("show-trace").hidden = !onTracePage();
  }

  // Show the page of an answer; its address goes into the history only when the trace can be
  // reopened there (stored), else the address is the ask page's.
  function showAnswer(page, stored) {
    const trace = page.getElementById("trace");
    const path = stored && trace ? "/ui/trace/" + encodeURIComponent(trace.dataset.traceId) : "/ui";
    if (path !== location.pathname) history.pushState(null, "", path);
    shown = path;
    swap(page);
  }

  // Show the stored trace page at `path` (the current address), fetched with the key's header.
  async function showTrace(path) {
    const response = await fetch(path, { headers: headers({ Accept: "text/html" }), cache: "no-store" });
    shown = path;
    swap(parse(await response.text()));
  }

  function refusal(reply) {
    const error = (reply && reply.error) || {};
    return (error.code ? error.code + ": " : "") + (error.message || "the request failed") +
      (error.field ? " (field " + error.field + ")" : "");
  }

  async function ask(event) {
    event.preventDefault();
    const body = { query: byId("query").value, trace: "none" };
    const kbs = Array.from(document.querySelectorAll("#ask input[name=kb]:checked"), (box) => box.value);
    if (kbs.length) body.kb = kbs;
    if (byId("now").value) body.now = byId("now").value;
    if (byId("max-retries").value !== "") body.max_retries = Number(byId("max-retries").value);
    byId("ask-button").disabled = true;
    say("Answering…");
    try {
      const response = await fetch("/ui/answer", {
        method: "POST", body: JSON.stringify(body),
        headers: headers({ "Content-Type": "application/json", Accept: "text/html" }),
      });
      if (!response.ok) {
        say(refusal(await response.json()));
        return;
      }
      say("");
      showAnswer(parse(await response.text()), response.headers.get("X-Sightline-Trace-Stored") === "true");
    } catch (error) {
      say("The service could not be reached: " + error.message);
    } finally {
      byId("ask-button").disabled = false;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    byId("ask").addEventListener("submit", ask);
    byId("show-trace").hidden = !onTracePage();
    byId("show-trace").addEventListener("click", () => showTrace(location.pathname));
    window.addEventListener("popstate", () => {
      if (location.pathname === shown) return; // a jump within the page (a citation), not another page
      if (onTracePage()) showTrace(location.pathname);
      else location.reload();
    });
  });
})();
