"""Cautions: predictions outside the training target range and inputs never seen in training are
flagged in local explanations (and counted by the report)."""
import numpy as np
import pandas as pd
import pytest

from primo import PrAMRegressor, PrDTClassifier
from primo.explain import CautionCounts, explain_global, explain_local, row_cautions, target_range
from primo.report import build


def _lowest_row(model, X):
    """A row of ordinary-looking values, each in its feature's lowest-scoring training bin."""
    explanation = explain_global(model)
    row = {}
    for name in X.columns:
        term = explanation.term(name)
        lowest = int(np.argmin(term.scores))
        row[name] = float(np.mean(term.bins[0][lowest:lowest + 2]))  # the middle of that bin
    return pd.DataFrame([row], columns=X.columns)


def test_an_additive_prediction_below_the_training_range_is_flagged(pram_regressor, clara):
    X, y, X_test, _ = clara
    assert target_range(pram_regressor) == (y.min(), y.max())
    row = _lowest_row(pram_regressor, X)
    prediction = pram_regressor.predict(row)[0]
    assert prediction < y.min()  # an additive model sums its lowest terms below anything it was trained on
    item = explain_local(pram_regressor, row)[0]
    expected = f"prediction {prediction:.4g} is below the training target range {y.min():.4g} to {y.max():.4g}"
    assert item.cautions == (expected,)
    ordinary = explain_local(pram_regressor, X_test, rows=[0, 1])
    assert all(not c.cautions for c in ordinary if y.min() <= c.prediction <= y.max())


def test_numbers_beyond_a_prams_training_range_are_flagged(pram_regressor, clara):
    X, _, X_test, _ = clara
    rows = X_test.iloc[:3].copy()
    rows.iloc[1, 0] = X.iloc[:, 0].max() * 10 + 1
    cautions = row_cautions(pram_regressor, rows)
    name = X.columns[0]
    assert list(cautions[1].beyond_training_range) == [name]
    assert f"{name} = " in cautions[1].messages[-1] and "outside its training range" in cautions[1].messages[-1]
    counts = CautionCounts.of(cautions)
    assert counts.beyond_training_range == {name: 1}


@pytest.fixture(scope="module")
def with_sizes(clara):
    """Clara-MS with a text column (the NF's state size as small/medium/large)."""
    X, y, _, _ = clara
    sizes = pd.cut(X["R_ic"], 3, labels=["small", "medium", "large"]).astype(str)
    return X[["R_i", "R_res", "A_e"]].assign(size=sizes), y


@pytest.mark.parametrize("family", ["pram", "prdt"])
def test_an_unseen_category_is_flagged_not_scored_silently(with_sizes, family):
    X, y = with_sizes
    if family == "pram":
        model = PrAMRegressor(max_bins=16, interactions=0, max_rounds=100, outer_bags=1, n_jobs=1).fit(X, y)
        effect = "the model gives it no contribution"
    else:
        model = PrDTClassifier(max_depth=4, random_state=0).fit(X, y > y.median())
        effect = "it takes the missing-value branch"
    rows = X.iloc[:3].copy()
    rows["size"] = ["medium", "gigantic", None]  # seen, unseen, missing
    items = explain_local(model, rows)
    assert items[0].cautions == () and items[2].cautions == ()
    assert f"size = 'gigantic' was never seen in training ({effect})" in items[1].cautions
    report = build(model, rows, local_rows=[0, 1, 2], measure_latency=False)
    assert report.cautions.unseen_categories == {"size": 1} and report.cautions.flagged == 1
    html = report.to_html()
    assert "1 of 3 rows flagged" in html and "categories never seen in training: size in 1 row" in html
    assert "1 of 3 explained rows carry a caution" in html and "&#39;gigantic&#39; was never seen" in html
    markdown = report.to_markdown()
    assert "- caution: size = 'gigantic' was never seen" in markdown and "1 of 3 explained rows carry a caution" in markdown


def test_the_report_counts_predictions_outside_the_training_range(pram_regressor, clara):
    X, y, X_test, y_test = clara
    rows = pd.concat([X_test.iloc[:9], _lowest_row(pram_regressor, X)], ignore_index=True)
    targets = np.concatenate([y_test.iloc[:9].to_numpy(), [y.min()]])
    report = build(pram_regressor, rows, targets, local_rows=[9], measure_latency=False)
    outside = int(np.sum((pram_regressor.predict(rows) < y.min()) | (pram_regressor.predict(rows) > y.max())))
    assert outside >= 1 and report.cautions.outside_target_range == outside
    html = report.to_html()
    assert f"{outside} of 10 predictions outside the training target range {y.min():.4g} to {y.max():.4g}" in html
    assert "⚠ row 9" in html and '<ul class="caution">' in html
