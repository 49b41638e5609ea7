"""GPU cluster scheduler case study: Primo's three Lucid models, their reports, and a policy comparison.

``primo casestudy scheduler [--data-dir DIR] [--out reports/scheduler] [--quick]``

Writes into ``--out``: ``results.json`` (every number below), ``README.md`` (tables: ours vs
baselines vs published), the HTML reports of the three models, and the fitted models
(``models/*.primo``).

1. Throughput Predict Model (PrAM, log1p target, Bayesian search): Venus, train April–August,
   test September, MAE of submitted GPU jobs per 10-minute bin, beside the Lucid-Table-7
   baselines (default settings) and the published MAEs.
2. Workload Estimate Model (PrAM on log1p duration, monotone in ``gpu_num``): NASA iPSC log
   (application id = name), last calendar month held out.
3. Packing Analyze Model (PrDT): nested cross-validated accuracy on the 66 released profiles.
4. Policies on two real traces (NASA iPSC, Alibaba GPU-2023 pods): FIFO, SJF (oracle durations),
   Tiresias, QSSF with the rolling estimate alone and with the Primo workload model, and Lucid
   with the three Primo models through :class:`adapters.scheduler.embedded.EmbeddedScheduler`.

``--quick`` shrinks every budget and the traces (a smoke run of the pipeline, numbers not
meaningful).
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from adapters.scheduler import packing, primo_models, throughput, workload
from adapters.scheduler.embedded import EmbeddedScheduler
from adapters.scheduler.evaluate_predictors import CHINA_HOLIDAYS_2020
from adapters.scheduler.jobs import last_month_start, load_alibaba_pods, load_swf
from adapters.scheduler.simulator import (FIFOPolicy, LucidPolicy, QSSFPolicy, RollingHistoryEstimator, Simulator,
                                          SJFPolicy, TiresiasPolicy, WorkloadCatalog, assign_profiles)
from adapters.scheduler.simulator.cluster import GPUS_PER_NODE
from adapters.scheduler.simulator.run_policies import PUBLISHED_VENUS_JCT_H, PUBLISHED_VENUS_QUEUE_H
from primo import report
from primo.datasets import resolve_data_dir
from primo.io import atomic_write_bytes
from primo.report.markdown import table_text

logger = logging.getLogger(__name__)

NASA_LOG = "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz"
ALIBABA_PODS = "scheduler/jobs/alibaba-gpu-2023-openb_pod_list_default.csv"
PUBLISHED_MONOTONE_GAIN = 0.026
"""Lucid: the monotone constraint on the resource count adds 2.6% R² to the Workload Estimate Model."""


@dataclass(frozen=True)
class Settings:
    budget: primo_models.Budget
    baselines: bool
    max_jobs: int | None        # trace prefix for the workload model and the simulations (None: all)
    simulate_alibaba: bool
    report_rows: int | None     # evaluation rows shown in the HTML reports (None: all test rows)


FULL = Settings(primo_models.Budget(), baselines=True, max_jobs=None, simulate_alibaba=True,
                report_rows=None)
QUICK = Settings(primo_models.Budget(n_trials=2, max_rounds=60, outer_bags=1, packing_trials=2, packing_repeats=1),
                 baselines=False, max_jobs=1200, simulate_alibaba=False, report_rows=200)


def _records(table: pd.DataFrame) -> list[dict]:
    return json.loads(table.to_json(orient="records"))


def _traces(data_dir: Path, max_jobs: int | None, alibaba: bool = True):
    """(name, jobs, boundary, workload_dataset kwargs, nodes) of each simulated trace."""
    # 8 processors per GPU: the iPSC/860's 128 processors become two 8-GPU nodes (run_policies).
    nasa = load_swf(data_dir / NASA_LOG, procs_per_gpu=8)
    if max_jobs:
        nasa = nasa.iloc[:max_jobs].copy()
    yield ("nasa_ipsc", nasa, last_month_start(nasa) if not max_jobs else nasa["submit_time"].quantile(0.7),
           {"name_mode": "exact", "estimator": workload.RollingEstimator(similarity_threshold=1.0)},
           max(1, math.ceil(int(nasa["gpu_num"].max()) / GPUS_PER_NODE)))
    if not alibaba:
        return
    pods = load_alibaba_pods(data_dir / ALIBABA_PODS)
    pods["vc"] = "alibaba"  # one cluster; the QoS classes are not separate GPU pools
    if max_jobs:
        pods = pods.iloc[:max_jobs].copy()
    yield ("alibaba_pods", pods, pods["submit_time"].quantile(0.7), {"name_mode": "none"}, 3)


def _policies(embedded_factory) -> dict:
    return {
        "fifo": FIFOPolicy,
        "sjf_oracle": SJFPolicy,
        "tiresias": TiresiasPolicy,
        "qssf_rolling": lambda: QSSFPolicy(estimator=RollingHistoryEstimator()),
        "qssf_primo": lambda: QSSFPolicy(estimator=embedded_factory()),
        "lucid_primo": lambda: _lucid(embedded_factory(), profiler_nodes=1),
        "lucid_primo_noprof": lambda: _lucid(embedded_factory(), profiler_nodes=0),
    }


def _lucid(embedded: EmbeddedScheduler, profiler_nodes: int) -> LucidPolicy:
    return LucidPolicy(estimator=embedded, sharing_scorer=embedded, throughput_forecast=embedded,
                       profiler_nodes=profiler_nodes)


def embedded_factory(train: pd.DataFrame, workload_model, log_range, epoch, *, packing_model=None,
                     throughput_model=None, lam: float = 0.5):
    """A function returning a fresh :class:`EmbeddedScheduler` that already knows every ``train`` job.

    Example
    -------
    >>> make = embedded_factory(train_jobs, mono, (0.0, 14.0), jobs.attrs["epoch"])  # doctest: +SKIP
    >>> policy = QSSFPolicy(estimator=make())  # doctest: +SKIP
    """
    codes = {key: list(pd.Index(train[key].astype(str).unique())) for key in ("user", "vc", "name")}
    # in finish order, as online_history feeds the estimator (the decayed name means depend on it)
    order = np.argsort(workload.job_end_times(train), kind="stable")
    records = train.iloc[order][["user", "name", "gpu_num", "duration"]].to_dict("records")

    def make() -> EmbeddedScheduler:
        # the scheduler starts the simulated period knowing every training job's duration
        rolling = workload.RollingEstimator(similarity_threshold=1.0)
        for job in records:
            rolling.update(job)
        return EmbeddedScheduler(workload_model, codes, epoch, packing_model=packing_model,
                                 throughput_model=throughput_model, rolling=rolling, log_range=log_range,
                                 lam=lam, holidays=CHINA_HOLIDAYS_2020)

    return make


def simulate_trace(name, jobs, boundary, kwargs, n_nodes, *, data_dir, packing_model, throughput_model,
                   budget, seed=0) -> dict:
    """Train the trace's workload model on jobs before ``boundary``; simulate every policy on the later jobs."""
    data = workload.workload_dataset(jobs, boundary, **kwargs)
    plain, mono, seconds = primo_models.fit_workload_model(data, budget)
    log_range = (float(np.log1p(data.y_train).min()), float(np.log1p(data.y_train).max()))
    test = jobs.loc[data.X_test.index].copy()
    test.attrs = dict(jobs.attrs)
    train = jobs.loc[data.X_train.index]
    embedded = embedded_factory(train, mono, log_range, jobs.attrs["epoch"], packing_model=packing_model,
                                throughput_model=throughput_model)
    catalog = WorkloadCatalog.from_data_dir(data_dir)
    profiles = assign_profiles(test, catalog, seed=seed)
    rows = {}
    for policy, factory in _policies(embedded).items():
        start = time.perf_counter()
        result = Simulator(test, {v: n_nodes for v in test["vc"].unique()}, factory(), catalog=catalog,
                           profiles=profiles).run()
        s = result.summary()
        rows[policy] = {"avg_jct_h": s["avg_jct"] / 3600, "avg_queue_h": s["avg_queue"] / 3600,
                        "p999_queue_h": s["p999_queue"] / 3600, "gpu_util": s.get("gpu_util"),
                        "packed_jobs": s.get("packed_jobs"), "sim_s": time.perf_counter() - start}
        logger.info("%s %s: %s", name, policy, rows[policy])
    span = float(test["submit_time"].max() - test["submit_time"].min())
    load = float((test["gpu_num"] * test["duration"]).sum()) / (n_nodes * GPUS_PER_NODE * span)
    return {"trace": name, "n_jobs": len(test), "n_train_jobs": len(train), "nodes": n_nodes,
            "offered_load": load, "workload_fit_s": seconds,
            "workload_model": primo_models.evaluate_workload_metrics(data, mono, log_range),
            "policies": rows}


