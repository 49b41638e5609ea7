"""Supervised distillation of real-data teachers (MLPs on Clara-MS and Clara-AI) into PrDT/PrAM students."""
import warnings

import numpy as np
import onnxruntime
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.metrics import accuracy_score, r2_score

import primo
import primo.export
from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
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
    # A classifier whose leaves hold the teacher's mean P(CRC loop); its labels are the teacher's argmax.
    assert isinstance(student, PrDTClassifier) and student.classes_.tolist() == [0, 1]
    assert record["decision"]["kind"] == "argmax" and record["decision"]["classes"] == [0, 1]
    teacher_labels = ai_teacher.predict(X_test)
    student_labels = predict_labels(student, X_test)
    np.testing.assert_array_equal(student_labels, student.predict(X_test))
    assert record["fidelity"] == pytest.approx(np.mean(student_labels == teacher_labels))
    assert record["held_out"]["argmax_fidelity"] == record["fidelity"]
    # Probability error against the teacher, as reported.
    gap = np.abs(student.predict_proba(X_test)[:, 1] - ai_teacher.predict_proba(X_test)[:, 1]).mean()
    assert record["held_out"]["probability_mae"] == pytest.approx(gap)
    assert record["held_out"]["probability_mae"] < 0.05
    assert record["held_out"]["log_loss_to_teacher"] >= record["held_out"]["teacher_entropy"]
    assert record["fidelity"] >= 0.95
    # Agreement on the rare positive loops too, not only on the 99% negatives.
    assert np.mean(student_labels[teacher_labels == 1] == 1) >= 0.9
    assert record["held_out"]["balanced_fidelity"] >= 0.9


class BiasedTeacher:
    """A classifier that flags a loop as soon as P(CRC) ≥ 0.001 (biased like LinnOS' training; the MLP
    puts no training loop between 0.01 and 0.5, so a milder bias would still be its argmax)."""

    classes_ = np.array([0, 1])

    def __init__(self, model):
        self.model = model

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.001).astype(int)


def test_soft_student_reproduces_a_biased_teachers_threshold(ai_data, ai_teacher):
    X, _, X_test, _ = ai_data
    teacher = BiasedTeacher(ai_teacher)
    student = distill(teacher, X, "prdt", X_test=X_test, labels="soft", search=False, random_state=0)
    assert isinstance(student, PrDTClassifier)
    record = student.metadata_["distillation"]
    assert record["decision"]["kind"] == "threshold"
    threshold = record["decision"]["threshold"]
    # The calibrated threshold separates the teacher's own scores exactly as its labels do.
    scores = teacher.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(scores >= threshold, teacher.predict(X) == 1)
    assert threshold < 0.5
    assert np.mean(predict_labels(student, X_test) == teacher.predict(X_test)) >= 0.95
    # predict stays the student's argmax; the biased decision is predict_labels', and both are reported.
    np.testing.assert_array_equal(student.predict(X_test), student.predict_proba(X_test).argmax(axis=1))
    flagged_below_half = (teacher.predict(X) == 1) & (scores < 0.5)
    assert flagged_below_half.any()
    assert np.all(predict_labels(student, X[flagged_below_half]) == 1)
    assert np.all(student.predict(X[flagged_below_half]) == 0)
    assert record["held_out"]["argmax_fidelity"] <= record["fidelity"]


