"""The model card: complexity, metrics against baselines, latency and metadata history."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score, mean_absolute_error

from primo.explain import model_card
from primo.models.latency import single_row_latency_us
from primo.search import RandomSearch
from primo.search.choice import ONE_STANDARD_ERROR_RULE
from primo import PrDTRegressor


def test_card_metrics_match_scikit_learn_and_compare_baselines(prdt_classifier, linnos):
    X, y = linnos
    always_fast = np.zeros(len(y), dtype=int)
    card = model_card(prdt_classifier, X, y, baselines={"always fast": always_fast}, measure_latency=False)
    assert card.complexity == prdt_classifier.complexity_
    assert card.complexity_formula.startswith(f"{prdt_classifier.n_leaves_} leaves × depth {prdt_classifier.depth_}")
    assert list(card.metrics.index) == ["this model (PrDT)", "always fast"]
    assert card.metrics.loc["this model (PrDT)", "F1"] == pytest.approx(f1_score(y, prdt_classifier.predict(X)))
    assert card.metrics.loc["always fast", "F1"] == 0.0
    assert card.latency_us is None and card.training_rows == len(X)


def test_card_measures_latency_of_model_and_estimator_baselines(prdt_regressor, clara):
    X, y, X_test, y_test = clara
    baseline = PrDTRegressor(max_depth=1).fit(X, y)
    card = model_card(prdt_regressor, X_test, y_test, baselines={"stump": baseline})
    assert card.latency_us["single_row"] > 0 and card.latency_us["batch_per_row"] > 0
    assert card.metrics["latency µs/row (single)"].gt(0).all()
    assert card.metrics.loc["stump", "MAE"] == pytest.approx(mean_absolute_error(y_test, baseline.predict(X_test)))


def test_card_reads_search_history_and_edit_log(clara):
    X, y, _, _ = clara
    search = RandomSearch(PrDTRegressor(random_state=0), scoring="mae", n_trials=6, random_state=0).fit(X, y)
    model = search.best_estimator_
    model.metadata_["edits"] = [{"operation": "set_leaf", "summary": "leaf 3 set to 40"}]
    model.metadata_["note"] = "hello"
    card = model_card(model)
    assert card.search.method == search.history()["method"] and len(card.search.trials) == 6
    kept = card.search.trials.loc[card.search.chosen_index]
    assert kept["score"] == pytest.approx(search.best_score_) and bool(kept["chosen"])
    assert card.search.lowest_index == search.optimum_index_ and card.search.rule == ONE_STANDARD_ERROR_RULE
    assert card.search.reference_loss == pytest.approx(search.reference_loss_)
    assert card.size == model.n_leaves_ and card.selection is None
    assert card.edits[0]["operation"] == "set_leaf" and card.other_metadata == {"note": "hello"}
    assert card.metrics is None and card.eval_rows is None


def test_card_rejects_inconsistent_input(prdt_regressor, clara):
    _, _, X_test, y_test = clara
    with pytest.raises(ValueError, match="without X"):
        model_card(prdt_regressor, None, y_test)
    with pytest.raises(ValueError, match="rows but y has"):
        model_card(prdt_regressor, X_test, y_test.iloc[:5])
    with pytest.raises(ValueError, match="expected 198 predictions"):
        model_card(prdt_regressor, X_test, y_test, baselines={"bad": np.zeros(3)}, measure_latency=False)
    prdt_regressor.metadata_["edits"] = "not a list"
    try:
        with pytest.raises(ValueError, match="list of dicts"):
            model_card(prdt_regressor)
    finally:
        prdt_regressor.metadata_.pop("edits")
    with pytest.raises(TypeError, match="PrDT or PrAM"):
        model_card(pd.DataFrame())


def test_card_reads_an_arrow_table_by_column_name():
    """A pyarrow Table with its columns in another order than the model's gets the metrics of its pandas
    frame, and latency is timed on its rows; before, the single-row timing took them by position
    ('column ... holds text')."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    model = PrDTRegressor(random_state=0).fit(X, price)
    rows = X[X.columns[::-1]]
    card = model_card(model, pa.Table.from_pandas(rows, preserve_index=False), price)
    expected = model_card(model, rows, price, measure_latency=False)
    assert card.latency_us["single_row"] > 0 and card.eval_rows == len(rows)
    pd.testing.assert_frame_equal(card.metrics[expected.metrics.columns], expected.metrics)


def test_single_row_latency_draws_named_rows_from_an_arrow_table():
    """Rows of a pyarrow Table keep their column names (before: arrays, matched by position, which failed)."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, price = housing(n=100)
    model = PrDTRegressor(random_state=0).fit(X, price)
    table = pa.Table.from_pandas(X[X.columns[::-1]], preserve_index=False)
    assert single_row_latency_us(model.predict, table, n_rows=5, repeats=1) > 0


def _fit_with_and_without_names(family):
    """A model of ``family`` fit on a DataFrame, one fit on its array, the frame and the labels."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    y = (X["a"] + X["b"] > 0).astype(int).to_numpy()
    params = dict(max_depth=3, random_state=0) if family.__name__.startswith("PrDT") else dict(
        max_rounds=30, outer_bags=1, n_jobs=1, random_state=0)
    return family(**params).fit(X, y), family(**params).fit(X.to_numpy(), y), X, y


def _names_warnings(call) -> list[str]:
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("family", ["PrDTClassifier", "PrAMClassifier"])
def test_card_and_latency_warn_about_the_rows_names_once_per_call(family):
    """An array for a model fit on a DataFrame (or the reverse) gets scikit-learn's warning once per call of
    model_card and of the latency helpers; before, once per prediction: model_card 156 times (the single-row
    timing predicts 151 times), single_row_timings_us 151, batch_latency_us 4. A baseline fit on the other
    kind of rows warns once when the model does not; rows as the models were fit give no warning."""
    import warnings

    import primo
    from primo.models.latency import batch_latency_us, single_row_timings_us

    family = getattr(primo, family)
    named, unnamed, X, y = _fit_with_and_without_names(family)
    without = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    with_names = f"X has feature names, but {family.__name__} was fitted without feature names"
    calls = [lambda m, rows: model_card(m, rows, y),
             lambda m, rows: model_card(m, rows, y, baselines={"same fit": m}),
             lambda m, rows: model_card(m, rows, measure_latency=True),
             lambda m, rows: single_row_timings_us(m.predict, rows, n_rows=20, repeats=2),
             lambda m, rows: single_row_latency_us(m.predict, rows, n_rows=20, repeats=2),
             lambda m, rows: batch_latency_us(m.predict, rows)]
    for call in calls:
        assert _names_warnings(lambda: call(named, X.to_numpy())) == [without]
        assert _names_warnings(lambda: call(unnamed, X)) == [with_names]
    # The baseline's own warning, once, when the model's rows are as it was fit.
    assert _names_warnings(lambda: model_card(named, X, y, baselines={"array fit": unnamed})) == [with_names]
    assert _names_warnings(lambda: model_card(unnamed, X.to_numpy(), y, baselines={"frame fit": named})) == [without]
    with pytest.warns(UserWarning, match=without):
        from_array = model_card(named, X.to_numpy(), y, measure_latency=False)
    pd.testing.assert_frame_equal(from_array.metrics, model_card(named, X, y, measure_latency=False).metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in calls:
            call(named, X)
            call(unnamed, X.to_numpy())
