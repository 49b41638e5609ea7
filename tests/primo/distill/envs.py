"""Small Gymnasium-style environments and teachers with known optimal policies, for the VIPER tests.

CorridorEnv: a walker on cells 0..size−1 must reach a goal cell. Observation (position, goal);
actions 0 = left, 1 = stay, 2 = right; reward −1 per step; the episode terminates on the goal
(truncated after ``3·size`` steps). The optimal return from distance d is −d. A tree must learn
the diagonal rule "right when goal > position", which needs many axis-aligned splits, and a student
that errs can oscillate until truncation — so imitation has to be exact on the states it visits.
"""
from __future__ import annotations

import numpy as np

LEFT, STAY, RIGHT = 0, 1, 2


class CorridorEnv:
    feature_names = ("position", "goal")

    def __init__(self, size: int = 8, seed: int | None = None):
        self.size = size
        self._rng = np.random.default_rng(seed)
        self._position = self._goal = None
        self._steps = 0

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._position, self._goal = (int(v) for v in self._rng.choice(self.size, size=2, replace=False))
        self._steps = 0
        return self._obs(), {}

    def step(self, action):
        if action not in (LEFT, STAY, RIGHT):
            raise ValueError(f"invalid action {action!r}")
        self._position = int(np.clip(self._position + action - 1, 0, self.size - 1))
        self._steps += 1
        terminated = self._position == self._goal
        truncated = not terminated and self._steps >= 3 * self.size
        return self._obs(), -1.0, terminated, truncated, {}

    def _obs(self):
        return np.array([self._position, self._goal], dtype=float)


def make_corridor(seed: int, size: int = 8) -> CorridorEnv:
    return CorridorEnv(size=size, seed=seed)


def corridor_q_values(obs, size: int = 8) -> np.ndarray:
    """Exact Q-values: Q(s, a) = −1 − |position' − goal| (no future cost once on the goal)."""
    obs = np.asarray(obs, dtype=float)
    position, goal = obs[:, :1], obs[:, 1:2]
    moved = np.clip(position + np.array([[-1, 0, 1]]), 0, size - 1)
    return -1.0 - np.abs(moved - goal)


class CorridorQTeacher:
    """The optimal policy exposed through its Q-values."""

    def q_values(self, obs):
        return corridor_q_values(obs)


class CorridorSoftTeacher:
    """The same policy exposed only through action probabilities (softmax of Q / temperature)."""

    def __init__(self, temperature: float = 0.5):
        self.temperature = temperature

    def action_probabilities(self, obs):
        logits = corridor_q_values(obs) / self.temperature
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return exp / exp.sum(axis=1, keepdims=True)


def corridor_teacher_policy(obs):
    """The optimal policy as a plain callable on a batch."""
    obs = np.asarray(obs)
    return np.where(obs[:, 1] > obs[:, 0], RIGHT, LEFT)
