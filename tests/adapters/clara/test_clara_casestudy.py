"""The Clara case-study command: a quick smoke run writes every table, number and report."""
import json
import math

import pytest

from adapters.clara import casestudy
from adapters.clara.primo_models import QUICK
from primo.commands.casestudy import available


@pytest.fixture(scope="module")
def run(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("clara")
    assert casestudy.main(["--quick", "--data-dir", str(data_dir), "--out", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def _rows(results, task):
    return {row["model"]: row for row in results["tasks"][task]["models"]}


def test_command_is_registered_under_primo_casestudy():
    assert available()["clara"].load() is casestudy.main


def test_every_task_has_clara_baselines_and_primo_models(run):
    _, results = run
    assert results["quick"] and set(results["tasks"]) == {"MS", "AI", "CP"}
    expected = {"MS": {"clara_xgboost", "primo_default", "primo_bo", "primo_plus"},
                "AI": {"clara_svm", "primo_default", "primo_bo", "primo_plus", "primo_plus_crossfit", "primo_plus_in_sample"},
                "CP": {"clara_lstm", "ridge", "primo_default", "primo_bo", "primo_distilled"}}
    for task, names in expected.items():
        rows = _rows(results, task)
        assert names <= set(rows)
        for row in rows.values():
            values = list(row["test"].values()) + list(row["real"].values())
            assert values and all(math.isfinite(v) for v in values), (task, row["model"])
        search = results["tasks"][task]["search"]
        assert search["n_trials"] == QUICK[task].n_trials and search["cv_folds"] == QUICK[task].cv


def test_clara_models_score_their_reference_numbers(run):
    _, results = run
    # MS data and the CP real NFs are not subsampled by --quick: Clara's models hit their references.
    xgb = _rows(results, "MS")["clara_xgboost"]
    assert xgb["test"]["mae"] == pytest.approx(2.547, abs=0.01) and xgb["real"]["mae"] == pytest.approx(1.238, abs=0.01)
    lstm = _rows(results, "CP")["clara_lstm"]
    assert lstm["real"]["wmape"] == pytest.approx(0.1507, abs=5e-4) and lstm["train_seconds"] is None
    per_nf = results["tasks"]["CP"]["real_wmape_per_nf"]
    assert len(per_nf["clara_lstm"]) == 8 and set(per_nf) == set(_rows(results, "CP"))


def test_primo_plus_and_distillation_are_recorded(run):
    _, results = run
    ms = results["tasks"]["MS"]
    assert ms["primo_plus"]["directions"] == {"A_i": "decreasing", "R_ec": "increasing"}
    assert len(_rows(results, "MS")["primo_plus"]["edits"]) == 2
    assert [p["nf"] for p in ms["real_nf_predictions"]] == ["MazuNAT", "DNSProxy", "UDPCount", "WebGen"]
    assert len(ms["primo_bo_other_seeds"]) == casestudy.MS_RESEEDS and list(ms["top_terms"])[0].startswith("R_")
    difference = ms["primo_bo_minus_gbdt_test_mae"]
    rows = _rows(results, "MS")
    assert difference["difference"] == pytest.approx(rows["primo_bo"]["test"]["mae"] - rows["clara_xgboost"]["test"]["mae"])
    assert difference["low"] <= difference["difference"] <= difference["high"]
    # Out-of-fold comparison on the training NFs, paired against GBDT.
    cv = ms["cv_comparison"]
    assert set(cv["mae"]) == {"clara_xgboost", "primo_default", "primo_bo"} and set(cv["minus_gbdt"]) == {"primo_default", "primo_bo"}
    for name, d in cv["minus_gbdt"].items():
        assert d["difference"] == pytest.approx(cv["mae"][name] - cv["mae"]["clara_xgboost"])
        assert d["low"] <= d["difference"] <= d["high"]
    ai = results["tasks"]["AI"]["primo_plus"]
    assert len(ai["test_halves"]) == 2
    for record in [ai["training_cv"]] + ai["test_halves"]:
        assert (record["chosen"] is None) == (record["edit"] is None)
        assert record["chosen"] is None or record["chosen"]["f1"] > record["before"]["f1"]
    # Every test miss is listed with the flags it shows (the explanation of why honest PRIMO+ cannot gain).
    misses = ai["test_false_negatives"]
    assert len(misses) == round(36 * (1 - _rows(results, "AI")["primo_bo"]["test"]["recall"]))
    assert all(flag.startswith("pattern_") for flags in misses.values() for flag in flags)
    distilled = _rows(results, "CP")["primo_distilled"]
    assert 0.5 < distilled["fidelity_r2"] <= 1.0
    # 80% of (QUICK_CP_BLOCKS synthetic + n_augment × as many generated) train the final student.
    assert distilled["n_training_blocks"] == int(0.8 * casestudy.QUICK_CP_BLOCKS * (1 + QUICK["CP"].n_augment))


def test_readme_and_reports_are_written(run):
    out, results = run
    readme = (out / "README.md").read_text()
    assert "Quick smoke run" in readme
    for heading in ("## Clara-MS", "## Clara-AI", "## Clara-CP", "## BO ablation", "## Training time"):
        assert heading in readme
    assert "0.8660" in readme and "1,081 s" in readme and "Real-NF WMAPE per NF" in readme
    assert "Out-of-fold on the 680 training NFs" in readme
    reports = [name for task in results["tasks"].values() for name in task["reports"]]
    assert len(reports) == 6
    for name in reports:
        html = (out / name).read_text()
        assert html.startswith("<!DOCTYPE html>") and "Clara-" in html
        assert f"]({name})" in readme


def test_unknown_task_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="unknown Clara tasks"):
        casestudy.run(out=tmp_path, quick=True, tasks=("XY",))
