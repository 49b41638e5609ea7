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
