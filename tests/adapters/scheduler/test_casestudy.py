"""`primo casestudy scheduler --quick` writes results, README tables, reports and models."""
import json

import pytest

from adapters.scheduler import casestudy, policy_study
from primo import load


@pytest.mark.slow
def test_quick_casestudy_writes_everything(data_dir, tmp_path):
    logs = [str(data_dir / "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz")]
    assert casestudy.main(["--quick", "--data-dir", str(data_dir), "--out", str(tmp_path), "--jobs", *logs]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    models = [row["model"] for row in results["throughput"]["table"]]
    assert models[0] == "primo_pram" and results["throughput"]["table"][0]["mae"] > 0
    assert {r["protocol"] for r in results["packing"]["table"]} == {"stratified", "leave_model_out", "in_sample"}
    study = results["workload_study"][0]
    assert {"primo", "qssf_primo", "rolling", "lightgbm"} <= {r["model"] for r in study["table"]}
    runs = results["policy_study"][0]["runs"]
    assert {r["load"] for r in runs} == {0.8} and len(runs) == 2
    assert all(p["avg_jct_h"] > 0 for r in runs for p in r["policies"].values())
    readme = (tmp_path / "README.md").read_text()
    assert "| primo_pram |" in readme and "lucid_primo" in readme and "Paper claims vs this run" in readme
    for name in ("throughput", "workload", "packing"):
        assert (tmp_path / f"{name}_report.html").stat().st_size > 10_000
        assert load(tmp_path / "models" / f"{name}.primo").complexity_ > 0


def test_a_log_that_is_not_one_fails_before_the_model_parts(data_dir, tmp_path, monkeypatch):
    """A file given as --jobs that is no job log (or absent) is named at once, not after the throughput
    and packing models have trained for minutes."""
    (tmp_path / "notes.swf").write_text("; a comment\nnot a job line\n")

    def trained(*args, **kwargs):
        raise AssertionError("the model parts ran before the job logs were checked")

    monkeypatch.setattr(casestudy, "_model_parts", trained)
    with pytest.raises(ValueError, match="notes.swf: not a job log Primo reads"):
        casestudy.run(data_dir, tmp_path / "out", casestudy.QUICK, jobs=[tmp_path / "notes.swf"])
    with pytest.raises(FileNotFoundError, match="no job log at"):
        casestudy.run(data_dir, tmp_path / "out", casestudy.QUICK, jobs=[tmp_path / "absent.swf"], format="swf")


def test_readme_renders_tables_and_extra_outputs(tmp_path):
    table = [{"model": "primo_pram", "mae": 3.5, "published_mae": 4.125, "fit_s": 1.0}]
    difference = {"mean": -0.2, "low": -0.3, "high": -0.1, "median": -0.2, "n": 50, "confidence": 0.95}
    below = {"mean": -0.1, "low": -0.15, "high": -0.05, "median": None, "n": 50, "confidence": 0.95}
    noise = {"mean": -0.01, "low": -0.03, "high": 0.01, "median": None, "n": 50, "confidence": 0.95}
    above = {"mean": 0.2, "low": 0.1, "high": 0.3, "median": None, "n": 50, "confidence": 0.95}
    runs = [{"load": 0.8, "window": w, "nodes": 2, "arrival_scale": 1.0, "policies": {
        p: {"avg_jct_h": v + w, "avg_queue_h": v / 2 + w} for p, v in
        (("fifo", 2.0), ("sjf_oracle", 0.5), ("tiresias", 1.5), ("qssf_rolling", 1.25), ("qssf_primo", 1.2),
         ("lucid_primo", 1.0), ("lucid_primo_noprof", 1.1))}} for w in range(3)]
    results = {
        "settings": {"n_trials": 1, "max_train_jobs": 100, "n_windows": 3, "window_jobs": 10},
        "throughput": {"table": table},
        "packing": {"published_accuracy": 0.941, "n_leaves": 4, "complexity": 8,
                    "table": [{"protocol": "stratified", "accuracy": 0.7, "std": 0.1, "folds": 5}]},
        "workload_study": [{"trace": "log_a", "format": "swf", "n_train": 10, "n_test": 50, "n_users": 3, "model_family": "PrDTRegressor",
                            "model_size": 5.0, "target_met": False,
                            "table": [{"model": m, "spearman": v} for m, v in
                                      (("primo", 0.5), ("qssf_primo", 0.6), ("rolling", 0.7), ("lightgbm", 0.4),
                                       ("qssf_lightgbm", 0.65))],
                            "abs_log_error": {"primo_vs_rolling": difference, "primo_vs_lightgbm": difference},
                            "requested_features": ["req_time"],
                            "spearman_difference": {"qssf_primo_vs_rolling": below, "qssf_primo_vs_lightgbm": above}},
                           {"trace": "log_b", "format": "swf", "n_train": 10, "n_test": 50, "n_users": 3, "model_family": "PrAMRegressor",
                            "model_size": 9.0, "target_met": False,
                            "table": [{"model": m, "spearman": v} for m, v in
                                      (("primo", 0.69), ("qssf_primo", 0.6), ("rolling", 0.7), ("lightgbm", 0.4),
                                       ("qssf_lightgbm", 0.65))],
                            "abs_log_error": {"primo_vs_rolling": difference, "primo_vs_lightgbm": difference},
                            "spearman_difference": {"primo_vs_rolling": noise, "primo_vs_lightgbm": above}}],
        "policy_study": [{"trace": "log_a", "runs": runs, "paired": policy_study.paired_comparisons(runs, n_resamples=200)}],
    }
    (tmp_path / "decision_latency_primo.txt").write_text("queued wall\n2048 2.5\n")
    (tmp_path / "knob_search.json").write_text(json.dumps({
        "tune_jobs": 7, "eval_jobs": 8, "trials": [{}, {}], "defaults": {"lam": 0.5}, "best": {"lam": 0.9},
        "tune_jct_h": {"defaults": 1.0, "best": 0.75}, "eval_jct_h": {"defaults": 2.0, "best": 2.5}}))
    (tmp_path / "feature_study.json").write_text(json.dumps({"rows": [{
        "trace": "log_a", "variant": "both", "requested": ["req_time"], "validation_start": "2000-05-01 00:00:00",
        "n_test": 40,
        "model": "PrAMRegressor", "model_size": 12.0,
        "spearman": {"primo": 0.7, "qssf_primo": 0.6, "rolling": 0.65, "lightgbm": 0.69}}]}))
    text = casestudy.render_readme(results, tmp_path)
    assert "| primo_pram | 3.500 | 4.125 | 1.000 |" in text
    assert ("| log_a | 10 | 50 | 3 | PrDTRegressor | 5.000 | req_time | 0.500 | 0.600 | 0.700 | 0.400 | 0.650 | "
            "−0.100 [−0.150, −0.050] | +0.200 [+0.100, +0.300] | **no** |") in text
    assert "| log_b | 10 | 50 | 3 | PrAMRegressor | 9.000 | – | 0.690 |" in text
    assert "| −0.010 [−0.030, +0.010] | +0.200 [+0.100, +0.300] | within noise |" in text
    assert "below but within noise (paired interval contains 0) on log_b; below beyond noise on log_a" in text
    assert "| log_a | 0.800 | 2/2/2 | 1.00/1.00/1.00 | 3.000 | 1.500 | 2.500 | 2.250 | 2.200 | 2.000 | 2.100 | lucid_primo |" in text
    assert "−0.250 [−0.250, −0.250]" in text  # lucid_primo − qssf_rolling over the 3 windows
    # per log two |log error| claims and two Spearman claims (log_a: -0.1 does not hold, +0.2 holds; log_b:
    # within noise, holds), and two Lucid claims at load 0.8
    assert text.count("| holds |") == 4 + 2 + 2 and text.count("| does not hold |") == 1
    assert "`qssf_primo` (the better Primo variant on this log) ranks test jobs" in text
    # a row written before the selection was recorded was chosen on |log error|
    assert "| log_a | both | mae | 2000-05 | 40 | PrAMRegressor | 12.000 | 0.700 | 0.600 | 0.650 | 0.690 | yes |" in text
    assert "| both | mae | 1 | 1 | 0.010 | 0.010 |" in text  # per input set: logs, met, mean and min margin
    assert f"The case study reads `{casestudy.WORKLOAD_INPUTS}`; by the rule (most logs met, then the larger mean " \
           "margin, over sets run on every log, `mae` selection) the best set is `both`." in text
    assert "2048 2.5" in text and "| best | 0.750 | 2.500 |" in text


def test_readme_reports_the_duration_target_on_months_nobody_tuned_on():
    def spearman(primo, rolling, lightgbm):
        return {"primo": primo, "qssf_primo": primo - 0.05, "rolling": rolling, "lightgbm": lightgbm}

    held_out = {"trace": "log_a", "boundary": "2000-06-01 00:00:00", "n_train": 90, "n_test": 30,
                "model_family": "PrAMRegressor", "model_size": 7.0,
                "table": [{"model": m, "spearman": v} for m, v in spearman(0.6, 0.5, 0.65).items()]}
    rows = [{"trace": "log_a", "variant": "by_user", "selection": "rank", "months_back": back, "requested": ["req_time"],
             "validation_start": start, "n_train": 60, "n_test": 30, "model": "PrDTRegressor", "model_size": 3.0,
             "spearman": spearman(*values)}
            for back, start, values in ((1, "2000-05-01 00:00:00", (0.9, 0.1, 0.1)),  # chose the inputs: left out
                                        (2, "2000-04-01 00:00:00", (0.7, 0.5, 0.6)),
                                        (3, "2000-03-01 00:00:00", (0.4, 0.45, 0.3)))]
    rows.append({**rows[1], "variant": "typical", "requested": [], "spearman": spearman(0.0, 0.9, 0.9)})  # not read
    text = "\n".join(casestudy._earlier_months_text(rows, {"workload_study": [held_out]}))
    assert "| log_a | 0 | 2000-06 | 90 | 30 | PrAMRegressor | 7.000 | 0.600 | 0.550 | 0.500 | 0.650 | -0.050 | no |" in text
    assert "| log_a | 2 | 2000-04 | 60 | 30 | PrDTRegressor | 3.000 | 0.700 | 0.650 | 0.500 | 0.600 | 0.100 | yes |" in text
    assert "| log_a | 3 | 2000-03 |" in text and "| log_a | 1 |" not in text and "0.900" not in text
    assert "Months 2 and 3: the target is met on 1 of 2 log-months (1 log)" in text
    assert "With the held-out month: the target is met on 1 of 3 log-months (1 log)" in text
    assert "LightGBM's from 0.300 to 0.650" in text and "largest shortfall of the better Primo variant is -0.050" in text
    assert casestudy._earlier_months_text(rows, {"workload_study": []}) == []


def test_what_moved_compares_with_the_previous_report():
    table = [{"model": m, "spearman": v} for m, v in
             (("primo", 0.63), ("qssf_primo", 0.59), ("rolling", 0.514), ("lightgbm", 0.75))]
    study = {"trace": "SDSC-BLUE-2000-4.2-cln", "model_family": "PrAMRegressor", "model_size": 5000.0, "table": table}
    text = "\n".join(casestudy._moved_since_previous({"workload_study": [study]}))
    # before: 0.521 / 0.569 / 0.514 / 0.713, a 78-leaf PrDT (the previous report)
    assert ("| SDSC-BLUE-2000-4.2-cln | 0.521 | 0.630 | 0.569 | 0.590 | 0.514 | 0.514 | 0.713 | 0.750 | "
            "PrDTRegressor (78) | PrAMRegressor (5000) |") in text
    assert "Spearman moved up on SDSC-BLUE-2000-4.2-cln (+0.061); down on none" in text
    assert "(point estimates) on none; before on none." in text  # LightGBM above both, before and now
    assert "than both Primo variants on: SDSC-BLUE-2000-4.2-cln." in text
    assert "No model above 1,000 pieces is kept" in text
    assert casestudy._moved_since_previous({"workload_study": [dict(study, trace="other")]}) == []


def test_last_run_paragraph_is_computed_from_both_runs():
    def study(trace, size, primo):
        table = [{"model": m, "spearman": v} for m, v in
                 (("primo", primo), ("qssf_primo", 0.5), ("rolling", 0.55), ("lightgbm", 0.6))]
        return {"trace": trace, "model_family": "PrAMRegressor", "model_size": size, "table": table}

    def sim(trace, qssf_jct):
        runs = [{"load": 0.8, "window": 0, "nodes": 2, "arrival_scale": 1.0, "policies": {
            p: {"avg_jct_h": v} for p, v in (("fifo", 3.0), ("sjf_oracle", 0.1), ("qssf_primo", qssf_jct))}}]
        best = "qssf_primo" if qssf_jct < 3.0 else "fifo"
        return {"trace": trace, "runs": runs, "paired": [{"load": 0.8, "policy": "best_non_oracle", "best": best}]}

    last = {"workload_study": [study("a", 10, 0.7), study("b", 5, 0.4)], "policy_study": [sim("a", 2.0)]}
    now = {"workload_study": [study("a", 12, 0.58), study("b", 5, 0.45)], "policy_study": [sim("a", 3.5)],
           "last_run": casestudy.run_summary(last)}
    text = casestudy._moved_since_last_run(now)[0]
    assert "the kept duration model changed on 1 of 2 logs: a (PrAMRegressor, 10 → 12 pieces)." in text
    assert ("Spearman moved by at most 0.120 (a: 0.700 → 0.580); by point estimates, the duration target is met on "
            "0 of 2 logs (last run: 1)") in text
    assert "The `best` column changed on a at load 0.8 (qssf_primo → fifo)." in text
    assert "a `qssf_primo` at load 0.8, 2.00 → 3.50 h." in text  # the oracle's row is not a move
    assert casestudy._moved_since_last_run({"workload_study": now["workload_study"]}) == []
