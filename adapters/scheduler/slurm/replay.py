"""Replay a window of a real job log in real Slurm and in the project's simulator; compare them.

``primo casestudy scheduler --slurm [--logs nasa,kth] [--jobs 300] [--out reports/scheduler/slurm]``

For each log:

1. **Window**: ``--jobs`` consecutive jobs from the second half of the log whose offered load on the
   cluster (2 nodes × 8 GPUs; 8 processors = 1 GPU) is closest to ``--load``.
2. **Model**: the Workload Estimate Model (PrAM on log1p duration, monotone in ``gpu_num``; features of
   :func:`adapters.scheduler.workload.workload_dataset`) trained on the jobs before the window; the
   rolling QSSF history starts with the jobs that finished before the window.
3. **Slurm**: for each policy a fresh :class:`~adapters.scheduler.slurm.cluster.SlurmCluster`; every
   job is submitted at its submit time divided by the time scale, as the trace's user and name, with
   its GPU count, and ``sleep``\\ s its duration divided by the time scale. FIFO: no plugin (equal
   priorities run in submission order). QSSF-Primo: the generated ``job_submit.lua``. SJF-oracle:
   ``sbatch --nice`` from the true duration. Start and end come from the completion records
   (``jobcomp/filetxt``, whole seconds) refined by the job's own sub-second timestamps.
4. **Simulator**: the same window, cluster and policies in
   :class:`adapters.scheduler.simulator.Simulator` (QSSF through
   :class:`~adapters.scheduler.embedded.EmbeddedScheduler` with the same model and seed history).
5. **Report**: average JCT and queueing delay (trace hours), the policy ranking in both, paired
   per-job differences (mean, bootstrap 95% interval, median), per-submission cost of the plugin from
   slurmctld's log; ``results.json``, ``README.md`` and ``jct_cdf.png`` in ``--out``.

``--slurm-setup DIR --log FILE`` instead writes a plugin for a real cluster (model trained on the whole
log, history seeded with every job of it, time scale 1) into ``DIR``.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from adapters.scheduler import primo_models, workload
from adapters.scheduler.embedded import EmbeddedScheduler
from adapters.scheduler.jobs import load_swf
from adapters.scheduler.simulator import FIFOPolicy, QSSFPolicy, Simulator, SJFPolicy
from adapters.scheduler.simulator.cluster import GPUS_PER_NODE
from adapters.scheduler.slurm import plugin
from adapters.scheduler.slurm.cluster import SlurmCluster
from primo.datasets import resolve_data_dir
from primo.io import atomic_write_bytes
from primo.report.markdown import table_text

logger = logging.getLogger(__name__)

LOGS = {
    "nasa": "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz",
    "kth": "scheduler/jobs/KTH-SP2-1996-2.1-cln.swf.gz",
    "sdsc": "scheduler/jobs/SDSC-BLUE-2000-4.2-cln.swf.gz",
}
"""Logs the replay knows (Parallel Workloads Archive); NASA has application ids as job names."""
POLICIES = ("fifo", "qssf_primo", "sjf_oracle")
PROCS_PER_GPU = 8
JOB_SCRIPT = """#!/bin/bash
# sleeps the job's scaled duration; records its own sub-second start and end (Slurm keeps whole seconds)
# and its GPU count (a whole-node job's completion record counts every CPU of its nodes)
export LC_ALL=C
t0=$EPOCHREALTIME
sleep "$1"
t1=$EPOCHREALTIME
echo "$SLURM_JOB_ID $t0 $t1 $3" >> "$2"
"""


@dataclass(frozen=True)
class ReplaySettings:
    """How one log is replayed.

    Example
    -------
    >>> ReplaySettings(n_jobs=30, replay_seconds=20).nodes
    2
    """

    n_jobs: int = 300
    replay_seconds: float = 130.0       # wall seconds over which the window's submissions are spread
    load: float = 0.8                   # offered load the window is chosen for
    nodes: int = 2
    lam: float = 0.5
    budget: primo_models.Budget = field(default_factory=lambda: primo_models.Budget(n_trials=6, max_rounds=300,
                                                                                     outer_bags=1))
    drain_timeout: float = 600.0        # wall seconds to wait for the last jobs after the last submission
    bootstrap: int = 2000
    seed: int = 0
    repeat_policy: str | None = "fifo"  # replayed a second time in Slurm: how much the same replay varies


QUICK = ReplaySettings(n_jobs=30, replay_seconds=15.0,
                       budget=primo_models.Budget(n_trials=2, max_rounds=60, outer_bags=1), bootstrap=200,
                       repeat_policy=None)


# ---------------------------------------------------------------- window and model
def load_log(data_dir: Path, name: str) -> pd.DataFrame:
    """A log of :data:`LOGS` as a job table (8 processors = 1 GPU)."""
    if name not in LOGS:
        raise ValueError(f"unknown log {name!r}; choose from {', '.join(LOGS)}")
    return load_swf(data_dir / LOGS[name], procs_per_gpu=PROCS_PER_GPU)


def choose_window(jobs: pd.DataFrame, n_jobs: int, gpus: int, load: float) -> tuple[int, float]:
    """(first row, offered load) of the ``n_jobs`` consecutive jobs in the log's second half whose
    offered load ``Σ gpus·duration / (gpus of the cluster · submission span)`` is closest to ``load``.

    Example
    -------
    >>> start, offered = choose_window(jobs, 300, 16, 0.8)  # doctest: +SKIP
    """
    if len(jobs) < 2 * n_jobs:
        raise ValueError(f"the log has {len(jobs)} jobs; a window of {n_jobs} needs at least {2 * n_jobs}")
    work = np.r_[0.0, np.cumsum((jobs["gpu_num"] * jobs["duration"]).to_numpy(float))]
    submit = jobs["submit_time"].to_numpy(float)
    starts = np.arange(len(jobs) // 2, len(jobs) - n_jobs + 1)
    span = submit[starts + n_jobs - 1] - submit[starts]
    with np.errstate(divide="ignore", invalid="ignore"):
        offered = (work[starts + n_jobs] - work[starts]) / (gpus * span)
    offered[~np.isfinite(offered)] = np.inf
    best = int(np.argmin(np.abs(offered - load)))
    return int(starts[best]), float(offered[best])


@dataclass
class Prepared:
    """Everything both replays need for one log window."""

    log: str
    jobs: pd.DataFrame          # the window (job-table schema), submit order
    train: pd.DataFrame         # jobs before the window
    model: object               # monotone Workload Estimate Model (log1p seconds)
    codes: dict
    log_range: tuple[float, float]
    seed: pd.DataFrame          # finished before the window, finish order
    offered_load: float
    time_scale: float           # trace seconds per replay second
    model_metrics: dict
    fit_seconds: float
    name_mode: str


def prepare(jobs: pd.DataFrame, log: str, settings: ReplaySettings) -> Prepared:
    """Choose the window, train the model on the jobs before it and collect the seed history.

    Example
    -------
    >>> prepared = prepare(load_log(data_dir, "nasa"), "nasa", ReplaySettings())  # doctest: +SKIP
    """
    gpus = settings.nodes * GPUS_PER_NODE
    fits = jobs["gpu_num"] <= gpus
    jobs = jobs[fits].reset_index(drop=True).copy() if not fits.all() else jobs
    start, offered = choose_window(jobs, settings.n_jobs, gpus, settings.load)
    boundary = float(jobs["submit_time"].iloc[start])
    upto = jobs.iloc[:start + settings.n_jobs].copy()
    upto.attrs = dict(jobs.attrs)
    if upto["vc"].nunique() != 1:
        raise ValueError("the replay emulates one partition; the window's jobs name several virtual clusters")
    name_mode = "exact" if (upto["name"] != "").mean() > 0.5 else "none"
    data = workload.workload_dataset(upto, boundary, name_mode=name_mode,
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))
    _, model, fit_seconds = primo_models.fit_workload_model(data, settings.budget)
    log_range = (float(np.log1p(data.y_train).min()), float(np.log1p(data.y_train).max()))
    window = upto.loc[data.X_test.index].reset_index(drop=True)
    window.attrs = dict(jobs.attrs)
    train = upto.loc[data.X_train.index]
    span = float(window["submit_time"].iloc[-1] - window["submit_time"].iloc[0])
    return Prepared(
        log=log, jobs=window, train=train, model=model,
        codes={key: list(pd.Index(train[key].astype(str).unique())) for key in ("user", "vc", "name")},
        log_range=log_range, seed=plugin.finished_before(train, boundary), offered_load=offered,
        time_scale=max(span / settings.replay_seconds, 1.0),
        model_metrics=primo_models.evaluate_workload_metrics(data, model, log_range, settings.lam),
        fit_seconds=fit_seconds, name_mode=name_mode)


def embedded_scheduler(p: Prepared, lam: float) -> EmbeddedScheduler:
    """The simulator's QSSF estimator: the same model, vocabularies and seed history as the plugin."""
    rolling = workload.RollingEstimator(similarity_threshold=1.0)
    for job in p.seed.to_dict("records"):
        rolling.update(job)
    return EmbeddedScheduler(p.model, p.codes, p.jobs.attrs["epoch"], rolling=rolling, log_range=p.log_range,
                             lam=lam)


