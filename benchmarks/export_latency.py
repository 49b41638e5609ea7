"""Prediction latency of Primo's exports and predict paths against their peers, in one run.

Two real datasets, each with a PrAM (interpret EBM underneath) and a PrDT:

* **Clara-MS** (``clara/ms_*.csv``): PrAM regressor with 10 pairs, PrDT regressor. The 198 test rows
  are drawn to 10,000-row batches: *random order* samples them uniformly, *file order* repeats the
  file. ebm2onnx cannot convert regressors with pairs (it reads ``classes_``), so a main-effects-only
  PrAM of the same data is measured against it as well.
* **LinnOS** (FlashNet NVMe traces): nine per-read features, slow read = latency > p85; PrAM classifier
  with 10 pairs, PrDT classifier; 10,000 reads of another trace, in trace order or shuffled.

Contenders (the peers get the same model and their natural input type):

* PrAM ONNX batch (onnxruntime, one thread): Primo ``to_onnx`` vs ebm2onnx, and interpret's own
  batch ``predict`` on the same rows (NumPy array);
* PrAM C (gcc -O2), float and integer mode: ns per prediction in a C loop over the batch;
* PrDT C float: Primo (``predict`` for regressors, ``predict_proba`` for classifiers) vs m2cgen
  (``score``) and emlearn (``dtype="float"``, its float32 input);
* PrDT ONNX batch: Primo vs skl2onnx (``zipmap=False``, its float32 input, given as float32 rows), the
  same skl2onnx graph given the float64 rows a system holds (its call then includes the cast to float32
  it needs: the float64-input graph skl2onnx writes for a regressor, at ai.onnx.ml opset 1, 3 or 5,
  fails to load in onnxruntime, its float32 tree output declared double), and a diagnostic copy of Primo's graph
  without its missing-value tracks (NaN then always goes right: not exact, not exported, it measures
  what routing NaN as the model does costs);
* PrAM ONNX called once a row (200 rows of the random batch): Primo vs ebm2onnx, µs per call;
* ``predict`` on a 1-row DataFrame already in the fitted column order: Primo vs interpret (PrAM) and
  scikit-learn (PrDT) on the very same fitted tree.

Timing: CPU time of the measuring process (``time.process_time_ns``; the C harness uses
``CLOCK_PROCESS_CPUTIME_ID``), one sample per contender per repeat, contenders interleaved within each
repeat so that the load other jobs put on the shared machine falls on all of them alike, in a fresh
(seeded) random order per repeat: a sample pays for what ran just before it, and a fixed or rotating
order keeps every contender behind the same neighbour (the same PrDT ONNX session measured 37 ns/row
in the slot after a C harness's subprocess and 23 ns/row in another). The figure is the median over
``--repeats`` (default 7) samples; a ratio is *within noise* when the 95% bootstrap interval of the
paired log ratios (over repeats) contains 0.

Usage: ``python benchmarks/export_latency.py [--data-dir DIR] [--repeats 7] [--out results.json]``
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pandas as pd

import primo
from primo.datasets import resolve_data_dir
from primo.export import model_tables, quantize, to_c, to_onnx
from primo.report.claims import paired_bootstrap

BATCH = 10_000
ONE_ROW_CALLS = 200
C_PASSES = 20  # loops over the batch per C sample
LINNOS_COLUMNS = ["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"]
TARGETS = {
    "PrAM ONNX speed-up over ebm2onnx": "≥ 10×",
    "PrAM ONNX vs interpret batch": "faster",
    "PrAM C float": "≤ 300 ns",
    "PrDT C float vs m2cgen": "≤ m2cgen",
    "PrDT ONNX vs skl2onnx": "≤ skl2onnx",
    "1-row predict vs library": "≤ library",
}


# --------------------------------------------------------------------------- data and models


def linnos_reads(path: Path, n_reads: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Reads of a trace with LinnOS's nine features (queue length now and at the 4 previous reads,
    latencies of the 4 previous reads)."""
    trace = pd.read_csv(path, header=None, names=LINNOS_COLUMNS)
    submit = trace["ts_submit"].to_numpy()
    done = np.sort(submit + trace["latency"].to_numpy() / 1000.0)
    order = np.argsort(submit, kind="stable")
    pending = np.empty(len(trace))
    pending[order] = np.maximum(np.arange(len(trace)) - np.searchsorted(done, submit[order], side="right"), 0)
    reads = trace.assign(pending=pending)[trace["io_type"] == 1].reset_index(drop=True)
    X = pd.DataFrame({f"pending_prev{i}": reads["pending"].shift(i) for i in range(5)})
    for i in range(1, 5):
        X[f"latency_prev{i}"] = reads["latency"].shift(i)
    X = X.fillna(0.0).head(n_reads)
    return X, reads["latency"].head(n_reads).to_numpy()


