"""The student's 25-feature view: the actor is an exact function of it; environment wrappers."""
import numpy as np
import pytest

from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.observation import FEATURE_NAMES
from adapters.pensieve.student import (
    DROPPED_FEATURES, STUDENT_FEATURES, DistillationEnvFactory, StudentObservationEnv, StudentViewTeacher,
    student_view,
)
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.video import N_CHUNKS


def test_feature_split():
    assert len(STUDENT_FEATURES) == 25 and len(DROPPED_FEATURES) == 16
    assert set(STUDENT_FEATURES) | set(DROPPED_FEATURES) == set(FEATURE_NAMES)
    assert STUDENT_FEATURES[:2] == ("last_bitrate_kbps", "buffer_s") and STUDENT_FEATURES[-1] == "chunks_left"
    with pytest.raises(ValueError, match="41 features"):
        student_view(np.zeros((2, 25)))


def test_actor_is_an_exact_function_of_the_student_view(hsdpa, video, actor):
    # Random levels and the training-time variants visit varied states, terminal ones included.
    env = PensieveEnv(hsdpa[::15], video, delay_noise=True, random_start=True, seed=5)
    rng = np.random.default_rng(0)
    observations = []
    for _ in range(len(env.traces)):
        obs, _ = env.reset()
        observations.append(obs)
        terminated = False
        while not terminated:
            obs, _, terminated, _, _ = env.step(int(rng.integers(6)))
            observations.append(obs)
    observations = np.array(observations)
    full = ActorTeacher(actor).action_probabilities(observations)
    viewed = StudentViewTeacher(actor, video).action_probabilities(student_view(observations))
    np.testing.assert_array_equal(viewed, full)
    # The dropped history columns really are ignored: scrambling them changes nothing.
    scrambled = observations.copy()
    dropped = [FEATURE_NAMES.index(name) for name in DROPPED_FEATURES if name != "next_size_MB_300kbps_lag1"]
    scrambled[:, dropped] = rng.uniform(0, 5, size=(len(scrambled), len(dropped)))
    np.testing.assert_array_equal(ActorTeacher(actor).action_probabilities(scrambled), full)


def test_student_view_teacher_rejects_bad_input(actor, video):
    teacher = StudentViewTeacher(actor, video)
    with pytest.raises(ValueError, match="shape"):
        teacher.predict(np.zeros((3, 41)))
    bad = np.zeros((1, 25))
    bad[0, -1] = 48.5
    with pytest.raises(ValueError, match="chunks_left"):
        teacher.predict(bad)


def test_student_env_and_distillation_factory(hsdpa, video):
    env = StudentObservationEnv(PensieveEnv(hsdpa[:2], video))
    obs, info = env.reset()
    assert obs.shape == (25,) and obs[-1] == N_CHUNKS - 1 and env.feature_names == STUDENT_FEATURES
    obs, reward, terminated, truncated, _ = env.step(2)
    assert obs.shape == (25,) and not terminated and obs[0] == 1200

    factory = DistillationEnvFactory(hsdpa, video)
    assert factory.evaluation_seeds == list(range(len(hsdpa)))
    # Evaluation seeds: that trace, as in the evaluation (deterministic, from the trace's start).
    first = factory(7).reset(seed=7)
    again = factory(7).reset(seed=7)
    assert first[1]["trace_index"] == 7 and np.array_equal(first[0], again[0])
    clean = StudentObservationEnv(PensieveEnv(hsdpa, video)).reset(options={"trace_index": 7})[0]
    np.testing.assert_array_equal(first[0], clean)
    # Training seeds: a trace picked by the seed, noisy, reproducible.
    big = 2**30 + 11
    a, b = factory(big).reset(seed=big), factory(big).reset(seed=big)
    assert a[1]["trace_index"] == b[1]["trace_index"] and np.array_equal(a[0], b[0])
    noisy_delay = a[0][STUDENT_FEATURES.index("download_time_s_lag0")]
    plain = StudentObservationEnv(PensieveEnv(hsdpa, video)).reset(options={"trace_index": a[1]["trace_index"]})[0]
    assert noisy_delay != plain[STUDENT_FEATURES.index("download_time_s_lag0")]
