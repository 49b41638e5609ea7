"""PrDT on tables with text, category, boolean and missing values (issue 16, item 4)."""
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeRegressor

import primo
from primo import PrDTClassifier, PrDTRegressor
from primo.cli import main
from primo.models.encoding import encode_table, fit_vocabularies
from tests.primo.tables_any import housing


@pytest.fixture(scope="module")
def table():
    return housing()


@pytest.fixture(scope="module")
def regressor(table):
    X, y = table
    return PrDTRegressor(ccp_alpha=100.0, random_state=0).fit(X, y)


@pytest.fixture(scope="module")
def classifier(table):
    X, y = table
    return PrDTClassifier(ccp_alpha=0.005, random_state=0).fit(X, np.where(y > 300, "high", "low"))


def test_vocabulary_is_ordered_by_mean_target(table, regressor):
    X, y = table
    means = y.groupby(X["city"].astype(str)).mean().sort_values()
    assert regressor.categories_[0] == list(means.index)
    assert sorted(regressor.categories_) == [0, 1]  # city and kind; bool and numbers need no vocabulary


def test_binary_and_multiclass_orders():
    X = pd.DataFrame({"os": ["a", "b", "c", "a", "b", "c"]})
    assert fit_vocabularies(X, [1, 0, 1, 1, 0, 0], classes=[0, 1]) == {0: ["b", "c", "a"]}
    # Class "z" varies most across categories (0, 1, 0.5); "x"/"y" vary less.
    labels = ["x", "z", "z", "y", "z", "x"]
    assert fit_vocabularies(X, labels, classes=["x", "y", "z"]) == {0: ["a", "c", "b"]}


def test_a_single_threshold_separates_a_non_contiguous_subset():
    # Alphabetically {a, c} vs {b, d} needs two thresholds; in target order one suffices.
    X = pd.DataFrame({"k": list("abcd") * 25})
    y = np.where(X["k"].isin(["a", "c"]), 10.0, 0.0)
    tree = PrDTRegressor().fit(X, y)
    assert tree.n_leaves_ == 2
    assert "k in {a, c}" in str(tree) or "k in {c, a}" in str(tree)


def test_predictions_match_the_encoded_table(table, regressor, classifier):
    X, y = table
    encoded = encode_table(X, regressor.categories_)
    reference = DecisionTreeRegressor(ccp_alpha=100.0, random_state=0).fit(encoded, y)
    np.testing.assert_array_equal(regressor.predict(X), reference.predict(encoded))
    assert classifier.score(X, np.where(y > 300, "high", "low")) > 0.9
    assert classifier.predict_proba(X).shape == (len(X), 2)
    assert regressor.apply(X).shape == (len(X),)
    assert regressor.decision_path(X).shape[0] == len(X)


def test_unseen_category_is_treated_as_missing(table, regressor, classifier):
    X, _ = table
    rows = X.head(20).copy()
    unseen, missing = rows.copy(), rows.copy()
    unseen["city"] = "Oslo"
    missing["city"] = None
    for model in (regressor, classifier):
        np.testing.assert_array_equal(model.predict(unseen), model.predict(missing))
        np.testing.assert_array_equal(model.apply(unseen), model.apply(missing))


def test_columns_are_matched_by_name(table, regressor):
    X, _ = table
    np.testing.assert_array_equal(regressor.predict(X[X.columns[::-1]]), regressor.predict(X))
    with pytest.raises(ValueError, match="unknown"):
        regressor.predict(X.rename(columns={"city": "town"}))


def test_printed_rules_name_category_sets_and_missing(regressor):
    text = str(regressor)
    assert "city in {" in text or "city not in {" in text
    assert "(or missing)" in text
    assert "<= inf" not in text and "nan" not in text


def test_missing_only_split_prints_is_missing():
    x = np.r_[np.arange(50.0), np.full(50, np.nan)]
    tree = PrDTRegressor().fit(pd.DataFrame({"x": x}), np.r_[np.zeros(50), np.ones(50)])
    text = str(tree)
    assert "x is missing" in text and "x is not missing" in text and "inf" not in text