def datasets(data_dir: Path, rng: np.random.Generator) -> dict:
    """name → fitted models and the 10k-row batches in random and file order."""
    quiet = warnings.catch_warnings()
    quiet.__enter__()
    warnings.simplefilter("ignore")
    pram_options = dict(max_rounds=1000, outer_bags=4, n_jobs=1, random_state=0)

    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv").drop(columns="cores")
    X, y = train.drop(columns="cores"), train["cores"]
    clara = {
        "pram": primo.PrAMRegressor(interactions=10, **pram_options).fit(X, y),
        "pram_no_pairs": primo.PrAMRegressor(interactions=0, **pram_options).fit(X, y),
        "prdt": primo.PrDTRegressor(ccp_alpha=0.2, random_state=0).fit(X, y),
        "columns": list(X.columns),
        "random": test.iloc[rng.integers(0, len(test), BATCH)].reset_index(drop=True),
        "file": pd.concat([test] * (BATCH // len(test) + 1), ignore_index=True).head(BATCH),
    }

    paths = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))
    X_train, latency = linnos_reads(paths[0], 20_000)
    X_check, _ = linnos_reads(paths[1], BATCH)
    slow = (latency > np.quantile(latency, 0.85)).astype(int)
    linnos = {
        "pram": primo.PrAMClassifier(interactions=10, **pram_options).fit(X_train, slow),
        "prdt": primo.PrDTClassifier(ccp_alpha=1e-4, random_state=0).fit(X_train, slow),
        "columns": list(X_train.columns),
        "random": X_check.iloc[rng.permutation(len(X_check))].reset_index(drop=True),
        "file": X_check,
    }
    quiet.__exit__(None, None, None)
    return {"Clara-MS": clara, "LinnOS": linnos}


def without_missing_tracks(proto):
    """A copy of a PrDT graph whose tree op tracks no missing values (the diagnostic contender)."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for node in copy.graph.node:
        for attribute in node.attribute:
            if attribute.name == "nodes_missing_value_tracks_true":
                attribute.ints[:] = [0] * len(attribute.ints)
    return copy


def plain_tree(model):
    """The scikit-learn tree class holding the PrDT's fitted state: what m2cgen, emlearn and skl2onnx take."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    plain = (DecisionTreeClassifier if hasattr(model, "classes_") else DecisionTreeRegressor)()
    plain.__dict__.update({k: v for k, v in model.__dict__.items() if k in plain.__dict__ or k.endswith("_")})
    return plain


# --------------------------------------------------------------------------- timing


def cpu_ns(call: Callable[[], object], n_predictions: int) -> float:
    start = time.process_time_ns()
    call()
    return (time.process_time_ns() - start) / n_predictions


def onnx_session(proto) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one thread, as an embedded caller runs it
    options.inter_op_num_threads = 1
    return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])


class CHarness:
    """A compiled loop calling ``call`` on every row of a batch ``C_PASSES`` times; one run = one sample."""

    def __init__(self, source: str, includes: str, call: str, ctype: str, n_features: int, workdir: Path, name: str):
        self.workdir = workdir
        (workdir / f"{name}.h").write_text(source)
        harness = textwrap.dedent(f"""\
            #define _POSIX_C_SOURCE 199309L
            #include <stdint.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <time.h>
            {includes}
            int main(void)
            {{
                long n, i, r;
                volatile double sink = 0;
                double acc = 0, out[8] = {{0}};
                struct timespec start, stop;
                {ctype} *x;
                if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
                x = malloc(sizeof *x * n * {n_features});
                if (fread(x, sizeof *x, n * {n_features}, stdin) != (size_t)(n * {n_features})) return 1;
                for (i = 0; i < n; i++) {{ const {ctype} *row = x + i * {n_features}; acc += (double)({call}); }}
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
                for (r = 0; r < {C_PASSES}; r++)
                    for (i = 0; i < n; i++) {{
                        const {ctype} *row = x + i * {n_features};
                        acc += (double)({call});
                    }}
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &stop);
                sink = acc + out[0];
                printf("%.3f\\n", ((stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec)) / ((double)n * {C_PASSES}));
                free(x);
                return sink == 12345.678;
            }}
            """)
        (workdir / f"{name}.c").write_text(harness)
        self.binary = workdir / name
        subprocess.run(["gcc", "-std=c99", "-O2", "-I", str(workdir), str(workdir / f"{name}.c"), "-o", str(self.binary)],
                       check=True, capture_output=True)
        self.dtype = {"int64_t": np.int64, "float": np.float32}.get(ctype, np.float64)

    def payload(self, rows: np.ndarray) -> bytes:
        return np.int64(len(rows)).tobytes() + np.ascontiguousarray(rows, dtype=self.dtype).tobytes()

    def ns(self, payload: bytes) -> float:
        result = subprocess.run([str(self.binary)], input=payload, capture_output=True, check=True)
        return float(result.stdout.decode().strip())


