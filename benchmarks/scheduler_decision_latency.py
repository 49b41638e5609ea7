"""Latency of one Lucid scheduling decision with a long queue (Lucid §4.4: < 3 ms at 2,048 jobs).

``python benchmarks/scheduler_decision_latency.py [--queue 128 512 1024 2048] [--estimator tree]``

State: a Venus-sized virtual cluster (135 nodes, 1,080 GPUs) where every node runs one
7-GPU job (one idle GPU per node), then ``n`` profiled jobs arrive at once (GPU demands 1, 2,
4, 7, 8, 16 GPUs with 60/15/10/5/7/3 %). The timed decision is the orchestrator pass that
follows (Algorithm 2 as written, ``reprioritize=True``): duration inference for every queued
job through one batched call of the pluggable model, priority = GPUs x estimate, sort, then
consolidated placement and indolent-packing checks for every job in order (about 135 jobs
start on idle GPUs, some 7-GPU jobs are packed). Setup is not timed; each repetition
rebuilds the state. The components (model call, sort) are also timed alone.

Estimators: ``tree`` (a scikit-learn decision tree fitted on synthetic jobs, called through
``ModelEstimator``), ``oracle`` (true durations, no model), ``primo`` (the case study's
Workload Estimate Model, ``--model``, exported and run by
:class:`adapters.scheduler.embedded.EmbeddedScheduler`: per-job feature rows incl. the rolling
history, one numpy pass over the exported bin tables, QSSF merge). ``--reprioritize off`` times
the decision as Lucid deploys it: each estimate computed once when the job is queued (outside
the timed pass), the pass sorts and places.

``--decision embedded`` times :class:`adapters.scheduler.embedded.JobQueue` instead, the decision
an embedded Primo scheduler takes itself (no simulator): with the ``n`` jobs queued (estimates
cached by ``push_many``), which start and on which nodes (QSSF with consolidated placement; no GPU
sharing, unlike the Lucid pass above), in two states of the same 135-node
cluster: ``busy`` (one idle GPU per node, as above) and ``idle`` (every GPU idle), with and
without backfill. Also timed: queueing one more job (one compiled-model estimate + bisect
insertion) and queueing all ``n`` in one batch (one numpy pass over the exported tables).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor

from adapters.scheduler.simulator import (
    LucidPolicy,
    ModelEstimator,
    OracleEstimator,
    Simulator,
    WorkloadCatalog,
    assign_profiles,
    estimate_many,
)

N_NODES = 135
FEATURES = ("gpu_num", "cpu_num", "submit_time")


class TimedLucid(LucidPolicy):
    """Lucid whose queued jobs arrive already profiled; times each main-cluster pass."""

    def attach(self, sim) -> None:
        super().attach(sim)
        self.timings: list[tuple[int, float]] = []

    def on_arrival(self, job) -> None:
        job.profile = job.true_profile          # as if the profiling cluster had profiled it
        super().on_arrival(job)

    def schedule(self, pool) -> None:
        queued = len(self.main.get(pool.name, ()))
        wall, cpu = time.perf_counter(), time.process_time()
        super().schedule(pool)
        self.timings.append((queued, time.perf_counter() - wall, time.process_time() - cpu))


def make_trace(n_queued: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    gpus = np.r_[np.full(N_NODES, 7), rng.choice([1, 2, 4, 7, 8, 16], n_queued, p=[.60, .15, .10, .05, .07, .03])]
    duration = np.r_[np.full(N_NODES, 1e7), np.ceil(rng.lognormal(7, 2, n_queued))]
    submit = np.r_[np.zeros(N_NODES), np.ones(n_queued)]
    n = len(gpus)
    df = pd.DataFrame({"job_id": [str(i) for i in range(n)], "user": [f"u{k}" for k in rng.integers(0, 50, n)],
                       "name": [""] * n, "vc": ["venus"] * n, "gpu_num": gpus, "cpu_num": gpus * 4,
                       "submit_time": submit, "duration": duration, "state": ["COMPLETED"] * n})
    df.attrs["epoch"] = pd.Timestamp("2020-09-01")
    return df


def make_estimator(kind: str, seed: int, model_path=None):
    if kind == "oracle":
        return OracleEstimator()
    if kind == "primo":
        import primo
        from adapters.scheduler.embedded import EmbeddedScheduler

        # synthetic users/names are unseen codes (-1): the same work as for known ones
        return EmbeddedScheduler(primo.load(model_path), {}, pd.Timestamp("2020-09-01"))
    rng = np.random.default_rng(seed)
    x = np.column_stack([rng.choice([1, 2, 4, 8], 5000), rng.integers(1, 64, 5000), rng.uniform(0, 1e6, 5000)])
    y = x[:, 0] * 600 + rng.lognormal(7, 1, 5000)
    tree = DecisionTreeRegressor(max_depth=8, random_state=seed).fit(x, y)
    return ModelEstimator(tree.predict, features=FEATURES)


def one_decision(trace: pd.DataFrame, catalog: WorkloadCatalog, profiles, estimator,
                 reprioritize: bool = True) -> tuple[float, float, int, int]:
    """Build the state, run the timed pass; return (wall s, CPU s, jobs started, jobs packed)."""
    policy = TimedLucid(estimator=estimator, profiler_nodes=0, reprioritize=reprioritize, min_partner_remaining=0)
    sim = Simulator(trace, {"venus": N_NODES}, policy, catalog=catalog, profiles=profiles, check_invariants=False)
    sim.advance(until=1.0)
    queued, wall, cpu = policy.timings[-1]
    assert queued == len(trace) - N_NODES, "the timed pass did not see the whole queue"
    running = [j for j in sim.jobs[N_NODES:] if j.state.value == "running"]
    packed = sum(1 for j in running if j.partner is not None)
    return wall, cpu, len(running), packed


def embedded_decisions(args) -> None:
    """Median latency of JobQueue decisions (see the module docstring)."""
    from adapters.scheduler.embedded import JobQueue

    sched = make_estimator("primo", args.seed, args.model)
    states = {"busy": [1] * N_NODES, "idle": [8] * N_NODES}
    print(f"Embedded decision latency (JobQueue), {N_NODES} nodes x 8 GPUs, Primo workload model {args.model}, "
          f"{args.repeat} repetitions, ms, median of wall clock (min in brackets)")
    print(f"{'queued':>7s}" + "".join(f"{f'{state} {mode}':>20s}" for state in states for mode in ("no-bf", "backfill"))
          + f"{'push one':>16s}{'push all':>18s}{'started busy/idle':>19s}")
    for n in args.queue:
        jobs = make_trace(n, args.seed).iloc[N_NODES:].to_dict("records")
        cells, started = [], {}
        for state, node_free in states.items():
            for backfill in (False, True):
                times = []
                for _ in range(args.repeat):
                    queue = JobQueue(sched)
                    queue.push_many(jobs)  # estimates cached at queueing: not part of the decision
                    t0 = time.perf_counter()
                    decided = queue.decide(node_free, backfill=backfill)
                    times.append((time.perf_counter() - t0) * 1e3)
                started[state, backfill] = len(decided)
                cells.append(f"{statistics.median(times):.3f} [{min(times):.3f}]")
        queue = JobQueue(sched)
        queue.push_many(jobs[:-1])
        push_one, push_all = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            queue.push(jobs[-1])
            push_one.append((time.perf_counter() - t0) * 1e3)
            queue.remove(jobs[-1]["job_id"])
            t0 = time.perf_counter()
            JobQueue(sched).push_many(jobs)
            push_all.append((time.perf_counter() - t0) * 1e3)
        print(f"{n:7d}" + "".join(f"{c:>20s}" for c in cells) + f"{statistics.median(push_one):16.3f}"
              f"{statistics.median(push_all):18.2f}"
              f"{str(started['busy', True]) + '/' + str(started['idle', True]):>19s}")
    print("target (issue 19): an embedded decision over 2,048 queued jobs with cached estimates < 1 ms")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queue", type=int, nargs="*", default=[128, 512, 1024, 2048])
    parser.add_argument("--estimator", choices=["tree", "oracle", "primo"], default="tree")
    parser.add_argument("--model", default="reports/scheduler/models/workload.primo",
                        help="Primo workload model file (--estimator primo)")
    parser.add_argument("--reprioritize", choices=["on", "off"], default="on",
                        help="on: every queued job re-estimated in the timed pass; off: estimates cached at queueing")
    parser.add_argument("--decision", choices=["lucid", "embedded"], default="lucid",
                        help="lucid: the simulated Lucid pass; embedded: JobQueue's own decision")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.decision == "embedded":
        embedded_decisions(args)
        return

    catalog = WorkloadCatalog.from_data_dir(args.data_dir)
    estimator = make_estimator(args.estimator, args.seed, args.model)
    print(f"Lucid decision latency, {N_NODES} nodes x 8 GPUs, estimator={args.estimator}, "
          f"reprioritize={args.reprioritize}, "
          f"{args.repeat} repetitions, ms (median unless noted; wall clock and this process's CPU time; "
          f"CPU time and the minimum are less sensitive to other processes on a shared machine)")
    print(f"{'queued':>7s}{'wall':>8s}{'wall min':>10s}{'wall p95':>10s}{'CPU':>8s}{'model call':>12s}{'sort':>7s}"
          f"{'started':>9s}{'packed':>8s}")
    for n in args.queue:
        trace = make_trace(n, args.seed)
        profiles = assign_profiles(trace, catalog, seed=args.seed)
        runs = [one_decision(trace, catalog, profiles, estimator, args.reprioritize == "on")
                for _ in range(args.repeat)]
        wall = sorted(r[0] * 1e3 for r in runs)
        cpu = sorted(r[1] * 1e3 for r in runs)
        # Components alone, on the same queued jobs.
        sim = Simulator(trace, {"venus": N_NODES}, LucidPolicy(profiler_nodes=0), catalog=catalog, profiles=profiles)
        queued = sim.jobs[N_NODES:]
        model_ms, sort_ms = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            est = estimate_many(estimator, queued)
            t1 = time.perf_counter()
            np.lexsort((np.arange(len(queued)), np.fromiter((j.submit_time for j in queued), float),
                        np.fromiter((j.gpu_num for j in queued), float) * est))
            t2 = time.perf_counter()
            model_ms.append((t1 - t0) * 1e3)
            sort_ms.append((t2 - t1) * 1e3)
        print(f"{n:7d}{statistics.median(wall):8.2f}{wall[0]:10.2f}{wall[int(0.95 * (len(wall) - 1))]:10.2f}"
              f"{statistics.median(cpu):8.2f}{statistics.median(model_ms):12.2f}{statistics.median(sort_ms):7.2f}"
              f"{runs[0][2]:9d}{runs[0][3]:8d}")
    print("paper target: < 3 ms per decision with 2,048 queued jobs, model inference included")


if __name__ == "__main__":
    main()
