"""Trace-driven failover simulator of a replicated flash array (LinnOS's deployment setting).

An array keeps the same data on ``N`` devices (replicas). Every read of the workload goes first
to the primary (device 0). Without a predictor (**Base**) it is always served there. With a
predictor per device (**LinnOS**, a tree, ...), the read is checked against the device it is
about to be submitted to: if predicted slow it is revoked and re-issued to the next replica, at
most ``N - 1`` times; the last replica always accepts (no inference is run there, since its
answer could not change anything). The simulated latency of a read is the latency of the device
that serves it plus the inference cost of every prediction made for it.

Assumptions (each one a simplification of a real array):

* **Devices are traces.** Device ``k`` is a FlashNet read trace (its own per-read latencies and
  raw features, see ``features.read_features``). The workload is the primary's reads. A read
  submitted at time ``t`` (relative to the primary's first read) meets device ``k`` in the state
  of device ``k``'s trace at ``t + time_offset_us`` (relative to that trace's first read): the
  latency and features of the last read of trace ``k`` submitted at or before that instant.
  Shorter traces wrap around (time modulo their span plus one mean inter-arrival gap). A
  replica may be a different trace, or the same trace shifted in time (``time_offset_us``),
  which keeps the device model but breaks the correlation between replicas' slow periods. The
  primary (offset 0) serves each workload read as recorded.
* **Open loop.** Redirected reads do not add load to the replica, and revoked reads do not
  relieve the primary: each device's latencies and queue lengths are those recorded in its
  trace, whatever the policy does. Each device's features are also taken from its trace, so a
  predictor sees the history that device had when the trace was recorded.
* **Failover is free** apart from inference (the Primo chapter: "the overhead of switching the
  read operation to a redundant SSD is ignorable"); ``failover_cost_us`` adds a fixed cost per
  revoke if wanted.
* **Inference cost** is a constant per prediction (µs), measured beforehand, e.g. with
  ``adapters.linnos.c_inference.measure_c_predictor``; it is added, not overlapped with I/O.
* Writes are not simulated (LinnOS only predicts reads); they matter only through the pending
  counts and latencies already in the traces.

Because the last replica always accepts, a read can end up slower than under Base even with a
perfect (and free) predictor: when it is slow on every device but the last, and the last is
slower still. Every other read is served no slower than under Base: reads fast on the primary
stay there, and slow ones move to a replica where they are fast. A perfect *classifier*
(``OraclePredictor``) is not a latency-optimal policy either: a false revoke of a read that is
just under the threshold can land on a much faster replica.

Example
-------
>>> devices = [ReplicaDevice(f"ssd{k}", reads[k]) for k in range(3)]  # doctest: +SKIP
>>> linnos = FailoverPolicy("LinnOS", [net0, net1, net2], inference_cost_us=4.1)  # doctest: +SKIP
>>> results = simulate_array(devices, [BASE, linnos])  # doctest: +SKIP
>>> results["LinnOS"].summary()["mean_us"]  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol, Sequence

import numpy as np
import pandas as pd

from .features import RAW_FEATURE_NAMES

logger = logging.getLogger(__name__)

PERCENTILES = (90, 95, 99, 99.9, 99.99)
N_ARRAY_DEVICES = 3  # the paper's array: a primary and two replicas


class SlowReadPredictor(Protocol):
    """Anything with ``predict(features) -> array of 0 (fast) / 1 (slow)``.

    ``features`` is a DataFrame with the columns ``features.RAW_FEATURE_NAMES``, one row per
    read, labelled with the row labels of the device's ``reads``.
    """

    def predict(self, features: pd.DataFrame) -> np.ndarray: ...


@dataclass(frozen=True)
class ReplicaDevice:
    """One device of the array, backed by a read trace.

    Parameters
    ----------
    name : str
    reads : DataFrame
        Output of ``features.read_features`` (or a contiguous slice of it): ``submit_us``
        (non-decreasing), ``latency_us`` and the raw features.
    time_offset_us : int
        Shift of this device's clock against the workload's (see the module docstring).
    """

    name: str
    reads: pd.DataFrame
    time_offset_us: int = 0

    def __post_init__(self):
        missing = {"submit_us", "latency_us", *RAW_FEATURE_NAMES} - set(self.reads.columns)
        if missing:
            raise ValueError(f"device {self.name!r}: reads lack columns {sorted(missing)}")
        if len(self.reads) == 0:
            raise ValueError(f"device {self.name!r} has no reads")
        if np.any(np.diff(self.reads["submit_us"].to_numpy()) < 0):
            raise ValueError(f"device {self.name!r}: reads must be sorted by submit_us")

    def state_at(self, elapsed_us: np.ndarray) -> np.ndarray:
        """Row positions of this device's reads in force ``elapsed_us`` after the workload starts."""
        submit = self.reads["submit_us"].to_numpy(np.int64)
        relative = submit - submit[0]
        # Wrap-around period: the trace's span plus one mean inter-arrival gap, so that the last
        # read stays in force about as long as any other before the trace starts over.
        gap = relative[-1] // (relative.size - 1) if relative.size > 1 else 0
        period = relative[-1] + max(gap, 1)
        local = (np.asarray(elapsed_us, dtype=np.int64) + self.time_offset_us) % period
        return np.searchsorted(relative, local, side="right") - 1


