"""Real LinnOS I/O data and the six model kinds every export is checked on.

Training: 8,000 I/Os of one FlashNet NVMe trace; checking: 12,000 I/Os of another (plus edge rows).
Features are LinnOS-like integers (queue length, previous latencies, size) plus one decimal feature
(submission gap in ms, 3 decimals) and, for PrAM, two categorical ones: ``op`` (text: read/write)
and ``size_kb`` (numeric categories). A few training latencies are blanked (lost measurements) so
that the models learn where missing values go.
"""
import numpy as np
import pandas as pd
import pytest

import primo

N_TRAIN, N_CHECK = 8_000, 12_000
COLUMNS = ["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"]
NUMERIC = ["pending", "lat_prev1", "lat_prev2", "lat_prev3", "io_type", "size_kb", "gap_ms"]


def linnos_table(path, n_rows: int, *, blank_fraction: float = 0.0, seed: int = 0) -> pd.DataFrame:
    trace = pd.read_csv(path, header=None, names=COLUMNS).head(n_rows)
    submit = trace["ts_submit"].to_numpy()
    done = np.sort(submit + trace["latency"].to_numpy() / 1000.0)
    order = np.argsort(submit, kind="stable")
    pending = np.empty(len(trace), dtype=np.int64)
    # I/Os submitted before minus I/Os completed before: the queue length at submission.
    pending[order] = np.arange(len(trace)) - np.searchsorted(done, submit[order], side="right")
    table = pd.DataFrame({
        "pending": np.maximum(pending, 0).astype(float),
        "lat_prev1": trace["latency"].shift(1),
        "lat_prev2": trace["latency"].shift(2),
        "lat_prev3": trace["latency"].shift(3),
        "io_type": trace["io_type"].astype(float),
        "size_kb": (trace["size"] // 1024).astype(float),
        "gap_ms": trace["ts_submit"].diff().round(3),
        "op": np.where(trace["io_type"] == 1, "read", "write"),
        "latency": trace["latency"].astype(float),
    })
    if blank_fraction:
        rng = np.random.default_rng(seed)
        table.loc[rng.random(len(table)) < blank_fraction, "lat_prev1"] = np.nan
    return table


@pytest.fixture(scope="session")
def linnos(data_dir):
    paths = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))
    train = linnos_table(paths[2], N_TRAIN, blank_fraction=0.03)
    check = linnos_table(paths[3], N_CHECK)
    slow = train["latency"].quantile(0.85)
    edges = train["latency"].quantile([0.5, 0.85]).to_numpy()
    return {
        "train": train, "check": check,
        "slow": lambda t: (t["latency"] > slow).astype(int),
        "speed": lambda t: pd.Series(np.array(["fast", "medium", "slow"])[np.searchsorted(edges, t["latency"])], index=t.index),
    }


def _pram_frame(table: pd.DataFrame) -> pd.DataFrame:
    return table[["pending", "lat_prev1", "lat_prev2", "lat_prev3", "size_kb", "gap_ms", "op"]]


_PRAM = dict(max_rounds=300, outer_bags=2, n_jobs=1, max_bins=64, random_state=0,
             feature_types=["continuous"] * 4 + ["nominal", "continuous", "nominal"])


@pytest.fixture(scope="session")
def models(linnos):
    """name → (fitted model, check rows as the model takes them)."""
    train, check = linnos["train"], linnos["check"]
    X_tree, X_check_tree = train[NUMERIC].to_numpy(), check[NUMERIC].to_numpy()
    X_pram, X_check_pram = _pram_frame(train), _pram_frame(check)
    return {
        "prdt_binary": (primo.PrDTClassifier(ccp_alpha=2e-4, random_state=0).fit(X_tree, linnos["slow"](train)), X_check_tree),
        "prdt_multiclass": (primo.PrDTClassifier(ccp_alpha=5e-4, random_state=0).fit(X_tree, linnos["speed"](train)), X_check_tree),
        "prdt_regressor": (primo.PrDTRegressor(ccp_alpha=50.0, random_state=0).fit(X_tree, train["latency"]), X_check_tree),
        "pram_binary": (primo.PrAMClassifier(interactions=3, **_PRAM).fit(X_pram, linnos["slow"](train) == 1), X_check_pram),
        "pram_multiclass": (primo.PrAMClassifier(interactions=2, **_PRAM).fit(X_pram, linnos["speed"](train)), X_check_pram),
        "pram_regressor": (primo.PrAMRegressor(interactions=3, **_PRAM).fit(X_pram, train["latency"]), X_check_pram),
    }