def plugin_files_for(p: Prepared, lam: float) -> dict[str, str]:
    """The plugin files of a replay of ``p`` (replay identities, its time scale and time range)."""
    submit = p.jobs["submit_time"]
    return plugin.plugin_files(p.model, codes=p.codes, log_range=p.log_range, seed=p.seed, epoch=p.jobs.attrs["epoch"],
                               lam=lam, time_scale=p.time_scale, replay=True,
                               time_range=(float(submit.min()), float(submit.max())))


# ---------------------------------------------------------------- simulator
class _TrueDurationObserver:
    """QSSF estimator for a simulation whose durations carry ``extra`` seconds of Slurm latency: it
    learns the jobs' true run times, as the plugin does from the jobs' own timestamps."""

    def __init__(self, inner: EmbeddedScheduler, extra: float):
        self.inner, self.extra = inner, extra

    def estimate(self, job) -> float:
        return self.inner.estimate(job)

    def observe(self, job) -> None:
        self.inner.observe({"user": job.user, "name": job.name, "gpu_num": job.gpu_num,
                            "duration": job.duration - self.extra})


def simulate(p: Prepared, policy: str, settings: ReplaySettings, *, latency: float = 0.0) -> pd.DataFrame:
    """Per-job ``submit, start, end`` (trace seconds) of ``policy`` in the simulator.

    ``latency`` (trace seconds) is added to every job's duration: the time a Slurm job holds or
    blocks its GPUs beyond its own run (scheduling pass, launch, release), see :func:`slurm_latency`.
    """
    jobs = p.jobs.assign(duration=p.jobs["duration"] + latency) if latency else p.jobs
    make = {"fifo": FIFOPolicy, "sjf_oracle": SJFPolicy,
            "qssf_primo": lambda: QSSFPolicy(estimator=_TrueDurationObserver(embedded_scheduler(p, settings.lam),
                                                                            latency))}[policy]
    result = Simulator(jobs, {str(jobs["vc"].iloc[0]): settings.nodes}, make()).run()
    table = result.jobs
    return pd.DataFrame({"job": np.arange(len(table)), "submit": table["submit_time"].to_numpy(),
                         "start": table["start_time"].to_numpy(), "end": table["end_time"].to_numpy()})


