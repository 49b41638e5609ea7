"""The logs of Pensieve's original simulator (``golden_logs/log_sim_<policy>_<trace>``).

48 tab-separated rows per trace, columns as :data:`adapters.pensieve.evaluation.LOG_COLUMNS`. The
time column keeps running across traces, so sorting the logs by their first time stamp gives the
order in which the traces were played.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from primo.datasets import resolve_data_dir
from adapters.pensieve.baselines import Policy
from adapters.pensieve.evaluation import LOG_COLUMNS, pensieve_logs, play_traces
from adapters.pensieve.traces import load_trace_set
from adapters.pensieve.video import N_CHUNKS, load_video

GOLDEN_POLICIES = ("rl", "bb", "mpc", "primo")


def load_golden_log(path: str | os.PathLike) -> np.ndarray:
    """Read one log as an array of shape (48, 7).

    Raises
    ------
    ValueError
        If the file does not hold 48 rows of 7 numbers.
    """
    path = Path(path)
    rows = []
    for line_number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            rows.append([float(x) for x in fields])
        except ValueError:
            raise ValueError(f"{path}:{line_number}: expected numbers, got {line!r}") from None
        if len(fields) != len(LOG_COLUMNS):
            raise ValueError(f"{path}:{line_number}: expected {len(LOG_COLUMNS)} columns, got {len(fields)}")
    if len(rows) != N_CHUNKS:
        raise ValueError(f"{path}: expected {N_CHUNKS} rows, got {len(rows)}")
    return np.array(rows)


def load_golden_logs(policy: str, data_dir: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """All logs of one policy, keyed by trace name, in the order the traces were played.

    Parameters
    ----------
    policy : {"rl", "bb", "mpc", "primo"}

    Example
    -------
    >>> logs = load_golden_logs("rl")  # doctest: +SKIP
    >>> len(logs), next(iter(logs))  # doctest: +SKIP
    (142, 'norway_tram_25')
    """
    if policy not in GOLDEN_POLICIES:
        raise ValueError(f"unknown golden policy {policy!r}; expected one of {GOLDEN_POLICIES}")
    directory = resolve_data_dir(data_dir) / "pensieve" / "golden_logs"
    prefix = f"log_sim_{policy}_"
    logs = {p.name[len(prefix):]: load_golden_log(p) for p in directory.glob(prefix + "*")}
    if not logs:
        raise FileNotFoundError(f"no {prefix}* logs in {directory}")
    return dict(sorted(logs.items(), key=lambda item: item[1][0, 0]))


def golden_qoe(log: np.ndarray) -> float:
    """QoE of one log: mean reward excluding chunk 0."""
    return float(np.mean(log[1:, LOG_COLUMNS.index("reward")]))


def replay_golden(
    policy: Policy, policy_name: str, data_dir: str | os.PathLike | None = None, *, progress: bool = False
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Replay Pensieve's evaluation run with ``policy`` and pair our logs with the golden ones.

    All HSDPA traces are played back to back in the order of the ``rl`` logs' clock (the ``bb``
    and ``mpc`` runs used the same order: their clocks match it), with one policy object and one
    running clock, as the original scripts did.

    Parameters
    ----------
    policy : Policy
        For ``"rl"``, ``ActorTeacher(actor, np.random.RandomState(42))`` is the original setup.
    policy_name : {"rl", "bb", "mpc", "primo"}
        Which golden logs to pair with.

    Returns
    -------
    dict
        ``trace name -> (our rows, golden rows)`` for every trace with a golden log, both (48, 7).

    Example
    -------
    >>> pairs = replay_golden(BufferBasedPolicy(), "bb")  # doctest: +SKIP
    >>> all((ours == golden).all() for ours, golden in pairs.values())  # doctest: +SKIP
    True
    """
    golden = load_golden_logs(policy_name, data_dir)
    order = list(load_golden_logs("rl", data_dir))
    by_name = {trace.name: trace for trace in load_trace_set("hsdpa", data_dir)}
    missing = set(order) - set(by_name)
    if missing:
        raise FileNotFoundError(f"HSDPA traces named by the golden logs are missing: {sorted(missing)[:5]}")
    runs = play_traces(policy, [by_name[name] for name in order], load_video(data_dir), progress=progress)
    ours = pensieve_logs(runs)
    return {name: (ours[name], rows) for name, rows in golden.items()}
