"""job_submit.lua computes what EmbeddedScheduler computes, learns only from COMPLETED records, and never
blocks a submission. Run under lua5.1 with a stand-in for slurmctld's side (no Slurm needed)."""
import dataclasses
import re
import warnings
from datetime import datetime

import numpy as np
import pandas as pd
import pytest

from adapters.scheduler import casestudy
from adapters.scheduler.slurm import plugin, replay
from adapters.scheduler.workload import job_end_times
from primo.export import model_tables
from primo.export.codegen import lua_string
from primo.export.tables import TreeTables
from tests.adapters.scheduler.slurm.conftest import LUA, run_fake_slurmctld

pytestmark = pytest.mark.skipif(LUA is None, reason="the lua5.1 interpreter is not installed "
                                                    "(apt-get install lua5.1; .ci/run installs it)")
TIME_SCALE = 2.0  # the plugin must turn replay seconds back into trace seconds
NO_VAL = 4294967294  # Slurm's unset time limit
LYING_COMMENT = "t=0;vc=fast;cpus=1;req=1"  # what a user could type to look short on a live cluster
PARTITION_DEFAULT_MINUTES = 60  # the TimeLimit= of a live job submitted without --time
RECORD_DAY = pd.Timestamp("2026-12-01 08:00:00")  # completion records' start (no daylight-saving change near)