def test_save_load_round_trip(tmp_path, table, regressor, classifier):
    X, _ = table
    for model in (regressor, classifier):
        model.save(tmp_path / "m.primo")
        loaded = primo.load(tmp_path / "m.primo")
        assert loaded.categories_ == model.categories_
        assert str(loaded) == str(model)
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_datetime_column_is_a_clear_error(table):
    X, y = table
    X = X.assign(sold_on=pd.date_range("2024-01-01", periods=len(X), freq="D"))
    with pytest.raises(ValueError, match="'sold_on'.*dates or times.*dt.hour"):
        PrDTRegressor().fit(X, y)


@pytest.mark.parametrize("dates", [["2024-01-31", "2024-02-01"], ["1/31/2024", "2/1/2024"],
                                   ["2024-01-31T08:00:00Z", "2024-02-01T09:30:00+01:00"], ["31.01.2024", "01.02.2024"],
                                   ["31 Jan 2024", "1-Feb-2024"], ["January 31, 2024", "Feb 2024"],
                                   ["1959Q1", "1959 q2"]])
def test_dates_written_as_text_are_a_clear_error_at_fit_unless_given_as_categories(table, dates):
    X, y = table
    sold_on = pd.Series(np.resize(np.array(dates + [None], dtype=object), len(X)), index=X.index)
    with pytest.raises(ValueError, match="'sold_on' holds dates written as text.*to_datetime.*astype\\('category'\\)"):
        PrDTRegressor().fit(X.assign(sold_on=sold_on), y)
    PrDTRegressor().fit(X.assign(sold_on=sold_on.astype("category")), y)  # labels on purpose
    PrDTRegressor().fit(X.assign(sold_on=sold_on.where(X.index % 7 != 0, "soon")), y)  # not every value a date


@pytest.mark.parametrize("labels", [["May", "June"], ["10:30", "11:00"], ["4.19.12", "5.15.0"], ["2024", "2025"]])
def test_recurring_or_yearless_labels_stay_categories(table, labels):
    """A month's name or a time of day recurs; versions and bare years are not dates written as text."""
    X, y = table
    PrDTRegressor().fit(X.assign(label=np.resize(np.array(labels, dtype=object), len(X))), y)


def test_primo_fit_names_a_date_column_of_a_csv(table, tmp_path, capsys):
    X, y = table
    path = tmp_path / "sales.csv"
    X.assign(sold_on=pd.date_range("2024-01-01", periods=len(X)).strftime("%Y-%m-%d"), price=y).to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "price", "--model", "prdt", "--out", str(tmp_path / "m.primo")]) == 2
    assert "'sold_on' holds dates written as text (e.g. '2024-01-01')" in capsys.readouterr().err
    assert not (tmp_path / "m.primo").exists()


def test_numeric_input_is_unchanged(table):
    X, y = table
    numbers = X[["dist_center_km", "rooms"]]
    ours = PrDTRegressor(ccp_alpha=10.0, random_state=0).fit(numbers, y)
    theirs = DecisionTreeRegressor(ccp_alpha=10.0, random_state=0).fit(numbers, y)
    np.testing.assert_array_equal(ours.predict(numbers), theirs.predict(numbers))
    assert ours.categories_ == {}


def test_numeric_rules_print_as_scikit_learn_does():
    from sklearn.datasets import load_diabetes
    from sklearn.tree import export_text

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    tree = PrDTRegressor(ccp_alpha=50.0, random_state=0).fit(X, y)
    assert tree.rules_text() == export_text(tree, feature_names=tree.feature_names_, decimals=4, max_depth=64)


def test_several_outputs(table):
    from sklearn.tree import export_text

    X, y = table
    numbers = X[["dist_center_km", "rooms"]].fillna(0.0)
    targets = np.column_stack([y, -2 * y])
    tree = PrDTRegressor(ccp_alpha=200.0).fit(numbers, targets)
    assert tree.rules_text() == export_text(tree, feature_names=tree.feature_names_, decimals=4, max_depth=64)
    assert PrDTRegressor(ccp_alpha=200.0).fit(X, targets).predict(X.head(2)).shape == (2, 2)
    labels = np.column_stack([np.where(y > 300, "high", "low"), np.where(y > 200, "yes", "no")])
    classifier = PrDTClassifier(ccp_alpha=0.01).fit(X, labels)
    assert classifier.predict(X.head(2)).shape == (2, 2)
    assert "class: [" in str(classifier)


