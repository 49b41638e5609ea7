"""job_submit.lua computes what EmbeddedScheduler computes, learns only from COMPLETED records, and never
blocks a submission. Run under lua5.1 with a stand-in for slurmctld's side (no Slurm needed)."""
import re

import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.slurm import plugin, replay
from adapters.scheduler.workload import job_end_times
from primo.export.codegen import lua_string
from tests.adapters.scheduler.slurm.conftest import LUA, run_fake_slurmctld

pytestmark = pytest.mark.skipif(LUA is None, reason="the lua5.1 interpreter is not installed "
                                                    "(apt-get install lua5.1; .ci/run installs it)")
TIME_SCALE = 2.0  # the plugin must turn replay seconds back into trace seconds


def _record(slurm_id: int, job: dict, state: str = "COMPLETED") -> str:
    # whole-second times as Slurm writes them, every CPU of whole nodes as with --exclusive; the runtime file
    # holds the exact run time and GPU count
    return (f"JobId={slurm_id} UserId=root(0) GroupId=root(0) Name={job['user']}:{job['name']} JobState={state} "
            f"Partition=gpu TimeLimit=UNLIMITED StartTime=2026-11-24T08:00:00 EndTime=2026-11-24T08:00:01 "
            f"NodeList=n1 NodeCnt=1 ProcCnt={8 * -(-int(job['gpu_num']) // 8)} WorkDir=/tmp ReservationName= Tres=cpu=1 "
            f"Account= QOS= WcKey= Cluster=primo SubmitTime=2026-11-24T08:00:00 "
            f"EligibleTime=2026-11-24T08:00:00 DerivedExitCode=0:0 ExitCode=0:0 ")


def _submission(job) -> str:
    tasks, cpus = (1, int(job.gpu_num)) if job.gpu_num <= 8 else (int(job.gpu_num), 65534)  # 65534 = NO_VAL16
    comment = f"t={job.submit_time!r};vc={job.vc};cpus={int(job.cpu_num)}"
    return (f"{{name = {lua_string(f'{job.user}:{job.name}')}, comment = {lua_string(comment)}, "
            f"num_tasks = {tasks}, cpus_per_task = {cpus}}}")


def _events(jobs: pd.DataFrame, failed: set[int]) -> str:
    """Submissions in order; before each, a completion record of every job that ended by then (trace times)."""
    ends = job_end_times(jobs.assign(queue_delay=0.0))
    done, events = set(), []
    for i, job in enumerate(jobs.itertuples(index=False)):
        for k in np.flatnonzero(ends[:i] <= job.submit_time):
            if k in done:
                continue
            done.add(k)
            finished = jobs.iloc[k].to_dict()
            slurm_id = 1000 + k
            stamp = f"{slurm_id} 0.0 {float(finished['duration']) / TIME_SCALE!r} {int(finished['gpu_num'])}"
            events.append(f"{{complete = {lua_string(stamp)}, "
                          f"file = {lua_string(plugin.RUNTIME_FILE)}}}")
            state = "FAILED" if k in failed else "COMPLETED"
            events.append(f"{{complete = {lua_string(_record(slurm_id, finished, state))}, "
                          f"file = {lua_string(plugin.JOBCOMP_FILE)}}}")
        events.append(_submission(job))
    return "return {\n" + ",\n".join(events) + "\n}\n"


def _write(directory, files: dict, events: str) -> None:
    for name, text in files.items():
        (directory / name).write_text(text)
    (directory / "events.lua").write_text(events)


def _python_priorities(prepared, settings, jobs: pd.DataFrame, failed: set[int]) -> list[float]:
    scheduler = replay.embedded_scheduler(prepared, settings.lam)
    ends = job_end_times(jobs.assign(queue_delay=0.0))
    done, out = set(), []
    for i, job in enumerate(jobs.to_dict("records")):
        for k in np.flatnonzero(ends[:i] <= job["submit_time"]):
            if k not in done:
                done.add(k)
                if k not in failed:  # the plugin learns from COMPLETED jobs only
                    scheduler.observe(jobs.iloc[k].to_dict())
        out.append(scheduler.priority(job))
    return out


def test_plugin_priorities_equal_embedded_scheduler(nasa_window, tmp_path):
    prepared, settings = nasa_window
    jobs = prepared.jobs
    failed = {3, 17}  # two jobs end FAILED: neither history may learn from them
    files = plugin.plugin_files(prepared.model, codes=prepared.codes, log_range=prepared.log_range, seed=prepared.seed,
                                epoch=jobs.attrs["epoch"], lam=settings.lam, time_scale=TIME_SCALE, replay=True,
                                time_range=(float(jobs["submit_time"].min()), float(jobs["submit_time"].max())))
    _write(tmp_path, files, _events(jobs, failed))
    lines = run_fake_slurmctld(tmp_path)
    assert not [line for line in lines if line.startswith("ERROR")]
    logged = [re.search(r"priority=(\S+) nice=(\d+)", line) for line in lines if line.startswith("INFO primo:")]
    results = [line.split() for line in lines if line.startswith("RESULT")]
    assert len(logged) == len(results) == len(jobs)
    expected = _python_priorities(prepared, settings, jobs, failed)
    # the log prints one decimal; the nice carries the exact value (1e-6 relative resolution)
    np.testing.assert_allclose([float(m[1]) for m in logged], expected, rtol=1e-6, atol=0.06)
    nices = np.array([int(r[2]) - 2147483648 for r in results])
    assert all(r[1] == "0" for r in results)
    assert np.abs(nices - [plugin.nice_value(p) for p in expected]).max() <= 1
    # the priorities order the jobs: not a constant
    assert len(set(nices)) > len(jobs) // 2


