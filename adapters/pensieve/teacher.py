"""Pensieve's actor behind the observation vector: the teacher for distillation, and a policy."""
from __future__ import annotations

import numpy as np

from adapters.pensieve.actor import PensieveActor
from adapters.pensieve.observation import states_from_observations

RAND_RANGE = 1000


def sample_level(probabilities: np.ndarray, random_state: np.random.RandomState) -> int:
    """Pensieve's stochastic action rule: first index where cumsum(p) > randint(1, 1000) / 1000.

    Example
    -------
    >>> sample_level(np.array([0.0, 1.0, 0, 0, 0, 0]), np.random.RandomState(0))
    1
    """
    threshold = random_state.randint(1, RAND_RANGE) / float(RAND_RANGE)
    return int((np.cumsum(probabilities) > threshold).argmax())


class ActorTeacher:
    """The actor as a function of observations (the state is rebuilt exactly from them).

    Parameters
    ----------
    actor : PensieveActor
    random_state : numpy.random.RandomState, optional
        When given, :meth:`act` samples with Pensieve's rule (:func:`sample_level`) from this
        legacy generator; otherwise :meth:`act` is deterministic (argmax).

    Example
    -------
    >>> teacher = ActorTeacher(load_actor())  # doctest: +SKIP
    >>> obs, _ = env.reset()  # doctest: +SKIP
    >>> teacher.action_probabilities(obs[None]).shape  # doctest: +SKIP
    (1, 6)
    """

    def __init__(self, actor: PensieveActor, random_state: np.random.RandomState | None = None):
        self.actor = actor
        self.random_state = random_state

    def action_probabilities(self, obs_batch: np.ndarray) -> np.ndarray:
        """Probabilities of the 6 levels, shape (n, 6), for observations of shape (n, 41)."""
        obs_batch = np.asarray(obs_batch, dtype=float)
        if obs_batch.ndim != 2:
            raise ValueError(f"obs_batch must be 2-D (n, n_features), got shape {obs_batch.shape}")
        return self.actor.action_probabilities(states_from_observations(obs_batch))

    def predict(self, obs_batch: np.ndarray) -> np.ndarray:
        """Greedy levels (argmax) for a batch of observations."""
        return self.action_probabilities(obs_batch).argmax(axis=1)

    def reset(self) -> None:
        pass

    def act(self, obs: np.ndarray) -> int:
        probabilities = self.action_probabilities(np.asarray(obs, dtype=float)[None])[0]
        if self.random_state is None:
            return int(probabilities.argmax())
        return sample_level(probabilities, self.random_state)
