"""Bayesian search of Lucid's scheduler knobs against simulated average JCT, checked on a later period.

``python -m adapters.scheduler.knob_search [--data-dir DIR] [--models reports/scheduler/models] [--calls 12]``

NASA iPSC log (8 processors per GPU, two 8-GPU nodes plus a one-node profiler): the Workload
Estimate Model is the case study's (:func:`adapters.scheduler.casestudy.workload_data_at` and
:func:`adapters.scheduler.primo_models.fit_duration_model`: a correction to the rolling estimate, ids as
categories), trained on the latest jobs before the second-to-last month; the knobs are tuned
(``skopt.Optimizer`` ask/tell, minimizing average JCT) on that month; default and tuned knobs
are then both simulated on the last month, where the scheduler starts knowing the jobs that had
ended by then (the same warm start as :mod:`adapters.scheduler.policy_study`) but the model is not
retrained. ``--jobs`` takes another SWF log. Knobs: the profiling time limit (s), the QSSF
merging coefficient λ, the sharing capacity in Default mode (G_SS) and the forecast
threshold (fraction of the mean throughput) below which Lucid switches to Apathetic mode.
``primo.search`` tunes estimators; a simulator run is not one, hence skopt directly.
"""
from __future__ import annotations

import argparse
import json
import logging
import time
import warnings
from pathlib import Path

import numpy as np
from skopt import Optimizer
from skopt.space import Integer, Real

from adapters.scheduler import casestudy, primo_models
from adapters.scheduler.embedded import EmbeddedScheduler
from adapters.scheduler.jobs import last_month_start, load_swf, submit_timestamps, time_split
from adapters.scheduler.policy_study import WarmStart
from adapters.scheduler.simulator import (LucidPolicy, MovingAverageForecast, Simulator, ThroughputAwareStrategy,
                                          WorkloadCatalog, assign_profiles)
from primo.datasets import resolve_data_dir

logger = logging.getLogger(__name__)

DEFAULT_LOG = "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz"
"""The log searched when none is given (under the data directory)."""

SPACE = [Real(30.0, 1800.0, prior="log-uniform", name="profile_time"), Real(0.0, 1.0, name="lam"),
         Integer(1, 3, name="default_capacity"), Real(0.05, 1.0, name="low_fraction")]
DEFAULTS = {"profile_time": 200.0, "lam": 0.5, "default_capacity": 2, "low_fraction": 0.5}
"""The simulator's defaults (Lucid's G_SS = 2; the other values are ours)."""


def simulate_avg_jct(jobs, make_embedded, knobs: dict, *, catalog, n_nodes: int = 2, seed: int = 0,
                     use_forecast_model: bool = True) -> float:
    """Average JCT (hours) of Lucid with ``knobs`` on ``jobs`` (one VC of ``n_nodes``, one profiler node).

    Example
    -------
    >>> simulate_avg_jct(month, make, DEFAULTS, catalog=catalog)  # doctest: +SKIP
    0.21
    """
    embedded = make_embedded(float(knobs["lam"]))
    forecast = embedded if use_forecast_model else MovingAverageForecast()
    strategy = ThroughputAwareStrategy(forecast, default_capacity=int(knobs["default_capacity"]),
                                       low_fraction=float(knobs["low_fraction"]))
    policy = LucidPolicy(estimator=embedded, sharing_scorer=embedded, strategy=strategy, profiler_nodes=1,
                         profile_time=float(knobs["profile_time"]))
    profiles = assign_profiles(jobs, catalog, seed=seed)
    result = Simulator(jobs, {v: n_nodes for v in jobs["vc"].unique()}, policy, catalog=catalog,
                       profiles=profiles).run()
    return result.summary()["avg_jct"] / 3600.0