def run(data_dir=None, out="reports/scheduler", settings: Settings = FULL) -> dict:
    """Run the case study and write ``results.json``, ``README.md``, reports and models into ``out``.

    Example
    -------
    >>> run(out="/tmp/scheduler", settings=QUICK)  # doctest: +SKIP
    """
    data_dir, out = resolve_data_dir(data_dir), Path(out)
    (out / "models").mkdir(parents=True, exist_ok=True)
    budget = settings.budget
    results: dict = {"settings": {**asdict(budget), "baselines": settings.baselines, "max_jobs": settings.max_jobs}}

    tp = primo_models.evaluate_throughput(data_dir, budget, holidays=CHINA_HOLIDAYS_2020,
                                          baselines=settings.baselines)
    results["throughput"] = {"table": _records(tp["table"]), "fit_s": tp["fit_seconds"],
                             "best_params": tp["model"].metadata_["search"]["best_params"],
                             "complexity": tp["model"].complexity_, "published_lucid_mae": 4.125}
    tp["model"].save(out / "models" / "throughput.primo")
    rows = slice(settings.report_rows)
    X_show, y_show = tp["X_test"].iloc[rows], np.log1p(tp["y_test"].iloc[rows])
    median_hour = np.log1p(X_show["submit_gpu_job__median_1h"].to_numpy())
    report.build(tp["model"], X_show, y_show, baselines={"median of last hour": median_hour},
                 title="Throughput Predict Model (log1p GPU-job submissions per 10 min, September)"
                 ).save(out / "throughput_report.html")

    pk = primo_models.evaluate_packing(data_dir, budget)
    results["packing"] = {"table": _records(pk["table"]), "published_accuracy": packing.PUBLISHED_ACCURACY,
                          "fit_s": pk["fit_seconds"], "complexity": pk["model"].complexity_,
                          "n_leaves": pk["model"].n_leaves_}
    pk["model"].save(out / "models" / "packing.primo")
    report.build(pk["model"], pk["X"], pk["y"], title="Packing Analyze Model (Sharing Score, 66 profiles, in-sample)"
                 ).save(out / "packing_report.html")

    # workload estimate model on NASA, with baselines (the table of the README)
    nasa = load_swf(data_dir / NASA_LOG)
    if settings.max_jobs:
        nasa = nasa.iloc[:settings.max_jobs].copy()
    boundary = last_month_start(nasa) if not settings.max_jobs else nasa["submit_time"].quantile(0.7)
    data = workload.workload_dataset(nasa, boundary, name_mode="exact",
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))
    wl = primo_models.evaluate_workload(data, budget, baselines=settings.baselines)
    r2 = wl["table"].set_index("model")["r2"]
    results["workload"] = {"trace": "nasa_ipsc", "n_train": len(data.y_train), "n_test": len(data.y_test),
                           "table": _records(wl["table"]), "fit_s": wl["fit_seconds"],
                           "monotone_r2_gain": float(r2["primo_pram_monotone"] - r2["primo_pram"]),
                           "published_monotone_r2_gain": PUBLISHED_MONOTONE_GAIN,
                           "edits": [e["summary"] for e in wl["monotone"].metadata_.get("edits", [])]}
    wl["monotone"].save(out / "models" / "workload.primo")
    report.build(wl["monotone"], data.X_test.iloc[rows], np.log1p(data.y_test.iloc[rows]),
                 title="Workload Estimate Model (log1p seconds, NASA iPSC, monotone in gpu_num)"
                 ).save(out / "workload_report.html")

    results["simulation"] = []
    for name, jobs, bound, kwargs, nodes in _traces(data_dir, settings.max_jobs, settings.simulate_alibaba):
        results["simulation"].append(simulate_trace(name, jobs, bound, kwargs, nodes, data_dir=data_dir,
                                                    packing_model=pk["model"], throughput_model=tp["model"],
                                                    budget=budget))
    atomic_write_bytes(out / "results.json", json.dumps(results, indent=2, default=float).encode())
    atomic_write_bytes(out / "README.md", render_readme(results, out).encode())
    return results