@pytest.fixture(scope="module")
def wine_teacher():
    X, y = load_wine(return_X_y=True, as_frame=True)
    return X, y, GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_soft_labels_of_a_multiclass_teacher_make_a_calibrated_classifier(tmp_path, wine_teacher, family):
    X, y, teacher = wine_teacher
    params = dict(max_rounds=300, outer_bags=2, interactions=2, n_jobs=1) if family == "pram" else None
    student = distill(teacher, X, family, y=y, labels="soft", n_trials=4, student_params=params, random_state=0)
    expected = {"prdt": PrDTClassifier, "pram": PrAMClassifier}[family]
    assert isinstance(student, expected) and student.classes_.tolist() == [0, 1, 2]
    assert accuracy_score(y, student.predict(X)) >= 0.9  # what issue 20 tried, and it failed
    proba = student.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Calibrated to the teacher: the mean student probability of each class is the teacher's (±0.05).
    np.testing.assert_allclose(proba.mean(axis=0), teacher.predict_proba(X).mean(axis=0), atol=0.05)
    record = student.metadata_["distillation"]
    assert record["decision"]["kind"] == "argmax" and record["held_out"]["argmax_fidelity"] == record["fidelity"]
    assert 0 <= record["held_out"]["probability_mae"] < 0.2
    assert ("regression tree" if family == "prdt" else "weighted by the teacher's probability") in record["soft_fit"]
    assert "search" in student.metadata_  # the structure was searched, then refit on the probabilities
    # Saved and exported like any student: the reloaded model and the ONNX graph give the same probabilities.
    reloaded = primo.load(student.save(tmp_path / "soft.primo"))
    np.testing.assert_allclose(reloaded.predict_proba(X), proba)
    session = onnxruntime.InferenceSession(primo.export.to_onnx(student).SerializeToString())
    dtype = np.float64 if "double" in session.get_inputs()[0].type else np.float32
    outputs = session.run(None, {session.get_inputs()[0].name: X.to_numpy(dtype=dtype)})
    names = [output.name for output in session.get_outputs()]
    onnx_proba = np.asarray(outputs[names.index("probabilities")])
    np.testing.assert_allclose(onnx_proba, proba, atol=1e-5)


def test_soft_labels_need_probabilities_and_a_classifier_student(ai_data, ai_teacher):
    X, _, _, _ = ai_data

    class ScoresOnly:
        classes_ = np.array([0, 1])

        def predict(self, inputs):
            return ai_teacher.predict(inputs)

        def decision_function(self, inputs):
            return ai_teacher.predict_proba(inputs)[:, 1] - 0.5

    with pytest.raises(ValueError, match="needs predict_proba"):
        distill(ScoresOnly(), X[:200], labels="soft", search=False)
    with pytest.raises(ValueError, match="is a regressor"):
        distill(ai_teacher, X[:200], PrDTRegressor(), labels="soft", search=False)


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


class MergingTeacher:
    """A wine classifier that knows three classes but labels every class-2 wine as class 1."""

    classes_ = np.array([0, 1, 2])

    def __init__(self, model):
        self.model = model

    def predict_proba(self, X):
        return self.model.predict_proba(X)

    def predict(self, X):
        return np.minimum(self.model.predict(X), 1)


def test_hard_labels_name_the_classes_the_teacher_never_gave(tmp_path, wine_teacher):
    X, y, model = wine_teacher
    with pytest.warns(UserWarning, match=r"no training input as \[2\].*labels='soft'"):
        student = distill(MergingTeacher(model), X, search=False, random_state=0)
    assert student.classes_.tolist() == [0, 1]
    assert student.metadata_["distillation"]["classes_not_learned"] == [2]
    reloaded = primo.load(student.save(tmp_path / "hard.primo"))
    assert reloaded.metadata_["distillation"]["classes_not_learned"] == [2]
    # Without classes_, the true labels tell which classes the teacher never gave.
    with pytest.warns(UserWarning, match=r"no training input as \[2\].*augment"):
        distill(MergingTeacher(model).predict, X, y=y, search=False, random_state=0)
    # Soft labels keep every class of predict_proba, and say nothing.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        soft = distill(MergingTeacher(model), X, labels="soft", search=False, random_state=0)
    assert soft.classes_.tolist() == [0, 1, 2] and soft.metadata_["distillation"]["classes_not_learned"] == []


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


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_soft_student_of_a_table_with_text_and_string_classes(tmp_path, family):
    from sklearn.compose import make_column_transformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    from tests.primo.tables_any import housing

    X, price = housing()
    y = np.where(price > 300, "high", "low")
    teacher = make_pipeline(make_column_transformer((OrdinalEncoder(), ["city", "kind"]), remainder="passthrough"),
                            HistGradientBoostingClassifier(max_iter=50, random_state=0)).fit(X, y)
    params = {"max_rounds": 200, "outer_bags": 1, "n_jobs": 1} if family == "pram" else None
    student = distill(teacher, X, family, labels="soft", search=False, student_params=params, random_state=0)
    assert student.classes_.tolist() == ["high", "low"] and set(student.predict(X)) <= {"high", "low"}
    assert student.metadata_["distillation"]["fidelity"] >= 0.85
    reloaded = primo.load(student.save(tmp_path / "soft.primo"))
    np.testing.assert_allclose(reloaded.predict_proba(X), student.predict_proba(X))