def search_knobs(data_dir=None, models_dir="reports/scheduler/models", *, jobs_path=None, n_calls: int = 12,
                 settings: casestudy.Settings = casestudy.FULL, max_jobs: int | None = None, seed: int = 0) -> dict:
    """Tune the knobs on the second-to-last month, evaluate default and tuned knobs on the last one.

    Parameters
    ----------
    models_dir : folder with the case study's ``packing.primo`` and ``throughput.primo``
        (the sharing scorer and the throughput forecast; trained on other data than NASA).
    jobs_path : an SWF job log (default: :data:`DEFAULT_LOG` in the data directory).
    n_calls : simulations of the tuning month (the first one runs the defaults).
    settings : the case study's settings (the duration model's trials, budget and training jobs).
    max_jobs : trace prefix (smoke runs).

    Returns
    -------
    dict: ``trials`` (knobs, avg JCT), ``best``, ``tune_jct`` and ``eval_jct`` for defaults and best.

    Example
    -------
    >>> search_knobs(n_calls=8)["eval_jct"]  # doctest: +SKIP
    """
    import primo

    data_dir = resolve_data_dir(data_dir)
    models = Path(models_dir)
    packing_model, throughput_model = primo.load(models / "packing.primo"), primo.load(models / "throughput.primo")
    jobs = load_swf(Path(jobs_path) if jobs_path else data_dir / DEFAULT_LOG, procs_per_gpu=8)
    if max_jobs:
        prefix = jobs.iloc[:max_jobs].copy()
        prefix.attrs = dict(jobs.attrs)  # the trace's epoch dates the months
        jobs = prefix
    if submit_timestamps(jobs).dt.strftime("%Y-%m").nunique() < 3:
        raise ValueError(f"the knob search needs jobs from three calendar months (train, tune, evaluate); "
                         f"these {len(jobs)} jobs cover fewer")
    eval_start = last_month_start(jobs)
    tune_start = last_month_start(time_split(jobs, eval_start)[0])
    # the model's data end where tuning starts; its jobs carry the names the model reads
    jobs, data, _, _ = casestudy.workload_data_at(jobs, tune_start, max_train_jobs=settings.max_train_jobs)
    model, _, fit_s = primo_models.fit_duration_model(data, settings.duration_trials, settings.budget)
    log_range = (float(np.log1p(data.y_train).min()), float(np.log1p(data.y_train).max()))
    before_eval, eval_jobs = time_split(jobs, eval_start)
    _, tune_jobs = time_split(before_eval, tune_start)
    tune_jobs.attrs, eval_jobs.attrs = dict(jobs.attrs), dict(jobs.attrs)
    catalog = WorkloadCatalog.from_data_dir(data_dir)
    codes = casestudy.model_codes(model)

    def maker(start):
        # the scheduler starts a period knowing the jobs that had ended by then (policy_study.WarmStart)
        warm = WarmStart.at(jobs, float(start))

        def make(lam):
            embedded = EmbeddedScheduler(model, codes, jobs.attrs["epoch"], packing_model=packing_model,
                                         throughput_model=throughput_model, rolling=warm.rolling(), lam=lam,
                                         log_range=log_range)
            for job in warm.recent:
                embedded.job_row(job)
            return embedded
        return make

    tune_make, eval_make = maker(tune_jobs["submit_time"].iloc[0]), maker(eval_jobs["submit_time"].iloc[0])
    optimizer = Optimizer(SPACE, random_state=seed, n_initial_points=min(5, n_calls))
    trials = []
    start = time.perf_counter()
    for call in range(n_calls):
        # the defaults are the first point, so "best" is never worse than them on the tuning month
        point = [DEFAULTS[d.name] for d in SPACE] if call == 0 else optimizer.ask()
        knobs = {d.name: (v.item() if hasattr(v, "item") else v) for d, v in zip(SPACE, point)}
        jct = simulate_avg_jct(tune_jobs, tune_make, knobs, catalog=catalog, seed=seed)
        optimizer.tell(point, jct)
        trials.append({**knobs, "avg_jct_h": jct})
        logger.info("knobs %s: tuning-month avg JCT %.4f h", knobs, jct)
    best = min(trials, key=lambda t: t["avg_jct_h"])
    best_knobs = {k: best[k] for k in DEFAULTS}
    return {
        "trace": jobs.attrs["source"], "tune_jobs": len(tune_jobs), "eval_jobs": len(eval_jobs), "model_fit_s": fit_s,
        "model": f"{type(model).__name__} of {model.size_:.0f} pieces",
        "search_s": time.perf_counter() - start, "trials": trials, "defaults": DEFAULTS, "best": best_knobs,
        "tune_jct_h": {"defaults": trials[0]["avg_jct_h"], "best": best["avg_jct_h"]},
        "eval_jct_h": {name: simulate_avg_jct(eval_jobs, eval_make, knobs, catalog=catalog, seed=seed)
                       for name, knobs in (("defaults", DEFAULTS), ("best", best_knobs))},
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--jobs", default=None, help="SWF job log (default: the NASA iPSC log of the data dir)")
    parser.add_argument("--models", default="reports/scheduler/models")
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--max-jobs", type=int, default=None)
    parser.add_argument("--out", default=None, help="write the result as JSON here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("interpret").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", module="skopt")
    result = search_knobs(args.data_dir, args.models, jobs_path=args.jobs, n_calls=args.calls, max_jobs=args.max_jobs)
    text = json.dumps(result, indent=2, default=float)
    if args.out:
        from primo.io import atomic_write_bytes
        atomic_write_bytes(args.out, text.encode())
    print(text)
    return result


if __name__ == "__main__":
    main()