def _md_table(rows: list[dict], columns: list[str]) -> str:
    def fmt(v):
        return f"{v:.3f}" if isinstance(v, float) and not math.isnan(v) else ("" if v is None or v != v else str(v))
    return table_text(columns, [[fmt(r.get(c)) for c in columns] for r in rows])


def render_readme(results: dict, out: Path | None = None) -> str:
    """The README of the case-study output: tables from ``results``, plus, when present in ``out``,
    the outputs of ``benchmarks/scheduler_decision_latency.py`` (``decision_latency*.txt``) and of
    :mod:`adapters.scheduler.knob_search` (``knob_search.json``)."""
    tp, pk, wl = results["throughput"], results["packing"], results["workload"]
    parts = [
        "# GPU cluster scheduler case study (Lucid models with Primo)",
        "Generated by `primo casestudy scheduler`; every number is measured by that run except the "
        "`published_*` columns (Lucid ASPLOS'23 Table 7 / §3.5, Venus trace, context only). "
        f"Settings: `{results['settings']}`.",
        "## Throughput Predict Model (Venus, September, MAE of submitted GPU jobs per 10-min bin)",
        "`primo_pram`: PrAM on log1p counts, Bayesian search on August; baselines trained on raw counts with "
        "default settings (`lightgbm_l1`: absolute-error objective); `median_last_hour` is model-free.",
        _md_table(tp["table"], ["model", "mae", "published_mae", "fit_s"]),
        "## Workload Estimate Model (NASA iPSC, last month held out; trained on log1p duration)",
        f"{wl['n_train']} train / {wl['n_test']} test jobs. Monotone edit R² gain: "
        f"{wl['monotone_r2_gain']:+.4f} (published +{PUBLISHED_MONOTONE_GAIN}). `qssf_*`: λ=0.5 merge with the "
        "rolling estimate. Published R² are on Venus: compare qualitatively.",
        _md_table(wl["table"], ["model", "r2", "r2_log", "spearman", "kendall", "gpu_time_spearman", "fit_s",
                                "published_r2"]),
        "## Packing Analyze Model (PrDT, released labels, nested CV; search inside each outer fold)",
        f"Published accuracy {pk['published_accuracy']}; tree: {pk['n_leaves']} leaves, complexity {pk['complexity']}.",
        _md_table(pk["table"], ["protocol", "accuracy", "std", "folds"]),
        "## Scheduling policies (test period of each trace, hours)",
        "Venus published (context only, another cluster): JCT " + json.dumps(PUBLISHED_VENUS_JCT_H)
        + ", queue " + json.dumps(PUBLISHED_VENUS_QUEUE_H) + ".",
    ]
    for sim in results["simulation"]:
        rows = [{"policy": k, **v} for k, v in sim["policies"].items()]
        parts.append(f"### {sim['trace']}: {sim['n_jobs']} jobs, {sim['nodes']} nodes × 8 GPUs, "
                     f"offered load {sim['offered_load']:.2f}; workload model on test jobs: "
                     f"R² {sim['workload_model']['r2']:.3f}, log R² {sim['workload_model']['r2_log']:.3f}")
        parts.append(_md_table(rows, ["policy", "avg_jct_h", "avg_queue_h", "p999_queue_h", "gpu_util",
                                      "packed_jobs", "sim_s"]))
    for path in sorted(Path(out).glob("decision_latency*.txt")) if out else ():
        parts += [f"## Decision latency (`{path.name}`, from benchmarks/scheduler_decision_latency.py)",
                  "```\n" + path.read_text().strip() + "\n```"]
    knobs = Path(out) / "knob_search.json" if out else None
    if knobs is not None and knobs.is_file():
        k = json.loads(knobs.read_text())
        parts += ["## Scheduler knob search (python -m adapters.scheduler.knob_search)",
                  f"NASA iPSC, tuned on the second-to-last month ({k['tune_jobs']} jobs, {len(k['trials'])} "
                  f"simulations, first = defaults), evaluated on the last month ({k['eval_jobs']} jobs). "
                  f"Defaults {k['defaults']}; best {k['best']}.",
                  _md_table([{"knobs": name, "tuning_month_avg_jct_h": k["tune_jct_h"][name],
                              "last_month_avg_jct_h": k["eval_jct_h"][name]} for name in ("defaults", "best")],
                            ["knobs", "tuning_month_avg_jct_h", "last_month_avg_jct_h"])]
    parts += ["## How to read the policy tables",
              "- Each trace is split in time: the workload model is trained on the earlier jobs, only the later jobs "
              "are simulated; the Primo scheduler starts knowing every earlier job's duration (rolling history) and "
              "learns online from jobs finishing in the simulation.\n"
              "- `sjf_oracle` orders by true duration alone, non-preemptively; QSSF orders by GPUs × estimate, so on "
              "traces with mixed GPU demands QSSF can beat this SJF; Tiresias is preemptive (2D-LAS) and needs no "
              "estimate.\n"
              "- `lucid_primo` profiles every job first on one *extra* node (profiling time limit 200 s); the GPU "
              "utilisation column counts that node, and the profiling wait adds to each job's JCT. "
              "`lucid_primo_noprof` is Lucid on the same GPUs as the other policies (no profiler, so no packing: "
              "profiles are unknown).\n"
              "- The Throughput Predict Model was trained on Venus; on these traces its forecasts only switch the "
              "sharing capacity, and the Packing Analyze Model scores the sampled Lucid workload profiles "
              "(`adapters.scheduler.simulator.profiles`): neither trace records GPU utilisation or memory.\n"
              "- The Alibaba pods have no users or job names, so the workload model has little to learn from.",
              "Reports: `throughput_report.html`, `workload_report.html`, `packing_report.html`; models in `models/`."]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``primo casestudy scheduler``; ``--slurm``/``--slurm-setup DIR``: real Slurm,
    :mod:`adapters.scheduler.slurm.replay`)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(arg == "--slurm" or arg.startswith("--slurm-setup") for arg in argv):
        from adapters.scheduler.slurm.replay import main as slurm_main

        return slurm_main(argv)
    parser = argparse.ArgumentParser(prog="primo casestudy scheduler", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", default="reports/scheduler", help="output directory (default: reports/scheduler)")
    parser.add_argument("--quick", action="store_true", help="smoke run: tiny budgets, trace prefixes, NASA only")
    parser.add_argument("--readme-only", action="store_true",
                        help="rewrite README.md from the existing results.json (e.g. after the latency benchmark)")
    args = parser.parse_args(argv)
    if args.readme_only:
        out = Path(args.out)
        results = json.loads((out / "results.json").read_text())
        atomic_write_bytes(out / "README.md", render_readme(results, out).encode())
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("interpret").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message="Missing values detected")
    warnings.filterwarnings("ignore", module="skopt")
    run(args.data_dir, args.out, QUICK if args.quick else FULL)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