@dataclass(frozen=True)
class FailoverPolicy:
    """A named way of serving reads: one predictor per device (None = Base) and its cost.

    Parameters
    ----------
    name : str
    predictors : sequence of predictors, or None
        ``predictors[k]`` decides for device ``k``; the last device's predictor is never asked.
        A single predictor may be repeated. ``None`` means Base (always the primary).
    inference_cost_us : float
        Cost of one prediction, added to the read's latency each time a predictor is asked.
    failover_cost_us : float
        Extra cost per revoke (0: LinnOS's assumption that failover is free).
    """

    name: str
    predictors: Sequence[SlowReadPredictor] | None = None
    inference_cost_us: float = 0.0
    failover_cost_us: float = 0.0


BASE = FailoverPolicy("Base")


class OraclePredictor:
    """Perfect knowledge of one device: slow iff that read's recorded latency exceeds a threshold.

    An upper bound for any predictor with the same threshold, not a deployable model: it looks
    the latency up by the row labels of the features the simulator passes.

    Parameters
    ----------
    reads : DataFrame
        The device's reads (the same frame as ``ReplicaDevice.reads``).
    threshold_us : float
        Slow threshold of the device.

    Example
    -------
    >>> oracle = OraclePredictor(reads, threshold_us=2600.0)  # doctest: +SKIP
    """

    def __init__(self, reads: pd.DataFrame, threshold_us: float):
        self.reads = reads
        self.threshold_us = threshold_us

    def predict(self, features: pd.DataFrame) -> np.ndarray:
        latency = self.reads["latency_us"].loc[features.index].to_numpy()
        return (latency > self.threshold_us).astype(np.int64)


@dataclass(frozen=True)
class SimulationResult:
    """Per-read outcome of one policy: latency (µs), serving device, predictions made."""

    policy: str
    latency_us: np.ndarray
    served_by: np.ndarray
    predictions_made: np.ndarray
    base_latency_us: np.ndarray = field(repr=False)

    def summary(self) -> dict[str, float]:
        """Mean and tail latencies (µs), their change against Base, and failover counts.

        Example
        -------
        >>> result.summary()["p99_us"]  # doctest: +SKIP
        """
        stats = latency_summary(self.latency_us)
        base = latency_summary(self.base_latency_us)
        for key in list(stats):
            stats[key.replace("_us", "_vs_base")] = stats[key] / base[key]
        stats["revoked_fraction"] = float(np.mean(self.served_by > 0))
        stats["mean_predictions_per_read"] = float(np.mean(self.predictions_made))
        stats["n_reads"] = float(self.latency_us.size)
        return stats


def latency_summary(latency_us) -> dict[str, float]:
    """Mean and p90/p95/p99/p99.9/p99.99 of latencies, keys like ``"p99.9_us"``.

    Example
    -------
    >>> latency_summary(np.arange(1, 101))["mean_us"]
    50.5
    """
    latency = np.asarray(latency_us, dtype=float)
    stats = {"mean_us": float(latency.mean())}
    for q, value in zip(PERCENTILES, np.percentile(latency, PERCENTILES)):
        stats[f"p{q:g}_us"] = float(value)
    return stats


def array_layouts(n_traces: int) -> tuple[str, ...]:
    """The array layouts ``n_traces`` distinct traces allow: ``"shifted"`` always, ``"traces"`` from 3 on.

    Example
    -------
    >>> array_layouts(1), array_layouts(3)
    (('shifted',), ('traces', 'shifted'))
    """
    return ("traces", "shifted") if n_traces >= N_ARRAY_DEVICES else ("shifted",)


