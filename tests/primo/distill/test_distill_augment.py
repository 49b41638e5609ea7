"""Input augmentation (quantile-space perturbation, marginal sampling) and fidelity metrics."""
import numpy as np
import pandas as pd
import pytest

from primo.distill import accuracy_report, augment, fidelity_report, perturb, sample_marginals


def test_perturbations_stay_on_the_data_and_keep_types(ms_data):
    X, _, _, _ = ms_data
    new = perturb(X, 2000, scale=0.05, random_state=0)
    assert isinstance(new, pd.DataFrame) and list(new.columns) == list(X.columns)
    assert (new.dtypes == X.dtypes).all()
    assert ((new >= X.min()) & (new <= X.max())).all().all()
    # Integer-valued features (A_i, A_e, I_c: counts) only take values seen in the data.
    for column in ("A_i", "A_e", "I_c"):
        assert set(new[column]) <= set(X[column])
    # New rows are moved, not copies of old ones.
    nearest = np.abs(new["R_res"].to_numpy()[:, None] - X["R_res"].to_numpy()[None, :]).min(axis=1)
    assert np.mean(nearest > 0) > 0.9


def test_noise_is_in_quantile_units():
    # Two identical, uniformly spread columns: each is moved independently, so the gap between
    # them in a new row is noise of standard deviation scale·√2 (median |gap| ≈ 0.954·scale).
    values = (np.arange(2000) + 0.5) / 2000
    X = np.column_stack([values, values])
    for scale in (0.01, 0.1):
        new = perturb(X, 4000, scale=scale, random_state=1)
        assert np.median(np.abs(new[:, 0] - new[:, 1])) == pytest.approx(0.954 * scale, rel=0.1)


def test_marginal_samples_keep_each_column_and_break_correlations(ms_data):
    X, _, _, _ = ms_data
    new = sample_marginals(X, 5000, random_state=0)
    for column in X.columns:
        assert set(new[column]) <= set(X[column])
    original = X["R_sum"].corr(X["R_ic"])
    assert abs(original) > 0.5 and abs(new["R_sum"].corr(new["R_ic"])) < 0.1


def test_augment_on_binary_arrays_keeps_flags_and_is_seeded(ai_data):
    X, _, _, _ = ai_data
    first = augment(X[:1000], 400, method="both", random_state=5)
    second = augment(X[:1000], 400, method="both", random_state=5)
    assert first.shape == (400, X.shape[1]) and first.dtype == X.dtype
    assert set(np.unique(first)) <= {0, 1}
    np.testing.assert_array_equal(first, second)


def test_tables_with_text_categories_booleans_and_missing_values():
    X = pd.DataFrame({
        "op": pd.Series(["read", "write", "read", None] * 25, dtype="str"),
        "disk": pd.Categorical(["a", "b", "c", "a"] * 25),
        "sync": [True, False] * 50,
        "size": np.where(np.arange(100) % 4 == 2, np.nan, np.linspace(1.5, 8.75, 100)),
        "queue": [0, 1, 2, 3, 4] * 20,
    })
    for new in (perturb(X, 400, random_state=0), sample_marginals(X, 400, random_state=0)):
        assert list(new.columns) == list(X.columns) and (new.dtypes == X.dtypes).all()
        for column in ("op", "disk", "sync", "queue"):
            assert set(new[column].dropna()) <= set(X[column].dropna())
        assert new["size"].isna().any() and new["op"].isna().any()  # missing values are kept
        assert new["size"].dropna().between(1.5, 8.75).all()
    moved = perturb(X, 400, random_state=0)
    assert not moved["size"].dropna().isin(X["size"]).all()  # numbers are moved, not only copied
    # Arrays keep NaN too.
    assert np.isnan(sample_marginals(np.array([[1.0, np.nan], [2.0, 3.0]]), 50, random_state=0)).any()


def test_arrow_tables_augment_as_their_pandas_frames():
    """A pyarrow Table gives the rows its pandas frame gives, as a DataFrame with its names and kinds;
    before, it was read as an array and its text refused."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, _ = housing(n=100)
    table = pa.Table.from_pandas(X, preserve_index=False)
    for generate in (perturb, sample_marginals):
        pd.testing.assert_frame_equal(generate(table, 40, random_state=0), generate(X, 40, random_state=0))
    pd.testing.assert_frame_equal(augment(table, 40, method="both", random_state=0),
                                  augment(X, 40, method="both", random_state=0))


def test_augmentation_errors_are_named():
    with pytest.raises(ValueError, match="pass text columns in a DataFrame"):
        perturb(np.array([["read", 1], ["write", 2]], dtype=object), 5)
    with pytest.raises(ValueError, match="infinity"):
        sample_marginals(np.array([[1.0, np.inf], [2.0, 3.0]]), 5)
    with pytest.raises(ValueError, match="'when'.*dates or times"):
        perturb(pd.DataFrame({"when": pd.date_range("2024-01-01", periods=3), "x": [1, 2, 3]}), 5)
    with pytest.raises(ValueError, match="quantile units"):
        perturb(np.eye(3), 5, scale=2.0)
    with pytest.raises(ValueError, match="method must be one of"):
        augment(np.eye(3), 5, method="smote")


def test_fidelity_and_accuracy_reports():
    teacher = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    student = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    report = fidelity_report(teacher, student, "classification")
    assert report == {"fidelity": 0.9, "balanced_fidelity": 0.75, "n": 10}
    regression = fidelity_report([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0], "regression")
    assert regression["fidelity"] == pytest.approx(1 - 1 / 5) and regression["mae_to_teacher"] == 0.25
    assert accuracy_report(teacher, student, "classification")["f1"] == pytest.approx(2 / 3)
    assert accuracy_report([1.0, 3.0], [2.0, 3.0], "regression")["mae"] == 0.5
    with pytest.raises(ValueError, match="different lengths"):
        fidelity_report([0, 1], [0], "classification")
    with pytest.raises(ValueError, match="task must be"):
        fidelity_report([0, 1], [0, 1], "ranking")
