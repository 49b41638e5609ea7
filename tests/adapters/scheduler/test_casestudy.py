"""`primo casestudy scheduler --quick` writes results, README tables, reports and models."""
import json

import pytest

from adapters.scheduler import casestudy
from primo import load


@pytest.mark.slow
def test_quick_casestudy_writes_everything(data_dir, tmp_path):
    assert casestudy.main(["--quick", "--data-dir", str(data_dir), "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    models = [row["model"] for row in results["throughput"]["table"]]
    assert models[0] == "primo_pram" and results["throughput"]["table"][0]["mae"] > 0
    assert {r["protocol"] for r in results["packing"]["table"]} == {"stratified", "leave_model_out", "in_sample"}
    assert {"primo_pram", "primo_pram_monotone", "qssf_primo"} <= {r["model"] for r in results["workload"]["table"]}
    sim = results["simulation"][0]
    assert sim["trace"] == "nasa_ipsc" and {"fifo", "sjf_oracle", "qssf_primo", "lucid_primo"} <= set(sim["policies"])
    assert all(p["avg_jct_h"] > 0 for p in sim["policies"].values())
    readme = (tmp_path / "README.md").read_text()
    assert "| primo_pram |" in readme and "lucid_primo" in readme
    for name in ("throughput", "workload", "packing"):
        assert (tmp_path / f"{name}_report.html").stat().st_size > 10_000
        assert load(tmp_path / "models" / f"{name}.primo").complexity_ > 0


def test_readme_renders_tables_and_extra_outputs(tmp_path):
    table = [{"model": "primo_pram", "mae": 3.5, "published_mae": 4.125, "fit_s": 1.0}]
    results = {
        "settings": {"n_trials": 1},
        "throughput": {"table": table},
        "workload": {"n_train": 10, "n_test": 5, "monotone_r2_gain": 0.01, "table": [{"model": "primo_pram", "r2": 0.2}]},
        "packing": {"published_accuracy": 0.941, "n_leaves": 4, "complexity": 8,
                    "table": [{"protocol": "stratified", "accuracy": 0.7, "std": 0.1, "folds": 5}]},
        "simulation": [{"trace": "nasa_ipsc", "n_jobs": 3, "nodes": 2, "offered_load": 0.5,
                        "workload_model": {"r2": 0.1, "r2_log": 0.4},
                        "policies": {"fifo": {"avg_jct_h": 1.25, "avg_queue_h": 0.5}}}],
    }
    (tmp_path / "decision_latency_primo.txt").write_text("queued wall\n2048 2.5\n")
    (tmp_path / "knob_search.json").write_text(json.dumps({
        "tune_jobs": 7, "eval_jobs": 8, "trials": [{}, {}], "defaults": {"lam": 0.5}, "best": {"lam": 0.9},
        "tune_jct_h": {"defaults": 1.0, "best": 0.75}, "eval_jct_h": {"defaults": 2.0, "best": 2.5}}))
    text = casestudy.render_readme(results, tmp_path)
    assert "| primo_pram | 3.500 | 4.125 | 1.000 |" in text
    assert "| fifo | 1.250 | 0.500 |" in text
    assert "2048 2.5" in text and "| best | 0.750 | 2.500 |" in text
