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
    # slurmctld's log gives every job's allocation and release, and its passes about once a second
    assert np.isfinite(jobs[["allocated", "released"]].to_numpy()).all()
    assert (jobs["allocated"] >= jobs["submit"] - 0.01 * prepared.time_scale).all()
    assert (jobs["start"] >= jobs["allocated"]).all() and (jobs["released"] >= jobs["end"]).all()
    mechanics = replay.slurm_mechanics(out)
    assert 0.9 < mechanics["interval"] / prepared.time_scale < 1.1
    assert 0 < mechanics["launch"] / prepared.time_scale < 0.5


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


def _log_of(durations, queues=("q",)):
    """A synthetic log of 2,000 one-GPU jobs submitted every 60 s with the given durations (cycled) and queues."""
    n = 2000
    return pd.DataFrame({"submit_time": 60.0 * np.arange(n), "gpu_num": np.ones(n, int),
                         "duration": np.resize(np.asarray(durations, float), n), "vc": np.resize(list(queues), n),
                         "user": np.resize(["u1", "u2", "u3"], n)})


def test_window_profile_admits_long_varied_jobs_only():
    settings = replay.ReplaySettings()
    # offered load 0.8 on 16 GPUs at one job a minute: 768 GPU-seconds per job on average
    varied = replay.window_profile(_log_of([100.0, 1436.0], queues=("short", "long", "long")), settings)
    assert varied["offered_load"] == pytest.approx(0.8, abs=0.01)
    assert varied["time_scale"] == pytest.approx(299 * 60 / settings.replay_seconds)
    assert varied["median_sleep_passes"] >= replay.MIN_MEDIAN_PASSES and varied["duration_spread"] > 10
    assert varied["measurable"] and varied["queues"] == {"long": 200, "short": 100} and varied["users"] == 3
    # the same load in equal jobs: nothing for a policy to order
    equal = replay.window_profile(_log_of([768.0]), settings)
    assert equal["duration_spread"] == pytest.approx(1.0) and not equal["measurable"]
    # the same load in mostly short jobs and a few long ones: the median job is shorter than one pass
    short = replay.window_profile(_log_of([10.0] * 9 + [7500.0]), settings)
    assert short["median_sleep_passes"] < 1.0 and not short["measurable"]


def test_mixed_queue_window_runs_in_one_partition_and_the_model_reads_each_jobs_queue(nasa_window, monkeypatch):
    prepared, settings = nasa_window
    queues = np.resize(["express", "normal", "long"], len(prepared.jobs))
    mixed = dataclasses.replace(prepared, jobs=prepared.jobs.assign(vc=queues))
    mixed.jobs.attrs = dict(prepared.jobs.attrs)
    for policy in ("fifo", "sjf_oracle"):  # the queue is no input of theirs: the same schedule as one queue
        pd.testing.assert_frame_equal(replay.simulate(mixed, policy, settings), replay.simulate(prepared, policy, settings))
    seen = {}

    class Recorder:  # stands in for the embedded QSSF estimator
        def estimate(self, job):
            seen[job["job_id"]] = job["vc"]
            return float(job["gpu_num"])

        def observe(self, job):
            pass

    monkeypatch.setattr(replay, "embedded_scheduler", lambda p, lam: Recorder())
    replay.simulate(mixed, "qssf_primo", settings)
    job_ids = mixed.jobs["job_id"].astype(str)
    assert seen and all(seen[j] == q for j, q in zip(job_ids, queues) if j in seen)


def test_slurm_mechanics_from_the_logged_passes():
    # periodic passes every second, two stalls (2.5 s gaps), and one pass an event triggered at 10.9
    periodic = list(0.3 + np.arange(10)) + list(11.8 + np.arange(5)) + list(18.3 + np.arange(5))
    passes = [(t, "full queue") for t in periodic] + [(10.9, "default depth")]
    jobs = pd.DataFrame({"submit": [0.1, 5.0, 10.5], "allocated": [1.3, 6.3, 10.9]})
    jobs["start"] = jobs["allocated"] + 0.05
    jobs["end"] = jobs["start"] + 2.0
    jobs["released"] = jobs["end"] + 0.01
    m = replay.slurm_mechanics({"passes": passes, "jobs": jobs})
    assert m["passes"] == sorted(periodic + [10.9]) and m["interval"] == pytest.approx(1.0)
    assert m["periodic_gap_p95"] > 1.5
    assert m["launch"] == pytest.approx(0.05) and m["release"] == pytest.approx(0.01)
    assert m["event_pass_allocations"] == pytest.approx(1 / 3) and m["submit"] == [0.1, 5.0, 10.5]
    with pytest.raises(RuntimeError, match="periodic scheduling passes"):
        replay.slurm_mechanics({"passes": passes[:2], "jobs": jobs})


