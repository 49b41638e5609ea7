"""monotonize: PAV on PrAM shape functions (and pair terms), monotonic_cst refit for PrDT."""
import numpy as np
import pandas as pd
import pytest

from primo import PrAMClassifier, PrDTRegressor
from primo.adjust import edits_of, isotonic_shape, monotonize, undo
from primo.errors import ColumnMismatchError


def _grid_predictions(model, X, feature, n_rows=25, n_points=60, proba=False):
    """Predictions along a grid of one feature (all else fixed) for the first n_rows rows: (rows, points)."""
    grid = np.linspace(X[feature].min(), X[feature].max(), n_points)
    out = []
    for _, row in X.head(n_rows).iterrows():
        frame = pd.DataFrame([row] * n_points)
        frame[feature] = grid
        out.append(model.predict_proba(frame)[:, 1] if proba else model.predict(frame))
    return np.asarray(out)


def test_isotonic_shape_is_weighted_pav():
    fitted, used = isotonic_shape([0.0, 2.0, 1.0, 3.0], [1, 3, 1, 1], "increasing")
    # 2 (weight 3) and 1 (weight 1) pool to their weighted mean 1.75.
    assert used == "increasing" and np.allclose(fitted, [0.0, 1.75, 1.75, 3.0])
    fitted, used = isotonic_shape([3.0, 2.0, 2.5, 0.0], [1, 1, 1, 1], "auto")
    assert used == "decreasing" and np.all(np.diff(fitted) <= 0)
    # A zero-weight bin is interpolated, not allowed to break monotonicity.
    fitted, _ = isotonic_shape([0.0, 9.0, 1.0, 2.0], [1, 0, 1, 1], "increasing")
    assert np.all(np.diff(fitted) >= 0) and fitted[1] <= fitted[2]


def test_isotonic_shape_keeps_weighted_mean():
    rng = np.random.default_rng(0)
    scores, weights = rng.normal(size=40), rng.integers(1, 30, size=40).astype(float)
    fitted, _ = isotonic_shape(scores, weights, "decreasing")
    assert np.isclose(np.average(fitted, weights=weights), np.average(scores, weights=weights))


def test_pram_monotonize_makes_shape_and_predictions_monotone(pram_ms, clara):
    X, _, X_test, _ = clara
    ebm = pram_ms.ebm_
    in_pairs = {pram_ms.feature_names_[f] for t in ebm.term_features_ if len(t) == 2 for f in t}
    features = ["A_i", "R_ec"] + sorted(in_pairs - {"A_i", "R_ec"})[:1]
    assert in_pairs & set(features), "the fixture must have a pair term on a monotonized feature"
    before_predictions = pram_ms.predict(X_test)
    plus = monotonize(pram_ms, features, direction="increasing")
    assert np.array_equal(pram_ms.predict(X_test), before_predictions), "the input model must stay unedited"
    for feature in features:
        term = plus.term_names_.index(feature)
        assert np.all(np.diff(plus.ebm_.term_scores_[term][1:-1]) >= -1e-12)
        grid = _grid_predictions(plus, X_test, feature)
        assert np.all(np.diff(grid, axis=1) >= -1e-9), f"predictions decrease along {feature}"
    records = edits_of(plus)
    assert [r["term"] for r in records] == features
    paired = [r for r in records if r["pairs"]]
    assert paired and all(len(p["before"]) == len(p["after"]) for r in paired for p in r["pairs"])
    assert len(records[0]["before"]) == len(ebm.term_scores_[plus.term_names_.index(features[0])])


def test_pram_monotonize_decreasing_and_auto(pram_ms, clara):
    X_test = clara[2]
    down = monotonize(pram_ms, "A_i", direction="decreasing")
    assert np.all(np.diff(_grid_predictions(down, X_test, "A_i"), axis=1) <= 1e-9)
    auto = monotonize(pram_ms, {"A_i": "auto"} and ["A_i"], direction="auto")
    record = edits_of(auto)[-1]
    assert record["direction"] in ("increasing", "decreasing") and "auto" in record["summary"]
    # "auto" picks the direction whose fit moves the shape least.
    term = pram_ms.term_names_.index("A_i")
    scores, weights = pram_ms.ebm_.term_scores_[term][1:-1], pram_ms.ebm_.bin_weights_[term][1:-1]
    costs = {d: np.sum(weights * (isotonic_shape(scores, weights, d)[0] - scores) ** 2) for d in ("increasing", "decreasing")}
    assert record["direction"] == min(costs, key=costs.get)


