"""``primo casestudy linnos``: the LinnOS case study end to end, from the traces to the reports.

    primo casestudy linnos --data-dir ../shared/data --out reports/linnos [--quick]
    primo casestudy linnos --traces FILE... [--history completed|submitted] --out DIR

Traces are FlashNet-format block traces (``trace.load_trace``; by default the four under
``<data-dir>/linnos/flashnet_nvme``). For each trace and each history mode (``completed``:
LinnOS's deployable features, the main result; ``submitted``: the Primo artifact's features, a
comparison only; see ``features``; ``--history`` keeps one, which becomes the main one),
``study.study_trace`` trains and measures LinnOS, Primo-E, Primo-P (and, for the main mode, the
network distilled into PrDTs), then ``study.simulate`` runs the failover arrays and
``study.generalization`` the cross-workload test. One trace is enough: the ``shifted`` array
(the trace as its own three replicas, shifted in time) needs one; the ``traces`` array (three
different traces) runs only with at least 3 distinct traces. Written to ``--out``:

* ``results.json``: every measurement (settings, machine load, timings included);
* ``README.md``: the tables and the paper's claims judged by paired statistics (``readme``);
* ``primo_e_<trace>.html``, ``primo_p_<trace>.html``: interpretation reports
  (``primo.report.build``) of the main mode's trees, LinnOS as baseline;
* ``models/<trace>_<model>.primo``: the main mode's Primo models (``primo.load`` reads them);
* ``c/<trace>_primo_{e,p}.h``: their integer C exports (``primo.export``, no floating point).

``--traces`` also takes LinnOS's own training-data files (``mlData/mldrive<N>.csv``, digit lines,
detected; see ``training_data``): every model is trained and measured on them as on a trace, but
they have no submit times, so a run with any of them simulates no array, and their history is the
``completed`` one only. Their queue lengths count 4 KB pages, a trace's count I/Os.

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
from .readme import paper_claims, render_readme
from .simulator import N_ARRAY_DEVICES, array_layouts
from .study import Settings, TraceModels, generalization, simulate, study_trace
from .trace import list_traces, short_name
from .training_data import is_training_data

logger = logging.getLogger(__name__)

MAIN_HISTORY = "completed"
QUICK = Settings(epochs=3, n_trials=4, max_reads=4000, noise_seeds=1, c_passes=3)
QUICK_TRACES = 2
REPORTED_TREES = ("Primo-E", "Primo-P")


def run(data_dir, out_dir, settings: Settings = Settings(), max_traces: int | None = None,
        histories=HISTORY_MODES, traces=None) -> dict:
    """Run the study and write every output to ``out_dir``; returns the results dict.

    Parameters
    ----------
    data_dir : path or None
        Shared data directory (``primo.datasets.resolve_data_dir``); unused when ``traces`` is given.
    out_dir : path
        Output folder (created).
    settings : study.Settings
        Budget (epochs, search trials, reads per trace, ...).
    max_traces : int, optional
        Use only the first traces (by file name, or in the given order).
    histories : sequence of str
        History modes; the main one (``MAIN_HISTORY`` when it is among them, else the first) gets
        the full study and the reports.
    traces : sequence of paths, optional
        FlashNet-format trace files (default: those of the shared data directory). Each file once.

    Example
    -------
    >>> run(None, "reports/linnos")  # doctest: +SKIP
    >>> run(None, "out", traces=["my_ssd.trace"], histories=["completed"])  # doctest: +SKIP
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    out = Path(out_dir)
    histories = list(histories)
    unknown = [h for h in histories if h not in HISTORY_MODES]
    if unknown or not histories:
        raise ValueError(f"history modes must be among {HISTORY_MODES}, got {histories}")
    main_history = MAIN_HISTORY if MAIN_HISTORY in histories else histories[0]
    histories = [main_history] + [h for h in histories if h != main_history]
    paths = check_traces(traces if traces is not None else list_traces(resolve_data_dir(data_dir)))[:max_traces]
    untimed = [p.name for p in paths if is_training_data(p)]
    if untimed and "submitted" in histories:
        if histories == ["submitted"]:
            raise ValueError(f"LinnOS training data ({', '.join(untimed)}) holds the 'completed' history only")
        logger.info("LinnOS training data among the inputs: the 'submitted' history is left out")
        histories = [h for h in histories if h != "submitted"]
    layouts = () if untimed else array_layouts(len(paths))
    if untimed:
        logger.info("no failover simulation: %s have no submit times", ", ".join(untimed))
    elif "traces" not in layouts:
        logger.info("%d trace(s): only the 'shifted' array layout (the 'traces' layout needs %d distinct traces)",
                    len(paths), N_ARRAY_DEVICES)
    out.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "settings": {**vars(settings), "max_traces": max_traces, "histories": histories,
                     "main_history": main_history, "traces": [p.name for p in paths],
                     "default_traces": traces is None, "layouts": list(layouts), "untimed_inputs": untimed},
        "machine": {"cpus": os.cpu_count(), "load_average_at_start": list(os.getloadavg()),
                    "python": platform.python_version()},
        "modes": {},
    }
    for history in histories:
        full = history == main_history
        studied, devices = [], []
        for path in paths:
            trace_result, models = study_trace(path, history, settings, full=full)
            studied.append(trace_result)
            devices.append(models)
            if full:
                _write_models(models, out, history)
        results["modes"][history] = {"traces": studied, "simulation": simulate(devices, layouts),
                                     "generalization": generalization(devices)}
    results["run"] = {"wall_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu_start,
                      "load_average_at_end": list(os.getloadavg())}
    results["claims"] = {history: [c.to_dict() for c in claims] for history, claims in paper_claims(results).items()}
    atomic_write_bytes(out / "results.json", json.dumps(results, indent=1).encode())
    atomic_write_bytes(out / "README.md", render_readme(results).encode())
    logger.info("wrote %s in %.0f s", out, results["run"]["wall_s"])
    return results