def array_members(devices: Sequence, primary: int, layout: str, n_devices: int = N_ARRAY_DEVICES) -> list[tuple]:
    """(device, clock offset µs) of the array whose primary is ``devices[primary]``.

    ``devices`` are objects with a ``test`` DataFrame of reads (``submit_us`` column).
    ``"traces"``: the primary and the next ``n_devices - 1`` devices (in the given order,
    cyclically), each a different trace with its own models; ``"shifted"``: the primary's trace
    ``n_devices`` times, shifted by 0, 1/n, 2/n... of its test window (same device model,
    uncorrelated slow periods).

    The ``"traces"`` layout needs at least ``n_devices`` distinct devices (compared by their
    ``name`` when they have one): with fewer, a trace would be its own replica, and its slow
    periods would line up with themselves.

    Example
    -------
    >>> array_members(["a", "b", "c"], 1, "traces")
    [('b', 0), ('c', 0), ('a', 0)]
    """
    if layout == "traces":
        names = [getattr(device, "name", device) for device in devices]
        if len(set(names)) != len(names):
            raise ValueError(f"layout 'traces' needs distinct traces, got duplicates in {names}")
        if len(devices) < n_devices:
            raise ValueError(f"layout 'traces' needs at least {n_devices} distinct traces for a {n_devices}-device "
                             f"array, got {len(devices)}; use layout 'shifted' (one trace shifted in time)")
        return [(devices[(primary + k) % len(devices)], 0) for k in range(n_devices)]
    if layout == "shifted":
        device = devices[primary]
        submit = device.test["submit_us"].to_numpy()
        span = int(submit[-1] - submit[0])
        return [(device, k * span // n_devices) for k in range(n_devices)]
    raise ValueError(f"layout must be 'traces' or 'shifted', got {layout!r}")


def simulate_array(
    devices: Sequence[ReplicaDevice], policies: Sequence[FailoverPolicy]
) -> dict[str, SimulationResult]:
    """Replay the primary's reads on the array under each policy.

    Parameters
    ----------
    devices : sequence of ReplicaDevice, at least 2
        ``devices[0]`` is the primary; its reads are the workload.
    policies : sequence of FailoverPolicy
        Policies to compare (include ``BASE`` to get the baseline row).

    Returns
    -------
    dict mapping policy name to ``SimulationResult``.

    Example
    -------
    >>> results = simulate_array(devices, [BASE, linnos_policy])  # doctest: +SKIP
    >>> {name: r.summary()["mean_us"] for name, r in results.items()}  # doctest: +SKIP
    """
    if len(devices) < 2:
        raise ValueError("a replicated array needs at least 2 devices")
    names = [policy.name for policy in policies]
    if len(set(names)) != len(names):
        raise ValueError(f"policy names must be unique, got {names}")
    if devices[0].time_offset_us != 0:
        raise ValueError("the primary device defines the workload's clock: its time_offset_us must be 0")
    primary = devices[0].reads["submit_us"].to_numpy(np.int64)
    elapsed = primary - primary[0]
    # Each workload read is itself on the primary (state_at would pick the last of tied submits).
    rows = [np.arange(primary.size)] + [device.state_at(elapsed) for device in devices[1:]]
    latency = np.column_stack(
        [d.reads["latency_us"].to_numpy(float)[r] for d, r in zip(devices, rows)]
    )
    # Row labels stay those of each device's reads, so an OraclePredictor can look latencies up.
    features = [d.reads[RAW_FEATURE_NAMES].iloc[r] for d, r in zip(devices, rows)]
    return {
        policy.name: _run_policy(policy, latency, features) for policy in policies
    }


def _run_policy(
    policy: FailoverPolicy, latency: np.ndarray, features: list[pd.DataFrame]
) -> SimulationResult:
    """Serve every read under one policy; ``latency`` is (reads, devices)."""
    n_reads, n_devices = latency.shape
    base = latency[:, 0]
    if policy.predictors is None:
        zeros = np.zeros(n_reads, dtype=np.int64)
        return SimulationResult(policy.name, base.copy(), zeros, zeros, base)
    if len(policy.predictors) < n_devices - 1:
        raise ValueError(
            f"policy {policy.name!r} has {len(policy.predictors)} predictors for "
            f"{n_devices} devices (needs at least {n_devices - 1})"
        )
    # Predictions do not depend on earlier decisions (open loop), so each device's predictor
    # runs once over all reads; only the ones a read actually reaches are charged.
    slow = np.column_stack(
        [_predict(policy.predictors[k], features[k], policy.name) for k in range(n_devices - 1)]
    )
    accepted = np.column_stack([~slow, np.ones(n_reads, dtype=bool)])
    served_by = np.argmax(accepted, axis=1)
    predictions = np.minimum(served_by + 1, n_devices - 1)
    result = (
        latency[np.arange(n_reads), served_by]
        + predictions * policy.inference_cost_us
        + served_by * policy.failover_cost_us
    )
    logger.info("%s: %.1f%% of reads failed over", policy.name, 100 * np.mean(served_by > 0))
    return SimulationResult(policy.name, result, served_by, predictions, base)


def _predict(predictor: SlowReadPredictor, features: pd.DataFrame, policy: str) -> np.ndarray:
    predicted = np.asarray(predictor.predict(features)).ravel()
    if predicted.shape[0] != len(features) or not np.isin(predicted, (0, 1)).all():
        raise ValueError(
            f"policy {policy!r}: predict() must return one 0/1 value per read "
            f"({len(features)} expected, got shape {predicted.shape})"
        )
    return predicted.astype(bool)
