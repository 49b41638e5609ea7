"""Which inputs the Workload Estimate Model reads, chosen without looking at the held-out month.

``python -m adapters.scheduler.feature_study [--jobs LOG ...] [--variants ...] [--selection rank|mae ...]
[--data-dir DIR] [--out reports/scheduler/feature_study.json]``

Every log's last calendar month is the case study's test period (:mod:`adapters.scheduler.casestudy`).
Here that month is dropped and the month before it becomes the test: the study of the case study is
repeated on the training period alone, once per input set, so that the choice of inputs never sees
the held-out jobs. Input sets (every contender, Primo and LightGBM, reads the same one):

- ``helios``: Helios' and Lucid's features (ids, demand, calendar, rolling estimate and arithmetic
  means of earlier durations);
- ``requested``: + what the job asked for, when the log records it (SWF's requested run time);
- ``typical``: + the user's typical job (mean log1p duration) and last finished job;
- ``both``: + both;
- ``by_user``: ``both`` + how much of a request the user's finished jobs used, and the job's request
  scaled by it.

Per log and set: Spearman of the Primo model, its QSSF merge, the rolling estimate and LightGBM on the
validation month, mean |log1p error|, and the model chosen.

``--months-back 2 3`` repeats the study with the test month earlier still: the log without its last
2 (3) months, whose last month is the test. Those months informed no decision (the input set and the
selection were chosen on month 1, the defaults on tables), so they check whether the duration target
carries to months nobody tuned on; :func:`earlier_months` sums them up with the held-out month. A month
whose training period has fewer than :data:`MIN_TRAIN_JOBS` jobs is skipped, and logged.

``--selection`` says what the Primo model is chosen on
(:data:`adapters.scheduler.primo_models.DURATION_SELECTIONS`: validated rank correlation, the case
study's, or mean |log1p error|, the rule before; rows written before the option existed were chosen on
the latter). Results are written after every log.
"""
from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from adapters.scheduler import casestudy, primo_models, workload
from adapters.scheduler.jobs import last_month_start, submit_time_columns, time_split
from primo.datasets import resolve_data_dir
from primo.io import atomic_write_bytes
from primo.report.claims import paired_bootstrap

logger = logging.getLogger(__name__)

VARIANTS = casestudy.INPUT_SETS
"""Input set -> (the log's submit-time requests, the user's typical and last duration, how much of their requests
the user's jobs use)."""


MIN_TRAIN_JOBS = 1000
"""Training jobs (before the test month) below which a month is not studied: too few to fit and validate on."""


def validation_log(jobs, months_back: int = 1):
    """The log without its last ``months_back`` calendar months (the first: the case study's test period),
    attributes kept.

    Example
    -------
    >>> validation_log(jobs)["submit_time"].max() < jobs["submit_time"].max()  # doctest: +SKIP
    True
    """
    if int(months_back) < 1:
        raise ValueError(f"months_back must be >= 1, got {months_back!r}")
    attrs = dict(jobs.attrs)
    earlier = jobs
    for _ in range(int(months_back)):
        earlier = time_split(earlier, last_month_start(earlier))[0] if len(earlier) else earlier
    earlier = earlier.copy()
    earlier.attrs.update(attrs)
    return earlier


def selection_of(row: dict) -> str:
    """What a row's Primo model was chosen on (rows written before ``--selection`` existed: ``"mae"``)."""
    return row.get("selection", "mae")


def months_back_of(row: dict) -> int:
    """How many months before the log's end a row's test month ends (rows written before ``--months-back``: 1)."""
    return int(row.get("months_back", 1))


def evaluate_variant(jobs, variant: str, settings: casestudy.Settings = casestudy.FULL,
                     selection: str = "rank", months_back: int = 1) -> dict:
    """One input set on a log whose last month is the test (pass :func:`validation_log` of a log; ``months_back``,
    how many months it dropped, is recorded in the row).

    Example
    -------
    >>> row = evaluate_variant(validation_log(load_log(path)), "both")  # doctest: +SKIP
    """
    start = time.perf_counter()
    jobs, data, _, columns, _ = casestudy.workload_data(jobs, settings, variant)
    predictions: dict = {}
    workload.evaluate_workload_models(data, models=("lightgbm",), include_ebm=False,
                                      random_state=settings.budget.random_state, predictions=predictions)
    model, _, _ = primo_models.fit_duration_model(data, settings.duration_trials, settings.budget,
                                                  selection=selection)
    y_log = np.log1p(data.y_train)
    primo = primo_models.predict_duration(model, data.X_test, (float(y_log.min()), float(y_log.max())))
    y = data.y_test.to_numpy()
    estimates = {"primo": primo, "qssf_primo": 0.5 * data.rolling_test + 0.5 * primo,
                 "rolling": data.rolling_test, "lightgbm": predictions["lightgbm"]}
    return {"trace": jobs.attrs["source"], "variant": variant, "selection": selection, "months_back": months_back,
            "requested": list(columns),
            "validation_start": str(last_month_start(jobs)), "n_train": len(data.y_train), "n_test": len(y),
            "spearman": {name: float(spearmanr(y, e).statistic) for name, e in estimates.items()},
            "abs_log_error": {name: float(np.mean(np.abs(np.log1p(e) - np.log1p(y)))) for name, e in estimates.items()},
            "model": type(model).__name__, "model_size": float(model.size_), "seconds": time.perf_counter() - start}


