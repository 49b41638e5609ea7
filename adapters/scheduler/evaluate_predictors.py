"""Print the scheduler predictors' metrics next to the published ones (Lucid Table 7 and §3.5).

Usage::

    python -m adapters.scheduler.evaluate_predictors [--data-dir DIR] [--models rf,lightgbm]
        [--no-ebm] [--only throughput,workload,packing] [--targets log,raw] [--n-jobs 1]

Throughput: Venus 10-minute bins, train April–August, test September, one-step-ahead.
Workload: NASA iPSC (application ids as names), wagap (no names; requested time as a
feature) and Alibaba GPU pods (no users or names), each split in time: last calendar month
for the SWF logs, last 7 days for Alibaba (its 35-day window has no month boundary worth
using). Packing: the 66 exclusive-run profiles, nested cross-validation.
Training times are wall-clock on a shared 2-core machine: compare them within one run only.
"""
from __future__ import annotations

import argparse
import logging

import pandas as pd

from adapters.scheduler import packing, throughput, workload
from adapters.scheduler.baselines import BASELINE_NAMES
from adapters.scheduler.jobs import last_month_start, load_alibaba_pods, load_swf
from primo.datasets import resolve_data_dir

logger = logging.getLogger(__name__)

# Mainland-China public holidays inside the Venus window (April–September 2020).
CHINA_HOLIDAYS_2020 = ("2020-04-04", "2020-04-05", "2020-04-06", "2020-05-01", "2020-05-02",
                       "2020-05-03", "2020-05-04", "2020-05-05", "2020-06-25", "2020-06-26", "2020-06-27")


def _show(title: str, table: pd.DataFrame) -> None:
    print(f"\n== {title}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


def run_throughput(data_dir, models, include_ebm, n_jobs) -> None:
    for target in throughput.TARGETS:
        table = throughput.evaluate_throughput_models(data_dir, target, models=models, include_ebm=include_ebm,
                                                      n_jobs=n_jobs, holidays=CHINA_HOLIDAYS_2020)
        _show(f"Throughput Predict Model, Venus September, target {target}: MAE per 10-min bin", table)


def workload_traces(data_dir):
    """(name, jobs, boundary, workload_dataset keyword arguments) of each evaluated trace."""
    jobs_dir = data_dir / "scheduler" / "jobs"
    nasa = load_swf(jobs_dir / "NASA-iPSC-1993-3.1-cln.swf.gz")
    yield ("NASA iPSC 1993 (app id = name)", nasa, last_month_start(nasa),
           {"name_mode": "exact", "estimator": workload.RollingEstimator(similarity_threshold=1.0)})
    # wagap is MetaCentrum (Czech Republic) and its file has no time-zone header
    wagap = load_swf(jobs_dir / "wagap-2013.swf", timezone="Europe/Prague")
    yield ("wagap 2013 (no names; req_time feature)", wagap, last_month_start(wagap),
           {"name_mode": "none", "extra_features": ("req_time",)})
    pods = load_alibaba_pods(jobs_dir / "alibaba-gpu-2023-openb_pod_list_default.csv")
    yield ("Alibaba GPU 2023 pods (no users/names)", pods, pods["submit_time"].max() - 7 * 86400.0,
           {"name_mode": "none", "extra_features": ("gpu_milli", "mem_mib")})


def run_workload(data_dir, models, include_ebm, n_jobs, targets) -> None:
    for name, jobs, boundary, kwargs in workload_traces(data_dir):
        data = workload.workload_dataset(jobs, boundary, **kwargs)
        print(f"\n{name}: {len(data.y_train)} train / {len(data.y_test)} test jobs; "
              f"QSSF branches on test jobs: {data.case_counts}")
        for target in targets:
            table = workload.evaluate_workload_models(data, models=models, include_ebm=include_ebm,
                                                      log_target=target == "log", n_jobs=n_jobs)
            _show(f"Workload Estimate Model, {name}, trained on {target} duration", table)


def run_packing(data_dir, models) -> None:
    pairs, singles = packing.load_colocations(data_dir), packing.load_single_profiles(data_dir)
    agreement = []
    for perspective in ("own", "partner", "pair"):
        table = packing.packing_table(singles, packing.sharing_score_labels(pairs, perspective=perspective))
        known = table["derived_label"].notna()
        agreement.append({"perspective": perspective, "configs_with_colocations": int(known.sum()),
                          "agreement_with_released_label": (table.loc[known, "derived_label"]
                                                            == table.loc[known, "label"]).mean()})
    _show("Sharing Score derived from colocations (0.95 / 0.85) vs released labels", pd.DataFrame(agreement))
    table = packing.evaluate_packing_models(data_dir, models=models)
    _show(f"Packing Analyze Model, released labels (published accuracy {packing.PUBLISHED_ACCURACY})", table)
    table = packing.evaluate_packing_models(data_dir, label_column="derived_label", models=())
    _show("Packing Analyze Model, labels derived from own colocated speed", table)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--models", default=",".join(BASELINE_NAMES), help="comma-separated baselines")
    parser.add_argument("--no-ebm", action="store_true", help="skip the EBM stand-in for PrAM")
    parser.add_argument("--only", default="throughput,workload,packing", help="parts to run")
    parser.add_argument("--targets", default="log,raw", help="workload training targets: log and/or raw duration")
    parser.add_argument("--n-jobs", type=int, default=1, help="threads per model")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    data_dir = resolve_data_dir(args.data_dir)
    models = tuple(m for m in args.models.split(",") if m)
    parts = set(args.only.split(","))
    if "throughput" in parts:
        run_throughput(data_dir, models, not args.no_ebm, args.n_jobs)
    if "workload" in parts:
        run_workload(data_dir, models, not args.no_ebm, args.n_jobs, tuple(args.targets.split(",")))
    if "packing" in parts:
        run_packing(data_dir, models)


if __name__ == "__main__":
    main()
