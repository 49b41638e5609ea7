"""Per-prediction latency of every way to run the same PrDT and PrAM: Python, fast path, ONNX, C, JS.

All times are CPU time of the measuring process (``CLOCK_PROCESS_CPUTIME_ID``; Python's
``time.process_time_ns``), mean per prediction, best of several passes: the machine is shared, and
wall-clock time there measures the neighbours as much as the code.

Models are fit on LinnOS's nine per-read features (queue length now and at the 4 previous reads,
latencies of the 4 previous reads) from a FlashNet NVMe trace, label = slow (> p85), as in the Primo
LinnOS case study: a PrDT, and a PrAM with 9 shape functions + 10 pairs (19 terms). Latency is
measured on 10,000 reads of another trace:

* scikit-learn / interpret ``predict`` on one row;
* Primo's Python fast path (``primo.export.compile_python``), one row;
* onnxruntime on one row and per row of a 10,000-row batch (our export, and ebm2onnx's for the PrAM
  when that package is installed: ``pip install ebm2onnx``; it is not a Primo dependency);
* compiled C (gcc -O2), float and integer mode: ns per prediction in a C loop over the 10,000 rows;
* JavaScript in node: ns per prediction in a loop.

Usage: ``python benchmarks/export_latency.py [--data-dir DIR] [--out results.json]``
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pandas as pd

import primo
from primo.datasets import resolve_data_dir
from primo.export import compile_python, model_tables, quantize, to_c, to_js, to_onnx
from primo.models.latency import cpu_us_per_call

COLUMNS = ["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"]
FEATURES = [f"pending_prev{i}" for i in range(5)] + [f"latency_prev{i}" for i in range(1, 5)]
TARGETS = {"PrDT C (ns)": 50.0, "PrAM C (ns)": 1000.0, "PrAM ONNX batch speed-up over ebm2onnx": 10.0}


def linnos_reads(path: Path, n_reads: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Reads of a trace with LinnOS's nine features (history = the 4 previously submitted reads)."""
    trace = pd.read_csv(path, header=None, names=COLUMNS)
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


def c_ns_per_prediction(header: str, call: str, rows: np.ndarray, ctype: str, workdir: Path, repeats: int = 50) -> float:
    """Best of 5 runs of a C loop calling ``call`` (on ``row``) over every row ``repeats`` times."""
    harness = textwrap.dedent(f"""\
        #define _POSIX_C_SOURCE 199309L
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <time.h>
        #include "model.h"
        int main(void)
        {{
            long n, i, r, k;
            double best = 1e300;
            volatile double sink = 0;
            {ctype} *x;
            if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
            x = malloc(sizeof *x * n * {rows.shape[1]});
            if (fread(x, sizeof *x, n * {rows.shape[1]}, stdin) != (size_t)(n * {rows.shape[1]})) return 1;
            for (k = 0; k < 5; k++) {{
                struct timespec start, stop;
                double acc = 0, ns;
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
                for (r = 0; r < {repeats}; r++)
                    for (i = 0; i < n; i++) {{
                        const {ctype} *row = x + i * {rows.shape[1]};
                        acc += (double)({call});
                    }}
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &stop);
                sink += acc;
                ns = ((stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec)) / ((double)n * {repeats});
                if (ns < best) best = ns;
            }}
            printf("%.3f\\n", best);
            free(x);
            return sink == 12345.678;
        }}
        """)
    (workdir / "model.h").write_text(header)
    (workdir / "harness.c").write_text(harness)
    subprocess.run(["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", str(workdir / "harness.c"),
                    "-o", str(workdir / "harness")], check=True)
    dtype = np.int64 if ctype == "int64_t" else np.float64
    payload = np.int64(len(rows)).tobytes() + np.ascontiguousarray(rows, dtype=dtype).tobytes()
    result = subprocess.run([str(workdir / "harness")], input=payload, capture_output=True)
    return float(result.stdout.decode().strip())


def js_ns_per_prediction(source: str, rows: np.ndarray, workdir: Path, repeats: int = 20) -> float:
    (workdir / "model.mjs").write_text(source)
    (workdir / "rows.json").write_text(json.dumps(rows.tolist()))
    (workdir / "bench.mjs").write_text(textwrap.dedent(f"""\
        import {{ readFileSync }} from "node:fs";
        import {{ predict }} from "./model.mjs";
        const rows = JSON.parse(readFileSync(new URL("./rows.json", import.meta.url), "utf8"));
        let best = Infinity, sink = 0;
        for (let k = 0; k < 5; k++) {{
          const start = process.cpuUsage();
          for (let r = 0; r < {repeats}; r++) for (const row of rows) sink += Number(predict(row));
          const used = process.cpuUsage(start);
          const ns = ((used.user + used.system) * 1e3) / (rows.length * {repeats});
          if (ns < best) best = ns;
        }}
        console.log(best.toFixed(3), sink > -1 ? "" : "!");
        """))
    result = subprocess.run(["node", str(workdir / "bench.mjs")], capture_output=True, text=True, check=True)
    return float(result.stdout.split()[0])


