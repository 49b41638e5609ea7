"""The tabular benchmark suite: every table loads offline as declared, and the script's --quick path runs."""
import json
import types

import numpy as np
import pandas as pd
import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """The benchmark modules, imported from benchmarks/ (scripts, not a package)."""
    suite_tables, tabular_suite = import_scripts("suite_tables", "tabular_suite")
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
    # Pair term, interior 2 × 3: rows [1 1 2] and [4 4 4] differ (2 runs); columns (1,4) (1,4) (2,4)
    # give 2 runs → a 2 × 2 heatmap; missing cells all zero → 4 pieces.
    pair = np.zeros((4, 5))
    pair[1, 1:4] = [1, 1, 2]
    pair[2, 1:4] = [4, 4, 4]
    empty = np.zeros(7)  # an all-zero term counts nothing
    ebm = types.SimpleNamespace(term_features_=[(0,), (0, 1), (1,)], term_scores_=[main, pair, empty])
    assert suite.script.additive_pieces(ebm) == {"pieces": 8, "terms": 3, "pair_terms": 1}
    # Multiclass: a bin differs from its neighbour when any class score differs.
    multi = np.array([[0, 0], [1, 1], [1, 2], [1, 2], [0, 0]], dtype=float)
    ebm = types.SimpleNamespace(term_features_=[(0,)], term_scores_=[multi])
    assert suite.script.additive_pieces(ebm)["pieces"] == 2


def test_additive_pieces_agree_with_primo_size(suite):
    import primo

    if not hasattr(primo.PrAMRegressor, "size_"):
        pytest.skip("this Primo has no PrAM.size_ to compare with")
    table = suite.tables.load_table("cars_mpg")
    model = primo.PrAMRegressor(max_rounds=50, outer_bags=1, interactions=2).fit(table.X, table.y)
    assert suite.script.additive_pieces(model.ebm_)["pieces"] == model.size_
    assert suite.script.model_size(model)["primo_size_"] == model.size_


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
    assert "test_tabular_suite.py" in contenders["pram"]["crash"]["where"]  # where it was raised
    assert "in crashing: raise RuntimeError" in contenders["pram"]["crash"]["where"]
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

    # Rerunning one contender keeps the others' results (same folds) and replaces the README section.
    monkeypatch.setitem(suite.script.CONTENDERS, "pram", suite.script.primo_model("pram"))
    rerun = ["--quick", "--tables", "wine", "--contenders", "figs", "--json", str(out), "--readme", str(readme)]
    assert suite.script.main(rerun) == 0
    again = json.loads(out.read_text())["tables"]["wine"]
    assert list(again["folds"]) == ["prdt", "pram", "cart_cv", "figs", "hgb"]
    assert again["folds"]["prdt"] == entry["folds"]["prdt"] and again["folds"]["pram"] == entry["folds"]["pram"]
    assert again["meta"]["contender_runs"]["prdt"] == entry["meta"]["environment"]
    assert readme.read_text().count("## Tabular suite") == 1


def test_summary_targets_with_auto_changing_family_between_folds(suite):
    def fold(index, mae, fit_s, **size):
        return {"fold": index, "mae": mae, "rmse": mae, "r2": 0.5, "fit_s": fit_s, "size": size}

    contenders = {
        # Auto picks an additive model on fold 0 and a tree on fold 1.
        "primo_auto": [fold(0, 10.0, 2.0, pieces=100, terms=5, pair_terms=0, family="pram"),
                       fold(1, 10.2, 4.0, pieces=20, leaves=20, family="prdt")],
        "ebm": [fold(0, 10.0, 10.0, pieces=1000, terms=20, pair_terms=10),
                fold(1, 10.0, 10.0, pieces=1200, terms=20, pair_terms=10)],
        "prdt": [fold(0, 12.0, 0.1, pieces=50, leaves=50), fold(1, 12.0, 0.1, pieces=50, leaves=50)],
        "pram": [fold(0, 10.0, 1.0, pieces=300, terms=8, pair_terms=2),
                 {"fold": 1, "crash": {"type": "ValueError", "message": "x", "where": ""}}],
    }
    summary = suite.script.summarise("regression", n_rows=100, n_folds=2, contenders=contenders)
    auto = summary["contenders"]["primo_auto"]
    assert auto["pieces"] == 60 and "terms" not in auto and "leaves" not in auto
    assert auto["families"] == {"pram": 1, "prdt": 1} and auto["mae"] == pytest.approx(10.1)
    vs_ebm = summary["targets"]["auto_vs_ebm"]
    assert vs_ebm["relative_loss"] == pytest.approx(0.01) and vs_ebm["size_ratio"] == pytest.approx(1100 / 60)
    assert vs_ebm["pass"]
    # PrAM crashed on a fold, so "the better default" is not defined: no selection verdict.
    assert summary["contenders"]["pram"]["crash"]["type"] == "ValueError"
    assert "selection_vs_defaults" not in summary["targets"]

    contenders["pram"][1] = fold(1, 10.0, 1.0, pieces=300, terms=8, pair_terms=2)
    selection = suite.script.summarise("regression", 100, 2, contenders)["targets"]["selection_vs_defaults"]
    assert selection["better_default"] == "pram" and selection["mean_difference"] == pytest.approx(0.1)
    low, high = selection["interval_95"]
    assert low < 0.1 < high and selection["pass"] == (low <= 0)


