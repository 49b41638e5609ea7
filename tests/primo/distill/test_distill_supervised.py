"""Supervised distillation of real-data teachers (MLPs on Clara-MS and Clara-AI) into PrDT/PrAM students."""
import numpy as np
import pytest
from sklearn.metrics import r2_score

import primo
from primo import PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.distill import distill, predict_labels


@pytest.fixture(scope="module")
def ms_student(ms_data, ms_teacher):
    X, _, X_test, y_test = ms_data
    return distill(ms_teacher, X, "prdt", X_test=X_test, y_test=y_test, n_trials=8, random_state=0)


def test_prdt_student_of_clara_ms_mlp_reaches_95_percent_fidelity(ms_data, ms_teacher, ms_student):
    _, _, X_test, y_test = ms_data
    record = ms_student.metadata_["distillation"]
    assert isinstance(ms_student, PrDTRegressor)
    # Fidelity for a regression teacher is R² of the student's outputs against the teacher's.
    measured = r2_score(ms_teacher.predict(X_test), ms_student.predict(X_test))
    assert record["fidelity"] == pytest.approx(measured)
    assert measured >= 0.95
    assert record["held_out"]["source"] == "X_test" and record["held_out"]["n"] == len(X_test)
    # Accuracy against the true core counts is reported for teacher and student.
    teacher_mae = np.abs(ms_teacher.predict(X_test) - y_test).mean()
    assert record["accuracy"]["teacher"]["mae"] == pytest.approx(teacher_mae)
    assert record["accuracy"]["student"]["mae"] < 1.25 * teacher_mae
    # The structure was searched on the fidelity objective.
    assert ms_student.metadata_["search"]["scoring"] == "1-r2"
    assert len(ms_student.metadata_["search"]["trials"]) == 8


def test_distillation_record_follows_the_metadata_convention(ms_data, ms_student):
    X, _, _, _ = ms_data
    record = ms_student.metadata_["distillation"]
    assert record["method"] == "supervised" and record["task"] == "regression" and record["labels"] == "hard"
    (iteration,) = record["iterations"]
    assert iteration["n_leaves"] == ms_student.n_leaves_ and iteration["depth"] == ms_student.depth_
    assert iteration["n_samples"] == len(X) and iteration["seconds"] > 0
    assert record["teacher"]["class"].endswith("TransformedTargetRegressor")
    assert "predict" in record["teacher"]["interface"]


def test_saved_student_keeps_its_distillation_history(tmp_path, ms_data, ms_student):
    _, _, X_test, _ = ms_data
    reloaded = primo.load(ms_student.save(tmp_path / "student.primo"))
    assert reloaded.metadata_["distillation"] == ms_student.metadata_["distillation"]
    np.testing.assert_array_equal(reloaded.predict(X_test), ms_student.predict(X_test))


def test_soft_labels_learn_probabilities_and_keep_the_rare_class(ai_data, ai_teacher):
    X, _, X_test, y_test = ai_data
    student = distill(ai_teacher, X, "prdt", X_test=X_test, y_test=y_test, labels="soft", n_trials=6,
                      random_state=0)
    record = student.metadata_["distillation"]
    assert isinstance(student, PrDTRegressor)  # a regression tree on the teacher's P(CRC loop)
    assert record["decision"]["kind"] == "threshold" and record["decision"]["classes"] == [0, 1]
    teacher_labels = ai_teacher.predict(X_test)
    student_labels = predict_labels(student, X_test)
    assert set(np.unique(student_labels)) <= {0, 1}
    assert record["fidelity"] == pytest.approx(np.mean(student_labels == teacher_labels))
    assert record["fidelity"] >= 0.95
    # Agreement on the rare positive loops too, not only on the 99% negatives.
    assert np.mean(student_labels[teacher_labels == 1] == 1) >= 0.9
    assert record["held_out"]["balanced_fidelity"] >= 0.9


class BiasedTeacher:
    """A classifier that flags a loop as soon as P(CRC) ≥ 0.05 (biased like LinnOS' training)."""

    classes_ = np.array([0, 1])

    def __init__(self, model):
        self.model = model

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.05).astype(int)


def test_soft_student_reproduces_a_biased_teachers_threshold(ai_data, ai_teacher):
    X, _, X_test, _ = ai_data
    teacher = BiasedTeacher(ai_teacher)
    student = distill(teacher, X, "prdt", X_test=X_test, labels="soft", search=False, random_state=0)
    threshold = student.metadata_["distillation"]["decision"]["threshold"]
    # The calibrated threshold separates the teacher's own scores exactly as its labels do.
    scores = teacher.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(scores >= threshold, teacher.predict(X) == 1)
    assert threshold < 0.5
    assert np.mean(predict_labels(student, X_test) == teacher.predict(X_test)) >= 0.95


def test_hard_labels_with_augmentation_and_a_held_out_split(ai_data, ai_teacher):
    X, y, _, _ = ai_data
    student = distill(ai_teacher, X[:3000], "prdt", y=y[:3000], augment="perturb", n_augment=500,
                      search=False, random_state=0)
    record = student.metadata_["distillation"]
    assert isinstance(student, PrDTClassifier)
    assert record["held_out"]["source"] == "0.25 of X" and record["held_out"]["n"] == 750
    assert record["iterations"][0]["n_samples"] == 2250 + 500
    assert record["iterations"][0]["n_augmented"] == 500
    assert set(record["accuracy"]) == {"teacher", "student"}
    assert record["fidelity"] >= 0.95


def test_pram_student_and_plain_callable_teacher(ms_data, ms_teacher):
    X, _, X_test, _ = ms_data

    def teacher(inputs):  # a bare function: regression is inferred from its float outputs
        return ms_teacher.predict(inputs)

    student = distill(teacher, X, "pram", X_test=X_test, search=False, random_state=0,
                      student_params=dict(max_rounds=300, outer_bags=2, interactions=0, n_jobs=1))
    assert isinstance(student, PrAMRegressor)
    assert student.metadata_["distillation"]["task"] == "regression"
    assert student.metadata_["distillation"]["fidelity"] >= 0.8


def test_distillation_is_reproducible_with_a_seed(ai_data, ai_teacher):
    X, _, _, _ = ai_data
    first = distill(ai_teacher, X[:2000], augment="both", n_augment=300, search=False, random_state=3)
    second = distill(ai_teacher, X[:2000], augment="both", n_augment=300, search=False, random_state=3)
    np.testing.assert_array_equal(first.tree_.threshold, second.tree_.threshold)
    assert first.metadata_["distillation"]["fidelity"] == second.metadata_["distillation"]["fidelity"]


def test_bad_inputs_are_named(ms_data, ms_teacher, ai_data):
    X, _, _, _ = ms_data
    with pytest.raises(ValueError, match="soft labels are for classifier teachers"):
        distill(ms_teacher, X, labels="soft")
    with pytest.raises(ValueError, match="unknown student"):
        distill(ms_teacher, X, "forest", search=False)
    with pytest.raises(ValueError, match="must be 2-D"):
        distill(ms_teacher, X["A_i"].to_numpy())
    with pytest.raises(ValueError, match=r"returned shape \(3,\)"):
        distill(lambda inputs: np.zeros(3), X)
    with pytest.raises(TypeError, match="must have predict"):
        distill(object(), X)
    with pytest.raises(ValueError, match="augment must be"):
        distill(ms_teacher, X, augment="smote")
    with pytest.raises(ValueError, match="X_test has 3 features"):
        distill(ms_teacher, X, X_test=X.iloc[:, :3])
