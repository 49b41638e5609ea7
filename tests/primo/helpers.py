"""Real-data loaders for the foundation tests (Clara-MS: 680 train / 198 test NFs, 10 features)."""
import pandas as pd


def clara_ms(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    return train.drop(columns="cores"), train["cores"], test.drop(columns="cores"), test["cores"]


def linnos_reads(data_dir, n=4000):
    """First n reads of one LinnOS trace with simple numeric features, label = slow (> p85)."""
    path = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))[0]
    trace = pd.read_csv(path, header=None,
                        names=["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"])
    reads = trace[trace["io_type"] == 1].head(n).reset_index(drop=True)
    X = pd.DataFrame({
        "size_kb": reads["size"] / 1024,
        "prev_latency": reads["latency"].shift(1).fillna(reads["latency"].median()),
        "prev2_latency": reads["latency"].shift(2).fillna(reads["latency"].median()),
        "gap_ms": reads["ts_submit"].diff().fillna(0.0),
    })
    y = (reads["latency"] > reads["latency"].quantile(0.85)).astype(int)
    return X, y