def test_paired_interval_is_wider_than_the_plain_t_interval(suite):
    d = np.array([0.1, 0.3, 0.2, 0.25, 0.15])
    mean, low, high = suite.script.paired_interval(d, n_train=80, n_test=20)
    plain = 2.776 * d.std(ddof=1) / np.sqrt(5)  # t(0.975, 4) × standard error
    assert mean == pytest.approx(0.2) and (high - low) / 2 > plain


def test_fit_times_of_contenders_run_apart_compare_only_through_the_machine_speed(suite):
    def entry(auto_run, ebm_run):
        return {"meta": {"contender_runs": {"primo_auto": auto_run, "ebm": ebm_run}},
                "summary": {"contenders": {"primo_auto": {"fit_s": 12.0}, "ebm": {"fit_s": 10.0}}}}
    today, yesterday = {"date_utc": "b", "reference_fit_s": 0.6}, {"date_utc": "a", "reference_fit_s": 0.2}
    compare = suite.script.comparable_fit_s
    assert compare(entry(today, today), "primo_auto", "ebm") == 12.0  # one run: as measured
    assert compare(entry(today, yesterday), "primo_auto", "ebm") == pytest.approx(4.0)  # a 3x slower machine
    assert compare(entry({"date_utc": "b"}, yesterday), "primo_auto", "ebm") is None  # a run of unknown speed
    assert suite.script.reference_fit_s() > 0


def test_automatic_selection_records_the_seed_it_drew(suite, tmp_path, monkeypatch):
    import primo

    monkeypatch.setitem(suite.script.CONTENDERS, "primo_auto",
                        lambda task, X: primo.PrimoClassifier(families=("prdt",), progress=False))
    out = tmp_path / "suite.json"
    args = ["--quick", "--tables", "wine", "--contenders", "primo_auto", "prdt", "--json", str(out), "--readme", "none"]
    assert suite.script.main(args) == 0
    folds = json.loads(out.read_text())["tables"]["wine"]["folds"]
    assert all(isinstance(row["seed"], int) for row in folds["primo_auto"])
    assert all("seed" not in row for row in folds["prdt"])  # only automatic selection draws one


def test_hgb_reads_a_text_column_of_more_categories_than_it_takes_as_numbers(suite):
    """HGB refuses a categorical feature of more than 255 values (nycflights' tail numbers crashed the reference);
    such a column's codes are read as numbers, and smaller text columns stay categorical."""
    rng = np.random.default_rng(0)
    n = 900
    X = pd.DataFrame({"tail": [f"N{i:04d}" for i in rng.integers(0, 400, n)], "carrier": rng.choice(["AA", "UA"], n),
                      "distance": rng.uniform(100, 3000, n)})
    y = X["distance"] / 100 + (X["carrier"] == "AA") + rng.normal(0, 0.1, n)
    model = suite.script.hist_gradient_boosting("regression", X).fit(X, y)
    assert list(model[-1].is_categorical_) == [False, True, False]
    assert np.abs(model.predict(X) - y).mean() < 1
