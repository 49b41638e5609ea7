"""What the distill engine asks of environments and teachers.

Environment (Gymnasium's API, without depending on Gymnasium)
    ``reset(seed=None, options=None) -> (obs, info)`` and
    ``step(action) -> (obs, reward, terminated, truncated, info)``; observations are 1-D feature
    vectors. Environments are built by a factory ``make_env(seed) -> env`` so that rollouts can run
    in joblib workers; an episode is ``env = make_env(s); env.reset(seed=s)`` and then steps, so it
    is a pure function of its seed ``s`` (map seeds to scenarios, e.g. traces, inside the factory).

Policy teacher (any of, by order of preference)
    ``q_values(obs_batch) -> (n, n_actions)`` — greedy action = argmax, VIPER's exact state weights;
    ``action_probabilities(obs_batch) -> (n, n_actions)`` — greedy action = argmax, weights by the
    probability margin (see :mod:`primo.distill.viper`);
    ``predict(obs_batch) -> (n,)`` or a plain callable ``f(obs_batch) -> (n,)`` returning actions.
    Actions from ``q_values``/``action_probabilities`` are column indices 0..n_actions−1.

Supervised teacher
    an estimator with ``predict`` (and ``predict_proba`` for soft labels),
    or a callable ``f(X) -> (n,)``.

Example
-------
>>> teacher = PolicyTeacher(my_actor)  # doctest: +SKIP
>>> teacher.actions(obs_batch), teacher.state_importance(obs_batch)  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

logger = logging.getLogger(__name__)

#: How a policy teacher's states are weighted (see :meth:`PolicyTeacher.state_importance`).
WEIGHTINGS = ("auto", "q", "margin", "uniform")

_INTERFACE = ("q_values", "action_probabilities", "predict", "predict_proba", "decision_function")


@runtime_checkable
class Environment(Protocol):
    """An episodic environment with Gymnasium's ``reset``/``step`` signatures."""

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]: ...

    def step(self, action) -> tuple[Any, float, bool, bool, dict]: ...


#: A factory building a fresh environment for a seed (must be picklable for parallel rollouts;
#: joblib's default backend pickles closures and lambdas with cloudpickle).
EnvFactory = Callable[[int], Environment]


def describe_teacher(teacher) -> dict:
    """A short, JSON-able description of a teacher for the distillation metadata.

    Example
    -------
    >>> describe_teacher(len)["interface"]
    ['__call__']
    """
    interface = [name for name in _INTERFACE if callable(getattr(teacher, name, None))]
    if not interface and callable(teacher):
        interface = ["__call__"]
    kind = type(teacher)
    text = repr(teacher)
    return {
        "class": f"{kind.__module__}.{kind.__qualname__}",
        "interface": interface,
        "repr": text if len(text) <= 300 else text[:297] + "...",
    }


class PolicyTeacher:
    """A uniform view of a teacher policy: greedy actions, Q-values/probabilities, state weights.

    Parameters
    ----------
    teacher : object or callable
        See the module docstring for what it may expose.

    Example
    -------
    >>> class Greedy:
    ...     def q_values(self, obs):
    ...         return np.column_stack([-obs[:, 0], obs[:, 0]])
    >>> teacher = PolicyTeacher(Greedy())
    >>> teacher.actions(np.array([[1.0], [-2.0]])).tolist(), teacher.weighting("auto")
    ([1, 0], 'q')
    """

    def __init__(self, teacher):
        if isinstance(teacher, PolicyTeacher):
            teacher = teacher.teacher
        self.teacher = teacher
        self.has_q_values = callable(getattr(teacher, "q_values", None))
        self.has_probabilities = callable(getattr(teacher, "action_probabilities", None))
        if not (self.has_q_values or self.has_probabilities or callable(getattr(teacher, "predict", None))
                or callable(teacher)):
            raise TypeError(
                f"a teacher policy must expose q_values(obs), action_probabilities(obs), predict(obs) "
                f"or be callable; {type(teacher).__name__} has none of these"
            )

    def __call__(self, obs_batch) -> np.ndarray:
        return self.actions(obs_batch)

    def actions(self, obs_batch) -> np.ndarray:
        """The teacher's greedy actions for a batch of observations, shape (n,)."""
        obs_batch = _batch(obs_batch)
        if self.has_q_values:
            return self.q_values(obs_batch).argmax(axis=1)
        if self.has_probabilities:
            return self.action_probabilities(obs_batch).argmax(axis=1)
        function = getattr(self.teacher, "predict", None) or self.teacher
        actions = np.asarray(function(obs_batch))
        if actions.shape != (len(obs_batch),):
            raise ValueError(
                f"the teacher policy returned shape {actions.shape} for {len(obs_batch)} observations; "
                "it must map an (n, n_features) batch to n actions"
            )
        return actions

    def q_values(self, obs_batch) -> np.ndarray:
        """The teacher's Q-values, shape (n, n_actions)."""
        return self._matrix("q_values", obs_batch)

    def action_probabilities(self, obs_batch) -> np.ndarray:
        """The teacher's action probabilities, shape (n, n_actions)."""
        return self._matrix("action_probabilities", obs_batch)

    def weighting(self, requested: str = "auto") -> str:
        """The weighting actually used for ``requested`` (``"auto"`` picks the best available)."""
        if requested not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {requested!r}")
        if requested == "auto":
            return "q" if self.has_q_values else "margin" if self.has_probabilities else "uniform"
        if requested == "q" and not self.has_q_values:
            raise ValueError("weighting='q' needs a teacher with q_values(obs)")
        if requested == "margin" and not self.has_probabilities:
            raise ValueError("weighting='margin' needs a teacher with action_probabilities(obs)")
        return requested

    def state_importance(self, obs_batch, weighting: str = "auto") -> np.ndarray:
        """How much the action matters in each state, shape (n,), ≥ 0.

        ``"q"``: VIPER's l(s) = V(s) − min_a Q(s, a), with V(s) = max_a Q(s, a) for the greedy
        teacher — the most a wrong action can cost. ``"margin"``: the same expression on action
        probabilities, max_a π(a|s) − min_a π(a|s), a proxy when no Q-values exist (it is near 0
        where the teacher is indifferent and near 1 where it is sure). ``"uniform"``: all ones.
        """
        weighting = self.weighting(weighting)
        obs_batch = _batch(obs_batch)
        if weighting == "uniform":
            return np.ones(len(obs_batch))
        values = self.q_values(obs_batch) if weighting == "q" else self.action_probabilities(obs_batch)
        return values.max(axis=1) - values.min(axis=1)

    def _matrix(self, method: str, obs_batch) -> np.ndarray:
        obs_batch = _batch(obs_batch)
        values = np.asarray(getattr(self.teacher, method)(obs_batch), dtype=float)
        if values.ndim != 2 or len(values) != len(obs_batch):
            raise ValueError(
                f"teacher.{method} returned shape {values.shape} for {len(obs_batch)} observations; "
                "expected (n, n_actions)"
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(f"teacher.{method} returned NaN or infinity")
        return values


def _batch(obs_batch) -> np.ndarray:
    obs_batch = np.asarray(obs_batch, dtype=float)
    if obs_batch.ndim != 2:
        raise ValueError(f"expected a batch of 1-D observations, shape (n, n_features); got {obs_batch.shape}")
    return obs_batch
