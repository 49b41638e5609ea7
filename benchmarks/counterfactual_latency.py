"""Counterfactual query latency: BallTree (primo.adjust.CounterfactualIndex) vs brute force.

Reference rows: every read of the four LinnOS FlashNet NVMe traces (≥ 100k reads, the 9 raw
LinnOS features), labelled slow above the p85 latency. A PrDT classifier is fit on a sample; the
query asks, for reads predicted fast, for the k=5 nearest reads predicted slow (standardized L2).
Brute force = the same encoded distances computed against every qualifying row with NumPy and the
k smallest taken with ``argpartition`` (what a kNN without an index does). Both must return the
same distances. For comparison, the structural method (``primo.adjust.MinimalChangeSearch``: the
smallest change of the read that the tree predicts slow, from its leaves) on the same queries.

Run: ``python benchmarks/counterfactual_latency.py [--queries 200] [--k 5]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from adapters.linnos.features import RAW_FEATURE_NAMES, read_features
from adapters.linnos.trace import list_traces, load_trace
from primo import PrDTClassifier
from primo.adjust import CounterfactualIndex, MinimalChangeSearch
from primo.datasets import resolve_data_dir


def load_reads() -> pd.DataFrame:
    frames = [read_features(load_trace(path)) for path in list_traces(resolve_data_dir())]
    return pd.concat(frames, ignore_index=True)


def brute_force(encoded: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    distances = np.sqrt(((encoded - query) ** 2).sum(axis=1))
    nearest = np.argpartition(distances, k - 1)[:k]
    return np.sort(distances[nearest])


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args(argv)
    reads = load_reads()
    X = reads[RAW_FEATURE_NAMES]
    y = (reads["latency_us"] > reads["latency_us"].quantile(0.85)).astype(int)
    sample = np.random.default_rng(0).choice(len(X), 20_000, replace=False)
    model = PrDTClassifier(ccp_alpha=1e-4, random_state=0).fit(X.iloc[sample], y.iloc[sample])

    start = time.perf_counter()
    index = CounterfactualIndex(model, X)
    build_encode = time.perf_counter() - start
    start = time.perf_counter()
    qualifying = index.qualifying(1)  # builds the BallTree of rows predicted slow
    build_tree = time.perf_counter() - start

    fast = np.flatnonzero(index.predictions == 0)
    queries = X.iloc[np.random.default_rng(1).choice(fast, args.queries, replace=False)]
    index.query(queries.iloc[0], 1, args.k)  # warm-up
    start = time.perf_counter()
    results = [index.query(queries.iloc[i], 1, args.k) for i in range(len(queries))]
    single = (time.perf_counter() - start) / len(queries)
    start = time.perf_counter()
    index.query_many(queries, 1, args.k)
    batch = (time.perf_counter() - start) / len(queries)
    tree, _ = index._tree(1)
    encoded_queries = index.encoder.transform(queries)
    start = time.perf_counter()
    tree.query(encoded_queries, k=args.k)
    tree_only = (time.perf_counter() - start) / len(queries)

    candidates = index.encoded[qualifying]
    start = time.perf_counter()
    brute = [brute_force(candidates, q, args.k) for q in encoded_queries]
    brute_time = (time.perf_counter() - start) / len(queries)
    agree = all(np.allclose(r.neighbors["distance"].to_numpy(), b) for r, b in zip(results, brute))

    start = time.perf_counter()
    structural = MinimalChangeSearch(model, X)
    structural_build = time.perf_counter() - start
    start = time.perf_counter()
    changes = structural.query_many(queries, 1, args.k)
    structural_time = (time.perf_counter() - start) / len(queries)
    changed = [int(r.neighbors["n_changed"].iloc[0]) for r in changes if not r.neighbors.empty]

    out = {
        "reference_rows": len(X), "qualifying_rows": int(qualifying.size), "features": X.shape[1],
        "queries": len(queries), "k": args.k,
        "encode_s": build_encode, "balltree_build_s": build_tree,
        "balltree_query_us": tree_only * 1e6, "brute_force_query_us": brute_time * 1e6,
        "speedup_search": brute_time / tree_only,
        "counterfactual_single_us": single * 1e6, "counterfactual_batch_us_per_row": batch * 1e6,
        "same_distances": agree,
        "structural_build_s": structural_build, "structural_query_us": structural_time * 1e6,
        "structural_found": len(changed), "structural_median_features_changed": float(np.median(changed)),
        "nearest_median_features_changed": float(np.median([r.neighbors["n_changed"].iloc[0] for r in results])),
    }
    print(f"{out['reference_rows']} LinnOS reads ({out['features']} features), {out['qualifying_rows']} predicted slow; "
          f"{out['queries']} queries, k={args.k}")
    print(f"encode {build_encode:.2f} s, BallTree build {build_tree:.2f} s (once)")
    print(f"nearest-neighbor search: BallTree {out['balltree_query_us']:.0f} µs/query, brute force "
          f"{out['brute_force_query_us']:.0f} µs/query ({out['speedup_search']:.1f}×); same distances: {agree}")
    print(f"full counterfactual (search + result frames): {out['counterfactual_single_us']:.0f} µs one by one, "
          f"{out['counterfactual_batch_us_per_row']:.0f} µs/row in a batch")
    print(f"structural (smallest change, {model.n_leaves_} leaves): set-up {structural_build:.2f} s, "
          f"{out['structural_query_us']:.0f} µs/query; found {len(changed)}/{len(queries)}; median features "
          f"changed {out['structural_median_features_changed']:g} vs nearest row "
          f"{out['nearest_median_features_changed']:g}")
    return out


if __name__ == "__main__":
    main()
