"""Size of the HTML interpretation report for large models: a PrAM with 40 terms and a PrDT with 200 leaves.

Run: ``python benchmarks/report_size.py`` (about a minute). The data is synthetic on purpose: the
point is the size of the models (and so of the reports), not what they predict. The PrAM keeps
interpret's default 256 bins per feature, the worst case for shape-function plots.
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from primo import PrAMRegressor, PrDTClassifier
from primo.report import build

TARGET_BYTES = 2_000_000


def synthetic(n_rows: int, n_features: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.lognormal(size=(n_rows, n_features)), columns=[f"feature_{i:02d}" for i in range(n_features)])
    signal = np.sin(X.iloc[:, 0]) + np.log1p(X.iloc[:, 1]) * X.iloc[:, 2] - 0.3 * X.iloc[:, 3:].sum(axis=1) / n_features
    return X, (signal + rng.normal(scale=0.5, size=n_rows)).to_numpy()


def pram_40_terms() -> PrAMRegressor:
    X, y = synthetic(5000, 30)
    model = PrAMRegressor(interactions=10, max_rounds=300, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)
    assert len(model.term_names_) == 40, model.term_names_
    return model, X, y


def prdt_200_leaves() -> PrDTClassifier:
    """Bisect the cost-complexity path for the pruning strength that leaves 200 leaves."""
    X, signal = synthetic(20000, 12, seed=1)
    y = (signal > np.median(signal)).astype(int)
    alphas = PrDTClassifier(random_state=0).cost_complexity_pruning_path(X, y).ccp_alphas
    low, high = 0, len(alphas) - 1  # more leaves at low alpha
    while high - low > 1:
        middle = (low + high) // 2
        leaves = PrDTClassifier(ccp_alpha=alphas[middle], random_state=0).fit(X, y).n_leaves_
        low, high = (middle, high) if leaves > 200 else (low, middle)
    model = PrDTClassifier(ccp_alpha=alphas[high], random_state=0).fit(X, y)
    return model, X, y


def measure(name: str, model, X, y, out_dir: Path) -> None:
    start = time.perf_counter()
    report = build(model, X.iloc[:2000], y[:2000], local_rows=3)
    built = time.perf_counter() - start
    start = time.perf_counter()
    path = report.save(out_dir / f"{name}.html")
    rendered = time.perf_counter() - start
    html = path.read_text()
    size = path.stat().st_size
    markdown = len(report.to_markdown().encode())
    print(f"{name:<24} {size / 1e3:8.0f} kB HTML ({html.count('<figure ')} figures), {markdown / 1e3:6.0f} kB Markdown; "
          f"build {built:.1f} s, render {rendered:.1f} s; {'OK' if size < TARGET_BYTES else 'OVER'} (< 2 MB)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model, X, y = pram_40_terms()
        measure(f"PrAM, {len(model.term_names_)} terms", model, X, y, Path(tmp))
        model, X, y = prdt_200_leaves()
        measure(f"PrDT, {model.n_leaves_} leaves", model, X, y, Path(tmp))


if __name__ == "__main__":
    main()
