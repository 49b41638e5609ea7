"""The case study's documents: ``README.md`` (tables) and ``report.html`` (Primo's interpretation
report of the tree with a case-study section on top), both from the results dict of
:func:`adapters.pensieve.casestudy.run`.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from markupsafe import Markup, escape

from primo.io import atomic_write_bytes
from primo.report import Baseline, build
from primo.report.claims import Claim, claims_table
from primo.report.markdown import table_text

from adapters.pensieve.video import N_CHUNKS

PRIMO, RL, METIS = "Primo tree (PrDT)", "Pensieve RL (argmax)", "Metis-style tree"
SAMPLED = "Pensieve RL (sampled, seed 42)"
_ACTOR_LATENCY = "Pensieve actor, numpy (6x8 state -> argmax)"
_FAST = ", Python fast path (compile_python)"
_C = ", C (gcc -O2)"


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return f"{value:.{digits}f}"


def qoe_rows(results: dict) -> list[list[str]]:
    """Rows of the QoE table: policy, then mean, median and published QoE per trace set."""
    sets = list(results["qoe"])
    rows = []
    for label in results["qoe"][sets[0]]:
        row = [label]
        for name in sets:
            entry = results["qoe"][name][label]
            row += [_fmt(entry["mean_qoe"]), _fmt(entry["median_qoe"]), _fmt(entry["published"])]
        rows.append(row)
    return rows


def qoe_header(results: dict) -> list[str]:
    header = ["policy"]
    for name, count in results["traces"].items():
        about = results["trace_sets"][name]
        held_out = " held-out" if name == "test" else ""
        header += [f"{about['label']}{held_out} mean QoE ({count} traces)", "median",
                   "published mean" + (" (249 traces)" if about["published_as"] == "fcc" else "")]
    return header


def paired_claims(results: dict) -> list[Claim]:
    """The QoE claims of ``results.json`` (paired over traces), verdicts recomputed from the intervals."""
    return [Claim.from_dict(claim) for claim in results["claims"]]


def number(value: float, spec: str = "+.3f") -> str:
    """A number with a typographic minus, as :mod:`primo.report.claims` prints them.

    Example
    -------
    >>> number(-0.25), number(-0.00004)
    ('−0.250', '+0.000')
    """
    text = format(float(value) + 0.0, spec)
    if text.lstrip("+-").strip("0.%") == "":  # a rounded tiny negative is no "−0.000"
        text = text.replace("-", "+")
    return text.replace("-", "−")


def generalization_summary(results: dict) -> str:
    """Does the tree match or beat its teacher on the held-out test traces, by mean and by median?
    And if not, by how much it misses."""
    test = results["qoe"]["test"]
    label = results["trace_sets"]["test"]["label"]
    ours, actor = test[PRIMO]["per_trace"], test[RL]["per_trace"]
    names = list(ours)
    a, b = np.array([ours[n] for n in names]), np.array([actor[n] for n in names])
    claim = next(Claim.from_dict(c) for c in results["claims"]
                 if c["units"].startswith(label) and f"vs {RL} " in c["measured"])
    d = claim.difference
    mean_part = {"holds": "beats it", "within noise": "matches it (the interval contains 0)",
                 "does not hold": f"misses by {-d.mean:.3f} QoE per trace"}[claim.verdict]
    median_gap = float(np.median(a) - np.median(b))
    median_part = "is at least as high as" if median_gap >= 0 else f"is lower by {-median_gap:.3f} than"
    text = (f"**Generalization** (the tree against its teacher, the actor's argmax, on the {len(names)} held-out "
            f"{label} traces, used neither for training nor for selection): by the mean of paired differences the "
            f"tree {mean_part} ({number(d.mean)} [{number(d.low)}, {number(d.high)}]); the median paired "
            f"difference is {number(d.median)}; the tree's median QoE ({np.median(a):.3f}) {median_part} the actor's "
            f"({np.median(b):.3f}); the tree does better on {int(np.sum(a > b + 1e-9))} traces, worse on "
            f"{int(np.sum(a < b - 1e-9))}, the same on the rest.")
    if claim.note:
        text += f" The test traces include {claim.note.removeprefix('includes ')}."
    return text


def measured_claims(results: dict) -> list[list[str]]:
    """The paper's claims that are single measurements (size, structure, latency, time): claim,
    published, measured, verdict."""
    size, us = results["size"], results["latency"]["us_per_decision"]
    tree, distill = results["tree"], results["distillation"]
    return [
        ["tree size; L (last bitrate) tested in the first 2 levels, B (buffer) in the third", "8 layers, 35 leaves",
         f"depth {tree['depth']}, {tree['n_leaves']} leaves; " + "; ".join(
             f"level {i}: {', '.join(names)}" for i, names in enumerate(tree["features_by_level"], 1)),
         "see the tree"],
        ["fewer parameters than the actor (tree nodes vs weights)", "1617×",
         f"{size['actor_over_primo']:.0f}× ({size['actor_parameters']:,} vs {size['primo_nodes']} nodes)", "measured"],
        ["smaller than Metis' tree (nodes)", "7.9×",
         f"{size['metis_over_primo']:.1f}× ({size['metis_nodes']} vs {size['primo_nodes']} nodes)", "measured"],
        ["lower inference latency than Pensieve", "70×",
         f"{us[_ACTOR_LATENCY] / us[PRIMO + _FAST]:.0f}× (Python fast path), "
         + (f"{us[_ACTOR_LATENCY] / us[PRIMO + _C]:.0f}× (C)" if PRIMO + _C in us else "C not measured"), "measured"],
        ["lower inference latency than Metis", "1.5×",
         f"{us[METIS + _FAST] / us[PRIMO + _FAST]:.2f}× (Python fast path)"
         + (f", {us[METIS + _C] / us[PRIMO + _C]:.2f}× (C)" if METIS + _C in us else ""), "measured"],
        ["distillation time", "< 4 min",
         f"{distill['wall_seconds'] / 60:.1f} min wall, {distill['cpu_seconds'] / 60:.1f} min CPU (2 shared cores)",
         "holds" if distill["wall_seconds"] < 240 else "does not hold"],
    ]


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    return table_text(header, [[str(c).replace("|", "\\|") for c in row] for row in rows])


def latency_rows(results: dict) -> list[list[str]]:
    us = results["latency"]["us_per_decision"]
    return [[label, f"{value:.3g}", f"{us[_ACTOR_LATENCY] / value:.3g}×"] for label, value in us.items()]


def iteration_rows(results: dict) -> list[list[str]]:
    rows = []
    best = results["distillation"]["best_iteration"]
    for r in results["distillation"]["iterations"]:
        rows.append([f"{r['iteration']}{' (chosen)' if r['iteration'] == best else ''}", r["rollout_policy"],
                     _fmt(r["reward"] / (N_CHUNKS - 1)), _fmt(r["fidelity"]), _fmt(r["fidelity_teacher_states"]),
                     str(r["n_leaves"]), str(r["depth"]), f"{r['n_states']:,}", f"{r['seconds']:.1f}"])
    return rows


ITERATION_HEADER = ["iteration", "rolled out by", "QoE on the validation traces (selection)",
                    "agreement on own states", "agreement on actor's states", "leaves", "depth", "states", "seconds"]


def protocol_note(results: dict) -> str:
    """Which traces trained, selected and tested the tree."""
    roles, sets, s = results["trace_roles"], results["trace_sets"], results["settings"]
    train, test = sets["train"]["label"], sets["test"]["label"]
    text = (f"Traces: the tree is distilled on episodes over {len(roles['rollout'])} {train} traces (with "
            "Pensieve's training-time delay noise and random start points); the VIPER iteration kept is the one "
            f"with the best QoE on {len(roles['validation'])} other {train} traces")
    if roles["test_validation"]:
        text += f" and {len(roles['test_validation'])} {test} traces"
    text += " (the validation mix, never rolled out on"
    if roles.get("left_out_of_selection"):
        text += (f"; {', '.join(roles['left_out_of_selection'])} left out of it: below the lowest bitrate, one such "
                 "trace would decide the choice")
    text += (f"); the {len(roles['test'])} held-out {test} traces served "
             f"neither training nor selection (splits seeded by seed {s['seed']}). The {train} column covers all "
             f"{results['traces']['train']} {train} traces (rollout and validation), as the paper's figure does; "
             "the pretrained actor itself was trained on HSDPA.")
    return text


def notes(results: dict) -> list[str]:
    """Caveats a reader needs to read the numbers right."""
    golden = results["golden_primo_tree"]
    sets = results["trace_sets"]
    items = [
        f"QoE: {results['qoe_definition']}.",
        protocol_note(results),
        "Paired claims: per-trace differences (Primo tree − the other policy) on the same traces; interval = 95% "
        "percentile bootstrap of their mean over traces (`primo.report.claims`); *holds* / *does not hold* when the "
        "whole interval is on one side of 0, *within noise* otherwise (for a ≥ claim: a match).",
    ]
    if sets["test"]["published_as"] == "fcc":
        items.append(f"FCC: {results['traces']['test']} held-out traces here; the paper used 249 (its FCC-18 traces "
                     "scaled down 4×).")
    items += [
        _pathological_note(results),
        f"Published RL figures are those of Pensieve's own test script, the actor *sampled* with seed 42 (the "
        f"golden `rl` logs, 0.934 on HSDPA): they sit on the '{SAMPLED}' row. '{RL}' is the actor's "
        "deterministic policy, the distillation's teacher; the paper has no figure for it.",
        "The Metis-style tree is this repository's stand-in for Metis: a CART tree capped at 273 leaves (545 "
        "nodes, the size the paper's 7.9× implies), fit once on the actor's own decisions over the 41 observation "
        f"features on the rollout traces (it reproduces them with {results['size']['metis_leaves']} leaves); not "
        f"Metis' own pipeline. Its fit took {results['distillation']['metis_fit_seconds']:.0f} s, so the paper's "
        "'21.3× faster than Metis' distillation is not tested here. Its published column is Metis' number from the "
        "paper.",
        f"Student features ({len(results['student_features'])}): last bitrate, buffer, the last 8 throughputs and "
        "download times, the 6 next chunk sizes, chunks left (the paper's L, B, X_t, T_t, N_k, C). Dropped: "
        + ", ".join(f"`{f}`" for f in results["dropped_features"][:3]) + f" … ({len(results['dropped_features'])} "
        "history columns that only rebuild the actor's 6x8 state; the actor's output does not depend on them, "
        "except the 300 kbps size of the chunk just downloaded, which follows from chunks left).",
        f"Latency: CPU time per decision, mean over {results['latency']['decisions']:,} states the actor visited on "
        "the rollout traces, best of several passes, on a shared 2-core machine; C and node times come from a loop "
        "inside those programs. Export checks (decisions that differ from the Python tree): "
        + ", ".join(f"{k} = {v}" for k, v in results["latency"]["export_checks"].items()) + ".",
        "One distillation seed is reported here; `benchmarks/pensieve_distill_seeds.py` repeats the "
        "distillation with other seeds to show how much the tree and its QoE vary.",
    ]
    if golden.get("traces"):
        items.append(
            f"The paper's own tree (Pensieve-format golden logs, {len(golden['traces'])} HSDPA traces) averages "
            f"{golden['paper_primo_tree']:.3f} there; this run's tree {golden['our_primo_tree']:.3f} and the actor "
            f"{golden['rl_argmax']:.3f} on the same traces.")
    return items


def _pathological_note(results: dict) -> str:
    """The traces below the lowest bitrate (kept in every mean and claim), with each policy's QoE there."""
    slow = results["pathological_traces"]
    if not slow:
        return "No trace has a mean bandwidth below the lowest bitrate (300 kbps)."
    cells = []
    for name, mbps in slow.items():
        set_name = next((s for s in results["qoe"] if name in results["qoe"][s][PRIMO]["per_trace"]), None)
        if set_name is None:  # a test-validation trace: not evaluated, left out of the selection
            cells.append(f"{name} ({mbps:.2f} Mbps, in the {results['trace_sets']['test']['label']} validation part)")
            continue
        qoe = results["qoe"][set_name]
        cells.append(f"{name} ({results['trace_sets'][set_name]['label']}, {mbps:.2f} Mbps): "
                     + ", ".join(f"{label} {number(qoe[label]['per_trace'][name], '.1f')}"
                                 for label in (PRIMO, RL, SAMPLED, METIS)))
    return ("Traces whose mean bandwidth is below the lowest bitrate (300 kbps), where every policy stalls, are "
            "kept in every mean and claim; one such trace can decide a mean (the claims' notes give the paired "
            "result without them, and the medians are robust to them): " + "; ".join(cells) + ".")