def _record(slurm_id: int, job: dict, state: str = "COMPLETED", *, live: bool = False, epoch=None) -> str:
    """A jobcomp/filetxt line. Replay: whole-second times that say nothing (the runtime file holds the exact run
    time, GPU count and request), every CPU of whole nodes as with --exclusive. Live: the job's owner and name,
    its run time in whole seconds, its --time in minutes or, without one, the partition's default
    (:data:`PARTITION_DEFAULT_MINUTES`), its submit time as slurmctld writes it (local time of the wall clock)."""
    submitted = "2026-11-24T08:00:00"
    if live:
        end = RECORD_DAY + pd.Timedelta(seconds=float(job["duration"]))
        request = job.get("req_time")
        limit = str(PARTITION_DEFAULT_MINUTES) if request is None or pd.isna(request) else str(int(request) // 60)
        who, procs = f"UserId={job['user']}(1000) GroupId=g(1000) Name={job['name']}", int(job["cpu_num"])
        start, end = RECORD_DAY.strftime("%Y-%m-%dT%H:%M:%S"), end.strftime("%Y-%m-%dT%H:%M:%S")
        submitted = datetime.fromtimestamp(_wall_clock(_submitted_at(epoch, job))).strftime("%Y-%m-%dT%H:%M:%S")
    else:
        limit, who, procs = "UNLIMITED", f"UserId=root(0) GroupId=root(0) Name={job['user']}:{job['name']}", \
            8 * -(-int(job["gpu_num"]) // 8)
        start, end = "2026-11-24T08:00:00", "2026-11-24T08:00:01"
    return (f"JobId={slurm_id} {who} JobState={state} Partition=gpu TimeLimit={limit} StartTime={start} "
            f"EndTime={end} NodeList=n1 NodeCnt=1 ProcCnt={procs} WorkDir=/tmp ReservationName= Tres=cpu=1 "
            f"Account= QOS= WcKey= Cluster=primo SubmitTime={submitted} "
            f"EligibleTime={submitted} DerivedExitCode=0:0 ExitCode=0:0 ")


def _submitted_at(epoch, job: dict) -> pd.Timestamp:
    """A live job's submission: the trace's submit time in its time zone."""
    return epoch + pd.Timedelta(seconds=float(job["submit_time"]))


def _wall_clock(stamp: pd.Timestamp) -> int:
    """The wall clock (whole seconds) at ``stamp``."""
    return int(stamp.timestamp())


def _submission(job: dict, *, live: bool = False) -> str:
    tasks, cpus = (1, int(job["gpu_num"])) if job["gpu_num"] <= 8 else (int(job["gpu_num"]), 65534)  # NO_VAL16
    if live:  # owner, name, partition, processors and --time; the comment is the user's: a replay's fields, lying
        request = job.get("req_time")
        limit = NO_VAL if request is None or pd.isna(request) else int(request) // 60
        return (f"{{name = {lua_string(str(job['name']))}, user_name = {lua_string(str(job['user']))}, "
                f"partition = {lua_string(str(job['vc']))}, time_limit = {limit}, comment = {lua_string(LYING_COMMENT)}, "
                f"num_tasks = {int(job['cpu_num'])}, cpus_per_task = 65534}}")
    identity = f"{job['user']}:{job['name']}"
    return (f"{{name = {lua_string(identity)}, comment = {lua_string(plugin.replay_comment(job))}, "
            f"num_tasks = {tasks}, cpus_per_task = {cpus}}}")


def _events(jobs: pd.DataFrame, failed: set[int], *, live: bool = False) -> str:
    """Submissions in order; before each, a completion record of every job that ended by then (trace times)."""
    ends = job_end_times(jobs.assign(queue_delay=0.0))
    records = jobs.to_dict("records")
    done, events = set(), []
    for i, job in enumerate(records):
        for k in np.flatnonzero(ends[:i] <= job["submit_time"]):
            if k in done:
                continue
            done.add(k)
            finished, slurm_id = records[k], 1000 + k
            if not live:
                stamp = (f"{slurm_id} 0.0 {float(finished['duration']) / TIME_SCALE!r} {int(finished['gpu_num'])} "
                         f"{plugin.request_field(finished.get('req_time'))}")
                events.append(f"{{complete = {lua_string(stamp)}, file = {lua_string(plugin.RUNTIME_FILE)}}}")
            record = _record(slurm_id, finished, "FAILED" if k in failed else "COMPLETED", live=live,
                             epoch=jobs.attrs.get("epoch"))
            events.append(f"{{complete = {lua_string(record)}, file = {lua_string(plugin.JOBCOMP_FILE)}}}")
        if live:  # the wall clock at submission
            stamp = _submitted_at(jobs.attrs["epoch"], job)
            events.append(f"{{clock = {_wall_clock(stamp)}, hour = {stamp.hour}, wday = {(stamp.weekday() + 1) % 7 + 1}}}")
        events.append(_submission(job, live=live))
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


def _fitted(prepared, kind: str):
    """``prepared`` with the model it selected, or a PrDT / PrAM fitted on the same correction that reads (nearly)
    every input, so that each feature's path through the plugin is exercised whatever the selection kept."""
    if kind == "selected":
        return prepared
    from primo import PrAMRegressor, PrDTRegressor

    data = prepared.data
    y = np.log1p(data.y_train) - data.X_train["rolling_estimate"]
    model = (PrDTRegressor(min_samples_leaf=20, random_state=0) if kind == "prdt" else
             PrAMRegressor(max_rounds=60, outer_bags=1, interactions=3, n_jobs=1, random_state=0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(data.X_train, y)
    model.metadata_["offset_feature"] = "rolling_estimate"
    return dataclasses.replace(prepared, model=model, codes=casestudy.model_codes(model))


def _read_features(model) -> set[str]:
    tables = model_tables(model)
    if isinstance(tables, TreeTables):
        return {tables.feature_names[f] for f in tables.feature[tables.left != -1]}
    return {tables.feature_names[tables.binnings[b].feature] for term in tables.terms for b in term.binnings}


def _check_equal(prepared, settings, tmp_path, *, failed=frozenset(), live: bool = False) -> np.ndarray:
    """Plugin priorities under lua5.1 == EmbeddedScheduler's on the window; the plugin's nices."""
    jobs = prepared.jobs
    options = {"cpus_per_gpu": replay.PROCS_PER_GPU} if live else {"time_scale": TIME_SCALE, "replay": True}
    files = plugin.plugin_files(prepared.model, codes=prepared.codes, log_range=prepared.log_range, seed=prepared.seed,
                                epoch=jobs.attrs["epoch"], lam=settings.lam,
                                time_range=(float(jobs["submit_time"].min()), float(jobs["submit_time"].max())),
                                **options)
    _write(tmp_path, files, _events(jobs, set(failed), live=live))
    lines = run_fake_slurmctld(tmp_path)
    assert not [line for line in lines if line.startswith("ERROR")]
    logged = [re.search(r"priority=(\S+) nice=(\d+)", line) for line in lines if line.startswith("INFO primo:")]
    results = [line.split() for line in lines if line.startswith("RESULT")]
    assert len(logged) == len(results) == len(jobs)
    expected = _python_priorities(prepared, settings, jobs, set(failed))
    # the log prints one decimal; the nice carries the exact value (1e-6 relative resolution)
    np.testing.assert_allclose([float(m[1]) for m in logged], expected, rtol=1e-6, atol=0.06)
    nices = np.array([int(r[2]) - 2147483648 for r in results])
    assert all(r[1] == "0" for r in results)
    assert np.abs(nices - [plugin.nice_value(p) for p in expected]).max() <= 1
    return nices


@pytest.mark.parametrize("kind", ["selected", "prdt", "pram"])
def test_plugin_priorities_equal_embedded_scheduler(nasa_window, kind, tmp_path):
    prepared, settings = nasa_window
    prepared = _fitted(prepared, kind)
    nices = _check_equal(prepared, settings, tmp_path, failed={3, 17})  # neither history may learn from FAILED jobs
    assert len(set(nices)) > len(prepared.jobs) // 2  # the priorities order the jobs: not a constant


@pytest.mark.parametrize("kind", ["selected", "prdt", "pram"])
def test_plugin_priorities_equal_embedded_scheduler_with_requests(kth_window, kind, tmp_path):
    """KTH records requested run times and no job names: req_time, the per-user request ratio and estimate,
    categorical ids (strings into the exported model) and users the model never saw."""
    prepared, settings = kth_window
    prepared = _fitted(prepared, kind)
    jobs = prepared.jobs
    assert jobs["req_time"].notna().all() and (jobs["name"] == "").all()
    assert set(jobs["user"].astype(str)) - set(prepared.data.X_train["user"].astype(str))  # unseen users
    assert {"req_time", "request_estimate", "user_request_ratio"} <= set(prepared.model.feature_names_)
    if kind != "selected":
        assert {"user", "req_time", "request_estimate"} <= _read_features(prepared.model)
    nices = _check_equal(prepared, settings, tmp_path, failed={3, 17})
    assert len(set(nices)) > len(jobs) // 2


@pytest.mark.parametrize("kind", ["prdt", "pram"])
def test_live_cluster_requests_equal_embedded_scheduler(kth_window, kind, tmp_path):
    """On a live cluster the request is the job's --time (minutes; NO_VAL when none) and the TimeLimit= of its
    completion record unless the job gave none (then that is the partition's default), the run time that record's
    whole seconds, the identity its owner and name, the queue its partition, the processors its tasks, the time
    the wall clock (whole seconds); a comment the user wrote changes nothing."""
    prepared, settings = kth_window
    prepared = _fitted(prepared, kind)
    minutes = (prepared.jobs["req_time"] // 60) * 60  # what a --time in minutes can say (0: unlimited)
    jobs = prepared.jobs.assign(req_time=minutes.where((minutes > 0) & (np.arange(len(minutes)) % 7 != 3)),
                                duration=prepared.jobs["duration"].round(),
                                submit_time=prepared.jobs["submit_time"].round())
    jobs.attrs = dict(prepared.jobs.attrs)
    assert jobs["req_time"].isna().any() and (jobs["req_time"] > 0).sum() > len(jobs) // 2
    _check_equal(dataclasses.replace(prepared, jobs=jobs), settings, tmp_path, failed={5}, live=True)


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
