"""Workload profiles for trace jobs: Lucid's measured single-job and colocation tables.

Job traces carry no GPU-utilization data, so every job is given a *workload profile*: one
row of Lucid's ``single_data.csv`` (model, dataset, batch size, AMP and the exclusive-run
GPU utilization, GPU memory utilization, GPU memory and measured sharing label). When two
jobs share a GPU, each progresses at its normalized speed measured for that pair in
``colocate_info.csv``.

Reading of Lucid's "hierarchical sampling" (§4.1: "the long-term and large-scale jobs would
be more likely large model training (e.g., BERT, ResNet-50) and vice versa. We apply
hierarchical sampling to randomly assign each workload a job type"), implemented by
:func:`assign_profiles`:

1. Jobs are put in strata by duration tercile (short / medium / long, cut at the trace's own
   33rd and 67th duration percentiles) and scale (one GPU / several GPUs).
2. Models are put in three tiers (light / medium / heavy) by their mean exclusive GPU
   utilization, the feature Lucid finds most related to interference (Fig. 2a, Fig. 6).
3. Level 1 draws a tier from the stratum's tier probabilities (:data:`TIER_PROBS`, our
   choice: longer and larger jobs lean to heavier tiers); level 2 draws a model uniformly in
   the tier; level 3 draws one of that model's (batch size, AMP) configurations uniformly.

The probabilities are not published; they are a documented assumption, passed as a
parameter so a study can change them.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

SINGLE_COLUMNS = ("model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem", "label")
COLOCATE_COLUMNS = ("model1", "dataset1", "batchsize1", "amp1", "speed1",
                    "model2", "dataset2", "batchsize2", "amp2", "speed2", "gpu_util")

TIER_PROBS = {
    # (duration tercile, multi_gpu): P(light), P(medium), P(heavy)
    ("short", False): (0.60, 0.30, 0.10),
    ("short", True): (0.40, 0.40, 0.20),
    ("medium", False): (0.30, 0.40, 0.30),
    ("medium", True): (0.20, 0.40, 0.40),
    ("long", False): (0.10, 0.30, 0.60),
    ("long", True): (0.05, 0.25, 0.70),
}
"""Tier probabilities per job stratum used by :func:`assign_profiles` (an assumption, see module doc)."""


@dataclass(frozen=True)
class WorkloadProfile:
    """One measured training configuration (a row of ``single_data.csv``).

    ``gpu_util``, ``gmem_util`` (%) and ``gmem`` (MiB) are what Lucid's non-intrusive
    profiler observes; ``label`` is the measured sharing score (0 Tiny, 1 Medium, 2 Jumbo).
    """

    index: int
    model: str
    dataset: str
    batchsize: int
    amp: int
    speed: float
    gpu_util: float
    gmem_util: float
    gmem: float
    label: int

    @property
    def key(self) -> tuple[str, str, int, int]:
        return (self.model, self.dataset, self.batchsize, self.amp)


def _read_csv(path: Path, required, what: str) -> pd.DataFrame:
    if not path.is_file():
        raise FileNotFoundError(f"{what} not found: {path}")
    df = pd.read_csv(path)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: not a Lucid {what} (missing columns {missing})")
    return df


class WorkloadCatalog:
    """The profile table and the colocated speeds of every profile pair.

    Parameters
    ----------
    single : DataFrame with the columns of ``single_data.csv``.
    colocate : DataFrame with the columns of ``colocate_info.csv``.
    max_speed : colocated speeds are clipped to this value. The table holds a few values
        above 1 (measurement noise; a shared GPU cannot make a job faster than exclusive).

    Pairs that were not measured (208 of the 1,596 profile pairs, among them every pair with
    BERT, ResNet-50 or Transformer) get both jobs the pair-average speed predicted from the
    summed exclusive GPU utilization by a quadratic least-squares fit over the measured pairs,
    the relation of Lucid's Fig. 2a.

    Example
    -------
    >>> cat = WorkloadCatalog.from_data_dir("../shared/data")  # doctest: +SKIP
    >>> cat.colocated_speeds(0, 5)  # doctest: +SKIP
    (0.93, 0.88)
    """

    def __init__(self, single: pd.DataFrame, colocate: pd.DataFrame, max_speed: float = 1.0):
        self.profiles = [
            WorkloadProfile(i, str(r.model), str(r.dataset), int(r.batchsize), int(r.amp), float(r.speed),
                            float(r.gpu_util), float(r.gmem_util), float(r.gmem), int(r.label))
            for i, r in enumerate(single.itertuples(index=False))
        ]
        self.max_speed = max_speed
        index = {p.key: p.index for p in self.profiles}
        self._pair_speed: dict[tuple[int, int], tuple[float, float]] = {}
        util_sum, avg_speed, unknown = [], [], set()
        for r in colocate.itertuples(index=False):
            ka = (str(r.model1), str(r.dataset1), int(r.batchsize1), int(r.amp1))
            kb = (str(r.model2), str(r.dataset2), int(r.batchsize2), int(r.amp2))
            if ka not in index or kb not in index:
                unknown.update(k for k in (ka, kb) if k not in index)
                continue
            a, b = index[ka], index[kb]
            sa, sb = min(float(r.speed1), max_speed), min(float(r.speed2), max_speed)
            self._pair_speed[(a, b)] = (sa, sb)
            self._pair_speed[(b, a)] = (sb, sa)
            util_sum.append(self.profiles[a].gpu_util + self.profiles[b].gpu_util)
            avg_speed.append((sa + sb) / 2)
        if unknown:
            raise ValueError("colocation table names configurations missing from the profile table: "
                             f"{sorted(unknown)[:5]}")
        # Fallback for unmeasured pairs: pair-average speed vs summed exclusive GPU utilization (Fig. 2a).
        self._fallback = np.poly1d(np.polyfit(util_sum, avg_speed, 2)) if len(util_sum) >= 3 else None
        self._fallback_speed: dict[tuple[int, int], tuple[float, float]] = {}
        self.n_fallback_pairs = 0  # lookups of unmeasured pairs (reported by the simulator)

    @classmethod
    def from_data_dir(cls, data_dir=None, max_speed: float = 1.0) -> "WorkloadCatalog":
        """Load ``scheduler/lucid_profiles/{single_data,colocate_info}.csv`` under the data directory."""
        from primo.datasets import resolve_data_dir

        base = resolve_data_dir(data_dir) / "scheduler" / "lucid_profiles"
        single = _read_csv(base / "single_data.csv", SINGLE_COLUMNS, "single-job profile table")
        colocate = _read_csv(base / "colocate_info.csv", COLOCATE_COLUMNS, "colocation table")
        return cls(single, colocate, max_speed=max_speed)

    def __len__(self) -> int:
        return len(self.profiles)

    def find(self, model: str, dataset: str, batchsize: int, amp: int) -> WorkloadProfile:
        """The profile of one configuration; ``KeyError`` naming it when absent."""
        for p in self.profiles:
            if p.key == (model, dataset, int(batchsize), int(amp)):
                return p
        raise KeyError(f"no profile for {model}/{dataset} batch {batchsize} amp {amp}")

    def is_measured(self, a: int, b: int) -> bool:
        """Whether the pair of profile indices ``(a, b)`` was measured."""
        return (a, b) in self._pair_speed

    def colocated_speeds(self, a: int, b: int) -> tuple[float, float]:
        """Normalized speeds of profiles ``a`` and ``b`` when they share a GPU.

        Parameters
        ----------
        a, b : profile indices (``WorkloadProfile.index``).

        Returns
        -------
        (speed of a, speed of b), each in (0, ``max_speed``].
        """
        speeds = self._pair_speed.get((a, b))
        if speeds is not None:
            return speeds
        if self._fallback is None:
            raise KeyError(f"profile pair ({a}, {b}) was not measured and there is no fallback fit")
        self.n_fallback_pairs += 1
        speeds = self._fallback_speed.get((a, b))
        if speeds is None:
            fit = float(self._fallback(self.profiles[a].gpu_util + self.profiles[b].gpu_util))
            s = min(max(fit, 0.05), self.max_speed)
            speeds = self._fallback_speed[(a, b)] = self._fallback_speed[(b, a)] = (s, s)
        return speeds


def _model_tiers(catalog: WorkloadCatalog) -> list[list[str]]:
    """Models split in three tiers (light, medium, heavy) by mean exclusive GPU utilization."""
    util: dict[str, list[float]] = {}
    for p in catalog.profiles:
        util.setdefault(p.model, []).append(p.gpu_util)
    ordered = sorted(util, key=lambda m: (np.mean(util[m]), m))
    return [list(t) for t in np.array_split(np.array(ordered, dtype=object), 3)]


def assign_profiles(jobs: pd.DataFrame, catalog: WorkloadCatalog, seed: int = 0,
                    tier_probs: dict | None = None) -> np.ndarray:
    """Draw a workload profile for every job by hierarchical sampling (see module doc).

    Parameters
    ----------
    jobs : job table with ``gpu_num`` and ``duration`` columns.
    catalog : the profile catalog.
    seed : seed of the random generator; the same seed gives the same assignment.
    tier_probs : mapping ``(duration tercile, multi_gpu) -> (P(light), P(medium), P(heavy))``,
        default :data:`TIER_PROBS`.

    Returns
    -------
    Array of profile indices, one per job (row order of ``jobs``).

    Example
    -------
    >>> prof = assign_profiles(jobs, catalog, seed=0)  # doctest: +SKIP
    >>> catalog.profiles[prof[0]].model  # doctest: +SKIP
    'PointNet'
    """
    for col in ("gpu_num", "duration"):
        if col not in jobs.columns:
            raise ValueError(f"job table has no {col!r} column")
    probs = TIER_PROBS if tier_probs is None else tier_probs
    rng = np.random.default_rng(seed)
    tiers = _model_tiers(catalog)
    configs: dict[str, np.ndarray] = {}
    for p in catalog.profiles:
        configs.setdefault(p.model, []).append(p.index)
    configs = {m: np.array(v) for m, v in configs.items()}

    duration = jobs["duration"].to_numpy(float)
    cuts = np.percentile(duration, [100 / 3, 200 / 3]) if len(duration) else np.zeros(2)
    tercile = np.digitize(duration, cuts, right=True)
    multi = jobs["gpu_num"].to_numpy() > 1
    out = np.empty(len(jobs), dtype=np.int64)
    for t_idx, t_name in enumerate(("short", "medium", "long")):
        for is_multi in (False, True):
            rows = np.flatnonzero((tercile == t_idx) & (multi == is_multi))
            if not len(rows):
                continue
            p = np.asarray(probs[(t_name, is_multi)], float)
            tier = rng.choice(3, size=len(rows), p=p / p.sum())
            for k in range(3):
                sel = rows[tier == k]
                models = rng.choice(np.array(tiers[k], dtype=object), size=len(sel))
                for model in sorted(set(models)):
                    m_rows = sel[models == model]
                    out[m_rows] = rng.choice(configs[model], size=len(m_rows))
    return out
