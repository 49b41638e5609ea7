"""Large-data path of the searches: trials on a stratified sample, the best refit on every row."""
import numpy as np
import pytest

from primo import PrDTClassifier, PrDTRegressor
from primo.search import BayesianSearch, RandomSearch
from tests.primo.helpers import clara_ms, linnos_reads


def test_classification_sample_keeps_class_shares_and_refit_uses_all_rows(data_dir):
    X, y = linnos_reads(data_dir, n=4000)
    search = BayesianSearch(PrDTClassifier(random_state=0), scoring="f1", n_trials=4, search_sample_size=1000,
                            random_state=0).fit(X, y)
    sample = search.search_sample_
    assert len(sample) == search.search_rows_ == 1000 and np.all(np.diff(sample) > 0)
    assert y.iloc[sample].mean() == pytest.approx(y.mean(), abs=0.002)  # stratified on the class
    assert search.best_estimator_.tree_.n_node_samples[0] == 4000  # the final fit saw every row
    assert search.best_estimator_.metadata_["search"]["search_rows"] == 1000


def test_regression_sample_keeps_the_target_distribution(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = RandomSearch(PrDTRegressor(random_state=0), n_trials=3, search_sample_size=0.25,
                          random_state=1).fit(X, y)
    sample = search.search_sample_
    assert len(sample) == 170
    # decile-stratified: each tenth of the target holds about a tenth of the sample
    deciles = np.quantile(y, np.linspace(0, 1, 11)[1:-1])
    shares = np.bincount(np.searchsorted(deciles, y.iloc[sample], side="right"), minlength=10) / len(sample)
    full = np.bincount(np.searchsorted(deciles, y, side="right"), minlength=10) / len(y)
    assert np.abs(shares - full).max() < 0.02
    assert search.best_estimator_.tree_.n_node_samples[0] == len(y)


def test_no_sample_when_it_would_cover_every_row(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = RandomSearch(PrDTRegressor(random_state=0), n_trials=1, search_sample_size=10_000,
                          random_state=0).fit(X, y)
    assert search.search_sample_ is None and search.search_rows_ == len(y)


@pytest.mark.parametrize("size, message", [(1.5, "fraction"), (1, "at least 2"), ("all", "row count")])
def test_bad_sample_sizes_are_rejected(data_dir, size, message):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.raises(ValueError, match=message):
        RandomSearch(PrDTRegressor(), n_trials=1, search_sample_size=size).fit(X, y)
