"""Shared helpers for the simulator tests (no tests here): tiny hand-made job tables."""
import numpy as np
import pandas as pd


def make_jobs(rows, vc="vc", users=None) -> pd.DataFrame:
    """Job table from ``(submit_time, gpu_num, duration)`` rows, in the loaders' schema."""
    df = pd.DataFrame({
        "job_id": [f"j{i}" for i in range(len(rows))],
        "user": users if users is not None else ["u"] * len(rows),
        "name": [""] * len(rows),
        "vc": [vc] * len(rows),
        "gpu_num": [int(g) for _, g, _ in rows],
        "cpu_num": [0] * len(rows),
        "submit_time": [float(t) for t, _, _ in rows],
        "duration": [float(d) for _, _, d in rows],
        "state": ["COMPLETED"] * len(rows),
    })
    df.attrs["epoch"] = pd.Timestamp("2020-09-01")
    return df


def random_jobs(n: int, seed: int, horizon: float = 20_000.0) -> pd.DataFrame:
    """A busy random trace: mostly 1-GPU jobs, some 2-8 and a few 16-GPU jobs."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, horizon, n))
    gpus = rng.choice([1, 1, 1, 1, 2, 4, 8, 16], size=n)
    duration = np.ceil(rng.lognormal(5.5, 1.5, n))
    df = make_jobs(list(zip(submit, gpus, duration)), users=[f"u{k}" for k in rng.integers(0, 8, n)])
    df["name"] = [f"app{k}" for k in rng.integers(0, 20, n)]
    return df
