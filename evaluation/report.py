"""report.md and PNG plots (matplotlib, Agg) from the results `sightline eval --out DIR` writes.

Every plot is drawn from report.json alone, so `python -m evaluation.report DIR` redraws them.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from orchestration.paths import REPO_ROOT  # noqa: E402

from .stats import head_commit  # noqa: E402

COLORS = {"bm25": "#4C72B0", "dense": "#DD8452", "hybrid": "#55A868", "topk": "#55A868", "router": "#C44E52",
          "zh": "#8172B3", "en": "#937860", "loop": "#DA8BC3"}
DPI = 90
LOWER_IS_BETTER = {"false_refusal", "conflict_answer_fake", "counterfactual_answer_fake",
                   "counterfactual_fake_unflagged"}




def commit_state() -> str:
    """HEAD's short hash, with "+dirty" when tracked files differ from it."""
    head = head_commit()
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        dirty = ""
    return head + ("+dirty" if dirty else "")


def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path.name


def _grouped_bars(ax, metrics: dict[str, dict[str, float]], modes: Sequence[str], names: Sequence[str]) -> None:
    width = 0.8 / max(len(modes), 1)
    for i, mode in enumerate(modes):
        values = [metrics[mode].get(n) or 0.0 for n in names]
        xs = [j + (i - (len(modes) - 1) / 2) * width for j in range(len(names))]
        bars = ax.bar(xs, values, width, label=mode, color=COLORS.get(mode))
        for bar, value in zip(bars, values, strict=True):
            inside = value > 0.12
            ax.text(bar.get_x() + bar.get_width() / 2, value - 0.01 if inside else value + 0.01, f"{value:.2f}",
                    ha="center", va="top" if inside else "bottom", fontsize=7, rotation=90,
                    color="white" if inside else "black")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names)
    ax.set_ylim(0, 1.12)
    ax.grid(axis="y", alpha=0.3)


def _anchor_marks(ax, anchors: dict[str, dict[str, float]], names: Sequence[str]) -> None:
    """Each published figure as a dashed line across its metric's group of bars."""
    styles = [("black", "--"), ("dimgray", ":"), ("purple", "-.")]
    for k, (label, values) in enumerate(anchors.items()):
        color, style = styles[k % len(styles)]
        first = True
        for metric, value in values.items():
            if metric in names:
                x = names.index(metric)
                ax.hlines(value, x - 0.45, x + 0.45, colors=color, linestyles=style, linewidth=1.6, zorder=5,
                          label=f"published: {label}" if first else None)
                first = False


def plot_retrieval(result: dict[str, Any], out: Path, modes: Sequence[str], names: Sequence[str], title: str) -> str:
    fig, ax = plt.subplots(figsize=(8, 4.2))
    modes = [m for m in modes if m in result["metrics"]]
    names = [n for n in names if any(result["metrics"][m].get(n) is not None for m in modes)]
    _grouped_bars(ax, result["metrics"], modes, names)
    _anchor_marks(ax, result.get("anchors", {}), names)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper left", ncol=2)
    return _save(fig, out / f"{result['set']}_metrics.png")


def plot_by_type(result: dict[str, Any], out: Path, modes: Sequence[str], names: Sequence[str]) -> str:
    by_type = result["by_type"]
    modes = [m for m in modes if m in by_type]
    types = sorted({t for m in modes for t in by_type[m]})
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        table = {m: {t: by_type[m].get(t, {}).get(name) for t in types} for m in modes}
        _grouped_bars(ax, table, modes, types)
        ax.set_xticklabels([f"{t.replace('_query', '')}\n(n={by_type[modes[0]].get(t, {}).get('queries', '?')})"
                            for t in types], fontsize=8)
        ax.set_title(f"{result['set']}: {name} per question type", fontsize=9)
    axes[0][0].legend(fontsize=7, loc="upper left", ncol=2)
    return _save(fig, out / f"{result['set']}_by_type.png")


