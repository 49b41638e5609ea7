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