def slurm_latency(times: pd.DataFrame, gpus_needed, capacity: int) -> tuple[float, int]:
    """(median start delay, number of jobs) over the jobs of a Slurm FIFO replay that found enough idle
    GPUs and no earlier job waiting when submitted: the delay an ideal scheduler would not have.

    ``times`` are one replay's per-job ``submit, start, end`` (any unit), in submission order.
    """
    submit, start, end = (times[c].to_numpy(float) for c in ("submit", "start", "end"))
    gpus = np.asarray(gpus_needed, float)
    delays = []
    for i in range(len(submit)):
        running = (start[:i] <= submit[i]) & (end[:i] > submit[i])
        waiting = start[:i] > submit[i]
        if not waiting.any() and gpus[:i][running].sum() + gpus[i] <= capacity:
            delays.append(start[i] - submit[i])
    return (float(np.median(delays)) if delays else 0.0), len(delays)


# ---------------------------------------------------------------- Slurm
def _request(gpus: int) -> list[str]:
    """sbatch resources of a ``gpus``-GPU job: one node up to 8 GPUs, else entirely idle nodes (``--exclusive``),
    the simulator's consolidated placement (it also keeps the rest of the last node, which the simulator lends)."""
    if gpus <= GPUS_PER_NODE:
        return ["-N", "1", "-n", "1", "-c", str(gpus)]
    return ["-N", str(math.ceil(gpus / GPUS_PER_NODE)), "-n", str(gpus), "-c", "1", "--exclusive"]


_RECORD = re.compile(r"^JobId=(\d+) .* Name=(.*?) JobState=(\S+) .* StartTime=(\S+) EndTime=(\S+) .* "
                     r"ProcCnt=(\d+) .* SubmitTime=(\S+) ")
_SUBMIT_RPC = re.compile(r"_slurm_rpc_submit_batch_job: JobId=(\d+) InitPrio=(\d+) usec=(\d+)")
_PLUGIN_LINE = re.compile(r"primo: user=(.*) name=(.*) gpus=(\d+) P_R=(\S+) P_M=(\S+) priority=(\S+) nice=(-?\d+) "
                          r"cpu_ms=(\S+)")


def _local_seconds(text: str) -> float:
    """Unix time of a Slurm timestamp (``2026-11-24T08:42:57``, the host's local time)."""
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def read_completions(path: Path) -> pd.DataFrame:
    """Slurm's jobcomp/filetxt records: ``slurm_id, name, state, submit_s, start_s, end_s, procs`` (Unix seconds)."""
    rows = []
    for line in path.read_text().splitlines() if path.exists() else []:
        m = _RECORD.match(line)
        if m:
            rows.append({"slurm_id": m[1], "name": m[2], "state": m[3], "start_s": _local_seconds(m[4]),
                         "end_s": _local_seconds(m[5]), "procs": int(m[6]), "submit_s": _local_seconds(m[7])})
    return pd.DataFrame(rows, columns=["slurm_id", "name", "state", "start_s", "end_s", "procs", "submit_s"])