# --------------------------------------------------------------------------- contenders


def contenders(data: dict, workdir: Path) -> dict[str, dict[str, Callable[[], float]]]:
    """``{group: {contender: sample()}}``; a sample is ns per prediction (µs for 1-row calls)."""
    import ebm2onnx
    import emlearn
    import m2cgen
    from skl2onnx import to_onnx as skl_to_onnx

    pram, prdt, columns = data["pram"], data["prdt"], data["columns"]
    groups: dict[str, dict[str, Callable[[], float]]] = {}
    plain = plain_tree(prdt)
    pram_session = onnx_session(to_onnx(pram))
    prdt_session = onnx_session(to_onnx(prdt))
    untracked_session = onnx_session(without_missing_tracks(to_onnx(prdt)))
    skl_session = onnx_session(skl_to_onnx(plain, np.zeros((1, len(columns)), dtype=np.float32),
                                           options={id(plain): {"zipmap": False}} if prdt.__class__.__name__.endswith("Classifier") else None))
    prdt_is_classifier = hasattr(prdt, "classes_")
    pram_c = {"float": to_c(pram, name="pram"), "integer": to_c(pram, name="pram_int", integer=True)}
    integer = quantize(model_tables(pram))
    prdt_call = "(prdt_predict_proba(row, out), out[1])" if prdt_is_classifier else "prdt_predict(row)"
    m2cgen_call = "(score(row, out), out[1])" if prdt_is_classifier else "score(row)"
    emlearn_model = emlearn.convert(plain, method="inline", dtype="float",
                                    return_type="classifier" if prdt_is_classifier else "regressor")
    harnesses = {
        "pram_float": CHarness(pram_c["float"], '#include "pram.h"', "pram_decision(row)", "double", len(columns),
                               workdir, "pram"),
        "pram_integer": CHarness(pram_c["integer"], '#include "pram_int.h"', "pram_int_decision(row)", "int64_t",
                                 len(columns), workdir, "pram_int"),
        "prdt_primo": CHarness(to_c(prdt, name="prdt"), '#include "prdt.h"', prdt_call, "double", len(columns),
                               workdir, "prdt"),
        "prdt_m2cgen": CHarness(m2cgen.export_to_c(plain), '#include "prdt_m2cgen.h"', m2cgen_call, "double",
                                len(columns), workdir, "prdt_m2cgen"),
        "prdt_emlearn": CHarness(emlearn_model.save(name="em", format="c"), '#include "prdt_emlearn.h"',
                                 f"em_predict(row, {len(columns)})", "float", len(columns), workdir, "prdt_emlearn"),
    }
    ebm2onnx_session = ebm2onnx_failure = None
    try:
        frame = data["file"].head(1)
        ebm2onnx_session = onnx_session(ebm2onnx.to_onnx(pram.ebm_, dtype=ebm2onnx.get_dtype_from_pandas(frame)))
    except Exception as exc:  # report, do not hide, a converter failure
        ebm2onnx_failure = f"{type(exc).__name__}: {exc}"

    for order in ("random", "file"):
        frame = data[order]
        rows = np.ascontiguousarray(frame.to_numpy(dtype=np.float64))  # pandas hands out column-major blocks
        rows32 = rows.astype(np.float32)
        features = {c: np.ascontiguousarray(rows[:, j]) for j, c in enumerate(columns)}
        payloads = {name: h.payload(integer.scale_inputs(rows) if name == "pram_integer" else rows)
                    for name, h in harnesses.items()}
        g = groups.setdefault(f"PrAM ONNX batch, {order} order (ns/row)", {})
        g["Primo"] = lambda rows=rows: cpu_ns(lambda: pram_session.run(None, {"X": rows}), len(rows))
        if ebm2onnx_session is not None:
            g["ebm2onnx"] = lambda f=features: cpu_ns(lambda: ebm2onnx_session.run(None, f), BATCH)
        g["interpret batch predict"] = lambda rows=rows: cpu_ns(lambda: pram.ebm_.predict(rows), len(rows))
        g = groups.setdefault(f"PrAM C, {order} order (ns/prediction)", {})
        g["Primo float"] = lambda p=payloads["pram_float"]: harnesses["pram_float"].ns(p)
        g["Primo integer"] = lambda p=payloads["pram_integer"]: harnesses["pram_integer"].ns(p)
        g = groups.setdefault(f"PrDT C float, {order} order (ns/prediction)", {})
        for label, name in (("Primo", "prdt_primo"), ("m2cgen", "prdt_m2cgen"), ("emlearn", "prdt_emlearn")):
            g[label] = lambda p=payloads[name], h=harnesses[name]: h.ns(p)
        g = groups.setdefault(f"PrDT ONNX batch, {order} order (ns/row)", {})
        g["Primo"] = lambda rows=rows: cpu_ns(lambda: prdt_session.run(None, {"X": rows}), len(rows))
        g["skl2onnx"] = lambda rows32=rows32: cpu_ns(lambda: skl_session.run(None, {"X": rows32}), len(rows32))
        g["skl2onnx from float64 rows"] = lambda rows=rows: cpu_ns(
            lambda: skl_session.run(None, {"X": rows.astype(np.float32)}), len(rows))
        g["diagnostic: no NaN tracks"] = lambda rows=rows: cpu_ns(lambda: untracked_session.run(None, {"X": rows}),
                                                                 len(rows))
    one_rows = [data["random"].iloc[[i]] for i in range(ONE_ROW_CALLS)]

    def per_row(predict):
        return lambda: cpu_ns(lambda: [predict(row) for row in one_rows], len(one_rows)) / 1e3

    one_arrays = [np.ascontiguousarray(row.to_numpy(dtype=np.float64)) for row in one_rows]
    groups["PrAM ONNX, 1-row call (µs)"] = one_row_calls(pram_session, ebm2onnx_session, one_arrays, columns)
    groups["PrAM predict, 1-row DataFrame (µs)"] = {"Primo": per_row(pram.predict),
                                                    "interpret": per_row(pram.ebm_.predict)}
    groups["PrDT predict, 1-row DataFrame (µs)"] = {"Primo": per_row(prdt.predict), "scikit-learn": per_row(plain.predict)}
    if "pram_no_pairs" in data:  # ebm2onnx converts regressors only without pairs
        no_pairs = data["pram_no_pairs"]
        session = onnx_session(to_onnx(no_pairs))
        peer = onnx_session(ebm2onnx.to_onnx(no_pairs.ebm_, dtype=ebm2onnx.get_dtype_from_pandas(data["file"].head(1))))
        for order in ("random", "file"):
            rows = np.ascontiguousarray(data[order].to_numpy(dtype=np.float64))
            features = {c: np.ascontiguousarray(rows[:, j]) for j, c in enumerate(columns)}
            groups[f"PrAM without pairs, ONNX batch, {order} order (ns/row)"] = {
                "Primo": lambda rows=rows: cpu_ns(lambda: session.run(None, {"X": rows}), len(rows)),
                "ebm2onnx": lambda f=features: cpu_ns(lambda: peer.run(None, f), BATCH),
                "interpret batch predict": lambda rows=rows: cpu_ns(lambda: no_pairs.ebm_.predict(rows), len(rows)),
            }
        groups["PrAM without pairs, ONNX 1-row call (µs)"] = one_row_calls(session, peer, one_arrays, columns)
    if ebm2onnx_failure:
        groups["notes"] = {"ebm2onnx on the PrAM with pairs": ebm2onnx_failure}
    return groups


