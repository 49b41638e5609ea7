"""VIPER / DAgger policy extraction on the corridor task, whose optimal policy is known."""
import numpy as np
import pytest

import primo
from primo import PrDTClassifier
from primo.distill import ViperDistiller
from tests.primo.distill.envs import CorridorQTeacher, CorridorSoftTeacher, corridor_teacher_policy, make_corridor

COLUMNS = ["iteration", "reward", "fidelity", "fidelity_teacher_states", "n_leaves", "depth", "n_samples", "seconds"]


@pytest.fixture(scope="module")
def viper():
    distiller = ViperDistiller(n_iterations=5, episodes_per_iteration=20, eval_episodes=20, n_trials=6,
                               random_state=0)
    return distiller.fit(CorridorQTeacher(), make_corridor)


def test_viper_student_reaches_the_teachers_reward(viper):
    assert viper.weighting_ == "q"
    assert viper.teacher_reward_ < 0
    best = viper.history_.set_index("iteration").loc[viper.best_iteration_]
    assert best["reward"] >= viper.teacher_reward_  # the teacher is optimal: equal is the best possible
    assert best["fidelity"] == 1.0
    # The first student, trained on teacher rollouts only, was worse: the iterations did the work.
    assert viper.history_["reward"].iloc[0] < viper.teacher_reward_


def test_per_iteration_log_and_metadata(viper):
    history = viper.history_
    assert list(history["iteration"]) == [1, 2, 3, 4, 5] and set(COLUMNS) <= set(history.columns)
    assert list(history["rollout_policy"]) == ["teacher"] + ["student"] * 4
    assert history["n_states"].is_monotonic_increasing  # states are aggregated across iterations
    assert len(viper.students_) == 5 and viper.best_student_ is viper.students_[viper.best_iteration_ - 1]
    record = viper.best_student_.metadata_["distillation"]
    assert record["method"] == "viper" and record["options"]["weighting"] == "q"
    assert record["reward"] == viper.history_["reward"].max() and record["teacher_reward"] == viper.teacher_reward_
    assert [r["n_leaves"] for r in record["iterations"]] == [s.n_leaves_ for s in viper.students_]
    assert "search" in viper.best_student_.metadata_  # the pruning was searched


def test_best_policy_saves_as_a_primo_model_with_named_rules(tmp_path, viper):
    reloaded = primo.load(viper.best_student_.save(tmp_path / "policy.primo"))
    assert isinstance(reloaded, PrDTClassifier)
    saved = viper.best_student_.metadata_["distillation"]
    assert reloaded.metadata_["distillation"]["iterations"] == saved["iterations"]
    assert "position" in str(reloaded) and "goal" in str(reloaded)  # names from env.feature_names


@pytest.mark.parametrize(("teacher", "method"), [(CorridorSoftTeacher(), "viper"), (corridor_teacher_policy, "dagger")])
def test_probability_and_callable_teachers(teacher, method):
    distiller = ViperDistiller(n_iterations=5, episodes_per_iteration=20, eval_episodes=20, search=False,
                               random_state=0).fit(teacher, make_corridor)
    assert distiller.best_student_.metadata_["distillation"]["method"] == method
    assert distiller.history_["reward"].max() >= distiller.teacher_reward_


def test_same_seed_same_distillation():
    runs = [
        ViperDistiller(n_iterations=3, episodes_per_iteration=10, eval_episodes=10, search=False, random_state=7)
        .fit(CorridorQTeacher(), make_corridor)
        for _ in range(2)
    ]
    columns = [c for c in runs[0].history_.columns if c != "seconds"]
    assert runs[0].history_[columns].equals(runs[1].history_[columns])
    np.testing.assert_array_equal(runs[0].best_student_.tree_.threshold, runs[1].best_student_.tree_.threshold)


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="n_iterations must be >= 1"):
        ViperDistiller(n_iterations=0).fit(CorridorQTeacher(), make_corridor)
    with pytest.raises(ValueError, match="3 feature names for observations with 2 entries"):
        ViperDistiller(n_iterations=1, feature_names=["a", "b", "c"], search=False).fit(
            CorridorQTeacher(), make_corridor
        )
    with pytest.raises(ValueError, match="weighting='q' needs"):
        ViperDistiller(weighting="q").fit(CorridorSoftTeacher(), make_corridor)


def test_additive_student_acts_through_named_features():
    distiller = ViperDistiller(
        "pram", n_iterations=1, episodes_per_iteration=10, eval_episodes=3, search=False, random_state=0,
        student_params=dict(max_rounds=100, outer_bags=1, interactions=0, n_jobs=1),
    ).fit(CorridorQTeacher(), make_corridor)
    student = distiller.best_student_
    assert type(student).__name__ == "PrAMClassifier" and student.feature_names_ == ["position", "goal"]
    record = student.metadata_["distillation"]["iterations"][0]
    assert record["n_leaves"] is None and record["complexity"] == student.complexity_
    assert 0.0 <= record["fidelity"] <= 1.0