def write_readme(results: dict, out: Path) -> Path:
    """``README.md``: how to regenerate, the tables, the figures, the files."""
    s = results["settings"]
    tree = results["tree"]
    text = [
        "# Pensieve case study: the pretrained RL policy distilled into a tree",
        "",
        f"Regenerated by `{results['command']}` "
        f"(this run: {results['total_seconds'] / 60:.1f} min on 2 shared cores; VIPER {s['n_iterations']} "
        f"iterations × {s['episodes_per_iteration']} episodes, {s['n_trials']} search trials per iteration, "
        f"λ = {s['lam']:g}, seed {s['seed']}). Interpretation report: [`report.html`](report.html); numbers: "
        "[`results.json`](results.json).",
        "",
        f"The distilled PrDT has {tree['n_leaves']} leaves and depth {tree['depth']} ({tree['nodes']} nodes), root "
        f"test on `{tree['root_feature']}`; it agrees with the actor on "
        f"{tree['agreement_with_actor_on_actor_states']:.1%} of the actor's own decisions on the rollout traces "
        "(Metis-style tree: "
        f"{tree['metis_agreement_on_actor_states']:.1%}).",
        "",
        "## Average QoE",
        "",
        _markdown_table(qoe_header(results), qoe_rows(results)),
        "",
        "## The paper's claims and this run",
        "",
        "Paired over traces (Primo tree − the other policy; published figures beside the exact policy that "
        "produced them):",
        "",
        *claims_table(paired_claims(results)),
        generalization_summary(results),
        "",
        "Single measurements:",
        "",
        _markdown_table(["claim", "paper", "this run", "verdict"], measured_claims(results)),
        "",
        "## Inference cost per decision",
        "",
        _markdown_table(["policy and runtime", "µs (CPU)", "actor / this"], latency_rows(results)),
        "",
        "## Distillation (VIPER iterations)",
        "",
        _markdown_table(ITERATION_HEADER, iteration_rows(results)),
        "",
        f"Wall time {results['distillation']['wall_seconds']:.0f} s.",
        "",
        "## Figures",
        "",
        f"Bitrate decisions on {results['trace_sets']['train']['label']} trace `{results['timeline_trace']}` "
        "(cf. the paper's Figure 5.17):",
        "",
        "![bitrate timeline](timeline.svg)",
        "",
        "Per-trace QoE distribution (cf. Figure 5.16):",
        "",
        "![QoE CDF](qoe_cdf.svg)",
        "",
        "## Files",
        "",
        "- `pensieve_tree.primo`: the tree (Primo model file; `primo.load`), `pensieve_tree.txt` its rules;",
        "- `pensieve_tree.mjs`: ES module for a player: `chooseQuality(metrics)` → quality index 0..5 "
        "(see `adapters/pensieve/abr_rule.py` for the metrics), built on `primo.export.to_js`;",
        "- `pensieve_tree.h`: C99 header, `pensieve_tree_quality(const double *x)` over the 25 features in "
        "the order listed in its comment;",
        "- `timeline.svg`, `qoe_cdf.svg`, `report.html`, `results.json`.",
        "",
        "## Notes",
        "",
        *[f"- {item}" for item in notes(results)],
        "",
    ]
    return atomic_write_bytes(out / "README.md", ("\n".join(text) + _kept_section(out / "README.md")).encode())


