"""What the interpretable student sees, and the actor as a teacher over that view.

The 41-feature observation (:mod:`adapters.pensieve.observation`) carries 16 entries that exist only
so that the actor's 6x8 state can be rebuilt bit for bit. The student sees the 25 features a system
developer reasons with (:data:`STUDENT_FEATURES`):

* ``last_bitrate_kbps`` and ``buffer_s``;
* the throughput (MB/s) and download time (s, RTT included) of the last 8 chunks, ``lag0`` newest;
* the 6 sizes of the next chunk (MB);
* ``chunks_left``.

Dropped: ``bitrate_kbps_lag1..7`` and ``buffer_s_lag1..7`` (the actor only reads the newest column of
state rows 0 and 1), and ``next_size_MB_300kbps_lag1..2`` (stale level-0 sizes left in state row 4 by
its wrap-around roll). The actor's output does not depend on the dropped entries except
``next_size_MB_300kbps_lag1``, which its ``FullyConnected_2`` layer reads; that value is the 300 kbps
size of the chunk just downloaded, a function of ``chunks_left`` for the fixed test video. So the
actor is an exact function of the student's 25 features (:class:`StudentViewTeacher`), and the
distillation needs no hidden state.

Example
-------
>>> len(STUDENT_FEATURES)
25
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from primo.export import compile_python

from adapters.pensieve.actor import PensieveActor
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.observation import FEATURE_INDEX, FEATURE_NAMES, LEVEL0_SIZE_LAGS, N_FEATURES
from adapters.pensieve.state import S_LEN
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.traces import Trace
from adapters.pensieve.video import BITRATES_KBPS, N_CHUNKS, Video

STUDENT_FEATURES: tuple[str, ...] = (
    "last_bitrate_kbps",
    "buffer_s",
    *(f"throughput_MBps_lag{k}" for k in range(S_LEN)),
    *(f"download_time_s_lag{k}" for k in range(S_LEN)),
    *(f"next_size_MB_{kbps}kbps" for kbps in BITRATES_KBPS),
    "chunks_left",
)
#: Positions of the student features in the 41-feature observation.
STUDENT_COLUMNS = np.array([FEATURE_INDEX[name] for name in STUDENT_FEATURES])
#: The observation entries the student does not see.
DROPPED_FEATURES: tuple[str, ...] = tuple(name for name in FEATURE_NAMES if name not in STUDENT_FEATURES)

_CHUNKS_LEFT = STUDENT_FEATURES.index("chunks_left")


def student_view(obs: np.ndarray) -> np.ndarray:
    """The student's features of one observation (41,) or a batch (n, 41).

    Example
    -------
    >>> student_view(np.zeros((3, 41))).shape
    (3, 25)
    """
    obs = np.asarray(obs, dtype=float)
    if obs.shape[-1] != N_FEATURES:
        raise ValueError(f"observations must have {N_FEATURES} features (the environment's), got shape {obs.shape}")
    return obs[..., STUDENT_COLUMNS]


class StudentObservationEnv:
    """A :class:`PensieveEnv` whose observations are the student's 25 features.

    Parameters
    ----------
    env : PensieveEnv

    Example
    -------
    >>> env = StudentObservationEnv(PensieveEnv(traces, video))  # doctest: +SKIP
    >>> env.reset()[0].shape  # doctest: +SKIP
    (25,)
    """

    feature_names = STUDENT_FEATURES

    def __init__(self, env: PensieveEnv):
        self.env = env
        self.n_actions = env.n_actions

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        return student_view(obs), info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        return student_view(obs), reward, terminated, truncated, info


class StudentViewTeacher:
    """Pensieve's actor as a function of the student's features (exactly the actor's output).

    The full observation is rebuilt with the features the actor reads: the student's, plus the
    300 kbps size of the chunk just downloaded, looked up in ``video`` by ``chunks_left``. The other
    dropped entries are set to 0; the actor never reads them.

    Parameters
    ----------
    actor : PensieveActor
    video : Video
        The video the environment plays (its chunk sizes give the looked-up entry).

    Example
    -------
    >>> teacher = StudentViewTeacher(load_actor(), load_video())  # doctest: +SKIP
    >>> teacher.action_probabilities(student_obs_batch).shape  # doctest: +SKIP
    (n, 6)
    """

    def __init__(self, actor: PensieveActor, video: Video):
        self.actor = actor
        self.video = video
        self._teacher = ActorTeacher(actor)
        # Level-0 size (MB, same expression as the observation) of the chunk just downloaded, by
        # chunks left; after chunk 0 the state still holds the initial zero.
        downloaded = N_CHUNKS - 1 - np.arange(N_CHUNKS)
        sizes = np.asarray(video.chunk_bytes[0, downloaded], dtype=float) / 1000.0 / 1000.0
        self._level0_by_chunks_left = np.where(downloaded >= 1, sizes, 0.0)

    def full_observations(self, obs_batch: np.ndarray) -> np.ndarray:
        """41-feature observations with every entry the actor reads, shape (n, 41)."""
        obs_batch = np.asarray(obs_batch, dtype=float)
        if obs_batch.ndim != 2 or obs_batch.shape[1] != len(STUDENT_FEATURES):
            raise ValueError(
                f"expected student observations of shape (n, {len(STUDENT_FEATURES)}), got {obs_batch.shape}"
            )
        chunks_left = obs_batch[:, _CHUNKS_LEFT]
        if not np.all((chunks_left >= 0) & (chunks_left < N_CHUNKS) & (chunks_left == np.round(chunks_left))):
            raise ValueError(f"chunks_left must be an integer in [0, {N_CHUNKS - 1}]")
        full = np.zeros((len(obs_batch), N_FEATURES))
        full[:, STUDENT_COLUMNS] = obs_batch
        full[:, LEVEL0_SIZE_LAGS[0]] = self._level0_by_chunks_left[chunks_left.astype(int)]
        return full

    def action_probabilities(self, obs_batch: np.ndarray) -> np.ndarray:
        """The actor's probabilities of the 6 levels, shape (n, 6)."""
        return self._teacher.action_probabilities(self.full_observations(obs_batch))

    def predict(self, obs_batch: np.ndarray) -> np.ndarray:
        """The actor's greedy levels (argmax)."""
        return self.action_probabilities(obs_batch).argmax(axis=1)

    def __repr__(self) -> str:
        return (f"StudentViewTeacher(Pensieve actor, {self.actor.n_parameters} parameters, "
                f"{len(STUDENT_FEATURES)} student features)")


@dataclass
class DistillationEnvFactory:
    """``make_env(seed)`` for the distill engine: a student-view environment over ``traces``.

    Seeds ``0 .. n - 1`` are evaluation episodes: validation trace ``seed`` (``validation_traces``,
    or ``traces`` when there are none) played as in the evaluation (from point 1, no noise), so that
    held-out rewards measure the QoE the case study reports. Any other seed (the engine draws
    training seeds from ``[2**30, 2**31)``) is a training episode on one of ``traces`` picked by the
    seed, with Pensieve's training-time variants when ``training_variants`` is on (delay noise
    ×U(0.9, 1.1), random start point), and its bandwidth multiplied by a factor drawn log-uniformly
    from ``bandwidth_scale`` when given (more diverse rollouts: slower and faster links than the
    training traces hold). An episode is thus a pure function of its seed. A dataclass rather than a
    closure so that joblib workers receive it.

    Example
    -------
    >>> make_env = DistillationEnvFactory(load_trace_set("hsdpa"), load_video())  # doctest: +SKIP
    >>> make_env(3).reset(seed=3)[1]["trace_index"]  # doctest: +SKIP
    3
    """

    traces: Sequence[Trace]
    video: Video
    training_variants: bool = True
    validation_traces: Sequence[Trace] | None = None
    bandwidth_scale: tuple[float, float] | None = None

    def __post_init__(self):
        if self.bandwidth_scale is not None:
            low, high = self.bandwidth_scale
            if not 0 < low <= high:
                raise ValueError(f"bandwidth_scale must be (low, high) with 0 < low <= high, got {self.bandwidth_scale}")

    @property
    def _evaluation_traces(self) -> Sequence[Trace]:
        return self.traces if self.validation_traces is None else self.validation_traces

    @property
    def evaluation_seeds(self) -> list[int]:
        """One evaluation seed per validation trace."""
        return list(range(len(self._evaluation_traces)))

    def __call__(self, seed: int) -> "StudentObservationEnv | _FixedTraceEnv":
        evaluation = self._evaluation_traces
        if 0 <= seed < len(evaluation):
            return _FixedTraceEnv(StudentObservationEnv(PensieveEnv(evaluation, self.video)), seed)
        if self.bandwidth_scale is None:
            return StudentObservationEnv(PensieveEnv(
                self.traces, self.video, trace_selection="random", delay_noise=self.training_variants,
                random_start=self.training_variants, seed=seed,
            ))
        rng = np.random.default_rng(seed)
        trace = self.traces[int(rng.integers(len(self.traces)))]
        factor = float(np.exp(rng.uniform(*np.log(self.bandwidth_scale))))
        scaled = Trace(trace.name, trace.times_s, trace.bandwidth_mbps * factor)
        return StudentObservationEnv(PensieveEnv(
            [scaled], self.video, delay_noise=self.training_variants, random_start=self.training_variants, seed=seed,
        ))


class _FixedTraceEnv:
    """Plays one given trace on every ``reset`` (the seed only names the episode)."""

    def __init__(self, env: StudentObservationEnv, trace_index: int):
        self.env = env
        self.trace_index = trace_index
        self.feature_names = env.feature_names

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        return self.env.reset(options={**(options or {}), "trace_index": self.trace_index})

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        return self.env.step(action)


class StudentPolicy:
    """A fitted student (predicting levels from the 25 student features) as an ABR policy over the
    41-feature observation, through Primo's single-row fast path.

    Parameters
    ----------
    model : fitted PrDT (or any model :func:`primo.export.compile_python` accepts)

    Example
    -------
    >>> evaluate_policy(StudentPolicy(tree), load_trace_set("fcc"), load_video())  # doctest: +SKIP
    """

    def __init__(self, model):
        self.model = model
        self._predict_one = compile_python(model)

    def reset(self) -> None:
        pass

    def act(self, obs: np.ndarray) -> int:
        return int(self._predict_one(student_view(obs).tolist()))