def test_text_in_a_numeric_column_is_named(table, regressor):
    X, _ = table
    as_objects = X.assign(rooms=X["rooms"].astype(object))
    np.testing.assert_array_equal(regressor.predict(as_objects), regressor.predict(X))
    with pytest.raises(ValueError, match="'rooms' holds text"):
        regressor.predict(X.assign(rooms="three"))


def test_clone_and_array_input_with_codes(table, regressor):
    X, y = table
    clone(regressor).fit(X, y)
    codes = encode_table(X, regressor.categories_).to_numpy()
    with pytest.warns(UserWarning, match="valid feature names"):  # arrays on purpose: read by position
        np.testing.assert_array_equal(regressor.predict(codes), regressor.predict(X))
        np.testing.assert_array_equal(regressor.predict(X.to_numpy()), regressor.predict(X))  # text in an object array


# --------------------------------------------------------------------------- explanations and reports


def test_tree_explanations_name_categories_and_unseen_values(table, regressor):
    from primo.explain import explain_global, explain_local

    X, _ = table
    nodes = [n for n in explain_global(regressor).nodes if not n.is_leaf]
    city = [n for n in nodes if n.feature == "city"]
    assert city and all("{" in n.left_condition and "{" in n.right_condition for n in city)
    rows = X.head(2).copy()
    rows.loc[rows.index[0], "city"] = "Oslo"
    paths = explain_local(regressor, rows, rows=[0, 1])
    steps = {p.label: [s.condition for s in p.steps if s.feature == "city"] for p in paths}
    assert steps["row 0"][0].startswith("city = Oslo (unseen: taken as missing) → ")
    assert steps["row 0"][0].endswith("(or missing)")
    assert steps["row 1"][0].startswith(f"city = {X['city'].iloc[1]} → ")


def test_reports_render_category_sets_and_the_missing_bin(table, regressor):
    from primo import PrAMRegressor, report

    X, y = table
    tree_md = report.build(regressor, X, y, local_rows=2, measure_latency=False).to_markdown()
    assert "city in {" in tree_md or "city not in {" in tree_md
    assert "<= inf" not in tree_md
    pram = PrAMRegressor(max_rounds=100, outer_bags=1, interactions=0, n_jobs=1, random_state=0).fit(X, y)
    term = next(t for t in primo.explain.explain_global(pram).terms if t.name == "dist_center_km")
    assert term.missing_weight == X["dist_center_km"].isna().sum()
    built = report.build(pram, X, y, local_rows=1, measure_latency=False)
    assert term.missing_text() in built.to_markdown() and term.missing_text() in built.to_html()


# --------------------------------------------------------------------------- distill, adjust, auto


def _teacher(X):
    """A black box reading text, booleans and missing values (known answer, so fidelity can be checked)."""
    return (np.where(X["city"].astype(str) == "Paris", 500.0, 200.0) + np.where(X["garden"], 50.0, 0.0)
            - X["dist_center_km"].fillna(40.0).to_numpy() * 3)


@pytest.mark.parametrize("student", ["prdt", "pram"])
def test_distill_from_a_table_with_text_and_missing_values(table, student):
    from primo.distill import distill

    X, y = table
    params = {"prdt": {"ccp_alpha": 10.0},
              "pram": {"max_rounds": 300, "outer_bags": 1, "interactions": 0, "n_jobs": 1}}[student]
    model = distill(_teacher, X, student, y=y, augment="both", n_augment=300, search=False,
                    student_params=params, random_state=0)
    assert model.metadata_["distillation"]["fidelity"] > 0.9
    if student == "prdt":
        assert model.categories_ and "city" in str(model)


def test_distill_search_runs_on_text_columns(table):
    from primo.distill import distill

    X, y = table
    model = distill(_teacher, X, "prdt", n_trials=3, random_state=0)
    assert model.predict(X.head(3)).shape == (3,)


def test_adjust_on_text_and_missing_values(table, regressor, classifier):
    import primo.adjust as adjust

    X, y = table
    with pytest.raises(ValueError, match="'city' is nominal"):
        adjust.monotonize(regressor, ["city"], X_train=X, y_train=y)
    rounded = adjust.monotonize(regressor, ["rooms"], X_train=X, y_train=y)
    assert rounded.categories_ == regressor.categories_
    split = next(n for n in range(regressor.tree_.node_count)
                 if regressor.tree_.children_left[n] != -1 and regressor.tree_.feature[n] == 0)
    moved = adjust.set_threshold(regressor, split, 0.5)
    assert moved.metadata_["edits"][-1]["summary"].endswith(f" → {{{regressor.categories_[0][0]}}})")
    row = X.iloc[[0]].assign(city="Oslo")
    result = adjust.counterfactuals(classifier, row.iloc[0], "high", X, k=3)
    assert (classifier.predict(result.neighbors[classifier.feature_names_]) == "high").all()


