"""Inference cost of the LinnOS network vs decision trees, as C compiled with gcc.

Trains (briefly: the cost does not depend on how well the weights are trained) a LinnOS network
and trees of a few sizes on one FlashNet trace, then times the C predictors of
``adapters.linnos.c_inference`` on that trace's reads, with kernel-like flags (``-O2
-mgeneral-regs-only``, as the in-kernel LinnOS would be built) and, for reference, with
user-space vectorisation (``-O3 -march=native``). Times are thread CPU time per prediction.

Usage: ``python benchmarks/linnos_inference_cost.py [--data-dir DIR] [--trace-index 2]``
"""
from __future__ import annotations

import argparse

from sklearn.tree import DecisionTreeClassifier

from adapters.linnos.c_inference import (
    KERNEL_CFLAGS, decision_tree_c_source, linnos_net_c_source, measure_c_predictor,
)
from adapters.linnos.features import RAW_FEATURE_NAMES, label_slow, read_features, slow_threshold
from adapters.linnos.linnos_net import LinnOSNet
from adapters.linnos.trace import list_traces, load_trace
from primo.datasets import resolve_data_dir

FLAG_SETS = {"kernel (-O2 -mgeneral-regs-only)": KERNEL_CFLAGS, "user (-O3 -march=native)": ("-O3", "-march=native")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--trace-index", type=int, default=2)
    args = parser.parse_args()
    path = list_traces(resolve_data_dir(args.data_dir))[args.trace_index]
    reads = read_features(load_trace(path))
    X = reads[RAW_FEATURE_NAMES]
    y = label_slow(reads["latency_us"], slow_threshold(reads["latency_us"], "p85"))

    sources = {"LinnOS 31-256 int": linnos_net_c_source(LinnOSNet(epochs=5, random_state=0).fit(X, y).quantize())}
    for depth in (4, 8, None):
        tree = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
        sources[f"tree depth {tree.get_depth()}, {tree.get_n_leaves()} leaves"] = decision_tree_c_source(tree)

    print(f"trace {path.name}, {len(X)} reads; ns per prediction (median / min of 21 passes)")
    for flags_name, flags in FLAG_SETS.items():
        for name, source in sources.items():
            timing = measure_c_predictor(source, X, model_cflags=flags)
            print(f"{flags_name:34s} {name:34s} {timing.ns_per_prediction:9.1f} / {timing.min_ns_per_prediction:9.1f}")


if __name__ == "__main__":
    main()
