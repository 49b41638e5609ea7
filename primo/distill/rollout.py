"""Roll a policy out in an environment, one episode per seed, in parallel with joblib.

Each episode is ``env = make_env(seed); obs, info = env.reset(seed=seed)``, then greedy steps until
the environment terminates or truncates it, or ``max_steps`` is reached. Because an episode depends
only on its seed (and the policy), results do not depend on ``n_jobs`` or on how episodes are
split between workers.

Example
-------
>>> episodes = rollout(policy, make_env, seeds=range(10), max_steps=500, n_jobs=2)  # doctest: +SKIP
>>> np.mean([e.total_reward for e in episodes])  # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import joblib
import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Episode:
    """One rolled-out episode: the observations the policy acted on, its actions and rewards."""

    seed: int
    observations: np.ndarray  # (T, n_features)
    actions: np.ndarray  # (T,)
    rewards: np.ndarray  # (T,)
    terminated: bool
    truncated: bool  # by the environment or by max_steps

    @property
    def total_reward(self) -> float:
        return float(self.rewards.sum())

    def __len__(self) -> int:
        return len(self.actions)


def rollout(policy, make_env, seeds, *, max_steps: int | None = None, n_jobs: int | None = 1) -> list[Episode]:
    """Run ``policy`` for one episode per seed; returns the episodes in the order of ``seeds``.

    Parameters
    ----------
    policy : callable
        ``policy(obs_batch) -> actions`` for an (n, n_features) batch (a
        :class:`~primo.distill.protocols.PolicyTeacher`, or a fitted student wrapped by
        :func:`student_policy`). Must be picklable when ``n_jobs != 1``.
    make_env : callable
        ``make_env(seed) -> environment`` (see :mod:`primo.distill.protocols`).
    seeds : iterable of int
    max_steps : int, optional
        Cut episodes after this many steps (marked ``truncated``).
    n_jobs : int, default 1
        joblib workers (−1 = all cores).

    Example
    -------
    >>> rollout(PolicyTeacher(teacher), make_env, seeds=[0, 1])[0].total_reward  # doctest: +SKIP
    """
    seeds = [int(s) for s in seeds]
    if max_steps is not None and int(max_steps) < 1:
        raise ValueError(f"max_steps must be >= 1, got {max_steps}")
    if not seeds:
        return []
    n_chunks = min(len(seeds), max(1, joblib.effective_n_jobs(n_jobs)))
    chunks = [chunk.tolist() for chunk in np.array_split(np.asarray(seeds), n_chunks)]
    results = joblib.Parallel(n_jobs=n_jobs)(
        joblib.delayed(_run_episodes)(policy, make_env, chunk, max_steps) for chunk in chunks
    )
    return [episode for chunk in results for episode in chunk]


def _run_episodes(policy, make_env, seeds, max_steps) -> list[Episode]:
    return [_run_episode(policy, make_env, seed, max_steps) for seed in seeds]


def _run_episode(policy, make_env, seed, max_steps) -> Episode:
    env = make_env(seed)
    obs, _ = env.reset(seed=seed)
    observations, actions, rewards = [], [], []
    terminated = truncated = False
    while not (terminated or truncated):
        obs = _observation(obs)
        action = np.asarray(policy(obs[None, :])).ravel()[0]
        action = action.item() if isinstance(action, np.generic) else action  # plain Python for env.step
        obs_next, reward, terminated, truncated, _ = env.step(action)
        observations.append(obs)
        actions.append(action)
        rewards.append(float(reward))
        obs = obs_next
        if max_steps is not None and len(actions) >= max_steps and not terminated:
            truncated = True
    width = observations[0].shape[0] if observations else 0
    return Episode(
        seed=seed,
        observations=np.asarray(observations, dtype=float).reshape(len(observations), width),
        actions=np.asarray(actions),
        rewards=np.asarray(rewards, dtype=float),
        terminated=bool(terminated),
        truncated=bool(truncated),
    )


def _observation(obs) -> np.ndarray:
    obs = np.asarray(obs, dtype=float)
    if obs.ndim != 1:
        raise ValueError(
            f"observations must be 1-D feature vectors, got shape {obs.shape}; wrap the environment to flatten them"
        )
    return obs


def student_policy(model):
    """A fitted classifier as a rollout policy (``policy(obs_batch) -> actions``).

    scikit-learn trees are walked directly (``tree_.predict``): the public ``predict`` spends about
    100 µs per call on input validation, which dominates step-by-step rollouts. Other models are
    called through ``predict``, with a DataFrame when they were fit on named features.

    Example
    -------
    >>> rollout(student_policy(tree), make_env, seeds=range(5))  # doctest: +SKIP
    """
    return _StudentPolicy(model)


class _StudentPolicy:
    def __init__(self, model):
        self.model = model
        tree = getattr(model, "tree_", None)
        self._fast = tree is not None and hasattr(model, "classes_") and tree.n_outputs == 1

    def __call__(self, obs_batch) -> np.ndarray:
        if self._fast:
            # Same arithmetic as DecisionTreeClassifier.predict: argmax of the leaf's class weights.
            values = self.model.tree_.predict(np.ascontiguousarray(obs_batch, dtype=np.float32))
            return self.model.classes_[values.argmax(axis=1)]
        names = getattr(self.model, "feature_names_in_", None)
        if names is not None:
            obs_batch = pd.DataFrame(np.asarray(obs_batch, dtype=float), columns=list(names))
        return np.asarray(self.model.predict(obs_batch))
