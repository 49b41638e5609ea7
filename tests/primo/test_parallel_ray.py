"""Ray through joblib's Ray backend (skipped only when ray is not importable: it is an optional extra)."""
import pandas as pd
import pytest

ray = pytest.importorskip("ray")

from primo import PrDTRegressor, parallel_backend
from primo.search import BayesianSearch
from tests.primo.helpers import clara_ms


def test_search_on_local_ray_matches_the_local_run(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    make = lambda **kw: BayesianSearch(PrDTRegressor(random_state=0), n_trials=4, random_state=3, **kw).fit(X, y)
    local = make(batch_size=2)
    with parallel_backend("ray", n_jobs=2) as active:
        assert active.name == "ray" and active.n_workers == 2 and ray.is_initialized()
        remote = make()
    assert not ray.is_initialized()  # the session started for the block is shut down with it
    pd.testing.assert_frame_equal(local.trials_.drop(columns="fit_time"), remote.trials_.drop(columns="fit_time"))