def replay_in_slurm(p: Prepared, policy: str, settings: ReplaySettings, *, files: dict | None = None) -> dict:
    """Replay the window in a fresh Slurm under ``policy``; per-job times and the plugin's log.

    Returns ``{"jobs": DataFrame(job, submit, start, end, record_start, record_end, state) in trace seconds
    from the first submission, "submit_usec": [...], "plugin": DataFrame of the plugin's log lines,
    "wall_s": seconds}``. ``files`` replaces the plugin files (tests: a broken model).
    """
    if files is None and policy == "qssf_primo":
        files = plugin_files_for(p, settings.lam)
    scale = p.time_scale
    submit = (p.jobs["submit_time"] - p.jobs["submit_time"].iloc[0]).to_numpy(float) / scale
    sleep = p.jobs["duration"].to_numpy(float) / scale
    started = time.monotonic()
    with SlurmCluster(nodes=settings.nodes, gpus_per_node=GPUS_PER_NODE, job_submit_files=files or {}) as cluster:
        script = cluster.path("job.sh")
        script.write_text(JOB_SCRIPT)
        script.chmod(0o755)
        runtimes = cluster.path(plugin.RUNTIME_FILE)
        ids, wall_submit = [], []
        origin_wall, origin = time.time(), time.monotonic()
        for i, job in enumerate(p.jobs.itertuples(index=False)):
            delay = origin + submit[i] - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            args = ["-J", f"{job.user}:{job.name}", "--comment", f"t={job.submit_time!r};vc={job.vc};cpus={job.cpu_num}",
                    "-o", "/dev/null", "-e", "/dev/null", "--chdir", str(cluster.directory), *_request(int(job.gpu_num))]
            if policy == "sjf_oracle":
                args.append(f"--nice={plugin.nice_value(job.duration)}")
            wall_submit.append(time.time())
            ids.append(cluster.submit(args + [str(script), f"{sleep[i]:.6f}", str(runtimes), str(int(job.gpu_num))]))
        deadline = time.monotonic() + settings.drain_timeout
        while cluster.queue_length() and time.monotonic() < deadline:
            time.sleep(0.5)
        if cluster.queue_length():
            raise RuntimeError(f"{policy}: jobs still queued {settings.drain_timeout:.0f} s after the last submission")
        time.sleep(0.5)  # the last completion records are written just after the queue empties
        records = read_completions(cluster.path(plugin.JOBCOMP_FILE)).set_index("slurm_id")
        stamps = {}
        if runtimes.exists():
            for line in runtimes.read_text().splitlines():
                job_id, t0, t1, _ = line.split()
                stamps[job_id] = (float(t0), float(t1))
        log = cluster.path("log/slurmctld.log").read_text(errors="replace")
    rows = []
    for i, job_id in enumerate(ids):
        record = records.loc[job_id] if job_id in records.index else None
        t0, t1 = stamps.get(job_id, (math.nan, math.nan))
        rows.append({"job": i, "slurm_id": job_id, "submit": wall_submit[i] - origin_wall, "start": t0 - origin_wall,
                     "end": t1 - origin_wall,
                     "record_start": record["start_s"] - math.floor(origin_wall) if record is not None else math.nan,
                     "record_end": record["end_s"] - math.floor(origin_wall) if record is not None else math.nan,
                     "state": record["state"] if record is not None else "MISSING"})
    table = pd.DataFrame(rows)
    for column in ("submit", "start", "end", "record_start", "record_end"):
        table[column] *= scale  # back to trace seconds
    usec = {m[1]: int(m[3]) for m in _SUBMIT_RPC.finditer(log)}
    plugin_log = pd.DataFrame([{"user": m[1], "name": m[2], "gpus": int(m[3]), "p_r": float(m[4]), "p_m": float(m[5]),
                                "priority": float(m[6]), "nice": int(m[7]), "cpu_ms": float(m[8])}
                               for m in _PLUGIN_LINE.finditer(log)])
    errors = [line for line in log.splitlines() if "primo:" in line and "error" in line]
    return {"jobs": table, "submit_usec": [usec.get(j, math.nan) for j in ids], "plugin": plugin_log,
            "plugin_errors": errors, "wall_s": time.monotonic() - started}


# ---------------------------------------------------------------- statistics
def paired(a, b, *, n_boot: int, seed: int = 0) -> dict:
    """Paired per-job difference ``a - b``: mean, bootstrap 95% interval of the mean, median.

    Example
    -------
    >>> paired([3.0, 5.0, 7.0], [1.0, 2.0, 3.0], n_boot=200)["mean"]
    3.0
    """
    diff = np.asarray(a, float) - np.asarray(b, float)
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(n_boot, len(diff)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"mean": float(diff.mean()), "ci95": [float(low), float(high)], "median": float(np.median(diff)),
            "n": int(len(diff))}


def summarize(times: pd.DataFrame) -> dict:
    """Average JCT and queueing delay (trace hours) of per-job ``submit, start, end``."""
    jct, queue = times["end"] - times["submit"], times["start"] - times["submit"]
    return {"avg_jct_h": float(jct.mean() / 3600), "median_jct_h": float(jct.median() / 3600),
            "avg_queue_h": float(queue.mean() / 3600), "p95_queue_h": float(queue.quantile(0.95) / 3600)}


def ranking(rows: dict, tolerance: float = 0.005) -> str:
    """Policies by average JCT, e.g. ``"sjf_oracle < qssf_primo < fifo"``; ``=`` joins policies within
    ``tolerance`` (relative) of the previous one.

    Example
    -------
    >>> ranking({"a": {"avg_jct_h": 2.0}, "b": {"avg_jct_h": 1.0}, "c": {"avg_jct_h": 1.001}})
    'b = c < a'
    """
    order = sorted(rows, key=lambda policy: rows[policy]["avg_jct_h"])
    text = order[0]
    for previous, policy in zip(order, order[1:]):
        a, b = rows[previous]["avg_jct_h"], rows[policy]["avg_jct_h"]
        text += (" = " if b - a <= tolerance * max(abs(a), 1e-12) else " < ") + policy
    return text


def _hours(d: dict) -> dict:
    return {"mean": d["mean"] / 3600, "ci95": [x / 3600 for x in d["ci95"]], "median": d["median"] / 3600, "n": d["n"]}


VIEWS = ("slurm", "simulator", "simulator_latency")
"""Where each policy ran: real Slurm, the simulator, the simulator with Slurm's per-job latency added."""


