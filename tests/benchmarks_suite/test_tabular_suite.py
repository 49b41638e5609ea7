"""The tabular benchmark suite: every table loads offline as declared, and the script's --quick path runs."""
import json
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The benchmark modules, imported from benchmarks/ (scripts, not a package)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCHMARKS))
        import suite_tables
        import tabular_suite
    return types.SimpleNamespace(tables=suite_tables, script=tabular_suite)


def test_every_table_loads_as_declared(suite):
    specs = suite.tables.TABLES
    assert len(specs) >= 10
    assert {s.task for s in specs.values()} == set(suite.tables.TASKS)
    development = [s for s in specs.values() if s.role == "development"]
    assert 0.25 <= len(development) / len(specs) <= 0.4  # about a third may inform defaults
    assert sum(s.has_text for s in specs.values()) >= 3 and sum(s.has_missing for s in specs.values()) >= 3
    for name, spec in specs.items():
        table = suite.tables.load_table(name)
        assert table.X.shape[0] == len(table.y) >= 150, name
        assert table.X.shape[1] >= 3, name
        assert not table.y.isna().any(), name
        assert bool(table.text_columns) == spec.has_text, name
        assert (table.n_missing > 0) == spec.has_missing, name
        if spec.task == "regression":
            assert pd.api.types.is_float_dtype(table.y) and table.y.nunique() > 20, name
        else:
            counts = table.y.value_counts()
            assert len(counts) == (2 if spec.task == "binary" else len(counts)) and len(counts) >= 2, name
            assert spec.task == "binary" or len(counts) >= 3, name
            assert counts.min() >= 10, name  # stratified 5-fold CV needs every class in every fold


def test_unknown_table_is_named(suite):
    with pytest.raises(KeyError, match="unknown table 'nope'"):
        suite.tables.load_table("nope")


def test_additive_pieces_merge_equal_bins_and_count_missing_scores(suite):
    # Main term: missing bin 0.5, interior [1, 1, 2, 2, 3] (3 segments), unknown bin 0 → 4 pieces.
    main = np.array([0.5, 1, 1, 2, 2, 3, 0.0])
    # Pair term, interior 2 × 3: rows [1 1 2] (2 runs) and [4 4 4] (1 run); missing cells all zero → 3.
    pair = np.zeros((4, 5))
    pair[1, 1:4] = [1, 1, 2]
    pair[2, 1:4] = [4, 4, 4]
    ebm = types.SimpleNamespace(term_features_=[(0,), (0, 1)], term_scores_=[main, pair])
    assert suite.script.additive_pieces(ebm) == {"pieces": 7, "terms": 2, "pair_terms": 1}
    # Multiclass: a bin differs from its neighbour when any class score differs.
    multi = np.array([[0, 0], [1, 1], [1, 2], [1, 2], [0, 0]], dtype=float)
    ebm = types.SimpleNamespace(term_features_=[(0,)], term_scores_=[multi])
    assert suite.script.additive_pieces(ebm)["pieces"] == 2


def test_expected_calibration_error(suite):
    proba = np.array([[0.9, 0.1], [0.9, 0.1], [0.6, 0.4], [0.3, 0.7]])
    y = np.array(["a", "b", "a", "b"])
    # Bin 0.9: accuracy 1/2, confidence 0.9; bin 0.6: 1 vs 0.6; bin 0.7: 1 vs 0.7.
    expected = 0.5 * 0.4 + 0.25 * 0.4 + 0.25 * 0.3
    assert suite.script.expected_calibration_error(y, proba, np.array(["a", "b"])) == pytest.approx(expected)


def test_quick_run_records_results_crashes_and_its_readme_section(suite, tmp_path, monkeypatch):
    def crashing(task, X):
        raise RuntimeError("broken on purpose")

    monkeypatch.setitem(suite.script.CONTENDERS, "pram", crashing)
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\n## Another section\n\nkept as is\n")
    out = tmp_path / "suite.json"
    args = ["--quick", "--tables", "wine", "--contenders", "prdt", "pram", "cart_cv", "figs", "hgb",
            "--json", str(out), "--readme", str(readme)]
    assert suite.script.main(args) == 0

    entry = json.loads(out.read_text())["tables"]["wine"]
    assert entry["meta"]["quick"] and entry["meta"]["folds"] == 2 and entry["meta"]["role"] == "development"
    contenders = entry["summary"]["contenders"]
    assert contenders["pram"]["crash"] == {**contenders["pram"]["crash"], "type": "RuntimeError",
                                           "message": "broken on purpose"}
    assert len(entry["folds"]["pram"]) == 1  # a crash ends the contender's run on the table
    for name in ("prdt", "cart_cv", "figs", "hgb"):
        assert contenders[name]["crash"] is None and contenders[name]["folds_done"] == 2, name
        assert 0 <= contenders[name]["log_loss"] and 0 <= contenders[name]["ece"] <= 1, name
        assert contenders[name]["pieces"] >= 2, name
    assert contenders["hgb"]["accuracy"] > 0.8  # wine is easy: the pipeline feeds the model sensible data
    assert "selection_vs_defaults" not in entry["summary"]["targets"]  # needs primo_auto

    text = readme.read_text()
    assert "## Another section\n\nkept as is" in text
    assert text.count("## Tabular suite") == 1 and "**crash** (RuntimeError)" in text
    assert "not evaluated" in text

    # A second run replaces the section instead of appending another.
    assert suite.script.main(args[:-4] + ["--json", str(out), "--readme", str(readme)]) == 0
    assert readme.read_text().count("## Tabular suite") == 1