EQUIVALENT_WITHOUT_REQUESTS = {"requested": "helios", "both": "typical", "by_user": "typical"}
"""On a log that records no request, these sets read the same inputs as another one."""


def logs_with_requests(rows: list[dict]) -> set[str]:
    """The logs some row of which read a submit-time request: the others record none."""
    return {row["trace"] for row in rows if row["requested"]}


def set_read(variant: str, has_requests: bool) -> str:
    """The input set whose rows stand for ``variant`` on a log: itself, or on a log that records no request the
    set it equals there (:data:`EQUIVALENT_WITHOUT_REQUESTS`)."""
    return variant if has_requests else EQUIVALENT_WITHOUT_REQUESTS.get(variant, variant)


def summarize(rows: list[dict], selection: str = "rank") -> list[dict]:
    """Per input set, over the logs (rows whose Primo model was chosen on ``selection`` only): on how many the
    better Primo variant's Spearman is ≥ both the rolling
    estimate's and LightGBM's, and the mean of that margin (better Primo − the better reference). A set a log
    cannot take (requests on a log without any) counts with the set it equals there; a set not run on a log
    that could take it is left out there.

    Example
    -------
    >>> row = {"trace": "a", "variant": "helios", "selection": "rank", "requested": [],
    ...        "spearman": {"primo": .6, "qssf_primo": .5, "rolling": .5, "lightgbm": .55}}
    >>> summarize([row])[0]["logs_met"], round(summarize([row])[0]["mean_margin"], 3)
    (1, 0.05)
    """
    with_requests = logs_with_requests(rows)
    rows = [row for row in rows if selection_of(row) == selection and months_back_of(row) == 1]
    by_log: dict[str, dict[str, dict]] = {}
    for row in rows:
        by_log.setdefault(row["trace"], {})[row["variant"]] = row["spearman"]
    out = []
    for variant in VARIANTS:
        margins = []
        for trace, variants in by_log.items():
            spearman = variants.get(set_read(variant, trace in with_requests))
            if spearman is not None:
                margins.append(casestudy.duration_margin(spearman))
        if margins:
            out.append({"inputs": variant, "logs": len(margins), "logs_met": int(sum(m >= 0 for m in margins)),
                        "mean_margin": float(np.mean(margins)), "min_margin": float(np.min(margins))})
    return out


def month_record(trace: str, months_back: int, test_start: str, n_train: int, n_test: int, model: str, size: float,
                 spearman: dict) -> dict:
    """One log-month of the duration target: the four Spearman correlations, the margin, whether it is met."""
    margin = casestudy.duration_margin(spearman)
    return {"trace": trace, "months_back": months_back, "test_month": test_start[:7], "n_train": n_train,
            "n_test": n_test, "model": model, "size": size,
            **{name: spearman[name] for name in ("primo", "qssf_primo", "rolling", "lightgbm")},
            "margin": margin, "target_met": "yes" if margin >= 0 else "no"}


def earlier_months(rows: list[dict], held_out: list[dict], variant: str = casestudy.WORKLOAD_INPUTS,
                   selection: str = "rank") -> tuple[list[dict], dict]:
    """The duration target on every log-month studied: the held-out month (``held_out``: the case study's
    ``workload_study`` results, ``months_back`` 0) and this study's rows ``months_back`` ≥ 2 of ``variant`` (on a
    log without requests, the set it equals there) and ``selection``. Month 1 (the validation month) chose the
    inputs, so it is left out.

    Returns ``(records, summary)``; ``summary`` has, over the log-months nobody tuned on (``months_back`` ≥ 2)
    and over those with the held-out month, how many meet the target and the better Primo variant's Spearman
    minus the better reference's: median and mean with its 95% bootstrap interval over log-months (paired).
    """
    records = [month_record(study["trace"], 0, study["boundary"], study["n_train"], study["n_test"],
                            study["model_family"], study["model_size"],
                            {row["model"]: row["spearman"] for row in study["table"]}) for study in held_out]
    with_requests = logs_with_requests(rows)
    records += [month_record(row["trace"], months_back_of(row), row["validation_start"], row["n_train"], row["n_test"],
                             row["model"], row["model_size"], row["spearman"])
                for row in rows if months_back_of(row) >= 2 and selection_of(row) == selection
                and row["variant"] == set_read(variant, row["trace"] in with_requests)]
    records.sort(key=lambda r: (r["trace"], r["months_back"]))
    summary = {}
    for name, chosen in (("earlier", [r for r in records if r["months_back"] >= 2]), ("all", records)):
        if not chosen:
            continue
        summary[name] = {"log_months": len(chosen), "logs": len({r["trace"] for r in chosen}),
                         "met": sum(r["margin"] >= 0 for r in chosen),
                         "margin": paired_bootstrap([casestudy.better_primo(r) for r in chosen],
                                                    [casestudy.better_reference(r) for r in chosen]).to_dict()}
    return records, summary