def onnx_latencies(model_proto, rows: np.ndarray, feature_names: list[str] | None = None) -> tuple[float, float]:
    """(µs for one row, µs per row of the whole batch) on one thread, as an embedded caller would run it.

    ``feature_names``: the converter wants one 1-D input per feature (ebm2onnx) instead of ``X``.
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model_proto.SerializeToString(), options, providers=["CPUExecutionProvider"])

    def feeds(batch: np.ndarray) -> dict:
        if feature_names is None:
            return {"X": batch}
        return {name: np.ascontiguousarray(batch[:, j]) for j, name in enumerate(feature_names)}

    one_row = cpu_us_per_call(lambda feed: session.run(None, feed), [feeds(rows[i:i + 1]) for i in range(2000)])
    batch = cpu_us_per_call(lambda feed: session.run(None, feed), [feeds(rows)]) / len(rows)
    return one_row, batch


def measure(data_dir: Path) -> dict:
    paths = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))
    X_train, latency_train = linnos_reads(paths[0], 20_000)
    X_test, _ = linnos_reads(paths[1], 10_000)
    y_train = (latency_train > np.quantile(latency_train, 0.85)).astype(int)
    rows = X_test.to_numpy(dtype=np.float64)
    row_lists = rows.tolist()
    results: dict = {"n_rows": len(rows), "models": {}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = primo.PrDTClassifier(ccp_alpha=1e-4, random_state=0).fit(X_train.to_numpy(), y_train)
        pram = primo.PrAMClassifier(interactions=10, max_rounds=1000, outer_bags=4, n_jobs=1,
                                    random_state=0).fit(X_train, y_train)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for label, model in (("PrDT", tree), ("PrAM", pram)):
            tables = model_tables(model)
            size = (f"{model.n_leaves_} leaves, depth {model.depth_}" if label == "PrDT"
                    else f"{len(tables.terms)} terms ({model.n_interactions_} pairs), max_bins {model.max_bins}")
            one_rows = [rows[i:i + 1] for i in range(200)] if label == "PrDT" else [X_test.iloc[[i]] for i in range(50)]
            r = {"model": size, "library_predict_one_row_us": cpu_us_per_call(model.predict, one_rows)}
            r["fast_path_us"] = cpu_us_per_call(compile_python(model), row_lists[:3000])
            r["onnx_one_row_us"], r["onnx_batch_us_per_row"] = onnx_latencies(to_onnx(model), rows)
            integer = quantize(tables)
            call = "m_predict(row)"
            r["c_float_ns"] = c_ns_per_prediction(to_c(model, name="m"), call, rows, "double", workdir)
            r["c_integer_ns"] = c_ns_per_prediction(to_c(model, name="m", integer=True), call,
                                                    integer.scale_inputs(rows), "int64_t", workdir)
            r["integer_mode_check"] = integer.compare(rows).summary()
            r["js_ns"] = js_ns_per_prediction(to_js(model), rows, workdir)
            if label == "PrAM":
                r.update(_ebm2onnx_latencies(model, rows))
            results["models"][label] = r
    return results


def _ebm2onnx_latencies(model, rows: np.ndarray) -> dict:
    try:
        import ebm2onnx
    except ImportError:
        return {"ebm2onnx": "not installed (pip install ebm2onnx to compare)"}
    frame = pd.DataFrame(rows, columns=FEATURES)
    try:
        converted = ebm2onnx.to_onnx(model.ebm_, dtype=ebm2onnx.get_dtype_from_pandas(frame), predict_proba=True)
    except Exception as exc:  # report, do not hide, a converter failure
        return {"ebm2onnx": f"conversion failed: {type(exc).__name__}: {exc}"}
    one_row, batch = onnx_latencies(converted, rows, FEATURES)
    return {"ebm2onnx_one_row_us": one_row, "ebm2onnx_batch_us_per_row": batch}


def report(results: dict) -> str:
    lines = [f"Per-prediction latency on {results['n_rows']} LinnOS reads (lower is better)", ""]
    for label, r in results["models"].items():
        lines.append(f"{label}: {r['model']}")
        lines.append(f"  library predict, 1 row     {r['library_predict_one_row_us']:10.2f} µs")
        lines.append(f"  Primo Python fast path     {r['fast_path_us']:10.3f} µs")
        lines.append(f"  ONNX (Primo), 1 row        {r['onnx_one_row_us']:10.2f} µs")
        lines.append(f"  ONNX (Primo), 10k batch    {r['onnx_batch_us_per_row'] * 1e3:10.1f} ns/row")
        if "ebm2onnx_batch_us_per_row" in r:
            lines.append(f"  ONNX (ebm2onnx), 1 row     {r['ebm2onnx_one_row_us']:10.2f} µs")
            lines.append(f"  ONNX (ebm2onnx), 10k batch {r['ebm2onnx_batch_us_per_row'] * 1e3:10.1f} ns/row")
            speedup = r["ebm2onnx_batch_us_per_row"] / r["onnx_batch_us_per_row"]
            r["onnx_batch_speedup_over_ebm2onnx"] = speedup
            lines.append(f"  batch speed-up over ebm2onnx {speedup:8.1f}×  (target ≥ 10×)")
        elif "ebm2onnx" in r:
            lines.append(f"  ebm2onnx: {r['ebm2onnx']}")
        target = TARGETS[f"{label} C (ns)"]
        lines.append(f"  C float, loop              {r['c_float_ns']:10.1f} ns  (target < {target:g} ns)")
        lines.append(f"  C integer mode, loop       {r['c_integer_ns']:10.1f} ns  ({r['integer_mode_check']})")
        lines.append(f"  JavaScript (node), loop    {r['js_ns']:10.1f} ns")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    results = measure(resolve_data_dir(args.data_dir))
    print(report(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
