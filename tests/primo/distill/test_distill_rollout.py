"""Policy-teacher protocol, state weights and rollouts on the corridor environment."""
import joblib
import numpy as np
import pytest

from primo import PrDTClassifier
from primo.distill import PolicyTeacher, rollout, student_policy
from tests.primo.distill.envs import (
    LEFT,
    RIGHT,
    CorridorQTeacher,
    CorridorSoftTeacher,
    corridor_q_values,
    corridor_teacher_policy,
    make_corridor,
)


def test_teacher_rollouts_are_optimal_and_pure_functions_of_the_seed():
    teacher = PolicyTeacher(CorridorQTeacher())
    episodes = rollout(teacher, make_corridor, seeds=range(30))
    for episode in episodes:
        position, goal = episode.observations[0]
        assert episode.total_reward == -abs(goal - position)  # the teacher walks straight to the goal
        assert episode.terminated and not episode.truncated
    again = rollout(teacher, make_corridor, seeds=range(30))
    assert [e.total_reward for e in again] == [e.total_reward for e in episodes]
    assert [e.seed for e in episodes] == list(range(30))


def test_parallel_rollouts_give_the_same_episodes():
    teacher = PolicyTeacher(CorridorQTeacher())
    serial = rollout(teacher, make_corridor, seeds=range(20), n_jobs=1)
    with joblib.parallel_config(backend="threading"):  # same chunking code path, no process start-up
        parallel = rollout(teacher, make_corridor, seeds=range(20), n_jobs=2)
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a.observations, b.observations)
        np.testing.assert_array_equal(a.actions, b.actions)


def test_max_steps_truncates_a_looping_policy():
    def always_stay(obs):
        return np.ones(len(obs), dtype=int)

    (episode,) = rollout(always_stay, make_corridor, seeds=[0], max_steps=5)
    assert len(episode) == 5 and episode.truncated and not episode.terminated
    assert episode.total_reward == -5


def test_greedy_actions_from_q_values_probabilities_and_callables_agree():
    obs = rollout(PolicyTeacher(CorridorQTeacher()), make_corridor, seeds=range(10))[0].observations
    grid = np.array([[p, g] for p in range(8) for g in range(8) if p != g], dtype=float)
    expected = np.where(grid[:, 1] > grid[:, 0], RIGHT, LEFT)
    for teacher in (CorridorQTeacher(), CorridorSoftTeacher(), corridor_teacher_policy):
        np.testing.assert_array_equal(PolicyTeacher(teacher).actions(grid), expected)
    assert len(obs) > 0


def test_state_importance_is_viper_loss_or_probability_margin():
    grid = np.array([[3, 6], [0, 5], [7, 2]], dtype=float)
    q = corridor_q_values(grid)
    # VIPER: V(s) − min_a Q(s, a) = max Q − min Q; moving away costs 2 steps, except into a wall.
    np.testing.assert_allclose(PolicyTeacher(CorridorQTeacher()).state_importance(grid), q.max(1) - q.min(1))
    np.testing.assert_allclose(PolicyTeacher(CorridorQTeacher()).state_importance(grid), [2, 1, 1])
    soft = CorridorSoftTeacher()
    p = soft.action_probabilities(grid)
    np.testing.assert_allclose(PolicyTeacher(soft).state_importance(grid), p.max(1) - p.min(1))
    np.testing.assert_array_equal(PolicyTeacher(corridor_teacher_policy).state_importance(grid), 1.0)
    assert PolicyTeacher(soft).weighting("auto") == "margin"
    assert PolicyTeacher(corridor_teacher_policy).weighting("auto") == "uniform"


def test_teacher_protocol_errors_are_named():
    with pytest.raises(TypeError, match="q_values"):
        PolicyTeacher(object())
    with pytest.raises(ValueError, match="needs a teacher with q_values"):
        PolicyTeacher(CorridorSoftTeacher()).weighting("q")
    with pytest.raises(ValueError, match=r"expected \(n, n_actions\)"):
        PolicyTeacher(type("Bad", (), {"q_values": lambda self, obs: np.zeros(len(obs))})()).actions([[0.0, 1.0]])
    with pytest.raises(ValueError, match="must map an"):
        PolicyTeacher(lambda obs: 1).actions([[0.0, 1.0]])


def test_rollouts_reject_non_vector_observations():
    class ImageEnv:
        def reset(self, *, seed=None, options=None):
            return np.zeros((2, 2)), {}

        def step(self, action):
            return np.zeros((2, 2)), 0.0, True, False, {}

    with pytest.raises(ValueError, match="1-D feature vectors"):
        rollout(corridor_teacher_policy, lambda seed: ImageEnv(), seeds=[0])


def test_student_policy_fast_path_matches_predict():
    episodes = rollout(PolicyTeacher(CorridorQTeacher()), make_corridor, seeds=range(40))
    X = np.concatenate([e.observations for e in episodes])
    tree = PrDTClassifier(random_state=0).fit(X, np.concatenate([e.actions for e in episodes]))
    grid = np.array([[p, g] for p in range(8) for g in range(8)], dtype=float)
    np.testing.assert_array_equal(student_policy(tree)(grid), tree.predict(grid))