def run(paths, variants=tuple(VARIANTS), out="reports/scheduler/feature_study.json",
        settings: casestudy.Settings = casestudy.FULL, selections=("rank",), months_back=(1,),
        min_train_jobs: int = MIN_TRAIN_JOBS) -> list[dict]:
    """Every input set on every log, once per ``selections`` and ``months_back`` entry (sets that add nothing to a
    log, e.g. ``requested`` on a log without requests, and months with fewer than ``min_train_jobs`` training jobs
    are skipped); ``out`` is rewritten after every log, keeping the rows it holds of other logs, input sets,
    selections and months (so they can be studied one run at a time).

    Example
    -------
    >>> rows = run(["KTH-SP2-1996-2.1-cln.swf.gz"], variants=("helios", "both"), out="/tmp/f.json")  # doctest: +SKIP
    """
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise ValueError(f"unknown input sets {unknown}; choose from {list(VARIANTS)}")
    unknown = sorted(set(selections) - set(primo_models.DURATION_SELECTIONS))
    if unknown:
        raise ValueError(f"unknown selections {unknown}; choose from {list(primo_models.DURATION_SELECTIONS)}")
    rows: list[dict] = []
    kept = json.loads(Path(out).read_text())["rows"] if Path(out).is_file() else []
    for path in paths:
        log = casestudy.load_log(path)
        source = log.attrs["source"]
        kept = [row for row in kept if (row["trace"], row["variant"], selection_of(row), months_back_of(row)) not in
                {(source, variant, selection, int(back)) for variant in variants for selection in selections
                 for back in months_back}]
        for back in months_back:
            jobs = validation_log(log, back)
            n_train = len(time_split(jobs, last_month_start(jobs))[0]) if len(jobs) else 0
            if n_train < min_train_jobs:
                logger.info("%s: %d months back, %d training jobs (< %d): skipped", source, back, n_train,
                            min_train_jobs)
                continue
            has_requests = bool(submit_time_columns(jobs))
            for variant in variants:
                if VARIANTS[variant][0] and not has_requests:  # the same inputs as a set without requests
                    logger.info("%s records no request: %s reads the same inputs as %s there, skipped", source,
                                variant, set_read(variant, has_requests=False))
                    continue
                for selection in selections:
                    row = evaluate_variant(jobs, variant, settings, selection, int(back))
                    rows.append(row)
                    logger.info("%s %s (%s, %d months back): %s", row["trace"], variant, selection, back,
                                {k: round(v, 3) for k, v in row["spearman"].items()})
        result = {"protocol": "the month before each log's held-out month is the test; training as in the case study",
                  "settings": {"max_train_jobs": settings.max_train_jobs, "duration_trials": settings.duration_trials},
                  "rows": kept + rows}
        atomic_write_bytes(Path(out), json.dumps(result, indent=2).encode())
    return rows


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m adapters.scheduler.feature_study",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", nargs="+", default=None, metavar="LOG",
                        help="job logs (default: every job log in <data-dir>/scheduler/jobs)")
    parser.add_argument("--variants", nargs="+", choices=tuple(VARIANTS), default=tuple(VARIANTS))
    parser.add_argument("--selection", nargs="+", choices=primo_models.DURATION_SELECTIONS, default=("rank",),
                        help="what the Primo model is chosen on (default: rank correlation)")
    parser.add_argument("--months-back", nargs="+", type=int, default=(1,),
                        help="test months, counted back from the log's end: 1 = the month before the held-out one "
                             "(default), 2, 3 = earlier months no decision saw")
    parser.add_argument("--data-dir", default=None, help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", default="reports/scheduler/feature_study.json")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("interpret").setLevel(logging.WARNING)
    paths = args.jobs or casestudy.find_job_logs(resolve_data_dir(args.data_dir))
    run(paths, args.variants, args.out, selections=args.selection, months_back=args.months_back)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