def test_pram_monotonize_classifier_probability(pram_classifier, linnos):
    X, _ = linnos
    plus = monotonize(pram_classifier, "prev_latency", direction="increasing")
    grid = _grid_predictions(plus, X, "prev_latency", proba=True)
    assert np.all(np.diff(grid, axis=1) >= -1e-12)


def test_monotonize_rejects_bad_input(pram_ms, data_dir):
    with pytest.raises(ValueError, match="unknown term"):
        monotonize(pram_ms, "no_such_feature")
    with pytest.raises(ValueError, match="direction"):
        monotonize(pram_ms, "A_i", direction="up")
    X = pd.read_csv(data_dir / "clara" / "ms_train.csv").head(300)
    labels = pd.cut(X["cores"], 3, labels=False)
    multiclass = PrAMClassifier(max_bins=16, interactions=0, max_rounds=50, outer_bags=1, n_jobs=1).fit(X.drop(columns="cores"), labels)
    with pytest.raises(ValueError, match="classes"):
        monotonize(multiclass, "A_i")
    nominal = X.drop(columns="cores").assign(A_e=lambda f: "e" + f["A_e"].astype(int).astype(str))
    with_category = PrAMClassifier(max_bins=16, interactions=0, max_rounds=50, outer_bags=1, n_jobs=1).fit(nominal, labels == 2)
    with pytest.raises(ValueError, match="nominal"):
        monotonize(with_category, "A_e")


def test_prdt_monotonize_refits_with_monotonic_cst(prdt_regressor, clara):
    X, y, X_test, _ = clara
    with pytest.raises(ValueError, match="X_train"):
        monotonize(prdt_regressor, "A_i")
    used = [prdt_regressor.feature_names_[f] for f in np.unique(prdt_regressor.tree_.feature[prdt_regressor.tree_.feature >= 0])]
    # Features along which the fitted tree goes down somewhere: the edit has something to fix.
    falling = [f for f in used if np.any(np.diff(_grid_predictions(prdt_regressor, X_test, f), axis=1) < 0)]
    rising = [f for f in used if np.any(np.diff(_grid_predictions(prdt_regressor, X_test, f), axis=1) > 0) and f not in falling[:1]]
    assert falling and rising
    up, down = falling[0], rising[0]
    plus = monotonize(prdt_regressor, [up, down], direction=["increasing", "decreasing"], X_train=X, y_train=y)
    assert np.all(np.diff(_grid_predictions(plus, X_test, up), axis=1) >= -1e-9)
    assert np.all(np.diff(_grid_predictions(plus, X_test, down), axis=1) <= 1e-9)
    record = edits_of(plus)[-1]
    assert record["monotonic_cst_before"] is None
    assert record["monotonic_cst_after"][list(X.columns).index(up)] == 1
    assert record["monotonic_cst_after"][list(X.columns).index(down)] == -1
    assert prdt_regressor.monotonic_cst is None, "the input tree must stay unedited"


def test_prdt_classifier_monotonize(prdt_classifier, linnos):
    X, y = linnos
    plus = monotonize(prdt_classifier, "prev_latency", direction="auto", X_train=X, y_train=y)
    assert edits_of(plus)[-1]["direction"] == ["increasing"]  # slow reads follow slow reads
    grid = _grid_predictions(plus, X, "prev_latency", proba=True)
    assert np.all(np.diff(grid, axis=1) >= -1e-12)


