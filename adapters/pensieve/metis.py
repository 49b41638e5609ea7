"""The "hand-crafted decision tree" baseline (Metis-style): a fixed-size CART tree fit on the
teacher's own rollouts, with no structure search and no DAgger iterations.
"""
from __future__ import annotations

import logging

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.teacher import ActorTeacher

logger = logging.getLogger(__name__)

# Primo's paper reports its 35-leaf tree (69 nodes) as 7.9x smaller than Metis' tree:
# about 545 nodes, i.e. 273 leaves. Used as the fixed size of this baseline.
METIS_MAX_LEAF_NODES = 273


def collect_teacher_rollouts(
    env: PensieveEnv, teacher: ActorTeacher, n_episodes: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n_episodes`` videos with the teacher's greedy actions and record every decision.

    Parameters
    ----------
    env : PensieveEnv
        Episodes follow its trace selection (one per trace, round robin, by default).
    teacher : ActorTeacher
    n_episodes : int, optional
        Defaults to the number of traces of ``env``.

    Returns
    -------
    X : ndarray, shape (n_decisions, 41)
        Observations (named by ``env.feature_names``).
    y : ndarray of int, shape (n_decisions,)
        The teacher's argmax level for each observation.

    Example
    -------
    >>> X, y = collect_teacher_rollouts(PensieveEnv(traces, video), ActorTeacher(actor), 5)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (235, 41)
    """
    n_episodes = len(env.traces) if n_episodes is None else n_episodes
    observations, actions = [], []
    for _ in range(n_episodes):
        obs, _ = env.reset()
        terminated = False
        while not terminated:
            action = int(teacher.predict(obs[None])[0])
            observations.append(obs)
            actions.append(action)
            obs, _, terminated, _, _ = env.step(action)
    logger.info("collected %d teacher decisions from %d episodes", len(actions), n_episodes)
    return np.array(observations), np.array(actions)


def fit_metis_tree(
    X: np.ndarray, y: np.ndarray, max_leaf_nodes: int = METIS_MAX_LEAF_NODES, random_state: int = 0
) -> DecisionTreeClassifier:
    """Fit the fixed-size tree on teacher (observation, action) pairs.

    The tree's ``predict`` takes observation vectors, so ``MetisTreePolicy`` can play it.

    Example
    -------
    >>> tree = fit_metis_tree(X, y)  # doctest: +SKIP
    >>> tree.get_n_leaves() <= 273  # doctest: +SKIP
    True
    """
    return DecisionTreeClassifier(max_leaf_nodes=max_leaf_nodes, random_state=random_state).fit(X, y)


class TreePolicy:
    """Play a fitted scikit-learn classifier over observations as an ABR policy.

    Uses ``tree_.predict`` on one row: the public ``predict`` spends ~100 us validating input.

    Example
    -------
    >>> policy = TreePolicy(fit_metis_tree(X, y))  # doctest: +SKIP
    """

    def __init__(self, tree: DecisionTreeClassifier):
        self.tree = tree

    def reset(self) -> None:
        pass

    def act(self, obs: np.ndarray) -> int:
        row = np.asarray(obs, dtype=np.float32)[None]
        return int(self.tree.classes_[np.argmax(self.tree.tree_.predict(row)[0].ravel())])