def test_auto_selection_of_a_prdt_on_text_columns(table):
    from primo import PrimoRegressor

    X, y = table
    auto = PrimoRegressor(families=("prdt",), n_trials=3, random_state=0).fit(X, y)
    assert auto.best_estimator_.categories_
    assert auto.predict(X.head(5)).shape == (5,)


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_text_that_looks_like_numbers_is_still_categories(family):
    """A text column of "4"/"6"/"8" (R's Cars93 cylinders) is categories in both families: a later "rotary"
    is an unseen category, not an error, whichever rows the training (or a CV fold) happened to draw."""
    rng = np.random.default_rng(0)
    cylinders = rng.choice(["4", "6", "8"], 300)
    X = pd.DataFrame({"cylinders": cylinders, "weight": rng.normal(3000, 400, 300)})
    y = X["weight"] / 100 + pd.Series(cylinders).map({"4": 0.0, "6": 8.0, "8": 3.0})  # not monotone in the number
    model = (PrDTRegressor(random_state=0) if family == "prdt" else
             primo.PrAMRegressor(outer_bags=1, interactions=0, max_rounds=300, n_jobs=1, random_state=0)).fit(X, y)
    new = pd.DataFrame({"cylinders": ["rotary", "6", None], "weight": [2500.0, 2500.0, 2500.0]})
    prediction = model.predict(new)
    assert np.isfinite(prediction).all()
    if family == "pram":
        assert list(model.ebm_.feature_types_in_) == ["nominal", "continuous"]
        np.testing.assert_allclose(model.predict(new.iloc[[1]]), prediction[[1]])