def test_arrow_table_distills_as_the_pandas_frame():
    """A pyarrow Table (as polars and Arrow readers hand tables over) distills, held-out and augmented
    rows included, into the student the pandas frame gives; before, it was read as an array of
    objects, which lost the column names the teacher and student need."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    X_test, _ = housing(n=60, seed=1)
    teacher = PrDTRegressor(ccp_alpha=1.0, random_state=0).fit(X, price)
    options = dict(augment="both", n_augment=50, search=False, random_state=0)
    expected = distill(teacher, X, X_test=X_test, **options)
    student = distill(teacher, pa.Table.from_pandas(X, preserve_index=False),
                      X_test=pa.Table.from_pandas(X_test, preserve_index=False), **options)
    assert list(student.feature_names_in_) == list(X.columns)
    np.testing.assert_array_equal(student.predict(X_test), expected.predict(X_test))
    assert student.metadata_["distillation"]["fidelity"] == expected.metadata_["distillation"]["fidelity"]


@pytest.mark.parametrize("family", [PrDTClassifier, PrAMClassifier])
def test_a_primo_teacher_warns_about_the_rows_names_once_per_call(family):
    """A Primo teacher fit on a DataFrame given arrays (or fit on an array given DataFrames) gets scikit-learn's
    warning once per distill; before, once per call of the teacher: on X, the augmented inputs, X_test and, for
    soft labels, the probabilities of both (5 times here). An X_test unlike X warns once too (teacher or student).
    Rows as the teacher was fit give no warning; the student is the one the teacher fit on the array gives."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=240), "b": rng.normal(size=240)})
    y = (X["a"] + X["b"] > 0).astype(int).to_numpy()
    params = dict(max_depth=3, random_state=0) if family is PrDTClassifier else dict(
        max_rounds=30, outer_bags=1, n_jobs=1, random_state=0)
    named, unnamed = family(**params).fit(X, y), family(**params).fit(X.to_numpy(), y)
    A = X.to_numpy()
    without = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    with_names = f"X has feature names, but {family.__name__} was fitted without feature names"
    options = dict(augment="perturb", n_augment=60, labels="soft", search=False, random_state=0)
    for teacher, rows, test_rows, message in [(named, A[:180], A[180:], without), (unnamed, X[:180], X[180:], with_names),
                                              (named, X[:180], A[180:], without), (named, A[:180], X[180:], without)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            distill(teacher, rows, X_test=test_rows, **options)
        assert [str(w.message) for w in caught] == [message]
    with pytest.warns(UserWarning, match=without):
        from_arrays = distill(named, A[:180], X_test=A[180:], **options)
    expected = distill(unnamed, A[:180], X_test=A[180:], **options)
    np.testing.assert_array_equal(from_arrays.predict_proba(A), expected.predict_proba(A))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        distill(named, X[:180], X_test=X[180:], **options)
        distill(unnamed, A[:180], X_test=A[180:], **options)
