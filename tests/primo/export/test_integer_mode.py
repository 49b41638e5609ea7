"""Integer mode: scales, exactness on integer data, and mismatch counts that the compiled C confirms."""
import numpy as np
import pytest

from primo.export import encode_categories, model_tables, quantize, to_c
from primo.export.tables import INT_MISSING
from tests.primo.export.conftest import NUMERIC
from primo.export.runtimes import c_outputs, verify_export

GAP = NUMERIC.index("gap_ms")


def test_auto_scales_follow_the_thresholds(models):
    model, X_check = models["prdt_binary"]
    tables = model_tables(model)
    integer = quantize(tables)
    used = set(tables.feature[tables.left != -1].tolist())
    for j, scale in enumerate(integer.feature_scales):
        if NUMERIC[j] == "gap_ms" and j in used:
            assert scale == 1000  # submission gaps have 3 decimals: thresholds are multiples of 0.0005
        else:
            assert scale == 1  # integer features: thresholds are integers or .5, as the paper notes
    report = integer.compare(X_check)
    assert report.n_different_paths == 0 and report.n_different_predictions == 0


def test_too_coarse_scale_is_reported_and_confirmed_by_c(models, tmp_path):
    """Scale 1 on the decimal feature rounds gaps to whole ms: some rows change leaf, and the
    header's count is exactly what the compiled integer C gets wrong against the float model."""
    model, X_check = models["prdt_binary"]
    tables = model_tables(model)
    if not np.any(tables.feature[tables.left != -1] == GAP):
        pytest.skip("the fitted tree does not split on gap_ms")  # guards the premise, not the data
    integer = quantize(tables, feature_scales=1)
    report = integer.compare(X_check)
    assert report.n_different_paths > 0
    header = to_c(model, name="coarse", integer=True, feature_scales=1, check_data=X_check)
    assert f"{report.n_different_predictions} predictions and {report.n_different_paths} paths differ" in header
    out = c_outputs(header, tables, integer.scale_inputs(X_check), tmp_path, name="coarse", integer=True)
    float_index = np.searchsorted(tables.classes, model.predict(X_check))
    assert np.sum(out[:, 1] != float_index) == report.n_different_predictions
    assert np.sum(out[:, 0] != tables.leaf_index[model.apply(X_check)]) == report.n_different_paths


def test_missing_values_use_the_int64_min_marker(models, tmp_path):
    model, X_check = models["pram_binary"]
    tables = model_tables(model)
    rows = encode_categories(tables, X_check.head(50))
    rows[:, 1] = np.nan
    integer = quantize(tables)
    X_int = integer.scale_inputs(rows)
    assert np.all(X_int[:, 1] == INT_MISSING)
    out = c_outputs(to_c(model, name="nan", integer=True), tables, X_int, tmp_path, name="nan", integer=True)
    assert np.array_equal(out[:, 0], integer.decision_function(X_int)[:, 0])
    np.testing.assert_allclose(out[:, 0] / integer.score_scale, model.decision_function(X_check.head(50).assign(lat_prev1=np.nan)),
                               atol=1e-5)


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_score_scale_shrinks_rather_than_overflow_and_an_overflowing_scale_is_an_error(family, tmp_path):
    """A target of 1e15 at 10^6 would wrap int64 (it did, silently, for PrDT leaves): 'auto' takes the
    largest power of ten that fits, the compiled C gives the float predictions, and 10^6 asked for is an error."""
    from primo import PrAMRegressor, PrDTRegressor

    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(300, 3)), 2)
    y = (X[:, 0] > 0) * 1e15 + X[:, 1] * 1e14
    model = (PrDTRegressor(max_depth=4, random_state=0) if family == "prdt"
             else PrAMRegressor(max_rounds=30, outer_bags=1, interactions=0, random_state=0)).fit(X, y)
    tables = model_tables(model)
    integer = quantize(tables)
    assert integer.score_scale == 1000
    path = tmp_path / "big.h"
    path.write_text(to_c(model, name="big", integer=True))
    check = verify_export(model, "c", path, X, name="big", integer=integer)
    assert check.ok, check.summary()  # within fixed-point rounding at 10^3
    assert integer.compare(X).n_different_predictions == 0  # the report counts as the verification does
    with pytest.raises(ValueError, match="score_scale 1000000 overflows 64-bit integers.*at most"):
        quantize(tables, score_scale=1_000_000)
    with pytest.raises(ValueError, match="overflow 64-bit integers even at score_scale 1"):
        quantize(model_tables((PrDTRegressor(max_depth=2) if family == "prdt" else
                               PrAMRegressor(max_rounds=10, outer_bags=1, interactions=0)).fit(X, y * 1e5)))


def test_a_split_at_a_float32_data_value_stays_exact_on_multiples():
    """A threshold that is a float32 data value itself (diamonds' PrDT split ``z <= float32(3.54)``) is
    353.99999... at scale 100: the floor sent z = 3.54 to the other side than the float tree does."""
    import dataclasses

    from primo import PrDTRegressor

    x = np.array([3.53, 3.54, 3.55, 3.56] * 25)
    tables = model_tables(PrDTRegressor(max_depth=1, random_state=0).fit(x.reshape(-1, 1), x > 3.545))
    split_at_data_value = np.where(tables.left != -1, float(np.float32(3.54)), tables.threshold)
    tables = dataclasses.replace(tables, threshold=split_at_data_value)
    integer = quantize(tables)
    assert integer.feature_scales[0] == 100
    rows = np.array([[3.53], [3.54], [3.55]])
    assert np.array_equal(integer.apply(integer.scale_inputs(rows)), tables.apply(rows))


def test_a_pram_cut_within_noise_of_a_data_value_stays_exact_on_multiples():
    """interpret's cut between 4.7 and 4.9 is 4.800000000000001: the float model bins x = 4.8 below it,
    the ceiling of 48.00000000000001 put the integer cut at 49 and 48 above it."""
    from primo import PrAMRegressor

    x = np.array([4.7, 4.9, 5.3, 5.1] * 50)
    model = PrAMRegressor(max_rounds=50, outer_bags=1, interactions=0, n_jobs=1, random_state=0)
    tables = model_tables(model.fit(x.reshape(-1, 1), (x > 4.8) * 1.0))
    assert 4.8 < tables.binnings[0].cuts[0] < 4.8 + 1e-12
    integer = quantize(tables)
    assert integer.feature_scales[0] == 10
    rows = np.array([4.7, 4.8, 4.9, 5.0, 5.1, 5.2, 5.3])
    assert np.array_equal(integer.binnings[0].lookup(integer.scale_inputs(rows.reshape(-1, 1))[:, 0]),
                          tables.binnings[0].lookup(rows))


def test_bad_scales_are_rejected(models):
    tables = model_tables(models["prdt_binary"][0])
    with pytest.raises(ValueError, match="feature_scales"):
        quantize(tables, feature_scales=[1, 2])
    with pytest.raises(ValueError, match="positive integers"):
        quantize(tables, feature_scales=0.5)
    with pytest.raises(ValueError, match="score_scale"):
        quantize(tables, score_scale=0)
    with pytest.raises(ValueError, match="check_data is for integer mode"):
        to_c(models["prdt_binary"][0], check_data=models["prdt_binary"][1])