#: README text below this line is written by hand (what moved between regenerations, and why) and
#: survives regeneration.
KEPT_MARKER = "<!-- written by hand below this line; kept when the report is regenerated -->"


def _kept_section(path: Path) -> str:
    """The hand-written end of an existing README (from :data:`KEPT_MARKER` on), or ''."""
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    position = text.find(KEPT_MARKER)
    return "" if position < 0 else "\n" + text[position:]


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _html_claims_table(claims: list[Claim]) -> str:
    """The paired claims as an HTML table (the cells of :func:`primo.report.claims.claims_table`)."""
    lines = claims_table(claims)
    header, rows = _markdown_cells(lines[0]), [_markdown_cells(line) for line in lines[2:] if line.startswith("|")]
    return _html_table(header, rows)


def _markdown_cells(line: str) -> list[str]:
    # Cells of one Markdown table line; an escaped pipe stays inside its cell.
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _inline_svg(path: Path) -> str:
    """A matplotlib SVG file as inline markup (without its XML prolog and doctype)."""
    text = path.read_text(encoding="utf-8")
    start = text.find("<svg")
    if start < 0:
        raise ValueError(f"{path} is not an SVG file")
    return text[start:]


def casestudy_section(results: dict, out: Path) -> Markup:
    """The case-study section placed at the top of the interpretation report."""
    parts = [
        '<section id="casestudy">',
        "<h2>Case study: Pensieve</h2>",
        f"<p>{escape(results['qoe_definition'])}.</p>",
        "<h3>Average QoE</h3>",
        _html_table(qoe_header(results), qoe_rows(results)),
        "<h3>The paper's claims and this run</h3>",
        _html_claims_table(paired_claims(results)),
        f"<p>{escape(generalization_summary(results).replace('**', ''))}</p>",
        _html_table(["claim", "paper", "this run", "verdict"], measured_claims(results)),
        "<h3>Inference cost per decision</h3>",
        _html_table(["policy and runtime", "µs (CPU)", "actor / this"], latency_rows(results)),
        f'<figure data-figure="timeline" class="wide">{_inline_svg(out / "timeline.svg")}'
        f"<figcaption>Bitrate decisions on {escape(results['trace_sets']['train']['label'])} trace "
        f"{escape(results['timeline_trace'])}.</figcaption></figure>",
        f'<figure data-figure="qoe-cdf" class="wide">{_inline_svg(out / "qoe_cdf.svg")}'
        "<figcaption>Distribution of per-trace QoE (legend: mean).</figcaption></figure>",
        "<h3>Notes</h3>",
        "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in notes(results)) + "</ul>",
        "</section>",
    ]
    return Markup("\n".join(parts))


def write_html_report(tree, X, teacher_actions, metis_predictions, results: dict, out: Path) -> Path:
    """Primo's interpretation report of the tree (metrics = agreement with the actor on its own HSDPA
    decisions, the Metis-style tree as baseline) with :func:`casestudy_section` inserted after its header."""
    report = build(tree, X, teacher_actions,
                   baselines={METIS: Baseline(metis_predictions, scored_on="its own training states")},
                   scored_on="the actor's states on the rollout traces (the states the tree was distilled from)",
                   title="Pensieve: the RL actor distilled into a PrDT", local_rows=3, tree_depth=5)
    html = report.to_html()
    # primo.report has no hook for extra sections: insert ours after the header and link it in the nav.
    section = str(casestudy_section(results, out))
    html, n_header = re.subn(r"</header>", lambda _: "</header>\n" + section, html, count=1)
    html, n_nav = re.subn(r"<nav>", '<nav>\n<a href="#casestudy">Case study</a>', html, count=1)
    if not (n_header and n_nav):
        raise RuntimeError("unexpected layout of primo.report's HTML: no <header>/<nav> to attach the case study to")
    return atomic_write_bytes(out / "report.html", html.encode("utf-8"))
