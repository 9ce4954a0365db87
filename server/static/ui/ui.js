// Sightline /ui: asks POST /rag with the key typed here (in the Authorization header, never in an
// address), then shows the answer's trace page, fetched with the same header. Pages arrive as HTML
// the service rendered and escaped; this script only moves that HTML into place and sets text.
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

  // Put the #result of a page the service rendered in place of this page's.
  function swap(html) {
    const page = new DOMParser().parseFromString(html, "text/html");
    const result = page.getElementById("result");
    if (!result) {
      say("The service answered with something that is not a Sightline page.");
      return;
    }
    byId("result").replaceWith(document.importNode(result, true));
    document.title = page.title;
    byId("show-trace").hidden = !onTracePage();
  }

  async function showTrace(path, push) {
    const response = await fetch(path, { headers: headers({ Accept: "text/html" }), cache: "no-store" });
    if (push) history.pushState(null, "", path);
    shown = path;
    swap(await response.text());
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
      const response = await fetch("/rag", {
        method: "POST", body: JSON.stringify(body),
        headers: headers({ "Content-Type": "application/json", Accept: "application/json" }),
      });
      const reply = await response.json();
      if (!response.ok) {
        say(refusal(reply));
        return;
      }
      say("");
      await showTrace("/ui/trace/" + encodeURIComponent(reply.trace_id), true);
    } catch (error) {
      say("The service could not be reached: " + error.message);
    } finally {
      byId("ask-button").disabled = false;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    byId("ask").addEventListener("submit", ask);
    byId("show-trace").hidden = !onTracePage();
    byId("show-trace").addEventListener("click", () => showTrace(location.pathname, false));
    window.addEventListener("popstate", () => {
      if (location.pathname === shown) return; // a jump within the page (a citation), not another page
      if (onTracePage()) showTrace(location.pathname, false);
      else location.reload();
    });
  });
})();