def one_row_calls(session, peer, one_arrays: list[np.ndarray], columns: list[str]) -> dict[str, Callable[[], float]]:
    """µs per call of a graph called once a row (what a system calling it per request pays: onnxruntime's
    per-node dispatch, not the batch cost), and of ebm2onnx's graph (``peer``, None if it failed)."""
    calls = {"Primo": lambda: cpu_ns(lambda: [session.run(None, {"X": row}) for row in one_arrays], len(one_arrays)) / 1e3}
    if peer is not None:
        one_features = [{c: row[:, j].copy() for j, c in enumerate(columns)} for row in one_arrays]
        calls["ebm2onnx"] = lambda: cpu_ns(lambda: [peer.run(None, f) for f in one_features], len(one_features)) / 1e3
    return calls


def interleaved_medians(groups: dict, repeats: int, seed: int = 0) -> dict:
    """One sample of every contender per repeat, in a fresh random order each time; the median of each."""
    calls = [(group, name, call) for group, members in groups.items() if group != "notes"
             for name, call in members.items()]
    for _, _, call in calls:  # warm-up: first calls pay for caches and lazy initialisation
        call()
    samples: dict[tuple[str, str], list[float]] = {(g, n): [] for g, n, _ in calls}
    rng = np.random.default_rng(seed)
    for _ in range(repeats):
        for index in rng.permutation(len(calls)):
            group, name, call = calls[index]
            samples[(group, name)].append(call())
    results: dict = {}
    for (group, name), values in samples.items():
        results.setdefault(group, {})[name] = {"median": float(np.median(values)), "samples": values}
    if "notes" in groups:
        results["notes"] = groups["notes"]
    return results


