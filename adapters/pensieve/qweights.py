"""VIPER's state weights for Pensieve's actor from Monte-Carlo Q-values measured in the simulator.

The pretrained actor ships without its critic, so VIPER's weight l(s) = V(s) − min_a Q(s, a) (how
much a wrong action can cost in state s) is not available from the network. The simulator gives it:
at every state of a training episode, each of the 6 levels is tried on a copy of the environment and
the actor (argmax) then plays on for ``horizon − 1`` more chunks; Q(s, a) is the sum of those
rewards. The distillation still learns the actor's own actions; only the states' weights change
(DAgger with Q-weighted states instead of the probability margin, which is high where the actor is
sure, not where a mistake is expensive).

The Q-values are recorded while the training episodes are played (:class:`QRecordingEnv`), so the
teacher (:class:`QWeightedTeacher`) looks them up by observation; rollouts must then run in this
process (``n_jobs=1``).

Example
-------
>>> cache = {}
>>> teacher = QWeightedTeacher(load_actor(), load_video(), cache)  # doctest: +SKIP
>>> make_env = QRecordingEnvFactory(DistillationEnvFactory(traces, video), load_actor(), cache)  # doctest: +SKIP
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from adapters.pensieve.actor import PensieveActor
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.student import DistillationEnvFactory, StudentObservationEnv, StudentViewTeacher
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.video import N_LEVELS, Video

#: Chunks a tried level is followed for: its own chunk and the actor's next 7 (32 s of video), long
#: enough for a stall or a bitrate switch it causes to show, short enough to cost ~1 ms per level.
DEFAULT_HORIZON = 8


def _fork(env: PensieveEnv) -> PensieveEnv:
    """An independent copy of ``env`` mid-episode that shares the (read-only) traces and video."""
    simulator = env.simulator
    shared = [simulator.video, *simulator.traces]
    shared += [array for trace in simulator.traces for array in (trace.times_s, trace.bandwidth_mbps)]
    return copy.deepcopy(env, memo={id(obj): obj for obj in shared})


def monte_carlo_q_values(env: PensieveEnv, actor_teacher: ActorTeacher, horizon: int = DEFAULT_HORIZON) -> np.ndarray:
    """Q(s, a) for the environment's current state s and each level a, shape (6,).

    Each level is downloaded on a fork of ``env``, then the actor's argmax plays ``horizon − 1``
    more chunks (fewer if the video ends); Q is the sum of the rewards. ``env`` itself is not moved.

    Example
    -------
    >>> env = PensieveEnv(traces, video); obs, _ = env.reset()  # doctest: +SKIP
    >>> monte_carlo_q_values(env, ActorTeacher(load_actor())).round(2)  # doctest: +SKIP
    """
    if horizon < 1:
        raise ValueError(f"horizon must be >= 1, got {horizon}")
    forks = [_fork(env) for _ in range(N_LEVELS)]
    steps = [fork.step(level) for level, fork in enumerate(forks)]
    q = np.array([step[1] for step in steps])
    observations = np.array([step[0] for step in steps])
    running = np.array([not step[2] for step in steps])
    for _ in range(horizon - 1):
        if not running.any():
            break
        # The six forks advance in lockstep: one batched actor call per chunk instead of six.
        actions = actor_teacher.predict(observations[running])
        for index, action in zip(np.flatnonzero(running), actions):
            obs, reward, terminated, _, _ = forks[index].step(int(action))
            observations[index], q[index], running[index] = obs, q[index] + reward, not terminated
    return q


class QRecordingEnv:
    """A student-view training environment that records Q(s, ·) of every state it shows.

    Parameters
    ----------
    env : StudentObservationEnv
    actor : PensieveActor
    cache : dict
        Filled with ``student observation bytes -> Q-values`` (shared with :class:`QWeightedTeacher`).
    horizon : int
    """

    def __init__(self, env: StudentObservationEnv, actor: PensieveActor, cache: dict, horizon: int = DEFAULT_HORIZON):
        self.env = env
        self.feature_names = env.feature_names
        self.n_actions = env.n_actions
        self._actor = ActorTeacher(actor)
        self._cache = cache
        self._horizon = horizon

    def _record(self, obs: np.ndarray, done: bool) -> None:
        if not done:
            self._cache[obs.tobytes()] = monte_carlo_q_values(self.env.env, self._actor, self._horizon)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._record(obs, False)
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._record(obs, terminated or truncated)
        return obs, reward, terminated, truncated, info


class QWeightedTeacher(StudentViewTeacher):
    """The actor over the student's features, with ``q_values`` whose argmax is the actor's action
    and whose spread max − min is VIPER's l(s) = Q(s, π(s)) − min_a Q(s, a) from the recorded
    Monte-Carlo Q-values (π = the actor). States without a record (evaluation states, used only
    for their argmax) get the actor's probabilities.

    With ``improve=True`` the recorded states get the Q-values themselves: the labels become
    argmax_a Q(s, a), one step of policy improvement over the actor (with an 8-chunk horizon, so a
    myopic one), and the student no longer imitates the actor there.

    Example
    -------
    >>> teacher = QWeightedTeacher(load_actor(), load_video(), cache)  # doctest: +SKIP
    >>> PolicyTeacher(teacher).state_importance(states, "q")  # doctest: +SKIP
    """

    def __init__(self, actor: PensieveActor, video: Video, cache: dict, improve: bool = False):
        super().__init__(actor, video)
        self.cache = cache
        self.improve = improve

    def q_values(self, obs_batch: np.ndarray) -> np.ndarray:
        obs_batch = np.asarray(obs_batch, dtype=float)
        values = self.action_probabilities(obs_batch).astype(float)  # the actor computes in float32
        chosen = values.argmax(axis=1)
        for row, (obs, action) in enumerate(zip(obs_batch, chosen)):
            q = self.cache.get(np.ascontiguousarray(obs).tobytes())
            if q is not None and self.improve:
                values[row] = q
            elif q is not None:
                values[row] = 0.0
                # A tiny floor keeps the actor's action the argmax where every level is worth the same.
                values[row, action] = max(q[action] - q.min(), 0.0) + 1e-9
        return values

    def __repr__(self) -> str:
        return super().__repr__().replace("StudentViewTeacher", "QWeightedTeacher") + f", {len(self.cache)} Q records"


@dataclass
class QRecordingEnvFactory:
    """Wraps a :class:`~adapters.pensieve.student.DistillationEnvFactory` so that its training
    episodes (not the evaluation episodes) record Q-values into ``cache``.

    Example
    -------
    >>> make_env = QRecordingEnvFactory(DistillationEnvFactory(traces, video), load_actor(), cache)  # doctest: +SKIP
    """

    make_env: DistillationEnvFactory
    actor: PensieveActor
    cache: dict
    horizon: int = DEFAULT_HORIZON

    @property
    def evaluation_seeds(self) -> list[int]:
        return self.make_env.evaluation_seeds

    def __call__(self, seed: int):
        env = self.make_env(seed)
        if isinstance(env, StudentObservationEnv):  # a training episode
            return QRecordingEnv(env, self.actor, self.cache, self.horizon)
        return env
