"""Real Slurm (munge + slurmctld + 2 slurmd on 127.0.0.1): a 30-job replay with the QSSF plugin, the
plugin's fallback when its model file is broken, and nothing left running afterwards (also on Ctrl-C)."""
import dataclasses
import json
import shutil
import time

import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.slurm import cluster as slurm_cluster
from adapters.scheduler.slurm import plugin, replay
from adapters.scheduler.slurm.cluster import SlurmCluster, SlurmUnavailable, missing_tools

MISSING = missing_tools()
needs_slurm = pytest.mark.skipif(bool(MISSING), reason=f"Slurm/munge not installed ({', '.join(MISSING)}); "
                                                       "apt-get install slurm-wlm munge (.ci/run installs them)")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"  # a zombie has exited
    except FileNotFoundError:
        return False


def _nothing_left(pids, directory) -> None:
    assert not [pid for pid in pids if _alive(pid)]
    assert not directory.exists()


@pytest.fixture(scope="module")
def window30(nasa_window):
    prepared, settings = nasa_window
    jobs = prepared.jobs.head(30).copy()
    jobs.attrs = dict(prepared.jobs.attrs)
    span = float(jobs["submit_time"].iloc[-1] - jobs["submit_time"].iloc[0])
    # submissions over ~12 s and no job longer than ~15 s: the whole replay takes well under a minute
    scale = max(span / 12.0, float(jobs["duration"].max()) / 15.0, 1.0)
    return dataclasses.replace(prepared, jobs=jobs, time_scale=scale), settings


def test_missing_slurm_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda tool: None)
    with pytest.raises(SlurmUnavailable, match="apt-get install slurm-wlm munge"):
        SlurmCluster().start()


@needs_slurm
def test_cluster_binds_loopback_and_stops_everything_on_ctrl_c():
    with pytest.raises(KeyboardInterrupt):
        with SlurmCluster(nodes=2, gpus_per_node=8) as c:
            pids, directory = [p.pid for p in c._processes], c.directory
            listening = slurm_cluster._listening(c._ports)
            assert {address for address, _ in listening} == {"127.0.0.1"}
            assert len(listening) == 3  # slurmctld and two slurmd
            c.submit(["-n", "1", "-c", "2", "-o", "/dev/null", "--chdir", str(directory), "--wrap", "sleep 60"])
            deadline = time.monotonic() + 20
            job_processes = []
            while not job_processes and time.monotonic() < deadline:
                time.sleep(0.2)
                job_processes = slurm_cluster._processes_in(directory, exclude=set(pids))
            assert job_processes  # the job runs (slurmstepd, its shell, sleep)
            raise KeyboardInterrupt
    _nothing_left(pids + job_processes, directory)


@needs_slurm
def test_qssf_replay_of_30_real_jobs(window30):
    prepared, settings = window30
    settings = dataclasses.replace(settings, drain_timeout=120.0)
    out = replay.replay_in_slurm(prepared, "qssf_primo", settings)
    jobs = out["jobs"]
    assert (jobs["state"] == "COMPLETED").all()
    assert np.isfinite(jobs[["submit", "start", "end"]].to_numpy()).all()
    assert (jobs["start"] >= jobs["submit"] - prepared.time_scale).all() and (jobs["end"] > jobs["start"]).all()
    # each job ran about its scaled duration (trace seconds here)
    ran = (jobs["end"] - jobs["start"]).to_numpy()
    assert np.all(ran >= prepared.jobs["duration"].to_numpy() * 0.99)
    # the plugin set every job's priority, and the first one (no completion seen yet) is Python's
    assert not out["plugin_errors"] and len(out["plugin"]) == 30
    first = prepared.jobs.iloc[0].to_dict()
    expected = replay.embedded_scheduler(prepared, settings.lam).priority(first)
    assert abs(out["plugin"]["nice"].iloc[0] - plugin.nice_value(expected)) <= 1
    assert out["plugin"]["nice"].nunique() > 10
    assert np.all(np.isfinite(out["submit_usec"]))


@needs_slurm
def test_broken_model_never_blocks_submissions_in_slurm(window30):
    prepared, settings = window30
    few = dataclasses.replace(prepared, jobs=prepared.jobs.head(3))
    files = replay.plugin_files_for(few, settings.lam)
    files[plugin.MODEL_FILE] = "return {  -- truncated"
    out = replay.replay_in_slurm(few, "qssf_primo", dataclasses.replace(settings, drain_timeout=60.0), files=files)
    assert (out["jobs"]["state"] == "COMPLETED").all()
    assert len(out["plugin"]) == 0
    assert any("cannot load the QSSF model" in line for line in out["plugin_errors"])


def test_window_has_the_asked_load():
    rng = np.random.default_rng(0)
    jobs = pd.DataFrame({"submit_time": np.cumsum(rng.exponential(60.0, 2000)),
                         "gpu_num": rng.integers(1, 5, 2000), "duration": rng.exponential(300.0, 2000)})
    start, load = replay.choose_window(jobs, 300, 16, 0.8)
    assert start >= 1000 and abs(load - 0.8) < 0.1
    window = jobs.iloc[start:start + 300]
    span = window["submit_time"].iloc[-1] - window["submit_time"].iloc[0]
    assert np.isclose((window["gpu_num"] * window["duration"]).sum() / (16 * span), load)


def test_slurm_latency_uses_jobs_that_found_idle_gpus():
    times = pd.DataFrame({"submit": [0.0, 1.0, 2.0, 3.0], "start": [0.5, 1.5, 9.0, 9.5],
                          "end": [8.0, 8.5, 10.0, 10.5]})
    # job 2 needs 10 GPUs while 8 are busy: it waited for GPUs, not for Slurm; job 3 queued behind it
    delay, n = replay.slurm_latency(times, [4, 4, 10, 1], capacity=16)
    assert (delay, n) == (0.5, 2)


def test_paired_interval_contains_the_mean():
    d = replay.paired(np.arange(50.0) + 1.0, np.zeros(50), n_boot=500)
    assert d["ci95"][0] < d["mean"] == 25.5 < d["ci95"][1] and d["median"] == 25.5


def test_ranking_marks_ties():
    assert replay.ranking({"fifo": {"avg_jct_h": 1.0}, "qssf_primo": {"avg_jct_h": 1.0},
                           "sjf_oracle": {"avg_jct_h": 0.5}}) == "sjf_oracle < fifo = qssf_primo"


@needs_slurm
@pytest.mark.slow
def test_quick_report_end_to_end(data_dir, tmp_path):
    """``primo casestudy scheduler --slurm --quick``: 30 NASA jobs, three policies in Slurm and the simulator (~2.5 min)."""
    from adapters.scheduler.casestudy import main

    assert main(["--slurm", "--quick", "--logs", "nasa", "--data-dir", str(data_dir), "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    (log,) = results["logs"]
    assert all(log["slurm_states"][p] == {"COMPLETED": 30} for p in replay.POLICIES)
    assert set(log["ranking"]) == set(replay.VIEWS)
    readme = (tmp_path / "README.md").read_text()
    assert "| qssf_primo |" in readme and (tmp_path / "jct_cdf.png").stat().st_size > 10_000
    assert len(pd.read_csv(tmp_path / "jobs.csv")) == 30 * 3 * len(replay.VIEWS)