def run_conditions(start_load: tuple, start_cpu: float) -> dict:
    """The machine's load average at the start and end of a run, and the run's own CPU seconds: how
    shared the 2 cores were while the samples were taken."""
    return {"load_average_start": [round(v, 2) for v in start_load],
            "load_average_end": [round(v, 2) for v in os.getloadavg()],
            "cpu_seconds": round(time.process_time() - start_cpu, 1)}


def conditions_line(conditions: dict) -> str:
    return (f"Load average (1/5/15 min) {'/'.join(map(str, conditions['load_average_start']))} at start, "
            f"{'/'.join(map(str, conditions['load_average_end']))} at end; {conditions['cpu_seconds']} s of CPU "
            "in the measuring process")


def measure(data_dir: Path, repeats: int) -> dict:
    start_load, start_cpu = os.getloadavg(), time.process_time()
    rng = np.random.default_rng(0)
    out = {"batch_rows": BATCH, "repeats": repeats, "datasets": {}}
    for name, data in datasets(data_dir, rng).items():
        tables = model_tables(data["pram"])
        out["datasets"][name] = {
            "models": {
                "PrAM": f"{len(tables.terms)} terms ({sum(len(t.binnings) == 2 for t in tables.terms)} pairs), "
                        f"{sum(len(b.cuts) if b.cuts is not None else 0 for b in tables.binnings)} bin edges",
                "PrDT": f"{data['prdt'].n_leaves_} leaves, depth {data['prdt'].depth_}",
            },
        }
        with tempfile.TemporaryDirectory() as tmp:
            out["datasets"][name]["results"] = interleaved_medians(contenders(data, Path(tmp)), repeats)
    out["conditions"] = run_conditions(start_load, start_cpu)
    return out


def speed(ratio: float) -> str:
    """A contender's time over Primo's, in words."""
    return f"Primo {ratio:.2f}× faster" if ratio >= 1 else f"Primo {1 / ratio:.2f}× slower"


def noise(primo_samples: list[float], other_samples: list[float]) -> str:
    """Whether a contender's time differs from Primo's beyond noise: the 95% bootstrap interval of the mean log
    ratio of samples taken in the same repeat (paired, since a repeat's load falls on both)."""
    if len(primo_samples) < 2 or len(primo_samples) != len(other_samples):
        return "noise not judged"
    d = paired_bootstrap(np.log(other_samples), np.log(primo_samples))
    return "within noise" if d.low <= 0 <= d.high else "beyond noise"


def report(results: dict) -> str:
    lines = [f"Latency, medians of {results['repeats']} interleaved repeats (CPU time), {results['batch_rows']}-row "
             "batches of real rows; lower is better", "Targets: " + "; ".join(f"{k} {v}" for k, v in TARGETS.items()),
             conditions_line(results["conditions"]), ""]
    for name, d in results["datasets"].items():
        lines.append(f"{name}: PrAM {d['models']['PrAM']}; PrDT {d['models']['PrDT']}")
        for group, members in d["results"].items():
            if group == "notes":
                lines += [f"  note: {k}: {v}" for k, v in members.items()]
                continue
            lines.append(f"  {group}")
            primo_value = next((m for k, m in members.items() if k.startswith("Primo")), None)
            for contender, m in members.items():
                ratio = "" if contender.startswith("Primo") or not primo_value else \
                    f"  ({speed(m['median'] / primo_value['median'])}, {noise(primo_value['samples'], m['samples'])})"
                lines.append(f"    {contender:26s} {m['median']:10.1f}{ratio}")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    results = measure(resolve_data_dir(args.data_dir), args.repeats)
    print(report(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
