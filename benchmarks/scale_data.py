"""Synthetic job rows shaped like the scheduler's Workload Estimate Model features (for the scale benchmarks).

Real traces of 10⁶–10⁷ jobs (Helios, Venus) are not in the data directory, so the scale benchmarks
generate rows with the same columns and roughly the same structure as
``adapters.scheduler.workload.workload_dataset``: a Zipf-distributed user id, a job-name cluster
tied to the user, the virtual cluster, a power-of-two GPU demand, submit hour and day of week,
and history features (the user's, the name's and the GPU demand's past log-durations, a QSSF-style
rolling estimate, recent submissions) that are noisy views of the job's latent log-duration. The
target is the log-duration. Everything is float32, generated in chunks, so 10⁷ rows × 13 columns
take 520 MB. Rows come as a writable C-ordered float32 array, which scikit-learn's trees use
without a copy (and which avoids a scikit-learn 1.9 failure on *read-only* float32 input, e.g. a
pandas 3 frame viewing an array: "buffer source array is read-only").

Example
-------
>>> X, y = job_rows(1000, seed=0)
>>> X.shape, X.dtype.name, y.dtype.name
((1000, 13), 'float32', 'float32')
"""
from __future__ import annotations

import numpy as np

COLUMNS = ("user", "name", "vc", "gpu_num", "cpu_num", "hour", "day_of_week", "user_mean_duration",
           "user_gpu_mean_duration", "name_last_duration", "gpu_mean_duration", "rolling_estimate",
           "user_recent_submits")

N_USERS, N_NAMES, N_VCS = 2000, 5000, 15
GPU_CHOICES = np.array([0, 1, 2, 4, 8, 16, 32, 64], dtype=np.float32)
GPU_SHARES = np.array([0.05, 0.55, 0.12, 0.1, 0.12, 0.04, 0.015, 0.005])


def job_rows(n_rows: int, *, seed: int = 0, chunk_rows: int = 1_000_000) -> tuple[np.ndarray, np.ndarray]:
    """``n_rows`` synthetic jobs: float32 features (columns :data:`COLUMNS`) and log-durations.

    The population (per-user, per-name, per-hour effects) depends only on ``seed``, so a smaller
    table is drawn from the same distribution as a larger one.
    """
    rng = np.random.default_rng(seed)
    user_effect = rng.normal(0.0, 1.0, N_USERS)
    name_effect = rng.normal(0.0, 1.2, N_NAMES)
    name_user = rng.integers(0, N_USERS, N_NAMES)  # each name cluster belongs mostly to one user
    hour_effect = 0.4 * np.sin(np.arange(24) / 24 * 2 * np.pi)
    X = np.empty((n_rows, len(COLUMNS)), dtype=np.float32)
    y = np.empty(n_rows, dtype=np.float32)
    for start in range(0, n_rows, chunk_rows):
        stop = min(n_rows, start + chunk_rows)
        X[start:stop], y[start:stop] = _chunk(np.random.default_rng([seed, start]), stop - start, user_effect,
                                              name_effect, name_user, hour_effect)
    return X, y


def _chunk(rng, n, user_effect, name_effect, name_user, hour_effect):
    user = np.minimum(rng.zipf(1.6, n) - 1, N_USERS - 1)
    own_name = rng.random(n) < 0.8
    name = np.where(own_name, _name_of_user(user, name_user, rng), rng.integers(0, N_NAMES, n))
    gpu = GPU_CHOICES[rng.choice(len(GPU_CHOICES), n, p=GPU_SHARES)]
    hour = rng.integers(0, 24, n)
    day = rng.integers(0, 7, n)
    vc = user % N_VCS
    cpu = np.maximum(1, gpu * rng.choice([4, 6, 8], n))
    gpu_term = 0.35 * np.log2(gpu + 1)
    mu = 7.0 + user_effect[user] + name_effect[name] + gpu_term + hour_effect[hour] - 0.2 * (day >= 5)
    target = mu + rng.normal(0.0, 1.0, n)
    noisy = lambda scale: mu + rng.normal(0.0, scale, n)
    columns = [user, name, vc, gpu, cpu, hour, day,
               7.0 + user_effect[user] + rng.normal(0.0, 0.5, n),  # user's past mean
               noisy(0.8),  # user × GPU-demand past mean
               np.where(rng.random(n) < 0.15, np.nan, noisy(1.0)),  # new names have no history
               7.0 + gpu_term + rng.normal(0.0, 0.3, n),
               noisy(0.7),  # rolling estimate
               rng.poisson(3.0, n)]
    return np.column_stack(columns).astype(np.float32), target.astype(np.float32)


def _name_of_user(user, name_user, rng):
    # A user's own name clusters: the names whose owner is this user, else any name (rare users).
    order = np.argsort(name_user, kind="stable")
    first = np.searchsorted(name_user[order], user, side="left")
    last = np.searchsorted(name_user[order], user, side="right")
    count = last - first
    pick = first + (rng.random(len(user)) * np.maximum(count, 1)).astype(np.int64)
    return np.where(count > 0, order[np.minimum(pick, len(order) - 1)], rng.integers(0, len(name_user), len(user)))