def test_slurm_cadence_simulation_starts_jobs_on_the_pass_grid(nasa_window):
    prepared, settings = nasa_window
    scale = prepared.time_scale
    submit = (prepared.jobs["submit_time"] - prepared.jobs["submit_time"].iloc[0]).to_numpy() + 0.01 * scale
    # passes every second from 0.4 s of replay time, as if slurmctld had logged them, then on by the interval
    mechanics = {"passes": list((0.4 + np.arange(60)) * scale), "interval": 1.0 * scale, "launch": 0.05 * scale,
                 "release": 0.02 * scale, "submit": submit.tolist()}
    for policy in replay.POLICIES:
        plain = replay.simulate(prepared, policy, settings)
        cadence = replay.simulate(prepared, policy, settings, mechanics=mechanics)
        allocated = (cadence["start"] - mechanics["launch"]) / scale          # replay seconds
        offset = (allocated - 0.4 + 0.5) % 1.0 - 0.5                          # distance to the nearest pass
        assert np.allclose(offset, 0.0, atol=1e-6)
        assert np.allclose(cadence["submit"], submit) and (cadence["start"] >= cadence["submit"]).all()
        assert np.allclose(cadence["end"] - cadence["start"], prepared.jobs["duration"])
        # waiting for passes and holding GPUs longer makes the average job finish later here
        assert (cadence["end"] - cadence["submit"]).mean() > (plain["end"] - plain["submit"]).mean()


def test_paired_interval_holds_the_run_to_run_spread():
    rng = np.random.default_rng(0)
    one = replay.paired(np.arange(50.0) + 1.0, np.zeros(50), n_boot=500)
    assert one["ci95"][0] < one["mean"] == 25.5 < one["ci95"][1] and one["median"] == 25.5
    # two runs whose means differ by 2: a bootstrap of the pooled jobs alone would be far narrower
    runs = np.stack([1.0 + rng.normal(0, 0.1, 200), 3.0 + rng.normal(0, 0.1, 200)])
    two = replay.paired(runs, np.zeros(200), n_boot=2000)
    assert two["per_run"] == pytest.approx([1.0, 3.0], abs=0.05)
    assert two["ci95"][0] < 1.2 and two["ci95"][1] > 2.8
    # one simulator run is paired with every Slurm run
    assert replay.paired(runs, np.ones(200), n_boot=200)["per_run"] == pytest.approx([0.0, 2.0], abs=0.05)


def test_ranking_and_agreement_keep_ties_within_noise():
    differences = {("qssf_primo", "fifo"): {"ci95": [-0.5, -0.2]}, ("sjf_oracle", "fifo"): {"ci95": [-0.6, -0.3]},
                   ("sjf_oracle", "qssf_primo"): {"ci95": [-0.2, 0.1]}}
    averages = {"fifo": 1.0, "qssf_primo": 0.6, "sjf_oracle": 0.55}
    assert replay.ranking(averages, differences) == "sjf_oracle ≈ qssf_primo < fifo (sjf_oracle < fifo)"
    # two ties in a row, yet the ends differ beyond noise
    differences[("qssf_primo", "fifo")] = {"ci95": [-0.5, 0.1]}
    assert replay.ranking(averages, differences) == "sjf_oracle ≈ qssf_primo ≈ fifo (sjf_oracle < fifo)"
    assert replay.agreement({"ci95": [-0.5, -0.2]}, {"ci95": [-0.1, -0.01]}) == "same"
    assert replay.agreement({"ci95": [-0.2, 0.1]}, {"ci95": [-0.3, 0.4]}) == "same"        # a tie in both
    assert replay.agreement({"ci95": [-0.2, 0.1]}, {"ci95": [0.1, 0.4]}) == "within noise"
    assert replay.agreement({"ci95": [-0.5, -0.2]}, {"ci95": [0.1, 0.4]}) == "differs"


