"""The fast path of prediction input checks (issue 19): same answers, same errors, less overhead.

A DataFrame already in the model's column order with numeric columns skips the column-by-column
checks (and, for PrAM, reaches interpret as an array; for PrDT, reaches scikit-learn's tree as
checked float32 rows). These tests pin that everything the full path refuses is still refused.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

import primo
from primo.errors import ColumnMismatchError, InputError
from primo.models._base import check_prediction_input


@pytest.fixture(scope="module")
def clara(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    X, y = train.drop(columns="cores"), train["cores"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pram = primo.PrAMRegressor(interactions=2, max_rounds=100, outer_bags=1, n_jobs=1, random_state=0).fit(X, y)
    tree = primo.PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y > y.median())
    return pram, tree, test.drop(columns="cores")


def test_matching_frames_take_the_fast_path_and_others_do_not(clara):
    pram, _, X = clara
    assert isinstance(check_prediction_input(pram, X, numeric_frames_as_arrays=True), np.ndarray)
    assert isinstance(check_prediction_input(pram, X), pd.DataFrame)  # callers that want frames get frames
    reordered = X[X.columns[::-1]]
    out = check_prediction_input(pram, reordered, numeric_frames_as_arrays=True)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == list(X.columns)


def test_fast_path_predictions_equal_the_libraries(clara):
    pram, tree, X = clara
    for i in range(5):
        row = X.iloc[[i]]
        np.testing.assert_array_equal(pram.predict(row), pram.ebm_.predict(row))
        np.testing.assert_array_equal(tree.predict(row), tree.predict(row[row.columns[::-1]]))
        with pytest.warns(UserWarning, match="valid feature names"):  # an array on purpose: read by position
            np.testing.assert_array_equal(tree.predict_proba(row), tree.predict_proba(row.to_numpy()))
    np.testing.assert_array_equal(pram.predict(X), pram.ebm_.predict(X))
    np.testing.assert_array_equal(tree.apply(X), tree.tree_.apply(X.to_numpy(dtype=np.float32)))


def test_fast_path_still_refuses_what_the_full_path_refuses(clara):
    pram, tree, X = clara
    row = X.iloc[[0]].copy()
    infinite = row.assign(A_i=np.inf)
    with pytest.raises(InputError, match="A_i"):
        tree.predict(infinite)  # PrDT cannot read infinity, in a frame or an array
    with pytest.raises(InputError, match="A_i"), pytest.warns(UserWarning, match="valid feature names"):
        tree.predict(infinite.to_numpy())
    assert np.isfinite(pram.predict(infinite)).all()  # PrAM reads it, beyond every edge
    with pytest.raises(ValueError, match="float32"):
        tree.predict(row.assign(A_i=1e300))  # beyond float32: scikit-learn's own error, as before
    with pytest.raises(ColumnMismatchError):
        tree.predict(row.rename(columns={"A_i": "A_x"}))
    with pytest.raises(InputError, match="A_i"):
        pram.predict(row.assign(A_i="many"))
    with pytest.raises(InputError):
        tree.predict(row.iloc[:0])