def compare(slurm: dict, times: dict, settings: ReplaySettings) -> dict:
    """The side-by-side numbers of one log (see the module docstring).

    ``times[view][policy]`` holds per-job ``submit, start, end`` (trace seconds) for every view of
    :data:`VIEWS`; ``slurm[policy]`` the rest of :func:`replay_in_slurm`'s output.
    """
    jct = {(view, policy): (t["end"] - t["submit"]).to_numpy() for view in VIEWS for policy, t in times[view].items()}
    out: dict = {view: {policy: summarize(times[view][policy]) for policy in POLICIES} for view in VIEWS}
    for policy in POLICIES:
        s = slurm[policy]["jobs"]
        out["slurm"][policy]["record_avg_jct_h"] = float((s["record_end"] - s["submit"]).mean() / 3600)
    boot = {"n_boot": settings.bootstrap, "seed": settings.seed}
    out["slurm_minus"] = {view: {policy: _hours(paired(jct["slurm", policy], jct[view, policy], **boot))
                                 for policy in POLICIES} for view in VIEWS[1:]}
    out["qssf_gain"] = {view: {f"qssf_primo_minus_{other}": _hours(paired(jct[view, "qssf_primo"], jct[view, other],
                                                                          **boot))
                               for other in ("fifo", "sjf_oracle")} for view in VIEWS}
    for view in VIEWS:
        out["qssf_gain"][view]["qssf_over_sjf"] = out[view]["qssf_primo"]["avg_jct_h"] / out[view]["sjf_oracle"]["avg_jct_h"]
        out["qssf_gain"][view]["qssf_over_fifo"] = out[view]["qssf_primo"]["avg_jct_h"] / out[view]["fifo"]["avg_jct_h"]
    out["ranking"] = {view: ranking(out[view]) for view in VIEWS}
    usec = {policy: np.asarray(slurm[policy]["submit_usec"], float) for policy in POLICIES}
    plug = slurm["qssf_primo"]["plugin"]
    out["submission_cost"] = {
        "rpc_median_us": {policy: float(np.nanmedian(u)) for policy, u in usec.items()},
        "plugin_overhead_median_us": float(np.nanmedian(usec["qssf_primo"]) - np.nanmedian(usec["fifo"])),
        "plugin_cpu_ms_median": float(plug["cpu_ms"].median()) if len(plug) else None,
        "plugin_cpu_ms_p99": float(plug["cpu_ms"].quantile(0.99)) if len(plug) else None,
        "plugin_priorities_set": int(len(plug)),
        "plugin_errors": len(slurm["qssf_primo"]["plugin_errors"]),
    }
    out["slurm_states"] = {policy: slurm[policy]["jobs"]["state"].value_counts().to_dict() for policy in POLICIES}
    out["slurm_wall_s"] = {policy: slurm[policy]["wall_s"] for policy in POLICIES}
    return out


# ---------------------------------------------------------------- one log, the whole study
def run_log(data_dir: Path, log: str, settings: ReplaySettings) -> tuple[dict, pd.DataFrame]:
    """Prepare, replay in Slurm and simulate one log; ``(results, per-job times of every view and policy)``."""
    started = time.monotonic()
    p = prepare(load_log(data_dir, log), log, settings)
    logger.info("%s: window of %d jobs, offered load %.2f, time scale %.0f", log, len(p.jobs), p.offered_load,
                p.time_scale)
    slurm = {}
    for policy in POLICIES:
        slurm[policy] = replay_in_slurm(p, policy, settings)
        logger.info("%s %s in Slurm: %s", log, policy, summarize(slurm[policy]["jobs"]))
    repeat = None
    if settings.repeat_policy:
        again = replay_in_slurm(p, settings.repeat_policy, settings)["jobs"]
        first, second = summarize(slurm[settings.repeat_policy]["jobs"]), summarize(again)
        repeat = {"policy": settings.repeat_policy, "avg_jct_h": [first["avg_jct_h"], second["avg_jct_h"]],
                  "relative_difference": abs(first["avg_jct_h"] - second["avg_jct_h"]) / first["avg_jct_h"]}
    latency, latency_jobs = slurm_latency(slurm["fifo"]["jobs"], p.jobs["gpu_num"], settings.nodes * GPUS_PER_NODE)
    times = {"slurm": {policy: slurm[policy]["jobs"] for policy in POLICIES},
             "simulator": {policy: simulate(p, policy, settings) for policy in POLICIES},
             "simulator_latency": {policy: simulate(p, policy, settings, latency=latency) for policy in POLICIES}}
    result = {
        "log": log, "source": p.jobs.attrs.get("source"), "n_jobs": len(p.jobs), "n_train_jobs": len(p.train),
        "seed_jobs": len(p.seed), "offered_load": p.offered_load, "time_scale": p.time_scale,
        "window_start": str(p.jobs.attrs["epoch"] + pd.Timedelta(seconds=float(p.jobs["submit_time"].iloc[0]))),
        "window_days": float((p.jobs["submit_time"].iloc[-1] - p.jobs["submit_time"].iloc[0]) / 86400),
        "name_mode": p.name_mode, "workload_model": p.model_metrics, "fit_s": p.fit_seconds,
        "median_scaled_duration_s": float(p.jobs["duration"].median() / p.time_scale),
        "slurm_latency_replay_s": latency / p.time_scale, "slurm_latency_jobs": latency_jobs,
        "jobs_over_one_node": int((p.jobs["gpu_num"] > GPUS_PER_NODE).sum()), "slurm_repeat": repeat,
        **compare(slurm, times, settings), "total_s": time.monotonic() - started,
    }
    per_job = pd.concat([t[["job", "submit", "start", "end"]].assign(log=log, view=view, policy=policy)
                         for view in VIEWS for policy, t in times[view].items()], ignore_index=True)
    return result, per_job


