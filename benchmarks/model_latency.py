"""Fit time and prediction latency of PrDT and PrAM on real data.

Prints, per model: fit time, single-row latency through the public ``predict`` (the scikit-learn /
interpret path), single-row latency of Primo's Python fast path (``primo.export.compile_python``),
and per-row latency of a 10k-row batch ``predict``.

Data: LinnOS-style features of the first 60k reads of one NVMe trace (slow = latency > p85).

Usage: python benchmarks/model_latency.py [--data-dir DIR]
"""
from __future__ import annotations

import argparse
import time

import pandas as pd

from primo import PrAMClassifier, PrDTClassifier
from primo.datasets import resolve_data_dir
from primo.export import compile_python
from primo.models.latency import batch_latency_us, single_row_latency_us


def linnos_features(data_dir, n=60000):
    path = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))[0]
    trace = pd.read_csv(path, header=None,
                        names=["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"])
    reads = trace[trace["io_type"] == 1].head(n).reset_index(drop=True)
    X = pd.DataFrame({f"latency_prev{k}": reads["latency"].shift(k) for k in range(1, 5)})
    X["size"] = reads["size"]
    X["gap_ms"] = reads["ts_submit"].diff()
    X = X.fillna(X.median())
    return X, (reads["latency"] > reads["latency"].quantile(0.85)).astype(int)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    X, y = linnos_features(resolve_data_dir(args.data_dir))
    X_train, X_test = X.iloc[:40000], X.iloc[40000:50000]
    y_train = y.iloc[:40000]
    models = {
        "PrDT (ccp_alpha=1e-4)": PrDTClassifier(ccp_alpha=1e-4, random_state=0),
        "PrDT (unpruned)": PrDTClassifier(random_state=0),
        "PrAM (10 pairs, 8 bags)": PrAMClassifier(interactions=10, n_jobs=1),
        "PrAM (no pairs, 4 bags)": PrAMClassifier(interactions=0, outer_bags=4, n_jobs=1),
    }
    rows = []
    for name, model in models.items():
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_s = time.perf_counter() - start
        fast = compile_python(model)
        rows_np = X_test.to_numpy()
        rows.append({
            "model": name,
            "complexity": model.complexity_,
            "fit_s": round(fit_s, 2),
            "predict_1row_us": round(single_row_latency_us(model.predict, X_test), 1),
            "fast_path_1row_us": round(single_row_latency_us(lambda r: fast(r[0]), rows_np), 3),
            "predict_10k_batch_us_per_row": round(batch_latency_us(model.predict, X_test), 3),
        })
        print(rows[-1], flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