def test_a_column_with_no_values_fits_in_both_families_and_auto():
    """R's Bwages ships a ``sex`` column that is missing on every row: it carries nothing, but it must not crash."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"educ": rng.integers(1, 6, 400).astype(float), "sex": np.full(400, np.nan),
                      "exper": rng.integers(0, 40, 400).astype(float)})
    y = X["educ"] + 0.1 * X["exper"] + rng.normal(0, 1, 400)
    pram = primo.PrAMRegressor(outer_bags=1, interactions=2, max_rounds=200, n_jobs=1, random_state=0).fit(X, y)
    assert pram.size_ > 0 and pram.simplified(2).size_ <= pram.size_
    for model in (pram, PrDTRegressor(random_state=0).fit(X, y),
                  primo.PrimoRegressor(n_trials=2, random_state=0, n_jobs=1, progress=False).fit(X, y)):
        assert np.isfinite(model.predict(X)).all()


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_arrow_backed_and_decimal_columns_read_as_their_numpy_kinds(family, tmp_path):
    """A Parquet or ``dtype_backend="pyarrow"`` frame (interpret cannot read Arrow dtypes), a SQL ``NUMERIC``
    column read as ``Decimal`` objects and Python floats in an ``object`` column give the model the
    NumPy-backed table gives: the same predictions, saved and loaded, whichever form the rows come in."""
    from decimal import Decimal

    pa = pytest.importorskip("pyarrow")
    X, y = housing(n=300, seed=3)
    X["dist_center_km"] = X["dist_center_km"].round(2)
    arrow = pd.DataFrame({name: pd.array(column.astype(object).where(column.notna(), None).tolist(), dtype=dtype)
                          for (name, column), dtype in zip(X.items(), [
                              pd.ArrowDtype(pa.string()), pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string())),
                              pd.ArrowDtype(pa.bool_()), pd.ArrowDtype(pa.float64()), pd.ArrowDtype(pa.int64())])})
    decimals = X.assign(dist_center_km=[None if np.isnan(v) else Decimal(f"{v:.2f}") for v in X["dist_center_km"]])
    objects = X.assign(dist_center_km=X["dist_center_km"].astype(object).where(X["dist_center_km"].notna(), None))
    assert decimals["dist_center_km"].dtype == objects["dist_center_km"].dtype == object

    def fitted(table):
        model = (PrDTRegressor(random_state=0) if family == "prdt" else
                 primo.PrAMRegressor(outer_bags=1, interactions=2, max_rounds=300, n_jobs=1, random_state=0))
        return model.fit(table, y)

    plain = fitted(X)
    expected = plain.predict(X)
    for table in (arrow, decimals, objects):
        model = fitted(table)
        model.save(tmp_path / "m.primo")
        loaded = primo.load(tmp_path / "m.primo")
        for rows in (X, arrow, decimals, objects):
            np.testing.assert_allclose(loaded.predict(rows), expected, rtol=1e-12)
    if family == "pram":
        assert list(fitted(arrow).ebm_.feature_types_in_) == list(plain.ebm_.feature_types_in_)
    timestamps = X.assign(rooms=pd.array([pd.Timestamp("2026-11-30")] * len(X), dtype=pd.ArrowDtype(pa.timestamp("s"))))
    with pytest.raises(primo.errors.InputError, match="'rooms' holds dates or times"):
        fitted(timestamps)


def test_only_object_columns_of_numbers_become_numbers():
    from primo.models.encoding import plain_columns

    X = pd.DataFrame({"numbers": pd.Series([1, None, 2.5], dtype=object),
                      "beyond_float64": pd.Series([10**400, 1, None], dtype=object),
                      "digits": pd.Series(["4", "6", None], dtype=object),
                      "flags": pd.Series([True, False, None], dtype=object),
                      "mixed": pd.Series([1, "s", None], dtype=object)})
    plain = plain_columns(X)
    assert plain["numbers"].dtype == np.float64 and plain["numbers"].isna().tolist() == [False, True, False]
    assert (plain.dtypes.iloc[1:] == object).all() and X["numbers"].dtype == object  # the caller's frame is kept
    numeric = pd.DataFrame({"a": [1.0]})
    assert plain_columns(numeric) is numeric


def test_arrow_tables_keep_their_column_names_and_kinds():
    """A pyarrow Table (as polars, DuckDB and Arrow readers hand tables over) fits and predicts as the
    pandas frame does, in both families, a search and automatic selection; as an array its names were
    lost and its text column was refused as text among numbers."""
    pa = pytest.importorskip("pyarrow")
    X, y = housing(n=300, seed=4)
    table = pa.Table.from_pandas(X, preserve_index=False)
    tree = PrDTRegressor(random_state=0)
    np.testing.assert_array_equal(clone(tree).fit(table, y).predict(table), clone(tree).fit(X, y).predict(X))
    pram = primo.PrAMRegressor(outer_bags=1, interactions=2, max_rounds=200, n_jobs=1, random_state=0).fit(table, y)
    assert list(pram.feature_names_in_) == list(X.columns)
    np.testing.assert_allclose(pram.predict(table), pram.predict(X), rtol=1e-12)
    cheap = {"pram": {"outer_bags": 1, "interactions": 0, "max_rounds": 100, "n_jobs": 1}}
    auto = primo.PrimoRegressor(n_trials=2, family_params=cheap, random_state=0, n_jobs=1, progress=False).fit(table, y)
    assert list(auto.best_estimator_.feature_names_in_) == list(X.columns)
    np.testing.assert_allclose(auto.predict(table), auto.predict(X), rtol=1e-12)


def test_model_inputs_reads_an_arrow_table(table, regressor):
    """The CLI's column selection takes a pyarrow Table as a DataFrame: the model's columns by name, in its
    order, extra ones ignored, missing ones named; a model fit without names gets all columns as an array."""
    pa = pytest.importorskip("pyarrow")
    from primo.tabular import model_inputs

    X, y = table
    arrow = pa.Table.from_pandas(X[X.columns[::-1]].assign(note="extra"), preserve_index=False)
    rows = model_inputs(regressor, arrow)
    assert list(rows.columns) == list(X.columns)
    np.testing.assert_array_equal(regressor.predict(rows), regressor.predict(X))
    with pytest.raises(KeyError, match=r"\['city'\]"):
        model_inputs(regressor, arrow.drop_columns(["city"]))
    numeric = X[["rooms", "dist_center_km"]]
    unnamed = PrDTRegressor(random_state=0).fit(numeric.to_numpy(), y)
    arrays = model_inputs(unnamed, pa.Table.from_pandas(numeric, preserve_index=False))
    np.testing.assert_array_equal(arrays, numeric.to_numpy())