def run(data_dir=None, out="reports/scheduler/slurm", logs=("nasa", "kth"), settings: ReplaySettings = ReplaySettings()) -> dict:
    """Replay every log and write ``results.json``, ``README.md`` and ``jct_cdf.png`` into ``out``.

    Example
    -------
    >>> run(out="/tmp/slurm", logs=("nasa",), settings=QUICK)  # doctest: +SKIP
    """
    data_dir, out = resolve_data_dir(data_dir), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    results = {"settings": {"n_jobs": settings.n_jobs, "replay_seconds": settings.replay_seconds, "load": settings.load,
                            "nodes": settings.nodes, "gpus_per_node": GPUS_PER_NODE, "lam": settings.lam,
                            "budget": settings.budget.__dict__, "procs_per_gpu": PROCS_PER_GPU},
               "logs": []}
    per_job = []
    for log in logs:
        result, times = run_log(data_dir, log, settings)
        results["logs"].append(result)
        per_job.append(times)
    per_job = pd.concat(per_job, ignore_index=True)
    atomic_write_bytes(out / "results.json", json.dumps(results, indent=2, default=float).encode())
    atomic_write_bytes(out / "jobs.csv", per_job.to_csv(index=False, float_format="%.3f").encode())
    _figure(per_job, out / "jct_cdf.png")
    atomic_write_bytes(out / "README.md", render_readme(results).encode())
    return results


def _figure(per_job: pd.DataFrame, path: Path) -> None:
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    logs = list(dict.fromkeys(per_job["log"]))
    fig, axes = plt.subplots(1, len(logs), figsize=(6.5 * len(logs), 4.5), squeeze=False)
    colors = {"fifo": "tab:red", "qssf_primo": "tab:blue", "sjf_oracle": "tab:green"}
    styles = {"slurm": "-", "simulator": "--", "simulator_latency": ":"}
    for ax, log in zip(axes[0], logs):
        for (view, policy), rows in per_job[per_job["log"] == log].groupby(["view", "policy"], sort=False):
            x = np.sort((rows["end"] - rows["submit"]).to_numpy() / 3600)
            ax.plot(np.maximum(x, 1e-3), np.arange(1, len(x) + 1) / len(x), color=colors[policy],
                    linestyle=styles[view], label=f"{policy} ({view})")
        ax.set_xscale("log")
        ax.set_xlabel("JCT (trace hours)")
        ax.set_ylabel("fraction of jobs")
        ax.set_title(f"{log}: Slurm (solid), simulator (dashed), simulator + Slurm latency (dotted)", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buffer.getvalue())


