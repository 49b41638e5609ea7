"""PrAM explanations: shape functions are the model's own bins and scores; contributions add up."""
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from primo import PrAMRegressor
from primo.explain import explain_additive_rows, explain_global, explain_local


def test_shape_functions_are_the_fitted_bins_and_scores(pram_regressor, clara):
    X, _, _, _ = clara
    explanation = explain_global(pram_regressor)
    ebm = pram_regressor.ebm_
    assert [t.name for t in explanation.terms] == list(ebm.term_names_)
    assert sum(t.is_pair for t in explanation.terms) == pram_regressor.n_interactions_ == 2
    r_i = explanation.term("R_i")
    index = list(ebm.term_names_).index("R_i")
    np.testing.assert_array_equal(r_i.scores, ebm.term_scores_[index][1:-1])
    assert len(r_i.bins[0]) == len(r_i.scores) + 1  # edges around every bin
    assert r_i.bins[0][0] == pytest.approx(X["R_i"].min()) and r_i.bins[0][-1] == pytest.approx(X["R_i"].max())
    assert r_i.weights.sum() == pytest.approx(len(X))  # density covers every training row once
    pair = next(t for t in explanation.terms if t.is_pair)
    assert pair.scores.shape == pair.weights.shape == tuple(len(b) - 1 for b in pair.bins)
    with pytest.raises(KeyError, match="no term named"):
        explanation.term("nope")


def test_a_rows_contribution_is_the_score_of_its_bin(pram_regressor, clara):
    _, _, X_test, _ = clara
    term = explain_global(pram_regressor).term("R_res")
    row = explain_local(pram_regressor, X_test, rows=[7])[0]
    value = X_test["R_res"].iloc[7]
    bin_index = np.searchsorted(term.bins[0][1:-1], value, side="right")  # EBM bins are [lo, hi)
    assert row.contributions["R_res"] == pytest.approx(term.scores[bin_index])


def test_intercept_plus_contributions_is_the_prediction(pram_regressor, clara):
    _, _, X_test, _ = clara
    rows = explain_local(pram_regressor, X_test, rows=[0, 5, 9])
    predictions = pram_regressor.predict(X_test.iloc[[0, 5, 9]])
    for row, expected in zip(rows, predictions):
        assert row.intercept + row.contributions.sum() == pytest.approx(row.raw_score)
        assert row.raw_score == pytest.approx(expected) == pytest.approx(row.prediction)
    assert rows[0].label == f"row {X_test.index[0]}"


def test_binary_classifier_scores_are_log_odds_of_the_second_class(pram_classifier, linnos):
    X, _ = linnos
    explanation = explain_global(pram_classifier)
    assert explanation.task == "classification" and explanation.link == "logit"
    rows = explain_local(pram_classifier, X, rows=[3, 4])
    proba = pram_classifier.predict_proba(X.iloc[[3, 4]])[:, 1]
    for row, p in zip(rows, proba):
        assert expit(row.raw_score) == pytest.approx(p)
        assert row.probability == pytest.approx(p) and row.class_shown == pram_classifier.classes_[1]


def test_arrow_table_is_explained_as_its_pandas_frame():
    """A pyarrow Table with its columns in another order than the model's gives the rows, features and
    contributions of its pandas frame; before, it was read as an array, by position (explain_local:
    'column ... holds text'; explain_additive_rows: each feature shown with another column's value)."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    model = PrAMRegressor(max_rounds=100, outer_bags=1, n_jobs=1, random_state=0).fit(X, price)
    rows = X[X.columns[::-1]].iloc[:20]
    table = pa.Table.from_pandas(rows, preserve_index=False)
    labels = [f"row {i}" for i in range(20)]
    for got, expected in [(explain_local(model, table, rows=3), explain_local(model, rows, rows=3)),
                          (explain_additive_rows(model, table, labels), explain_additive_rows(model, rows, labels))]:
        assert [c.label for c in got] == [c.label for c in expected]
        for mine, theirs in zip(got, expected):
            assert pd.Series(mine.features).equals(pd.Series(theirs.features))  # missing distances included
            pd.testing.assert_series_equal(mine.contributions, theirs.contributions)
            assert mine.prediction == theirs.prediction


def test_row_features_are_listed_in_the_models_order_whatever_the_callers():
    """A frame with its columns in another order gives each feature its own value (matched by name, as before)
    and now lists the features in the model's order, as the terms are listed (before: in the caller's order)."""
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    model = PrAMRegressor(max_rounds=100, outer_bags=1, n_jobs=1, random_state=0).fit(X, price)
    rows = X.iloc[:5]
    labels = [f"row {i}" for i in range(5)]
    expected = explain_additive_rows(model, rows, labels)
    got = explain_additive_rows(model, rows[X.columns[::-1]], labels)
    for mine, theirs, (_, row) in zip(got, expected, rows.iterrows()):
        assert list(mine.features) == model.feature_names_ == list(theirs.features)
        assert pd.Series(mine.features).equals(pd.Series(theirs.features))
        assert mine.features["city"] == row["city"] and mine.features["rooms"] == row["rooms"]
        pd.testing.assert_series_equal(mine.contributions, theirs.contributions)


@pytest.mark.parametrize("rows", [None, 3])
def test_rows_without_names_are_warned_about_once_per_call(rows):
    """explain_local checks the caller's rows once: an array for a PrAM fit on a DataFrame gives scikit-learn's
    warning once (before, once more from each internal call: the check, eval_terms, predict, predict_proba, the
    cautions and, for rows=3, the ranking), and so does explain_additive_rows; the reverse (a DataFrame for a PrAM
    fit on an array) too. The contributions are those of the named rows."""
    import warnings

    from primo import PrAMClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150)})
    y = X["a"] + X["b"] > 0
    params = dict(max_rounds=50, outer_bags=1, n_jobs=1, random_state=0)
    named, unnamed = PrAMClassifier(**params).fit(X, y), PrAMClassifier(**params).fit(X.to_numpy(), y)
    without = "X does not have valid feature names, but PrAMClassifier was fitted with feature names"
    with_names = "X has feature names, but PrAMClassifier was fitted without feature names"
    for call, model, given, message in [
            (lambda m, X: explain_local(m, X, rows=rows), named, X.to_numpy()[:20], without),
            (lambda m, X: explain_local(m, X, rows=rows), unnamed, X[:20], with_names),
            (lambda m, X: explain_additive_rows(m, X, ["first", "second"]), named, X.to_numpy()[:2], without)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(model, given)
        assert [str(w.message) for w in caught] == [message]
    with pytest.warns(UserWarning, match=without):
        from_array = explain_local(named, X.to_numpy()[:20], rows=rows)
    for mine, theirs in zip(from_array, explain_local(named, X[:20], rows=rows)):
        pd.testing.assert_series_equal(mine.contributions, theirs.contributions)
        assert (mine.features, mine.probability) == (theirs.features, theirs.probability)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explain_local(unnamed, X.to_numpy()[:20], rows=rows)
        explain_local(named, X[:20], rows=rows)
