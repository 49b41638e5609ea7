"""``primo casestudy linnos``: the LinnOS case study end to end, from the traces to the reports.

    primo casestudy linnos --data-dir ../shared/data --out reports/linnos [--quick]

For each FlashNet trace and each history mode (``completed``: LinnOS's deployable features,
the main result; ``submitted``: the Primo artifact's features, a comparison only; see
``features``), ``study.study_trace`` trains and measures LinnOS, Primo-E, Primo-P (and, for the
main mode, the network distilled into PrDTs), then ``study.simulate`` runs the failover arrays
and ``study.generalization`` the cross-workload test. Written to ``--out``:

* ``results.json``: every measurement (settings, machine load, timings included);
* ``README.md``: the tables, beside the Primo chapter's published figures (``readme``);
* ``primo_e_<trace>.html``, ``primo_p_<trace>.html``: interpretation reports
  (``primo.report.build``) of the main mode's trees, LinnOS as baseline;
* ``models/<trace>_<model>.primo``: the main mode's Primo models (``primo.load`` reads them);
* ``c/<trace>_primo_{e,p}.h``: their integer C exports (``primo.export``, no floating point).

``--quick`` runs a smoke version (2 traces, 4,000 reads each, 3 epochs, 4 search trials) in well
under a minute; its numbers are not results.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import re
import time
import warnings
from pathlib import Path

from primo.datasets import resolve_data_dir
from primo.export import export_model
from primo.io import atomic_write_bytes
from primo.report import build

from .features import HISTORY_MODES, RAW_FEATURE_NAMES, label_slow
from .readme import render_readme
from .study import Settings, TraceModels, generalization, simulate, study_trace
from .trace import list_traces, short_name

logger = logging.getLogger(__name__)

MAIN_HISTORY = "completed"
QUICK = Settings(epochs=3, n_trials=4, max_reads=4000, noise_seeds=1, c_passes=3)
QUICK_TRACES = 2
REPORTED_TREES = ("Primo-E", "Primo-P")


def run(data_dir, out_dir, settings: Settings = Settings(), max_traces: int | None = None,
        histories=HISTORY_MODES) -> dict:
    """Run the study and write every output to ``out_dir``; returns the results dict.

    Parameters
    ----------
    data_dir : path or None
        Shared data directory (``primo.datasets.resolve_data_dir``).
    out_dir : path
        Output folder (created).
    settings : study.Settings
        Budget (epochs, search trials, reads per trace, ...).
    max_traces : int, optional
        Use only the first traces (by file name).
    histories : sequence of str
        History modes; ``MAIN_HISTORY`` gets the full study and the reports.

    Example
    -------
    >>> run(None, "reports/linnos")  # doctest: +SKIP
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = list_traces(resolve_data_dir(data_dir))[:max_traces]
    if len(paths) < 2:
        raise ValueError(f"the failover arrays need at least 2 traces, found {len(paths)}")
    results: dict = {
        "settings": {**vars(settings), "max_traces": max_traces, "histories": list(histories),
                     "main_history": MAIN_HISTORY},
        "machine": {"cpus": os.cpu_count(), "load_average_at_start": list(os.getloadavg()),
                    "python": platform.python_version()},
        "modes": {},
    }
    for history in histories:
        full = history == MAIN_HISTORY
        traces, devices = [], []
        for path in paths:
            trace_result, models = study_trace(path, history, settings, full=full)
            traces.append(trace_result)
            devices.append(models)
            if full:
                _write_models(models, out)
        results["modes"][history] = {"traces": traces, "simulation": simulate(devices),
                                     "generalization": generalization(devices)}
    results["run"] = {"wall_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu_start,
                      "load_average_at_end": list(os.getloadavg())}
    atomic_write_bytes(out / "results.json", json.dumps(results, indent=1).encode())
    atomic_write_bytes(out / "README.md", render_readme(results).encode())
    logger.info("wrote %s in %.0f s", out, results["run"]["wall_s"])
    return results


def _write_models(models: TraceModels, out: Path) -> None:
    """Model files, integer C headers and HTML reports of one trace's Primo trees."""
    short = short_name(models.name)
    X_test = models.test[RAW_FEATURE_NAMES]
    y_test = label_slow(models.test["latency_us"], models.threshold_us)
    for name, tree in models.trees.items():
        slug = _slug(name)
        tree.save(out / "models" / f"{short}_{slug}.primo")
        if name not in REPORTED_TREES:
            continue
        export_model(tree, "c", out / "c" / f"{short}_{slug}.h", name=f"linnos_{slug}", integer=True,
                     check_data=X_test)
        others = {other: models.scorers[other] for other in ("LinnOS", *REPORTED_TREES) if other != name}
        build(tree, X_test, y_test, baselines=others, local_rows=3,
              title=f"LinnOS {short}: {name} slow-read tree ({MAIN_HISTORY} history)").save(
            out / f"{slug}_{short}.html")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``primo casestudy linnos`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="primo casestudy linnos", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None,
                        help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", type=Path, default=Path("reports/linnos"), help="output folder")
    parser.add_argument("--quick", action="store_true", help="fast smoke run on a subset (numbers are not results)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # A one-dimensional search converges: skopt then warns each time it proposes a known point.
    warnings.filterwarnings("ignore", message="The objective has been evaluated at", category=UserWarning)
    if args.quick:
        run(args.data_dir, args.out, QUICK, max_traces=QUICK_TRACES)
    else:
        run(args.data_dir, args.out)
    return 0