def check_traces(paths) -> list[Path]:
    """The input files as paths: each must exist and appear once.

    Example
    -------
    >>> check_traces(["a.trace", "a.trace"])  # doctest: +SKIP
    ValueError: trace a.trace is given twice ...
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("no trace files given")
    seen: dict = {}
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"trace file not found: {path}")
        key = path.resolve()
        if key in seen:
            raise ValueError(f"trace {path} is given twice ({seen[key]} and {path}): each trace is one device, "
                             "and a device cannot be its own replica")
        seen[key] = path
    return paths


def _write_models(models: TraceModels, out: Path, history: str) -> None:
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
              title=f"LinnOS {short}: {name} slow-read tree ({history} history)").save(
            out / f"{slug}_{short}.html")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``primo casestudy linnos`` (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="primo casestudy linnos", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None,
                        help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", type=Path, default=Path("reports/linnos"), help="output folder")
    parser.add_argument("--traces", nargs="+", type=Path, metavar="FILE",
                        help="FlashNet-format trace files or LinnOS training-data files (format detected), one per "
                             "device (default: the shared data's four traces); with fewer than 3 traces only the "
                             "time-shifted array is simulated, with training data none")
    parser.add_argument("--history", choices=HISTORY_MODES, default=None,
                        help="run one history mode only (default: both, 'completed' being the main one)")
    parser.add_argument("--quick", action="store_true", help="fast smoke run on a subset (numbers are not results)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    # A one-dimensional search converges: skopt then warns each time it proposes a known point.
    warnings.filterwarnings("ignore", message="The objective has been evaluated at", category=UserWarning)
    histories = [args.history] if args.history else HISTORY_MODES
    if args.quick:
        run(args.data_dir, args.out, QUICK, max_traces=QUICK_TRACES, histories=histories, traces=args.traces)
    else:
        run(args.data_dir, args.out, histories=histories, traces=args.traces)
    return 0
