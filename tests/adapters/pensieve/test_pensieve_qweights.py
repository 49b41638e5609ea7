"""Monte-Carlo Q-values of the actor in the simulator, and the Q-weighted teacher built on them."""
import numpy as np
import pytest

from primo.distill.protocols import PolicyTeacher

from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.qweights import QRecordingEnvFactory, QWeightedTeacher, monte_carlo_q_values
from adapters.pensieve.student import DistillationEnvFactory, StudentViewTeacher
from adapters.pensieve.teacher import ActorTeacher


def test_q_values_are_rewards_of_the_tried_level_then_the_actor(hsdpa, video, actor):
    env = PensieveEnv(hsdpa[:2], video)
    env.reset()
    env.step(2)
    teacher = ActorTeacher(actor)
    clock, buffer = env.simulator.clock_s, env.simulator._buffer_ms
    q = monte_carlo_q_values(env, teacher, horizon=3)
    # The environment itself did not move.
    assert env.simulator.clock_s == clock and env.simulator._buffer_ms == buffer
    for level in (0, 4):
        manual = PensieveEnv(hsdpa[:2], video)
        manual.reset()
        manual.step(2)
        obs, total, *_ = manual.step(level)
        for _ in range(2):
            obs, reward, *_ = manual.step(int(teacher.predict(obs[None])[0]))
            total += reward
        assert q[level] == pytest.approx(total)
    one_step = PensieveEnv(hsdpa[:2], video)
    one_step.reset()
    one_step.step(2)
    assert monte_carlo_q_values(env, teacher, horizon=1)[5] == pytest.approx(one_step.step(5)[1])
    with pytest.raises(ValueError, match="horizon"):
        monte_carlo_q_values(env, teacher, horizon=0)


def test_q_weighted_teacher_keeps_the_actors_actions(hsdpa, video, actor):
    cache = {}
    make_env = QRecordingEnvFactory(DistillationEnvFactory(hsdpa[:3], video), actor, cache, horizon=2)
    env = make_env(2**30 + 5)
    obs, _ = env.reset(seed=2**30 + 5)
    observations = [obs]
    for _ in range(3):
        obs, *_ = env.step(1)
        observations.append(obs)
    assert len(cache) == 4
    assert make_env(0).reset(seed=0)[0] is not None and len(cache) == 4  # evaluation episodes record nothing
    batch = np.array(observations)
    teacher = QWeightedTeacher(actor, video, cache)
    wrapped = PolicyTeacher(teacher)
    assert wrapped.weighting("auto") == "q"
    np.testing.assert_array_equal(wrapped.actions(batch), StudentViewTeacher(actor, video).predict(batch))
    weights = wrapped.state_importance(batch, "q")
    actions = StudentViewTeacher(actor, video).predict(batch)
    expected = [cache[o.tobytes()][a] - cache[o.tobytes()].min() for o, a in zip(batch, actions)]
    np.testing.assert_allclose(weights, np.maximum(expected, 0.0) + 1e-9)
    # A state never recorded falls back to the actor's probabilities (same argmax).
    unseen = batch[:1].copy()
    unseen[0, 1] += 0.123
    np.testing.assert_allclose(teacher.q_values(unseen), teacher.action_probabilities(unseen))


def test_improving_teacher_labels_by_q_values(hsdpa, video, actor):
    cache = {}
    env = QRecordingEnvFactory(DistillationEnvFactory(hsdpa[:2], video), actor, cache, horizon=3)(2**30 + 1)
    obs, _ = env.reset(seed=2**30 + 1)
    teacher = QWeightedTeacher(actor, video, cache, improve=True)
    np.testing.assert_array_equal(teacher.q_values(obs[None])[0], cache[obs.tobytes()])
    assert PolicyTeacher(teacher).actions(obs[None])[0] == cache[obs.tobytes()].argmax()