def _fmt(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _interval(d: dict) -> str:
    return f"{d['mean']:+.3f} [{d['ci95'][0]:+.3f}, {d['ci95'][1]:+.3f}], median {d['median']:+.3f}"


def render_readme(results: dict) -> str:
    """README of ``reports/scheduler/slurm`` from ``results``."""
    s = results["settings"]
    parts = [
        "# QSSF with a Primo model inside real Slurm, vs the project's simulator",
        "Generated by `primo casestudy scheduler --slurm` (`adapters/scheduler/slurm/replay.py`); every number is "
        "measured by that run. Slurm 22.05 (Debian `slurm-wlm`): one slurmctld and "
        f"{s['nodes']} slurmd daemons on 127.0.0.1, {s['gpus_per_node']} emulated GPUs (CPUs) per node "
        f"({s['procs_per_gpu']} processors of the log = 1 GPU), `sched/builtin` (strict priority order, no "
        "backfill, like the simulator's queue policies), `priority/multifactor` with the job's `nice` as the only "
        "varying factor. QSSF-Primo: the generated `job_submit.lua` with the Workload Estimate Model exported to Lua, "
        f"λ = {s['lam']}; FIFO: no plugin; SJF-oracle: `sbatch --nice` from the true duration. Each window is "
        f"{s['n_jobs']} consecutive jobs of the log's second half whose offered load is closest to {s['load']}, "
        f"submitted over {s['replay_seconds']:.0f} s of wall time. All times are in trace hours (replay seconds × "
        "the time scale). *simulator + latency*: the simulator with every job lengthened by the start delay Slurm "
        "showed for jobs that found idle GPUs and an empty queue (FIFO run).",
    ]
    for r in results["logs"]:
        cost, gain = r["submission_cost"], r["qssf_gain"]
        rows = []
        for policy in POLICIES:
            rows.append([policy] + [f"{r[view][policy]['avg_jct_h']:.3f}" for view in VIEWS]
                        + [f"{r[view][policy]['avg_queue_h']:.3f}" for view in VIEWS]
                        + [_interval(r["slurm_minus"]["simulator"][policy]),
                           _interval(r["slurm_minus"]["simulator_latency"][policy])])
        parts += [
            f"## {r['log']} ({r['source']}): {r['n_jobs']} jobs from {r['window_start']} "
            f"({r['window_days']:.2f} days), offered load {r['offered_load']:.2f}",
            f"Model trained on {r['n_train_jobs']} earlier jobs (job names: {r['name_mode']}); rolling history "
            f"seeded with the {r['seed_jobs']} jobs finished before the window. On the window: R² of log duration "
            f"{r['workload_model']['r2_log']:.3f}, Spearman of GPU time {r['workload_model']['gpu_time_spearman']:.3f} "
            f"(QSSF merge). Time scale {r['time_scale']:.0f}: the median job sleeps "
            f"{r['median_scaled_duration_s']:.2f} s; Slurm's start delay on an idle cluster "
            f"{r['slurm_latency_replay_s']:.2f} s (median of {r['slurm_latency_jobs']} jobs). Wall time per policy "
            "in Slurm: " + ", ".join(f"{k} {v:.0f} s" for k, v in r["slurm_wall_s"].items())
            + f"; whole log {r['total_s'] / 60:.1f} min.",
            table_text(["policy", "avg JCT: Slurm", "simulator", "sim + latency", "avg queue: Slurm", "simulator",
                        "sim + latency", "Slurm − simulator JCT per job: mean [95% CI]",
                        "Slurm − (sim + latency)"], rows),
            "Ranking by average JCT — " + "; ".join(f"{view}: {r['ranking'][view]}" for view in VIEWS) + ".",
            "QSSF-Primo − FIFO, per job (h): " + "; ".join(f"{view} {_interval(gain[view]['qssf_primo_minus_fifo'])}"
                                                         for view in VIEWS) + ".",
            "QSSF-Primo / SJF-oracle average JCT: " + ", ".join(f"{view} {gain[view]['qssf_over_sjf']:.2f}"
                                                               for view in VIEWS)
            + "; QSSF-Primo / FIFO: " + ", ".join(f"{view} {gain[view]['qssf_over_fifo']:.2f}" for view in VIEWS) + ".",
            f"Per submission (median `usec=` of slurmctld's submit RPC): FIFO {cost['rpc_median_us']['fifo']:.0f} µs, "
            f"QSSF-Primo {cost['rpc_median_us']['qssf_primo']:.0f} µs, SJF {cost['rpc_median_us']['sjf_oracle']:.0f} µs "
            f"(difference QSSF − FIFO {cost['plugin_overhead_median_us']:+.0f} µs); the plugin's own CPU time (Lua "
            f"`os.clock`, logged per job) median {cost['plugin_cpu_ms_median']:.3f} ms, p99 "
            f"{cost['plugin_cpu_ms_p99']:.3f} ms. Priorities set {cost['plugin_priorities_set']}/{r['n_jobs']}, plugin "
            f"errors {cost['plugin_errors']}; job states {r['slurm_states']}.",
        ]
    parts += ["![JCT CDF](jct_cdf.png)", _targets(results), _why(results),
              "Per-job times of every run: `jobs.csv`; every number: `results.json`."]
    return "\n\n".join(parts) + "\n"


def _targets(results: dict) -> str:
    lines = ["## Targets of issue 18"]
    for r in results["logs"]:
        gain, slurm = r["qssf_gain"]["slurm"], r["slurm"]
        replay_min = sum(r["slurm_wall_s"].values()) / 60
        beats = gain["qssf_primo_minus_fifo"]["ci95"][1] < 0
        lines.append(
            f"- {r['log']}: in Slurm QSSF-Primo {'beats' if slurm['qssf_primo']['avg_jct_h'] < slurm['fifo']['avg_jct_h'] else 'does not beat'} "
            f"FIFO on average JCT ({slurm['qssf_primo']['avg_jct_h']:.3f} h vs {slurm['fifo']['avg_jct_h']:.3f} h; "
            f"paired interval {'excludes' if beats else 'includes'} 0); "
            f"{(gain['qssf_over_sjf'] - 1) * 100:+.0f}% from SJF-oracle (target within 10%: "
            f"{'met' if gain['qssf_over_sjf'] <= 1.10 else 'missed'}); ranking Slurm `{r['ranking']['slurm']}` vs simulator "
            f"`{r['ranking']['simulator']}` ({'same' if r['ranking']['slurm'] == r['ranking']['simulator'] else 'different'}); "
            f"Slurm replay of the 3 policies {replay_min:.1f} min (target < 10 min: "
            f"{'met' if replay_min < 10 else 'missed'}); the whole command for this log, with the model fit, the "
            f"simulations{' and the repeated run' if r.get('slurm_repeat') else ''}, {r['total_s'] / 60:.1f} min.")
    return "\n".join(lines)


def _why(results: dict) -> str:
    lines = ["## Where and why Slurm and the simulator differ"]
    for r in results["logs"]:
        tick_h = r["time_scale"] / 3600
        lines.append(
            f"- {r['log']}: one replay second is {tick_h:.3f} trace hours, and Slurm starts a job only at its next "
            f"scheduling pass (about once a second: `batch_sched_delay=0`, `sched_interval=1` are its floor) plus a "
            f"launch; on an idle cluster the start delay was {r['slurm_latency_replay_s']:.2f} s = "
            f"{r['slurm_latency_replay_s'] * tick_h:.3f} trace hours per job, while the median job sleeps only "
            f"{r['median_scaled_duration_s']:.2f} s. Every job therefore holds or blocks its GPUs longer than in the "
            "simulator, which raises the effective load and the queueing. Adding that delay to every job in the "
            "simulator (*sim + latency*) moves the simulated average JCT to "
            + ", ".join(f"{p} {r['simulator_latency'][p]['avg_jct_h']:.3f} h" for p in POLICIES)
            + " against Slurm's " + ", ".join(f"{r['slurm'][p]['avg_jct_h']:.3f} h" for p in POLICIES) + ".")
        if r.get("slurm_repeat"):
            rep = r["slurm_repeat"]
            lines.append(f"- {r['log']}: the same {rep['policy']} replay run twice in Slurm gave average JCT "
                         f"{rep['avg_jct_h'][0]:.3f} h and {rep['avg_jct_h'][1]:.3f} h ({rep['relative_difference']:.0%} "
                         "apart): where each start falls relative to the once-a-second scheduling pass is chance, "
                         "and at this time scale a second is long.")
        lines.append(f"- {r['log']}: {r['jobs_over_one_node']} job(s) of the window need more than one node.")
    lines += [
        "- Time compression: completion records keep whole seconds (here thousands of trace seconds), so the plugin "
        "learns run times from each job's own sub-second timestamps (`job_runtimes.txt`), as a real cluster would "
        "learn them from its records at a time scale of 1.",
        "- Placement: both place a job of up to 8 GPUs on one node and a larger one on entirely idle nodes (Slurm: "
        "`--exclusive`), but Slurm then keeps the rest of the last node, which the simulator lends to other jobs, "
        "and `select/cons_tres` picks among nodes with room its own way where the simulator takes the best fit.",
        "- History timeline: QSSF's rolling estimate learns from the jobs finished so far; in Slurm they finish "
        "later and in another order than in the simulator, so the same job can get a different priority.",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- plugin for a real cluster
def setup(directory, log_path, *, settings: ReplaySettings = ReplaySettings()) -> dict[str, Path]:
    """Write ``job_submit.lua`` and its model and context for a real cluster into ``directory``.

    The model is trained on every job of ``log_path`` (an SWF log) and the history holds all of them;
    on the cluster, job owners and names are the identities and the wall clock the time.

    Example
    -------
    >>> setup("/etc/slurm", "my-cluster.swf")  # doctest: +SKIP
    """
    jobs = load_swf(log_path, procs_per_gpu=PROCS_PER_GPU)
    name_mode = "exact" if (jobs["name"] != "").mean() > 0.5 else "none"
    boundary = float(jobs["submit_time"].quantile(0.9))  # the last 10% only to report the model's quality
    data = workload.workload_dataset(jobs, boundary, name_mode=name_mode,
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))
    _, model, _ = primo_models.fit_workload_model(data, settings.budget)
    log_range = (float(np.log1p(jobs["duration"]).min()), float(np.log1p(jobs["duration"]).max()))
    codes = {key: list(pd.Index(jobs.loc[data.X_train.index, key].astype(str).unique())) for key in ("user", "vc", "name")}
    files = plugin.plugin_files(model, codes=codes, log_range=log_range, seed=plugin.finished_before(jobs, np.inf),
                                epoch=jobs.attrs["epoch"], lam=settings.lam)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return {name: atomic_write_bytes(directory / name, text.encode()) for name, text in files.items()}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``primo casestudy scheduler --slurm`` / ``--slurm-setup DIR``)."""
    parser = argparse.ArgumentParser(prog="primo casestudy scheduler --slurm", description=__doc__.splitlines()[0])
    parser.add_argument("--slurm", action="store_true", help="replay logs in real Slurm and in the simulator")
    parser.add_argument("--slurm-setup", metavar="DIR", default=None,
                        help="write job_submit.lua, the model and its context for a real cluster into DIR")
    parser.add_argument("--log", default=None, help="--slurm-setup: the cluster's SWF job log to learn from")
    parser.add_argument("--data-dir", default=None, help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", default="reports/scheduler/slurm", help="output directory")
    parser.add_argument("--logs", default="nasa,kth", help=f"comma-separated logs to replay ({', '.join(LOGS)})")
    parser.add_argument("--jobs", type=int, default=ReplaySettings.n_jobs, help="jobs per window (300-1000)")
    parser.add_argument("--replay-seconds", type=float, default=ReplaySettings.replay_seconds,
                        help="wall seconds over which a window's submissions are spread")
    parser.add_argument("--load", type=float, default=ReplaySettings.load, help="offered load of the chosen window")
    parser.add_argument("--quick", action="store_true", help="smoke run: 30 jobs, tiny model budget")
    parser.add_argument("--readme-only", action="store_true", help="rewrite README.md from the existing results.json")
    args = parser.parse_args(argv)
    if args.readme_only:
        results = json.loads((Path(args.out) / "results.json").read_text())
        atomic_write_bytes(Path(args.out) / "README.md", render_readme(results).encode())
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("interpret").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message="Missing values detected")
    warnings.filterwarnings("ignore", module="skopt")
    if args.slurm_setup:
        if not args.log:
            parser.error("--slurm-setup needs --log FILE (the cluster's SWF job log)")
        for name, path in setup(args.slurm_setup, args.log).items():
            print(f"wrote {path}")
        print("add JobSubmitPlugins=lua and JobCompType=jobcomp/filetxt with JobCompLoc=<that directory>/jobcomp.txt "
              "to slurm.conf, and PriorityType=priority/multifactor")
        return 0
    settings = QUICK if args.quick else ReplaySettings(n_jobs=args.jobs, replay_seconds=args.replay_seconds,
                                                       load=args.load)
    run(args.data_dir, args.out, tuple(x for x in args.logs.split(",") if x), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
