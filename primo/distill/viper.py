"""Policy extraction with VIPER (Bastani et al., NeurIPS'18) and DAgger (Ross et al., AISTATS'11).

An RL policy (the teacher) becomes a pruned tree (or additive model) that acts in the same
environment. Each iteration

1. rolls out the current policy — the teacher in the first iteration, then the latest student —
   on fresh training episodes;
2. labels every visited state with the teacher's greedy action and aggregates it into the dataset
   (DAgger: the student learns what to do in the states *it* reaches, not only the teacher's);
3. weights each state by how much the action matters there — VIPER's l(s) = V(s) − min_a Q(s, a)
   when the teacher has Q-values, otherwise the probability margin max_a π(a|s) − min_a π(a|s)
   (see :meth:`~primo.distill.protocols.PolicyTeacher.state_importance`) — and resamples the
   dataset with probability ∝ l(s). The resampled multiset is fit as distinct states with their
   draw counts as sample weights (the same tree as fitting the duplicates), so that the search's
   hold-out split never sees a training state again;
4. fits the student, with a Bayesian search of its pruning on the fidelity objective (1 −
   agreement with the teacher's actions, + λ·complexity);
5. evaluates the student on held-out episodes (the same seeds every iteration): average reward,
   fidelity on the states the student visits, and fidelity on the teacher's own states.

Every iteration's student is kept; the best by held-out reward (ties: fidelity, then lower
complexity) is ``best_student_``. Everything is seeded by ``random_state``. With
``weighting="uniform"`` the loop is DAgger (β = 0 after the first iteration): no resampling.

Example
-------
>>> distiller = ViperDistiller(n_iterations=8, episodes_per_iteration=30, lam=1e-4, random_state=0)
>>> distiller.fit(teacher, make_env)  # doctest: +SKIP
>>> distiller.history_[["reward", "fidelity", "n_leaves", "depth"]]  # doctest: +SKIP
>>> distiller.best_student_.save("policy.primo")  # doctest: +SKIP
"""
from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from primo.distill.protocols import PolicyTeacher, describe_teacher
from primo.distill.rollout import rollout, student_policy
from primo.distill.students import derive_seeds, fit_student, make_student, student_structure

logger = logging.getLogger(__name__)

_SEED_LIMIT = 2**31 - 1
_EVAL_SEED_LIMIT = 2**30  # held-out episode seeds are drawn below it, training seeds above