def test_rounds_at_once_replay_side_by_side(monkeypatch):
    """Two rounds at once are six replays running together (a barrier of six would time out in turn),
    each round with its three policies, the plugin files only for QSSF."""
    import threading

    together = threading.Barrier(2 * len(replay.POLICIES), timeout=30)

    def fake_replay(p, policy, settings, *, files=None, scheduled=None):
        together.wait()
        return {"policy": policy, "files": files}

    monkeypatch.setattr(replay, "replay_in_slurm", fake_replay)
    assert (replay.QUICK.repeats, replay.QUICK.rounds_at_once) == (2, 2)
    rounds = replay.replay_rounds(None, replay.QUICK, {"job_submit.lua": "--"})
    assert [{policy: run["policy"] for policy, run in rnd.items()} for rnd in rounds] == [
        {policy: policy for policy in replay.POLICIES}] * 2
    assert all((rnd["qssf_primo"]["files"] is not None) and rnd["fifo"]["files"] is None for rnd in rounds)
    with pytest.raises(ValueError, match="rounds_at_once"):
        replay.ReplaySettings(rounds_at_once=0)


def test_rounds_overlap_only_in_their_sleeping_tails(monkeypatch):
    """One round at a time: the next round starts once every replay of the round before has started all its
    jobs, while that round still waits for its sleeping jobs; a replay that fails does not hold it back."""
    import dataclasses
    import threading

    second_round = threading.Event()
    first_round, overlapped, lock = [], [], threading.Lock()

    def fake_replay(p, policy, settings, *, files=None, scheduled=None):
        with lock:
            in_first = len(first_round) < len(replay.POLICIES) and not second_round.is_set()
            if in_first:
                first_round.append(policy)
        if not in_first:
            second_round.set()
            return {}
        if policy == "fifo":
            raise RuntimeError("slurmctld died")  # before its jobs were all started
        assert not second_round.is_set()  # the next round waits for this one's jobs to start
        scheduled.set()
        overlapped.append(second_round.wait(timeout=30))
        return {}

    monkeypatch.setattr(replay, "replay_in_slurm", fake_replay)
    with pytest.raises(RuntimeError, match="slurmctld died"):
        replay.replay_rounds(None, dataclasses.replace(replay.QUICK, repeats=2, rounds_at_once=1), {})
    assert sorted(first_round) == sorted(replay.POLICIES) and overlapped == [True, True]


@needs_slurm
@pytest.mark.slow
def test_quick_report_end_to_end(data_dir, tmp_path):
    """``primo casestudy scheduler --slurm --quick``: 30 NASA jobs, two rounds of the three policies side by side
    in six Slurms, the simulator and the Slurm-cadence simulator (~1 min)."""
    from adapters.scheduler.casestudy import main

    assert main(["--slurm", "--quick", "--logs", "nasa", "--data-dir", str(data_dir), "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    (log,) = results["logs"]
    assert all(log["slurm_states"][p] == {"COMPLETED": 60} for p in replay.POLICIES)
    assert set(log["ranking"]) == set(replay.VIEWS) and len(log["slurm_runs"]) == 2 * 3
    assert [run["round"] for run in log["slurm_runs"]] == [1, 1, 1, 2, 2, 2]
    assert all(run["load_1min_at_start"] >= 0 for run in log["slurm_runs"])
    assert set(log["agreement"]["simulator_slurm"]["pairs"].values()) <= {"same", "differs", "within noise"}
    readme = (tmp_path / "README.md").read_text()
    assert "2 rounds run side by side (6 Slurms at once)" in readme
    assert "| qssf_primo |" in readme and (tmp_path / "jct_cdf.png").stat().st_size > 10_000
    assert len(pd.read_csv(tmp_path / "jobs.csv")) == 30 * 3 * (2 + 1 + 2)  # Slurm, simulator, Slurm-cadence runs