def test_broken_model_file_falls_back_to_default_priority(nasa_window, tmp_path):
    prepared, settings = nasa_window
    jobs = prepared.jobs.head(3)
    files = replay.plugin_files_for(prepared, settings.lam)
    files[plugin.MODEL_FILE] = "return {  -- truncated by a bad copy"
    _write(tmp_path, files, _events(jobs, set()))
    lines = run_fake_slurmctld(tmp_path)
    assert any(line.startswith("ERROR primo: cannot load the QSSF model") for line in lines)
    assert [line for line in lines if line.startswith("RESULT")] == ["RESULT 0 nil"] * 3  # accepted, nice untouched


def test_error_at_submission_falls_back_to_default_priority(nasa_window, tmp_path):
    prepared, settings = nasa_window
    jobs = prepared.jobs.head(2)
    files = replay.plugin_files_for(prepared, settings.lam)
    files[plugin.MODEL_FILE] = "return {predict = function(x) error('model exploded') end}"
    _write(tmp_path, files, _events(jobs, set()))
    lines = run_fake_slurmctld(tmp_path)
    assert sum("model exploded" in line and line.startswith("ERROR") for line in lines) == 2
    assert [line for line in lines if line.startswith("RESULT")] == ["RESULT 0 nil"] * 2


def test_nice_orders_like_priority():
    priorities = [0.0, 0.5, 10.0, 10.0 + 1e-3, 3.6e6, 1e30]
    nices = [plugin.nice_value(p) for p in priorities]
    assert nices == sorted(nices) and len(set(nices)) == len(nices)
    assert nices[-1] < 100_000_000 and plugin.nice_value(-5.0) == 0


def test_utc_offsets_follow_daylight_saving():
    epoch = pd.Timestamp("1993-10-01 00:00:03", tz="US/Pacific")
    offsets = plugin.utc_offsets(epoch, 0.0, 60 * 86400.0)
    assert [o for _, o in offsets] == [-7 * 3600.0, -8 * 3600.0]
    change = epoch + pd.Timedelta(seconds=offsets[1][0])
    assert change.tz_convert("UTC") == pd.Timestamp("1993-10-31 09:00:00", tz="UTC")


def test_setup_writes_a_plugin_for_a_live_cluster(data_dir, tmp_path):
    """--slurm-setup: model from the cluster's own log; owners and names are identities, the wall clock the time."""
    import gzip

    from adapters.scheduler import primo_models

    lines = gzip.open(data_dir / replay.LOGS["nasa"], "rt").read().splitlines()
    header = [line for line in lines if line.startswith(";")]
    jobs = [line for line in lines if not line.startswith(";")][:1500]
    log = tmp_path / "cluster.swf"
    log.write_text("\n".join(header + jobs) + "\n")
    settings = replay.ReplaySettings(budget=primo_models.Budget(n_trials=2, max_rounds=60, outer_bags=1))
    written = replay.setup(tmp_path / "etc", log, settings=settings)
    assert sorted(written) == [plugin.PLUGIN_FILE, plugin.CONTEXT_FILE, plugin.MODEL_FILE]
    record = ("JobId=7 UserId=31(1000) GroupId=g(1000) Name=28 JobState=COMPLETED Partition=gpu TimeLimit=UNLIMITED "
              "StartTime=2026-11-24T08:00:00 EndTime=2026-11-24T08:00:10 NodeList=n1 NodeCnt=1 ProcCnt=2 WorkDir=/ "
              "ReservationName= Tres=cpu=2 Account= QOS= WcKey= Cluster=c SubmitTime=2026-11-24T08:00:00 "
              "EligibleTime=2026-11-24T08:00:00 DerivedExitCode=0:0 ExitCode=0:0 ")
    (tmp_path / "etc" / "events.lua").write_text(
        "return {\n{name = '28', user_name = '31', num_tasks = 1, cpus_per_task = 2},\n"
        f"{{complete = {lua_string(record)}, file = {lua_string(plugin.JOBCOMP_FILE)}}},\n"
        "{name = '28', user_name = '31', num_tasks = 1, cpus_per_task = 2}\n}\n")
    out = run_fake_slurmctld(tmp_path / "etc")
    assert not [line for line in out if line.startswith("ERROR")]
    logged = [re.search(r"P_R=(\S+) .* nice=(\d+)", line) for line in out if line.startswith("INFO primo:")]
    assert len(logged) == 2
    # the second submission's rolling estimate includes the 10-second run the record reports
    assert float(logged[1][1]) != float(logged[0][1])