def plot_answers(results: dict[str, dict[str, Any]], out: Path) -> str | None:
    rows: list[tuple[str, float, str]] = []
    mh = results.get("multihop", {}).get("metrics", {}).get("router")
    if mh:
        for name in ("null_refusal", "false_refusal", "citation_precision", "source_coverage", "answer_contains_gold"):
            if mh.get(name) is not None:
                rows.append((f"multihop {name}", mh[name], "router"))
    for lang, values in results.get("rgb", {}).get("metrics", {}).items():
        for name, value in values.items():
            rows.append((f"rgb {lang} {name}", value, lang))
    squad = results.get("squad", {})
    for name, value in squad.get("metrics", {}).get("loop", {}).items():
        if value is not None:
            rows.append((f"squad {squad.get('split', '')} {name}", value, "loop"))
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(rows) + 1.2))
    labels = [r[0] + (" (lower is better)" if r[0].split()[-1] in LOWER_IS_BETTER else "") for r in rows]
    ax.barh(range(len(rows)), [r[1] for r in rows], color=[COLORS.get(r[2]) for r in rows])
    for i, r in enumerate(rows):
        ax.text(r[1] + 0.01, i, f"{r[1]:.3f}", va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.1)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title("Answer-level behaviour through the loop (share of queries)", fontsize=10)
    return _save(fig, out / "answers.png")


def plot_latency(results: dict[str, dict[str, Any]], out: Path) -> str | None:
    panels: list[tuple[str, dict[str, dict]]] = []
    for name, result in results.items():
        for mode, stages in result.get("latency", {}).items():
            if mode == "topk" or not isinstance(stages, dict) or "total" not in stages:
                continue
            if mode in ("bm25", "dense"):
                stages = {"total": stages["total"]}  # the hybrid row shows the arms' own stages
            panels.append((f"{name} {mode}", stages))
    if not panels:
        return None
    boxes, labels = [], []
    for label, stages in panels:
        for stage, s in stages.items():
            if "p25_ms" not in s:
                continue
            boxes.append({"med": s["median_ms"], "q1": s["p25_ms"], "q3": s["p75_ms"], "whislo": s["p5_ms"],
                          "whishi": s["p95_ms"], "fliers": [], "label": f"{label}: {stage}"})
            labels.append(label)
    fig, ax = plt.subplots(figsize=(8, 0.22 * len(boxes) + 1.2))
    ax.bxp(boxes, orientation="horizontal", showfliers=False, widths=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("ms per query (box: p25-p75, line: median, whiskers: p5-p95; log scale)", fontsize=8)
    ax.tick_params(axis="y", labelsize=6)
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3, which="both")
    ax.set_title("Latency per stage, every set and mode (this machine: 2 shared cores)", fontsize=10)
    return _save(fig, out / "latency.png")


