"""Scale-out through joblib: local backends, a real local Dask cluster (2 worker processes), map_jobs,
rollouts and the ``primo fit --cluster`` path, with results identical to local runs."""
import os

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")  # the primo[dask] extra, part of primo[dev]

import primo
from primo import PrDTRegressor, map_jobs, parallel_backend
from primo.cli import main
from primo.distill import PolicyTeacher, rollout
from primo.parallel import effective_n_jobs
from primo.search import BayesianSearch
from tests.primo.distill.envs import CorridorQTeacher, make_corridor
from tests.primo.helpers import clara_ms


@pytest.fixture(scope="module")
def dask_address():
    """Scheduler address of a 2-process local cluster (no default client, so code must connect)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _search(X, y, **kwargs):
    return BayesianSearch(PrDTRegressor(random_state=0), n_trials=6, random_state=3, **kwargs).fit(X, y)


def test_search_on_dask_matches_the_local_run(data_dir, dask_address):
    X, y, _, _ = clara_ms(data_dir)
    local = _search(X, y, batch_size=2)
    with parallel_backend("dask", address=dask_address) as active:
        assert active.name == "dask" and active.n_workers == 2
        with distributed.get_task_stream(client=active.client) as tasks:
            # No n_jobs, no batch_size: batches of 2 = the cluster's workers, like the local run.
            remote = _search(X, y)
    assert any("_evaluate_trial" in t["key"] for t in tasks.data), "trials did not run on the Dask workers"
    pd.testing.assert_frame_equal(local.trials_.drop(columns="fit_time"), remote.trials_.drop(columns="fit_time"))
    assert remote.best_params_ == local.best_params_
    # constant liar: the two points of each parallel batch differ
    pairs = remote.trials_["ccp_alpha"].to_numpy().reshape(-1, 2)
    assert np.all(pairs[:, 0] != pairs[:, 1])


def test_explicit_n_jobs_sets_the_batch_on_any_backend(dask_address):
    assert effective_n_jobs(None) == 1  # outside any backend block: sequential
    with parallel_backend("dask", address=dask_address):
        # joblib's Dask backend reports the cluster size for any n_jobs; Primo keeps what was asked
        assert effective_n_jobs(1) == 1 and effective_n_jobs(3) == 3
        assert effective_n_jobs(None) == effective_n_jobs(-1) == 2
    with parallel_backend("dask", address=dask_address, n_jobs=1) as active:
        assert active.n_workers == 1  # the block's n_jobs, although the cluster has 2 workers
    with parallel_backend("threading", n_jobs=3) as active:
        assert active.n_workers == 3 and effective_n_jobs(None) == 3


def test_map_jobs_keeps_order_and_runs_on_the_workers(dask_address):
    with parallel_backend("dask", address=dask_address):
        results = map_jobs(lambda i: (i * i, os.getpid()), range(8))
    assert [r[0] for r in results] == [i * i for i in range(8)]
    assert os.getpid() not in {r[1] for r in results}
    assert map_jobs(str, []) == []
    assert map_jobs(len, ["ab", "c"], n_jobs=2) == [2, 1]


def test_rollouts_on_dask_match_local_rollouts(dask_address):
    teacher = PolicyTeacher(CorridorQTeacher())
    local = rollout(teacher, make_corridor, seeds=range(12), n_jobs=1)
    with parallel_backend("dask", address=dask_address):
        remote = rollout(teacher, make_corridor, seeds=range(12), n_jobs=2)
    assert [e.seed for e in remote] == list(range(12))
    for a, b in zip(local, remote):
        np.testing.assert_array_equal(a.observations, b.observations)
        np.testing.assert_array_equal(a.actions, b.actions)


def test_cli_fit_on_a_cluster_with_a_search_sample(data_dir, dask_address, tmp_path, capsys):
    train = data_dir / "clara" / "ms_train.csv"
    out = tmp_path / "m.primo"
    argv = ["fit", str(train), "--target", "cores", "--model", "prdt", "--trials", "4",
            "--search-sample", "0.5", "--out", str(out)]
    assert main(argv + ["--cluster", dask_address]) == 0
    history = primo.load(out).metadata_["search"]
    assert history["search_rows"] == 340 and history["method"] == "pruning path"  # half of 680 rows
    assert main(argv + ["--model", "auto"]) == 2
    assert "--search-sample needs --model" in capsys.readouterr().err


def test_backend_errors_name_the_problem():
    with pytest.raises(ValueError, match="no Dask client"):
        with parallel_backend("dask"):
            pass
    with pytest.raises(ValueError, match="address is only for the cluster backends"):
        with parallel_backend("loky", address="tcp://x:1"):
            pass
    with pytest.raises(ValueError, match="unknown parallel backend"):
        with parallel_backend("nope"):
            pass
    with pytest.raises(ValueError, match="n_jobs"):
        with parallel_backend("loky", n_jobs=0):
            pass
