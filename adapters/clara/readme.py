"""The case study's ``README.md``: its results beside the paper's and the reference numbers.

:func:`render_readme` turns the ``results.json`` document of :mod:`adapters.clara.casestudy` into
Markdown; it computes nothing new except ratios, and the paired statistics of the paper's claims
(:func:`paper_claims`, ``primo.report.claims``: deterministic, seed 0) from the per-NF numbers and
the stored paired differences it is given.

Example
-------
>>> import json
>>> text = render_readme(json.load(open("reports/clara/results.json")))  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np

from primo.report.claims import Claim, PairedDifference, claims_table, paired_bootstrap
from primo.report.markdown import table

NAMES = {
    "clara_xgboost": "Clara's GBDT (XGBoost, 20 trees)",
    "clara_svm": "Clara's SVM (linear kernel)",
    "clara_lstm": "Clara's LSTM (pretrained weights)",
    "ridge": "ridge regression",
    "decision_tree": "decision tree (CART)",
    "knn": "k-nearest neighbours",
    "mlp": "MLP",
    "tuned_lightgbm": "LightGBM, grid-tuned (AutoML stand-in)",
    "primo_default": "Primo w/o BO (PrAM defaults)",
    "primo_bo": "**Primo w/ BO** (PrAM + BO)",
    "primo_plus": "**PRIMO+**",
    "primo_plus_crossfit": "**PRIMO+**, edit chosen on the other test half",
    "primo_plus_in_sample": "PRIMO+, edit chosen on the test misses and scored on them (the paper's protocol; optimistic)",
    "primo_distilled": "**Primo, distilled** (PrAM; measured counts + LSTM on generated blocks)",
}


def _fmt(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return value
    return f"{value:,.{digits}f}"


def _seconds(row: dict) -> str:
    if row.get("kind") == "clara" and row.get("train_seconds") is None:
        return "pretrained"
    wall, cpu = row.get("train_seconds"), row.get("train_cpu_seconds")
    if wall is None:
        return "–"
    return f"{wall:.2f}" + ("" if cpu is None else f" / {cpu:.2f}")


def _published(source: dict, task: str, model: str, keys: dict[str, str]) -> str:
    numbers = source.get(task, {}).get(model, {})
    return ", ".join(f"{label} {numbers[key]:g}" for key, label in keys.items() if key in numbers) or ""


def _model(task: dict, name: str) -> dict | None:
    return next((r for r in task["models"] if r["model"] == name), None)


def _check(passed: bool) -> str:
    return "yes" if passed else "**no**"


def paper_claims(results: dict) -> list[Claim]:
    """The Clara claims of the Primo chapter that ``results.json`` can judge by paired statistics.

    MS real NFs and CP real NFs pair the models per NF (absolute error in cores, WMAPE); the MS
    test set and the MS out-of-fold comparison use the paired row bootstraps stored by the case
    study. AI's claims are on F1, which no stored per-row numbers can pair (see the AI section).

    Example
    -------
    >>> [c.verdict for c in paper_claims(json.load(open("reports/clara/results.json")))]  # doctest: +SKIP
    """
    claims, tasks, paper = [], results["tasks"], results["paper"]
    if "MS" in tasks:
        ms = tasks["MS"]
        predictions = ms["real_nf_predictions"]
        cores = np.array([p["cores"] for p in predictions], dtype=float)

        def real_error(model):
            return np.abs(np.array([p[model] for p in predictions], dtype=float) - cores)

        def real(statement, a, b, paper_value, source, expected="lower"):
            d = paired_bootstrap(real_error(a), real_error(b))
            measured = (f"{_plain(a)} {real_error(a).mean():.3f} vs {_plain(b)} {real_error(b).mean():.3f} cores "
                        "(MAE)")
            return Claim(statement, paper_value, source, measured, d, expected, units="real NFs")

        def stored(statement, d, a_value, b_value, names, units, paper_value, source):
            difference = PairedDifference(mean=d["difference"], low=d["low"], high=d["high"],
                                          median=d.get("median"), n=units[0])
            measured = f"{names[0]} {a_value:.3f} vs {names[1]} {b_value:.3f} cores (MAE)"
            return Claim(statement, paper_value, source, measured, difference, "lower", units=units[1])

        gbdt = _model(ms, "clara_xgboost")
        bo = _model(ms, "primo_bo")
        claims += [
            real("Primo w/ BO has less real-NF error than Clara's GBDT", "primo_bo", "clara_xgboost",
                 f"1.4× less error (Primo w/ BO {paper['MS']['primo_bo']['real_mae']:g})",
                 "Primo w/ BO vs Clara's XGBoost, 4 real NFs"),
            real("BO lowers Primo's real-NF error", "primo_bo", "primo_default",
                 f"{paper['MS']['primo_bo']['real_mae']:g} vs {paper['MS']['primo_default']['real_mae']:g}",
                 "Primo w/ vs w/o BO, Table 5.6"),
            real("PRIMO+ (monotone edits) lowers Primo w/ BO's real-NF error", "primo_plus", "primo_bo",
                 "better, no number", "PRIMO+ vs Primo, §5.5"),
            stored("Primo w/ BO has a lower test MAE than Clara's GBDT", ms["primo_bo_minus_gbdt_test_mae"],
                   bo["test"]["mae"], gbdt["test"]["mae"], ("Primo w/ BO", "GBDT"), (198, "test NFs"),
                   "not reported", "the paper reports the real NFs"),
        ]
        cv = ms["cv_comparison"]
        for name, d in cv["minus_gbdt"].items():
            claims.append(stored(f"{_plain(name)} has a lower out-of-fold MAE than Clara's GBDT", d, cv["mae"][name],
                                 cv["mae"]["clara_xgboost"], (_plain(name), "GBDT"), (680, "training NFs"),
                                 "not reported", "out-of-fold on the training NFs, this study's check"))
    if "CP" in tasks:
        per_nf = tasks["CP"]["real_wmape_per_nf"]
        nfs = list(per_nf["clara_lstm"])

        def wmape(model):
            return np.array([per_nf[model][nf] for nf in nfs], dtype=float)

        for a, b, paper_value, source in (
                ("primo_bo", "clara_lstm", f"{paper['CP']['primo_bo']['real_wmape']:g} vs "
                                           f"{paper['CP']['clara_lstm']['real_wmape']:g}", "Primo w/ BO vs Clara's LSTM"),
                ("primo_distilled", "clara_lstm", "not reported", "this study's distilled PrAM"),
                ("primo_bo", "primo_default", f"{paper['CP']['primo_bo']['real_wmape']:g} vs "
                                              f"{paper['CP']['primo_default']['real_wmape']:g}",
                 "Primo w/ vs w/o BO, Table 5.6")):
            if a not in per_nf or b not in per_nf:
                continue
            d = paired_bootstrap(wmape(a), wmape(b))
            claims.append(Claim(f"{_plain(a)} has a lower real-NF WMAPE than {_plain(b)}", paper_value, source,
                                f"{_plain(a)} {wmape(a).mean():.4f} vs {_plain(b)} {wmape(b).mean():.4f}", d, "lower",
                                units="real NFs", number_format="+.4f"))
    return claims


def _plain(model: str) -> str:
    return NAMES.get(model, model).replace("**", "").split(" (")[0]


def _claims(results: dict) -> list[str]:
    claims = paper_claims(results)
    if not claims:
        return []
    return (["## The paper's claims, judged by paired statistics", "",
             "Each row pairs two models on the same units (real NFs, test NFs, training NFs) and gives the mean of "
             "the per-unit differences a − b (error of a minus error of b: negative means a errs less), its 95% "
             "bootstrap interval over the units (scipy, 5,000 resamples, seed 0), their median, and a verdict: "
             "*holds* (the whole interval below 0), *does not hold* (wholly above), *within noise* (contains 0). "
             "With 4 or 8 real NFs the intervals are coarse. Test and out-of-fold rows come from the case study's "
             "own paired row bootstraps (`results.json`); a median shown as – was not recorded by the run that "
             "wrote it. AI's claims are on F1, which stored numbers cannot pair: they stay in the AI section.", ""]
            + claims_table(claims))


def _ms(results: dict) -> list[str]:
    task = results["tasks"]["MS"]
    lines = ["## Clara-MS: best number of SmartNIC cores", "",
             f"Test: {task['metrics']['test']}. Real: {task['metrics']['real']}. "
             "Train time: wall / CPU seconds of the final fit; search: wall seconds of the BO search.", ""]
    rows = [[NAMES.get(r["model"], r["model"]), _fmt(r["test"]["mae"]), _fmt(r["real"]["mae"]), _seconds(r),
             _fmt(r["search_seconds"], 1),
             _published(results["paper"], "MS", r["model"], {"real_mae": "real"}),
             _published(results["reference"], "MS", r["model"], {"test_mae": "test", "real_mae": "real"})]
            for r in task["models"]]
    lines += table(["model", "test MAE", "real-NF MAE", "train s (wall / CPU)", "search s", "paper",
                     "reference on this data"], rows)
    reference = results["reference"]["MS"]["pyprimo_32_bins"]
    lines += [f"Reference (no search) on this data: EBM with 32 bins test {results['reference']['MS']['ebm_32_bins']['test_mae']}"
              f" / real {results['reference']['MS']['ebm_32_bins']['real_mae']}; pyprimo 0.1 with 32 bins test "
              f"{reference['test_mae']} / real {reference['real_mae']} (the paper's \"0.8660 with BO\").", ""]
    gbdt, bo, plus = (_model(task, n) for n in ("clara_xgboost", "primo_bo", "primo_plus"))
    others = task["primo_bo_other_seeds"]
    if gbdt and bo:
        spread = [bo["test"]["mae"]] + [o["test"]["mae"] for o in others]
        inside = min(spread) <= gbdt["test"]["mae"] <= max(spread)
        lines += [f"Primo w/ BO against Clara's GBDT (judged in the claims table above): test MAE {bo['test']['mae']:.3f} "
                  f"vs {gbdt['test']['mae']:.3f} — GBDT's figure lies {'within' if inside else 'outside'} Primo w/ BO's "
                  f"seed-to-seed spread {min(spread):.3f}–{max(spread):.3f}; real NFs "
                  f"{gbdt['real']['mae'] / bo['real']['mae']:.2f}× less error (paper 1.4×).", ""]
    lines += _cv_comparison_line(task["cv_comparison"])
    predictions = task["real_nf_predictions"]
    models = [k for k in predictions[0] if k not in ("nf", "cores")]
    lines += ["Predicted core counts of the 4 real NFs:", ""]
    lines += table(["NF", "best cores"] + [NAMES.get(m, m).replace("**", "") for m in models],
                    [[p["nf"], _fmt(p["cores"], 0)] + [_fmt(p[m], 1) for m in models] for p in predictions])
    plus_info = task["primo_plus"]
    both = plus_info["both_increasing"]
    lines += ["PRIMO+ directions (sign of the training-set rank correlation with the core count): "
              + ", ".join(f"`{f}` {d}" for f, d in plus_info["directions"].items())
              + f". With both forced increasing (the paper's wording for `R_ec` applied to `A_i` too): test "
              f"{both['test']['mae']:.3f}, real {both['real']['mae']:.3f}.", ""]
    if plus:
        lines += ["PRIMO+ edits: " + "; ".join(plus.get("edits", [])), ""]
    if others:
        test = [o["test"]["mae"] for o in others]
        real = [o["real"]["mae"] for o in others]
        lines += [f"Seed-to-seed spread: Primo w/ BO's configuration refit with {len(others)} other seeds gives test "
                  f"MAE {min(test):.3f}–{max(test):.3f} and real-NF MAE {min(real):.3f}–{max(real):.3f}.", ""]
    lines += _top_terms_line(task["top_terms"], "Primo w/ BO", "paper, Fig. 5.11: `R_i`, `R_res`, `R_ic` most important")
    lines += _search_line(task)
    return lines


def _cv_comparison_line(comparison: dict) -> list[str]:
    mae = comparison["mae"]
    parts = [f"{NAMES.get(name, name).replace('**', '')} {mae[name]:.3f} "
             f"({d['difference']:+.3f} vs GBDT, 95% interval [{d['low']:+.3f}, {d['high']:+.3f}])"
             for name, d in comparison["minus_gbdt"].items()]
    return [f"Out-of-fold on the 680 training NFs ({comparison['protocol']}; paired bootstrap over NFs, judged in the "
            f"claims table above): Clara's GBDT {mae['clara_xgboost']:.3f}; " + "; ".join(parts) + ". "
            + "Primo w/ BO's configuration was chosen by CV on these rows (other folds), so its figure "
            "is slightly optimistic; Primo w/o BO's is not.", ""]


def _top_terms_line(terms: dict, model: str, note: str = "") -> list[str]:
    return [f"Most important terms of {model} (mean |contribution| on the training data): "
            + ", ".join(f"`{t}` {v:.3g}" for t, v in terms.items()) + (f" ({note})" if note else "") + ".", ""]


def _search_line(task: dict) -> list[str]:
    search = task["search"]
    params = ", ".join(f"{k}={_fmt(v, 4) if isinstance(v, float) else v}" for k, v in search["best_params"].items())
    # Runs before the count included them recorded None when a shrink or simplification trial was best.
    reached = (f"reached at trial {search['trials_to_best']}" if search["trials_to_best"] is not None
               else "reached by a shrink or simplification trial at the end of the budget")
    return [f"BO: {search['n_trials']} trials, {search['cv_folds']}-fold CV {search['scoring']}, best CV loss "
            f"{search['best_cv_loss']:.4f} ({reached}), {search['seconds']:.0f} s; chosen: {params}.", ""]


def _ai(results: dict) -> list[str]:
    task = results["tasks"]["AI"]
    lines = ["## Clara-AI: CRC-style loop identification", "",
             f"Test: {task['metrics']['test']}. Loops: {task['metrics']['real']}.", ""]
    rows = [[NAMES.get(r["model"], r["model"]), _fmt(r["test"]["precision"]), _fmt(r["test"]["recall"]),
             _fmt(r["test"]["f1"]), _fmt(r["real"].get("loops_flagged"), 0), _seconds(r), _fmt(r["search_seconds"], 1),
             _published(results["paper"], "AI", r["model"], {"f1": "F1"}),
             _published(results["reference"], "AI", r["model"], {"f1": "F1"})]
            for r in task["models"]]
    lines += table(["model", "precision", "recall", "F1", "Click loops flagged", "train s (wall / CPU)", "search s",
                     "paper", "reference on this data"], rows)
    svm, bo = _model(task, "clara_svm"), _model(task, "primo_bo")
    honest = [r for r in task["models"] if r["model"] in ("primo_plus", "primo_plus_crossfit")]
    in_sample = _model(task, "primo_plus_in_sample")
    if svm and bo:
        lines += [f"Targets, point estimates (F1 is not a per-row mean, and per-row predictions are not in "
                  f"`results.json`, so no paired interval) — Primo ≥ SVM (F1): {_check(bo['test']['f1'] >= svm['test']['f1'])} "
                  f"({bo['test']['f1']:.4f} vs {svm['test']['f1']:.4f}); PRIMO+ > Primo: "
                  + "; ".join(f"{NAMES[r['model']].replace('**', '')} {_check(r['test']['f1'] > bo['test']['f1'])} "
                              f"({r['test']['f1']:.4f})" for r in honest)
                  + (f" (only in the paper's in-sample protocol: {in_sample['test']['f1']:.4f})" if in_sample else "")
                  + ".", ""]
    info = task["primo_plus"]
    cv = info["training_cv"]
    chosen = (f"chosen edit: {cv['edit']} (out-of-fold F1 {cv['before']['f1']:.4f} → {cv['chosen']['f1']:.4f})"
              if cv["chosen"] else f"no candidate beat the unedited out-of-fold F1 {cv['before']['f1']:.4f}, "
                                   "so this PRIMO+ is Primo w/ BO unchanged")
    lines += [f"PRIMO+ from the training set only: {cv['false_negatives']} out-of-fold false negatives, "
              f"{cv['n_candidates_scored']} candidate shifts scored; {chosen}.", ""]
    halves = "; ".join(
        f"half {i}: {h['false_negatives']} false negatives, "
        + (f"{h['edit']} (F1 on that half {h['before']['f1']:.4f} → {h['chosen']['f1']:.4f})" if h["chosen"] else "no edit")
        for i, h in enumerate(info["test_halves"]))
    lines += ["PRIMO+ as in the paper (a developer fixes the misses seen in evaluation), scored honestly: the edit is "
              "chosen on one stratified half of the test set (counterfactuals from the training set) and the edited "
              f"model predicts the other half, and vice versa — {halves}.", ""]
    misses = "; ".join(f"row {row}: " + (", ".join(f"`{f}`" for f in flags) if flags else "no flag set")
                       for row, flags in info["test_false_negatives"].items())
    lines += [f"Why the honest PRIMO+ cannot beat Primo here: the test misses of Primo w/ BO share no pattern ({misses}), "
              "so an edit that fixes the misses of one half never meets a miss in the other. Chosen and scored on the "
              "same misses, as the paper reports it, the edit does raise F1 (row above); that number is optimistic by "
              "construction and is not a result we claim.", ""]
    loops = task["flagged_loops_primo_bo"]
    lines += [f"Click loops flagged by Primo w/ BO ({len(loops)}): " + ", ".join(f"`{n.lstrip('./')}`" for n in loops) + ".", ""]
    lines += _search_line(task)
    return lines


def _cp(results: dict) -> list[str]:
    task = results["tasks"]["CP"]
    lines = ["## Clara-CP: instruction counts of basic blocks", "",
             f"Test: {task['metrics']['test']}. Real: {task['metrics']['real']}.", ""]
    rows = [[NAMES.get(r["model"], r["model"]), _fmt(r["test"]["mae_instr"]), _fmt(r["test"]["wmape"], 4),
             _fmt(r["real"]["wmape"], 4), _seconds(r), _fmt(r["search_seconds"], 1),
             _published(results["paper"], "CP", r["model"], {"real_wmape": "WMAPE", "train_seconds": "train s"}),
             _published(results["reference"], "CP", r["model"], {"real_wmape": "WMAPE"})]
            for r in task["models"]]
    lines += table(["model", "hold-out MAE (instr.)", "hold-out WMAPE", "real-NF WMAPE", "train s (wall / CPU)",
                     "search s", "paper", "reference on this data"], rows)
    lstm = _model(task, "clara_lstm")
    if lstm:
        ours = [r for r in task["models"] if r["kind"] == "primo"]
        lines += [f"Against Clara's LSTM ({lstm['real']['wmape']:.4f}) on the real NFs, without training on them "
                  "(paired per NF in the claims table above): "
                  + "; ".join(f"{NAMES[r['model']].replace('**', '')} {r['real']['wmape']:.4f}" for r in ours)
                  + " (listed, not selected — the real NFs choose nothing).", ""]
    per_nf = task["real_wmape_per_nf"]
    nfs = list(next(iter(per_nf.values())))
    lines += ["Real-NF WMAPE per NF:", ""]
    lines += table(["model"] + nfs + ["average"],
                    [[NAMES.get(m, m).replace("**", "")] + [_fmt(v[nf], 3) for nf in nfs]
                     + [_fmt(sum(v.values()) / len(v), 4)] for m, v in per_nf.items()])
    lines += ["Features (`CPTokenFeatures`, learned from the training blocks only): `length` (tokens in the block), "
              "`count_tok_<id>` (occurrences of each token id; the ids' meaning is not published), "
              "`first_tok_is_<id>` / `last_tok_is_<id>` (position-aware indicators of the block's first and last token). "
              "Each shape function then reads \"how many instructions ÷ 60 this many occurrences of token <id> add\". "
              "On synthetic 3-fold CV (`benchmarks/clara_cp_pram_design.txt`) adding `length` helped the additive model "
              "and 50 bigram counts did not; the real NFs were not used.", ""]
    for name, terms in task["top_terms"].items():
        lines += _top_terms_line(terms, NAMES[name].split("(")[0].replace("**", "").strip())
    distilled = _model(task, "primo_distilled")
    if distilled:
        lines += [f"Distillation: held-out fidelity R² {distilled['fidelity_r2']:.4f} against the LSTM, "
                  f"{distilled['n_training_blocks']:,} training blocks (synthetic + generated) in the final student.", ""]
    lines += _search_line(task)
    return lines


def _ablation(results: dict) -> list[str]:
    metric = {"MS": ("real", "mae", "real-NF MAE"), "AI": ("test", "f1", "test F1"), "CP": ("real", "wmape", "real-NF WMAPE")}
    second = {"MS": ("test", "mae", "test MAE"), "CP": ("test", "mae_instr", "hold-out MAE (instr.)")}
    rows, bags = [], {}
    for name, task in results["tasks"].items():
        default, bo = _model(task, "primo_default"), _model(task, "primo_bo")
        bags[name] = default["params"]["outer_bags"]
        paper = results["paper"].get(name, {})
        for split, key, label in [metric[name]] + ([second[name]] if name in second else []):
            # The paper's ablation (Table 5.6) reports the headline metric only.
            headline = (split, key, label) == metric[name]
            paper_key = "f1" if key == "f1" else f"real_{key}"
            published = [paper.get(m, {}).get(paper_key) if headline else None for m in ("primo_default", "primo_bo")]
            rows.append([name, label, _fmt(default[split][key], 4), _fmt(bo[split][key], 4)]
                        + [_fmt(value, 4) for value in published])
    return (["## BO ablation: Primo without vs with Bayesian optimization", "",
             "Without BO = PrAM with its default structure (boosting bounded as in the search); with BO = the "
             "configuration chosen by k-fold CV on the training data. Both are fit with the same bags: "
             + ", ".join(f"{name} {count}" for name, count in bags.items()) + ".", ""]
            + table(["task", "metric", "Primo w/o BO", "Primo w/ BO", "paper w/o BO", "paper w/ BO"], rows))


def _training_time(results: dict) -> list[str]:
    rows = []
    black_box = {"MS": "clara_xgboost", "AI": "clara_svm", "CP": "clara_lstm"}
    for name, task in results["tasks"].items():
        theirs = _model(task, black_box[name])
        for model in ("primo_default", "primo_bo", "primo_distilled"):
            ours = _model(task, model)
            if ours is None:
                continue
            total = ours["train_seconds"] + (ours["search_seconds"] or 0.0)
            if name == "CP":
                lstm_s = results["paper"]["CP"]["clara_lstm"]["train_seconds"]
                versus = f"{lstm_s:,.0f} s (paper, 30 epochs; not retrained here) → {lstm_s / ours['train_seconds']:.0f}× / {lstm_s / total:.1f}×"
            else:
                versus = f"{theirs['train_seconds']:.2f} s (measured)"
            rows.append([name, NAMES[model].replace("**", ""), f"{ours['train_seconds']:.2f}", f"{total:.1f}",
                         NAMES[black_box[name]], versus])
    paper = results["paper"]["CP"]
    return (["## Training time", "",
             "Wall seconds on this machine (2 shared cores). \"fit\" = the final model's fit; \"fit + search\" adds "
             "the BO search (or, for the distilled model, the whole distillation with its search). The LSTM's time "
             f"is the paper's figure: its weights are pretrained and Clara's 103k training programs are not public. "
             f"Paper: LSTM {paper['clara_lstm']['train_seconds']:,.0f} s vs Primo {paper['primo_bo']['train_seconds']:.0f} s "
             f"({paper['clara_lstm']['train_seconds'] / paper['primo_bo']['train_seconds']:.1f}×).", ""]
            + table(["task", "model", "fit s", "fit + search s", "Clara's model", "Clara's training time → ratio (fit / fit+search)"],
                     rows))


CHANGES = [
    "## What moved in this report", "",
    "- **Claims are judged by paired statistics** (issue 21): the yes/no target lines for MS and CP compared point "
    "estimates; the claims table pairs the models per NF and says *within noise* when the interval contains 0. "
    "Rendered from the same `results.json`, so no measurement moved; what moved is the verdict on the MS real NFs "
    "(Primo w/ BO's 1.82× lower error was a *yes*; over 4 NFs its interval contains 0) and the MS test set (a *no* "
    "on 2.576 vs 2.547 is *within noise*). The CP verdict (Clara's LSTM better on the real NFs) stands, now with "
    "an interval over the 8 NFs.",
    "- **Regenerated on 2026-11-24 with the simplification path** (issue 16): every PrAM search now ends with one "
    "trial that scores its best configuration at k = 2…48 constant pieces per shape (`max_pieces`), and Primo's "
    "PrDT classifiers smooth their leaf probabilities. MS w/ BO kept `max_pieces=24` (lowest CV loss 2.308, was "
    "2.324): test MAE 2.576 → 2.562, real-NF MAE 0.682 → 0.744 (both within noise against GBDT, as before); "
    "PRIMO+ test 2.704 → 2.598, real NFs 0.519 → 0.823. CP distilled PrAM real-NF WMAPE 0.2020 → 0.1873 (still "
    "worse than Clara's LSTM beyond noise). AI unchanged in substance (the search is degenerate: CV log loss ≈ 0). "
    "Search times grew (MS 105 → 392 s) with the extra trial and a machine shared by several jobs.",
    "",
]

NOTES = [
    "## What differs from the paper", "",
    "- **CP training data.** The paper trained on Clara's 103k synthesized programs, which are not public any more; "
    "the 2,911-program synthetic set used here to train was Clara's held-out synthetic *test* set. Clara's LSTM "
    "(pretrained on the 103k) therefore starts with far more data than any model trained here, which is why the "
    "distilled route asks it to label generated blocks.",
    "- **LSTM training time** is the paper's figure (1,081 s, 30 epochs on their GPU server): the LSTM is used with "
    "its published weights and not retrained. Other training times are measured here, wall-clock on 2 shared cores.",
    "- **Baselines.** The paper's CNN baseline is not rebuilt; its AutoML (TPOT) is stood in for by a grid-tuned "
    "LightGBM.",
    "- **PrAM.** interpret 0.7.8 (the paper's pyprimo ran on interpret 0.2.7, whose EBM defaults differ); boosting is "
    "bounded (`max_rounds`, `outer_bags`) so that the whole study runs in minutes; the search uses k-fold CV "
    "(5 folds for MS, 3 for AI and CP).",
    "- **AI search objective.** Out-of-fold F1 is 1.0 for every configuration on the training set, so the BO "
    "minimizes log loss instead (it still ranks how confidently a configuration separates the classes).",
    "- **PRIMO+ (MS).** The paper gives the direction for `R_ec` only; each direction here is the sign of the "
    "training-set rank correlation (which agrees with the paper for `R_ec`). The MS section above also gives "
    "the variant with both increasing.",
    "- **PRIMO+ (AI).** The paper edits the 84th flag after looking at the missed CRC loops, with no stated "
    "protocol. Here the edit is chosen automatically from counterfactuals, either on training folds only or on "
    "one half of the test set and scored on the other half (never on the rows it was chosen on). The paper's "
    "in-sample figure (edit chosen on all test misses, scored on the same rows) is listed for comparison only.",
    "- **Noise.** The MS real-NF MAE averages 4 NFs and the CP real-NF WMAPE 89 blocks: differences of a few "
    "hundredths are within seed-to-seed variation, and nothing is chosen by them.",
    "",
]


def render_readme(results: dict) -> str:
    """Markdown of a case-study results document (see :func:`adapters.clara.casestudy.run`).

    Example
    -------
    >>> render_readme(results).splitlines()[0]  # doctest: +SKIP
    '# Clara case study: Primo vs Clara's models'
    """
    tasks = results["tasks"]
    lines = ["# Clara case study: Primo vs Clara's models", "",
             f"Regenerated by `primo casestudy clara --data-dir DIR --out reports/clara"
             f"{' --quick' if results['quick'] else ''}` on {results['generated']} (seed {results['seed']}, "
             f"{results['n_jobs']} parallel trial(s), {results['seconds']['total']:.0f} s). Every number below is in "
             "`results.json`; the paper's and the reference numbers are quoted, never measured here.", ""]
    if results["quick"]:
        lines += ["**Quick smoke run on data subsets with tiny budgets: the numbers mean nothing.**", ""]
    lines += ["Protocol: nothing is fitted, searched or chosen on the real NFs or the test sets. MS and AI use their "
              "train/test files; CP has no test file, so every CP model and search is built on 80% of the 2,911 "
              "synthetic blocks and scored on the other 20% (\"hold-out\"), then the chosen configuration is refit on "
              "all synthetic blocks and scored on the 89 blocks of 8 real NFs.", ""]
    lines += _claims(results)
    for name, render in (("MS", _ms), ("AI", _ai), ("CP", _cp)):
        if name in tasks:
            lines += render(results)
    if all(name in tasks for name in ("MS", "AI", "CP")):
        lines += _ablation(results) + _training_time(results)
    lines += CHANGES + NOTES
    lines += ["## Interpretation reports", ""]
    lines += [f"- [{report}]({report})" for task in tasks.values() for report in task["reports"]]
    return "\n".join(lines) + "\n"
