"""A short VIPER run from the real actor: a PrDT over the student features that imitates it."""
import numpy as np
import pandas as pd
import pytest

from adapters.pensieve.distillation import distill_actor
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.evaluation import evaluate_policy
from adapters.pensieve.metis import collect_teacher_rollouts
from adapters.pensieve.student import STUDENT_FEATURES, StudentPolicy, student_view
from adapters.pensieve.teacher import ActorTeacher
from primo import PrDTClassifier


@pytest.fixture(scope="module")
def setup(hsdpa, video, actor):
    distiller = distill_actor(actor, video, hsdpa, n_iterations=2, episodes_per_iteration=6, eval_traces=5,
                              n_trials=4, random_state=0)
    return hsdpa, video, actor, distiller


def test_short_viper_run_gives_a_searched_tree(setup):
    traces, video, actor, distiller = setup
    tree = distiller.best_student_
    assert isinstance(tree, PrDTClassifier) and tuple(tree.feature_names_) == STUDENT_FEATURES
    history = distiller.history_
    assert history["iteration"].tolist() == [1, 2] and history["rollout_policy"].tolist() == ["teacher", "student"]
    # Iteration 2 aggregates iteration 1's states with the student's own.
    assert history["n_states"].iloc[1] == history["n_states"].iloc[0] + history["n_new_states"].iloc[1]
    record = tree.metadata_["distillation"]
    assert record["method"] == "viper" and record["options"]["eval_seeds"] == [0, 1, 2, 3, 4]
    assert "search" in tree.metadata_ and tree.ccp_alpha == tree.metadata_["search"]["best_params"]["ccp_alpha"]
    # The selection reward is the QoE summed over 47 chunks of the first 5 HSDPA traces, played cleanly.
    qoe = evaluate_policy(StudentPolicy(tree), traces[:5], video).mean_qoe
    assert record["reward"] == pytest.approx(47 * qoe, rel=1e-9)
    teacher_qoe = evaluate_policy(ActorTeacher(actor), traces[:5], video).mean_qoe
    assert record["teacher_reward"] == pytest.approx(47 * teacher_qoe)


def test_distilled_tree_imitates_the_actor_on_its_own_decisions(setup):
    traces, video, actor, distiller = setup
    X, y = collect_teacher_rollouts(PensieveEnv(traces[7::14], video), ActorTeacher(actor))
    tree = distiller.best_student_
    agreement = np.mean(tree.predict(pd.DataFrame(student_view(X), columns=tree.feature_names_)) == y)
    majority = np.mean(y == np.bincount(y).argmax())  # the best constant policy
    assert agreement > max(0.75, majority + 0.2), (agreement, majority)