class ViperDistiller:
    """Extract an interpretable policy from a teacher policy by VIPER / DAgger iterations.

    Parameters
    ----------
    student : "prdt", "pram" or classifier, default "prdt"
    n_iterations : int, default 10
    episodes_per_iteration : int, default 20
        Training episodes rolled out per iteration.
    eval_episodes : int, default 20
        Held-out episodes used to score every iteration's student (and the teacher).
    eval_seeds : sequence of int, optional
        Explicit held-out episode seeds (overrides ``eval_episodes``).
    max_steps : int, optional
        Cut episodes after this many steps.
    weighting : {"auto", "q", "margin", "uniform"}, default "auto"
        State weights l(s) (``"auto"``: Q-values if the teacher has them, else probabilities, else
        uniform). ``"uniform"`` gives DAgger.
    resample : bool, default True
        Resample the dataset ∝ l(s) (VIPER); when False the weights are used as sample weights.
    n_samples : int, optional
        Size of the resampled dataset (default: the aggregated dataset's size).
    search : bool, default True
        Bayesian search of the student's pruning each iteration (else fit as given).
    n_trials, lam, gamma, space :
        The search (S = (1 − agreement) + λ·C^γ on a hold-out split of the states).
    student_params : dict, optional
        Parameters of the student (e.g. ``{"max_depth": 8}``).
    feature_names : list of str, optional
        Names of the observation's entries, used in the student's rules (default: the
        environment's ``feature_names`` attribute, if it has one).
    n_jobs : int, default 1
        joblib workers for rollouts and the search.
    random_state : int, optional
    progress : bool, default False
        Show a progress bar over iterations.

    Attributes
    ----------
    best_student_ : fitted student with ``metadata_["distillation"]``
    best_iteration_ : int (1-based)
    students_ : list of every iteration's student
    history_ : DataFrame, one row per iteration (reward, reward_std, fidelity,
        fidelity_teacher_states, n_leaves, depth, complexity, n_samples, n_new_states, seconds…)
    teacher_reward_ : float, the teacher's average reward on the held-out episodes
    weighting_ : str, the weighting actually used
    eval_seeds_ : list of int
    """

    def __init__(
        self,
        student="prdt",
        *,
        n_iterations: int = 10,
        episodes_per_iteration: int = 20,
        eval_episodes: int = 20,
        eval_seeds=None,
        max_steps: int | None = None,
        weighting: str = "auto",
        resample: bool = True,
        n_samples: int | None = None,
        search: bool = True,
        n_trials: int = 10,
        lam: float = 0.0,
        gamma: float = 1.0,
        space=None,
        student_params: dict | None = None,
        feature_names=None,
        n_jobs=1,
        random_state=None,
        progress: bool = False,
    ):
        self.student = student
        self.n_iterations = n_iterations
        self.episodes_per_iteration = episodes_per_iteration
        self.eval_episodes = eval_episodes
        self.eval_seeds = eval_seeds
        self.max_steps = max_steps
        self.weighting = weighting
        self.resample = resample
        self.n_samples = n_samples
        self.search = search
        self.n_trials = n_trials
        self.lam = lam
        self.gamma = gamma
        self.space = space
        self.student_params = student_params
        self.feature_names = feature_names
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress

    def fit(self, teacher, make_env) -> "ViperDistiller":
        """Run the iterations; returns ``self`` (see the class attributes).

        Parameters
        ----------
        teacher : policy teacher (see :mod:`primo.distill.protocols`)
        make_env : callable ``make_env(seed) -> environment``

        Example
        -------
        >>> ViperDistiller(n_iterations=5, random_state=0).fit(teacher, make_env).best_student_  # doctest: +SKIP
        """
        self._check_params()
        start = time.perf_counter()
        oracle = PolicyTeacher(teacher)
        self.weighting_ = oracle.weighting(self.weighting)
        train_seed, eval_seed, sample_seed, search_seed = derive_seeds(self.random_state, 4)
        train_rng = np.random.default_rng(train_seed)
        sample_rng = np.random.default_rng(sample_seed)
        self.eval_seeds_ = self._held_out_seeds(eval_seed)

        teacher_eval = rollout(oracle, make_env, self.eval_seeds_, max_steps=self.max_steps, n_jobs=self.n_jobs)
        self.teacher_reward_ = float(np.mean([e.total_reward for e in teacher_eval]))
        teacher_states = _states(teacher_eval)
        teacher_actions = np.concatenate([e.actions for e in teacher_eval])
        names = self._feature_names(make_env, teacher_states.shape[1])
        logger.info("teacher: average reward %.4f on %d held-out episodes (weighting: %s)",
                    self.teacher_reward_, len(self.eval_seeds_), self.weighting_)

        states, actions, weights = [], [], []
        self.students_, records = [], []
        student = None
        with tqdm(total=int(self.n_iterations), desc="VIPER", disable=not self.progress) as bar:
            for iteration in range(1, int(self.n_iterations) + 1):
                iteration_start = time.perf_counter()
                policy = oracle if student is None else student_policy(student)
                seeds = train_rng.integers(_EVAL_SEED_LIMIT, _SEED_LIMIT, size=int(self.episodes_per_iteration))
                episodes = rollout(policy, make_env, seeds, max_steps=self.max_steps, n_jobs=self.n_jobs)
                new_states = _states(episodes)
                states.append(new_states)
                actions.append(oracle.actions(new_states))
                weights.append(oracle.state_importance(new_states, self.weighting_))

                X, y, sample_weight = self._training_set(
                    np.concatenate(states), np.concatenate(actions), np.concatenate(weights), sample_rng
                )
                estimator = make_student(self.student, "classification", student_params=self.student_params,
                                         random_state=search_seed)
                student = fit_student(
                    estimator, _frame(X, names), y, sample_weight, search=self.search, scoring="error",
                    n_trials=self.n_trials, lam=self.lam, gamma=self.gamma, space=self.space, n_jobs=self.n_jobs,
                    random_state=search_seed + iteration,
                )
                self.students_.append(student)

                record = {
                    "iteration": iteration,
                    "rollout_policy": "teacher" if iteration == 1 else "student",
                    "rollout_reward": float(np.mean([e.total_reward for e in episodes])),
                    **self._evaluate(student, oracle, make_env, teacher_states, teacher_actions),
                    **student_structure(student),
                    "n_states": int(sum(len(s) for s in states)),
                    "n_new_states": int(len(new_states)),
                    "n_samples": int(len(y) if sample_weight is None else sample_weight.sum()),
                    "seconds": float(time.perf_counter() - iteration_start),
                }
                records.append(record)
                logger.info(
                    "iteration %d: reward %.4f (teacher %.4f), fidelity %.4f, %s leaves, depth %s, %d samples, %.1f s",
                    iteration, record["reward"], self.teacher_reward_, record["fidelity"], record["n_leaves"],
                    record["depth"], record["n_samples"], record["seconds"],
                )
                bar.set_postfix(reward=f"{record['reward']:.3f}", fidelity=f"{record['fidelity']:.3f}",
                                leaves=record["n_leaves"])
                bar.update()

        self.history_ = pd.DataFrame(records)
        best = max(records, key=lambda r: (r["reward"], r["fidelity"], -(r["complexity"] or 0.0), -r["iteration"]))
        self.best_iteration_ = best["iteration"]
        self.best_student_ = self.students_[self.best_iteration_ - 1]
        record = {
            "method": "dagger" if self.weighting_ == "uniform" else "viper",
            "fidelity": best["fidelity"],
            "reward": best["reward"],
            "teacher_reward": self.teacher_reward_,
            "best_iteration": self.best_iteration_,
            "iterations": records,
            "teacher": describe_teacher(teacher),
            "options": {
                "n_iterations": int(self.n_iterations), "episodes_per_iteration": int(self.episodes_per_iteration),
                "eval_seeds": list(self.eval_seeds_), "max_steps": self.max_steps, "weighting": self.weighting_,
                "resample": bool(self.resample), "n_samples": self.n_samples, "search": bool(self.search),
                "n_trials": int(self.n_trials), "lam": float(self.lam), "gamma": float(self.gamma),
                "random_state": self.random_state, "seconds": float(time.perf_counter() - start),
            },
        }
        metadata = getattr(self.best_student_, "metadata_", None)
        self.best_student_.metadata_ = {**(metadata or {}), "distillation": record}
        logger.info("best student: iteration %d, reward %.4f (teacher %.4f), fidelity %.4f",
                    self.best_iteration_, best["reward"], self.teacher_reward_, best["fidelity"])
        return self

    # ------------------------------------------------------------------ helpers
    def _evaluate(self, student, oracle, make_env, teacher_states, teacher_actions) -> dict:
        """Held-out reward of the student, and its agreement with the teacher on both state sets."""
        policy = student_policy(student)
        evaluation = rollout(policy, make_env, self.eval_seeds_, max_steps=self.max_steps, n_jobs=self.n_jobs)
        rewards = np.array([e.total_reward for e in evaluation])
        student_actions = np.concatenate([e.actions for e in evaluation])
        return {
            "reward": float(rewards.mean()),
            "reward_std": float(rewards.std()),
            "fidelity": float(np.mean(student_actions == oracle.actions(_states(evaluation)))),
            "fidelity_teacher_states": float(np.mean(policy(teacher_states) == teacher_actions)),
        }

    def _check_params(self) -> None:
        for name in ("n_iterations", "episodes_per_iteration"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.eval_seeds is None and int(self.eval_episodes) < 1:
            raise ValueError(f"eval_episodes must be >= 1, got {self.eval_episodes}")
        if self.n_samples is not None and int(self.n_samples) < 1:
            raise ValueError(f"n_samples must be >= 1, got {self.n_samples}")

    def _held_out_seeds(self, seed: int) -> list[int]:
        if self.eval_seeds is not None:
            seeds = [int(s) for s in self.eval_seeds]
            if not seeds:
                raise ValueError("eval_seeds is empty")
            return seeds
        rng = np.random.default_rng(seed)
        return [int(s) for s in rng.choice(_EVAL_SEED_LIMIT, size=int(self.eval_episodes), replace=False)]

    def _feature_names(self, make_env, n_features: int):
        names = self.feature_names
        if names is None:
            names = getattr(make_env(self.eval_seeds_[0]), "feature_names", None)
            if names is None:
                return None
        names = [str(n) for n in names]
        if len(names) != n_features:
            raise ValueError(f"{len(names)} feature names for observations with {n_features} entries")
        return names

    def _training_set(self, X, y, weights, rng):
        """The states to fit, and their sample weights (resample counts, VIPER weights, or None)."""
        if self.weighting_ == "uniform":
            return X, y, None
        total = weights.sum()
        if not total > 0:
            logger.warning("every state has weight 0 (the teacher is indifferent everywhere); using uniform weights")
            return X, y, None
        if not self.resample:
            return X, y, weights / weights.mean()
        size = int(self.n_samples or len(X))
        counts = np.bincount(rng.choice(len(X), size=size, p=weights / total), minlength=len(X))
        drawn = counts > 0
        return X[drawn], y[drawn], counts[drawn].astype(float)


def _states(episodes) -> np.ndarray:
    states = [e.observations for e in episodes if len(e)]
    if not states:
        raise RuntimeError("every rolled-out episode ended before its first step; no states to learn from")
    return np.concatenate(states)


def _frame(X, names):
    return X if names is None else pd.DataFrame(X, columns=names)