def test_prdt_monotonize_and_undo_match_training_columns_by_name():
    """X_train with its columns in another order (DataFrame, Arrow table) gives the tree the in-order frame
    gives; before, "auto" read the wrong column and monotonic_cst landed on another feature of the refit."""
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(0, 1, (1000, 3)), columns=["up", "down", "noise"])
    y = 3 * X["up"] - 3 * X["down"] + rng.normal(0, 0.3, len(X))
    tree = PrDTRegressor(ccp_alpha=0.01, random_state=0).fit(X, y)
    expected = monotonize(tree, "up", direction="auto", X_train=X, y_train=y)
    assert edits_of(expected)[-1]["direction"] == ["increasing"]
    reordered = X[["down", "noise", "up"]]
    for X_train in (reordered, pa.Table.from_pandas(reordered, preserve_index=False)):
        plus = monotonize(tree, "up", direction="auto", X_train=X_train, y_train=y)
        assert plus.feature_names_ == tree.feature_names_
        assert edits_of(plus)[-1] == edits_of(expected)[-1]
        assert list(plus.monotonic_cst) == [1, 0, 0]
        np.testing.assert_array_equal(plus.predict(X), expected.predict(X))
        back = undo(plus, X_train=X_train, y_train=y)
        assert back.feature_names_ == tree.feature_names_
        np.testing.assert_array_equal(back.predict(X), tree.predict(X))
    with pytest.raises(ColumnMismatchError, match="down") as error:
        monotonize(tree, "up", X_train=X[["up", "noise"]], y_train=y)
    assert error.value.column == "down"


def test_prdt_monotonize_names_x_train_in_its_input_errors():
    """The training rows are the X_train argument: errors (message and ``argument``) and the array warning name
    it, for monotonize and its undo; before, they said X, a parameter monotonize does not have."""
    from primo.errors import InputError

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = X["a"] + 0.1 * rng.normal(size=200)
    tree = PrDTRegressor(random_state=0).fit(X, y)
    with pytest.raises(ColumnMismatchError, match=r"^X_train has 1 features, but PrDTRegressor is expecting 2") as error:
        monotonize(tree, "a", X_train=X.to_numpy()[:, :1], y_train=y)
    assert error.value.argument == "X_train"
    with pytest.raises(ColumnMismatchError, match=r"missing \['b'\]") as error:
        monotonize(tree, "a", X_train=X[["a"]], y_train=y)
    assert error.value.argument == "X_train" and error.value.column == "b"
    with pytest.raises(InputError, match=r"^column 'b' of X_train holds infinity") as error:
        monotonize(tree, "a", X_train=X.assign(b=np.inf), y_train=y)
    assert error.value.argument == "X_train"
    with pytest.warns(UserWarning, match="^X_train does not have valid feature names"):
        monotonize(tree, "a", X_train=X.to_numpy(), y_train=y)
    plus = monotonize(tree, "a", X_train=X, y_train=y)
    with pytest.raises(InputError, match=r"^X_train must be 2-D") as error:
        undo(plus, X_train=X["a"].to_numpy(), y_train=y)
    assert error.value.argument == "X_train"


def test_prdt_monotonize_with_an_array_keeps_the_names_the_tree_was_fit_with():
    """X_train as an array (read by position, with scikit-learn's warning) for a tree fit on a DataFrame: the refit
    and its undo keep feature_names_in_ and print their rules with the names; before, the refit was fit on the
    array and printed x0, x1 (and an object array holding a text category was refused). The tree is the one the
    DataFrame gives."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"load": rng.uniform(0, 1, 400), "size": rng.uniform(0, 1, 400)})
    y = X["load"] - 0.3 * np.sin(12 * X["load"]) + X["size"] + rng.normal(0, 0.05, 400)
    tree = PrDTRegressor(max_depth=4, random_state=0).fit(X, y)
    expected = monotonize(tree, "load", X_train=X, y_train=y)
    with pytest.warns(UserWarning, match="X_train does not have valid feature names"):
        plus = monotonize(tree, "load", X_train=X.to_numpy(), y_train=y)
    assert list(plus.feature_names_in_) == ["load", "size"] and plus.feature_names_ == ["load", "size"]
    assert str(plus) == str(expected) and "load <=" in str(plus) and "x0" not in str(plus)
    np.testing.assert_array_equal(plus.predict(X), expected.predict(X))
    with pytest.warns(UserWarning, match="X_train does not have valid feature names"):
        back = undo(plus, X_train=X.to_numpy(), y_train=y)
    assert list(back.feature_names_in_) == ["load", "size"] and str(back) == str(tree)
    texts = X.assign(size=np.where(X["size"] > 0.5, "large", "small"))  # a text category, as an object array
    tree = PrDTRegressor(max_depth=4, random_state=0).fit(texts, y)
    with pytest.warns(UserWarning, match="X_train does not have valid feature names"):
        plus = monotonize(tree, "load", X_train=texts.to_numpy(), y_train=y)  # refused before: text in an array
    assert str(plus) == str(monotonize(tree, "load", X_train=texts, y_train=y))