def plot_fusion(results: dict[str, dict[str, Any]], out: Path) -> str | None:
    main = {"scifact": "ndcg@10", "multihop": "hits@10", "hotpotqa": "r@5"}
    series = []
    for name, metric in main.items():
        sweep = results.get(name, {}).get("fusion_sweep")
        if sweep:
            xs = [float(k.split("=")[1]) for k in sweep]
            series.append((f"{name} {metric}", xs, [v[metric] for v in sweep.values()],
                           results[name].get("fusion_weights", {}).get("vector")))
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for label, xs, ys, chosen in series:
        line = ax.plot(xs, ys, marker="o", label=label)[0]
        if chosen in xs:
            ax.scatter([chosen], [ys[xs.index(chosen)]], s=140, facecolors="none", edgecolors=line.get_color(),
                       linewidths=2)
    ax.set_xscale("log", base=2)
    ax.set_xticks([x for x in series[0][1]])
    ax.set_xticklabels([f"{x:g}" for x in series[0][1]])
    ax.set_xlabel("vector-arm weight in RRF (keyword arm 1.0); circle = configured weight", fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("Hybrid retrieval against the fusion weight", fontsize=10)
    return _save(fig, out / "fusion_sweep.png")


def _table(metrics: dict[str, dict[str, Any]], modes: Sequence[str] | None = None) -> list[str]:
    modes = [m for m in (modes or metrics) if m in metrics]
    names: list[str] = []
    for m in modes:
        names += [n for n in metrics[m] if n not in names and n != "queries"]
    lines = ["| mode | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for m in modes:
        cells = [f"{metrics[m][n]:.4f}" if isinstance(metrics[m].get(n), float) else str(metrics[m].get(n, "–"))
                 for n in names]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


def _latency_table(result: dict[str, Any]) -> list[str]:
    lines = ["| mode | stage | median ms | p95 ms |", "|---|---|---:|---:|"]
    for mode, stages in result.get("latency", {}).items():
        if mode == "topk":
            continue
        for stage, s in stages.items():
            lines.append(f"| {mode} | {stage} | {s['median_ms']:.1f} | {s['p95_ms']:.1f} |")
    return lines


def _cell(text: Any) -> str:
    return str(text).replace("\n", " ").replace("|", "\\|")


def _questions_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = ["| id | kind | query | status | fact | cited | answer |", "|---|---|---|---|---|---|---|"]
    for q in rows:
        fact = "–" if not q.get("answerable") else "no" if not q.get("has_fact") else \
            "yes" if q.get("cites_gold_pep", True) else "yes, citing other PEPs"
        cited = ", ".join(str(n) for n in q.get("cited_peps", []))
        lines.append(f"| {q['id']} | {q['kind']} | {_cell(q['query'])} | {q['status']} | {fact} | {cited} | "
                     f"{_cell(q.get('answer', ''))} |")
    return lines


SQUAD_MISSES = 25  # rows of each kind of miss report.md shows (report.json holds every question)


def _squad_section(result: dict[str, Any]) -> list[str]:
    """The targets, the counts and the first misses of each kind of a `squad` run."""
    metrics = result["metrics"].get("loop", {})
    met = result.get("meets_targets", {})
    lines = ["", f"Split `{result.get('split')}` (KB `{result.get('kb_name')}`), `now` {result.get('now')}. "
                 "Targets: " + "; ".join(
                     f"{name} {bound} ({'met' if met.get(name) else 'missed' if met.get(name) is False else '–'}"
                     f", {metrics.get(name) if metrics.get(name) is not None else '–'})"
                     for name, bound in result.get("targets", {}).items())]
    counts = result.get("counts", {})
    if counts:
        lines += ["", "Counts: " + ", ".join(f"{k} {v}" for k, v in counts.items())]
    rows = result.get("questions", [])
    kinds = (("Answerable, refused (false refusals)", lambda q: not q["impossible"] and q["status"] == "insufficient"),
             ("Answerable, answered, no gold text in the lead sentence",
              lambda q: not q["impossible"] and q["status"] != "insufficient" and not q["lead_has_gold"]),
             ("Unanswerable, answered", lambda q: q["impossible"] and q["status"] != "insufficient"))
    for caption, test in kinds:
        misses = [q for q in rows if test(q)]
        if not misses:
            continue
        lines += ["", f"{caption}: {len(misses)}" + (f", the first {SQUAD_MISSES}" if len(misses) > SQUAD_MISSES
                                                      else "") + ":", "",
                  "| id | question | status | lead sentence | gold |", "|---|---|---|---|---|"]
        for q in misses[:SQUAD_MISSES]:
            gold = " / ".join(q.get("gold", [])) or \
                ("plausible: " + " / ".join(q["plausible"]) if q.get("plausible") else "–")
            lines.append(f"| {q['id']} | {_cell(q['question'])} | {q['status']} | {_cell(q['lead'][:200])} | "
                         f"{_cell(gold)} |")
    return lines


def write_report(results: list[dict[str, Any]], out: Path) -> Path:
    """report.md beside report.json, and the PNGs it shows."""
    out.mkdir(parents=True, exist_ok=True)
    by_set = {r["set"]: r for r in results}
    plots: dict[str, str] = {}
    if "scifact" in by_set:
        plots["scifact"] = plot_retrieval(by_set["scifact"], out, ["bm25", "dense", "hybrid"],
                                          ["ndcg@10", "recall@100"], "BEIR SciFact test: per arm, against published")
    if "multihop" in by_set:
        r = by_set["multihop"]
        plots["multihop"] = plot_retrieval(r, out, ["bm25", "dense", "topk", "router"],
                                           ["hits@4", "hits@10", "map@10", "mrr@10", "all_evidence@10"],
                                           "MultiHop-RAG dev (non-null): arms, plain hybrid top-K, router")
        if r.get("by_type"):
            plots["multihop_by_type"] = plot_by_type(r, out, ["bm25", "topk", "router"], ["hits@10", "all_evidence@10"])
    if "hotpotqa" in by_set and by_set["hotpotqa"].get("by_type"):
        plots["hotpotqa_by_type"] = plot_by_type(by_set["hotpotqa"], out, ["bm25", "dense", "hybrid", "router"],
                                                 ["r@2", "r@5"])
    for key, fn in (("answers", plot_answers), ("fusion", plot_fusion), ("latency", plot_latency)):
        name = fn(by_set, out)
        if name:
            plots[key] = name
    lines = ["# Sightline evaluation report", "",
             f"Generated {dt.date.today().isoformat()} (HEAD `{head_commit()}`) by `sightline eval` "
             f"(embedder MiniLM-L6-v2, 2 shared CPU cores). Data: `../shared/eval` (not in the repo).", "",
             "| set | queries | wall time | KB (documents / chunks) | limit | code (HEAD at run start) |",
             "|---|---:|---:|---|---|---|"]
    for r in results:
        kb = r.get("kb", {})
        kbs = kb.values() if kb and all(isinstance(v, dict) for v in kb.values()) else [kb]
        kb_text = ", ".join(f"{k.get('documents')} / {k.get('chunks')}" for k in kbs)
        lines.append(f"| {r['set']} | {r['queries']} | {r.get('wall_seconds', 0):.0f} s | {kb_text} | "
                     f"{r.get('limit') or 'full'} | `{r.get('commit', '?')}` |")
    for r in results:
        name = r["set"]
        lines += ["", f"## {name}", ""]
        lines += _table(r["metrics"])
        if r.get("anchors"):
            lines += ["", "Published anchors: " + "; ".join(
                f"{label}: " + ", ".join(f"{k} {v}" for k, v in values.items())
                for label, values in r["anchors"].items())]
        for key in (name, f"{name}_by_type"):
            if key in plots:
                lines += ["", f"![{key}]({plots[key]})"]
        for mode, types in r.get("by_type", {}).items():
            lines += ["", f"Per question type, `{mode}`:", ""] + _table(types)
        if r.get("statuses"):
            lines += ["", "Answer status counts: `" + json.dumps(r["statuses"], ensure_ascii=False) + "`"]
        if name == "squad":
            lines += _squad_section(r)
        elif r.get("questions"):
            lines += ["", "Every question (`fact`: a gold string is in the answer, \"citing other PEPs\" when no "
                          "cited PEP holds it; unanswerable ones should be `insufficient`):", ""] \
                + _questions_table(r["questions"])
        if r.get("fusion_sweep"):
            lines += ["", f"Fusion sweep (keyword 1.0, configured vector weight "
                          f"{r.get('fusion_weights', {}).get('vector')}):", ""] + _table(r["fusion_sweep"])
        lines += ["", "Latency:", ""] + _latency_table(r)
    for key, caption in (("answers", "Answer-level behaviour"), ("fusion", "Fusion weights"), ("latency", "Latency")):
        if key in plots:
            lines += ["", f"## {caption}", "", f"![{key}]({plots[key]})"]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    out = Path((argv or sys.argv[1:])[0]) if (argv or sys.argv[1:]) else REPO_ROOT / "docs" / "eval"
    results = json.loads((out / "report.json").read_text(encoding="utf-8"))
    print(write_report(results if isinstance(results, list) else [results], out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
