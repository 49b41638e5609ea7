"""Gymnasium-style environment, observation <-> state exactness, teacher consistency, Metis tree."""
import numpy as np
import pytest

from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.metis import TreePolicy, collect_teacher_rollouts, fit_metis_tree
from adapters.pensieve.observation import FEATURE_INDEX, FEATURE_NAMES, states_from_observations
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.video import N_CHUNKS


@pytest.fixture(scope="module")
def teacher(actor):
    return ActorTeacher(actor)


def test_episode_api(hsdpa, video):
    env = PensieveEnv(hsdpa[:3], video)
    obs, info = env.reset()
    assert obs.shape == (len(env.feature_names),) == (41,)
    assert info["trace_name"] == hsdpa[0].name and info["chunk_index"] == 0
    assert obs[FEATURE_INDEX["last_bitrate_kbps"]] == 750 and obs[FEATURE_INDEX["chunks_left"]] == 47
    steps, terminated = 0, False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(steps % 6)
        steps += 1
        assert not truncated and isinstance(reward, float)
        assert obs[FEATURE_INDEX["buffer_s"]] == info["outcome"].buffer_s
    assert steps == N_CHUNKS - 1 and obs[FEATURE_INDEX["chunks_left"]] == 0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert env.reset()[1]["trace_name"] == hsdpa[1].name  # round robin


def test_reset_options_and_seeded_random_selection(hsdpa, video):
    env = PensieveEnv(hsdpa, video, trace_selection="random")
    first = [env.reset(seed=7)[1]["trace_index"]] + [env.reset()[1]["trace_index"] for _ in range(5)]
    again = [env.reset(seed=7)[1]["trace_index"]] + [env.reset()[1]["trace_index"] for _ in range(5)]
    assert first == again and len(set(first)) > 1
    assert env.reset(options={"trace_index": 4})[1]["trace_index"] == 4
    with pytest.raises(ValueError, match="trace_selection"):
        PensieveEnv(hsdpa, video, trace_selection="shuffled")


def test_noisy_env_is_reproducible_by_seed(hsdpa, video):
    def delays(seed):
        env = PensieveEnv(hsdpa[:2], video, delay_noise=True, random_start=True)
        env.reset(seed=seed)
        return [env.step(2)[4]["outcome"].delay_ms for _ in range(5)]

    assert delays(3) == delays(3) and delays(3) != delays(4)


def test_obs_rebuilds_actor_state_exactly_and_teacher_matches_actor(hsdpa, video, teacher):
    env = PensieveEnv(hsdpa[::20], video, delay_noise=True, random_start=True, seed=1)
    checked = 0
    for _ in range(len(env.traces)):
        obs, _ = env.reset()
        terminated = False
        while not terminated:
            state = env.actor_state
            np.testing.assert_array_equal(states_from_observations(obs), state)
            np.testing.assert_array_equal(
                teacher.action_probabilities(obs[None]), teacher.actor.action_probabilities(state[None])
            )
            obs, _, terminated, _, _ = env.step(teacher.act(obs))
            checked += 1
        np.testing.assert_array_equal(states_from_observations(obs), env.actor_state)
    assert checked == len(env.traces) * (N_CHUNKS - 1)


def test_state_history_features_are_used(hsdpa, video):
    env = PensieveEnv(hsdpa[:1], video)
    obs, _ = env.reset()
    for level in (0, 5, 3):
        obs, *_ = env.step(level)
    state = states_from_observations(obs)
    assert state[0, -4:].tolist() == [750 / 4300, 300 / 4300, 4300 / 4300, 1850 / 4300]
    assert state[5].tolist() == [0, 0, 0, 0, 47 / 48, 46 / 48, 45 / 48, 44 / 48]
    assert state[4, 7] == obs[FEATURE_INDEX["next_size_MB_300kbps_lag1"]] > 0
    with pytest.raises(ValueError, match="shape"):
        states_from_observations(np.zeros((2, 40)))


def test_metis_style_tree_imitates_teacher(hsdpa, video, teacher):
    X, y = collect_teacher_rollouts(PensieveEnv(hsdpa[:6], video), teacher)
    assert X.shape == (6 * (N_CHUNKS - 1), len(FEATURE_NAMES))
    np.testing.assert_array_equal(teacher.predict(X), y)
    tree = fit_metis_tree(X, y, max_leaf_nodes=20)
    assert tree.get_n_leaves() <= 20
    assert np.mean(tree.predict(X) == y) > 0.8
    policy = TreePolicy(tree)
    np.testing.assert_array_equal([policy.act(x) for x in X[:50]], tree.predict(X[:50]))
