"""PrDT and PrAM on real data: structure, complexity, printing, input errors, scikit-learn tooling."""
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.inspection import partial_dependence
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.errors import InputError
from tests.primo.helpers import clara_ms, linnos_reads

FAST_PRAM = dict(max_rounds=300, outer_bags=2, n_jobs=1)


def test_prdt_pruning_shrinks_tree_and_complexity_is_leaves_times_depth(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    full = PrDTRegressor(random_state=0).fit(X, y)
    pruned = PrDTRegressor(ccp_alpha=0.5, random_state=0).fit(X, y)
    assert pruned.n_leaves_ < full.n_leaves_
    assert pruned.complexity_ == pruned.n_leaves_ * pruned.depth_
    assert pruned.n_leaves_ == pruned.get_n_leaves() and pruned.depth_ == pruned.get_depth()


def test_prdt_str_prints_rules_with_feature_names(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    tree = PrDTRegressor(ccp_alpha=2.0, random_state=0).fit(X, y)
    text = str(tree)
    assert f"{tree.n_leaves_} leaves" in text
    used = {X.columns[i] for i in tree.tree_.feature if i >= 0}
    assert used and all(name in text for name in used)


def test_prdt_class_weight_biases_towards_the_costly_class(data_dir):
    X, y = linnos_reads(data_dir)
    plain = PrDTClassifier(ccp_alpha=1e-3, random_state=0).fit(X, y)
    biased = PrDTClassifier(ccp_alpha=1e-3, class_weight={0: 1.0, 1: 5.0}, random_state=0).fit(X, y)
    # LinnOS-style biased training predicts "slow" more often: fewer false submits.
    assert biased.predict(X).mean() > plain.predict(X).mean()


def test_prdt_monotonic_constraint_is_respected(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    cst = [0] * X.shape[1]
    cst[list(X.columns).index("A_i")] = 1
    tree = PrDTRegressor(monotonic_cst=cst, ccp_alpha=0.1, random_state=0).fit(X, y)
    grid = pd.concat([X.iloc[[0]]] * 50, ignore_index=True)
    grid["A_i"] = np.linspace(X["A_i"].min(), X["A_i"].max(), 50)
    assert np.all(np.diff(tree.predict(grid)) >= 0)


def test_pram_fits_pairs_and_reports_complexity(data_dir):
    X, y, X_test, y_test = clara_ms(data_dir)
    model = PrAMRegressor(interactions=3, max_bins=32, **FAST_PRAM).fit(X, y)
    assert model.n_interactions_ == 3
    assert model.complexity_ == (1 + 3) * 32
    assert np.abs(model.predict(X_test) - y_test).mean() < 4.0  # a constant predictor scores ≈ 6
    text = str(model)
    assert "intercept" in text and text.count(" & ") == 3


def test_pram_without_pairs_has_complexity_max_bins(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    model = PrAMRegressor(interactions=0, max_bins=64, **FAST_PRAM).fit(X, y)
    assert model.n_interactions_ == 0 and model.complexity_ == 64


def test_pram_says_which_bags_ran_out_of_boosting_rounds(data_dir):
    """A stage runs out of rounds when its steps reach max_rounds × its terms; with room, boosting stops early."""
    X, y, _, _ = clara_ms(data_dir)
    bounded = PrAMRegressor(interactions=2, max_rounds=3, outer_bags=2, n_jobs=1).fit(X, y)
    assert bounded.bags_out_of_rounds() == {"main": 1.0, "pairs": 1.0}
    free = PrAMRegressor(interactions=0, outer_bags=2, n_jobs=1).fit(X, y)
    assert free.max_rounds == 50_000 and free.bags_out_of_rounds() == {"main": 0.0, "pairs": 0.0}
    assert np.all(np.atleast_2d(free.ebm_.best_iteration_)[0] < 50_000 * len(free.term_names_))


def test_pram_eval_terms_add_up_to_prediction(data_dir):
    X, y, X_test, _ = clara_ms(data_dir)
    model = PrAMRegressor(interactions=2, **FAST_PRAM).fit(X, y)
    contributions = model.eval_terms(X_test)
    np.testing.assert_allclose(model.ebm_.intercept_ + contributions.sum(axis=1), model.predict(X_test), rtol=1e-9)


def test_pram_classifier_probabilities(data_dir):
    X, y = linnos_reads(data_dir, n=2000)
    model = PrAMClassifier(interactions=1, **FAST_PRAM).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(model.classes_) == [0, 1]


@pytest.mark.parametrize("make", [lambda: PrDTRegressor(), lambda: PrAMRegressor(**FAST_PRAM)])
def test_bad_inputs_raise_clear_errors(make, data_dir):
    X, y, X_test, _ = clara_ms(data_dir)
    model = make()
    with pytest.raises(NotFittedError):
        model.predict(X_test)
    model.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X_test.to_numpy()[:, :5])
    renamed = X_test.rename(columns={"A_i": "A_x"})
    with pytest.raises(ValueError, match="A_x"):
        model.predict(renamed)
    y_with_nan = y.astype(float)
    y_with_nan.iloc[3] = np.nan
    with pytest.raises(ValueError, match="(?i)nan|infinity"):
        make().fit(X, y_with_nan)


def test_missing_values_are_learned_not_rejected(data_dir):
    """Both families accept NaN features (scikit-learn trees and EBM learn where missing values go)."""
    X, y, X_test, _ = clara_ms(data_dir)
    X = X.copy()
    X.loc[X.index[::7], "R_ec"] = np.nan
    for model in (PrDTRegressor(ccp_alpha=0.3), PrAMRegressor(**FAST_PRAM)):
        model.fit(X, y)
        with_nan = X_test.assign(R_ec=np.nan)
        assert np.isfinite(model.predict(with_nan)).all()


def test_prdt_accepts_read_only_float32_input_with_nan(data_dir):
    """Memory-mapped or shared arrays are read-only; the fit must not need to write to them."""
    X, y = linnos_reads(data_dir, n=2000)
    X = np.ascontiguousarray(X, dtype=np.float32)
    X[::11, 1] = np.nan
    X.setflags(write=False)
    tree = PrDTClassifier(ccp_alpha=1e-3, random_state=0).fit(X, y)
    assert not X.flags.writeable and np.isnan(X[::11, 1]).all()
    assert tree.predict(X).shape == (len(y),) and tree.n_leaves_ > 1


@pytest.mark.parametrize("estimator", [PrDTRegressor(ccp_alpha=0.3), PrAMRegressor(**FAST_PRAM)])
def test_clone_pipeline_and_cross_val_score(estimator, data_dir):
    X, y, _, _ = clara_ms(data_dir)
    assert clone(estimator).get_params() == estimator.get_params()
    scores = cross_val_score(make_pipeline(StandardScaler(), estimator), X, y, cv=3,
                             scoring="neg_mean_absolute_error")
    assert scores.shape == (3,) and np.all(-scores < 5.0)


def test_prdt_partial_dependence_of_a_text_column_by_recursion():
    """scikit-learn's default partial dependence of a regression tree walks tree_ with the grid's text."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"b": rng.uniform(0, 1, 90), "city": np.array(["Lyon", "Nice", "Paris"])[np.arange(90) % 3]})
    y = X["city"].map({"Lyon": 1.0, "Nice": 3.0, "Paris": 2.0}).to_numpy()
    tree = PrDTRegressor(random_state=0).fit(X, y)
    alone = partial_dependence(tree, X, ["city"], categorical_features=["city"])
    assert alone["grid_values"][0].tolist() == ["Lyon", "Nice", "Paris"]
    np.testing.assert_allclose(alone["average"], [[1.0, 3.0, 2.0]])
    both = partial_dependence(tree, X, ["b", "city"], categorical_features=["city"], grid_resolution=4)
    np.testing.assert_allclose(both["average"][0], np.tile([1.0, 3.0, 2.0], (4, 1)))


def test_prdt_classifier_smooths_leaf_probabilities_and_keeps_decisions(data_dir):
    X, y = linnos_reads(data_dir, n=3000)
    raw = PrDTClassifier(random_state=0, leaf_smoothing=0.0).fit(X, y)
    smooth = PrDTClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(smooth.predict(X), raw.predict(X))
    assert smooth.leaf_smoothing_ == 1.0 and raw.leaf_smoothing_ == 0.0
    # A leaf of n rows, k of them of class c, gives P(c) = (k + 1) / (n + 2) with two classes.
    leaves = smooth.apply(X)
    leaf = np.bincount(leaves).argmax()
    rows = leaves == leaf
    expected = (np.bincount(np.asarray(y)[rows], minlength=2) + 1) / (rows.sum() + 2)
    np.testing.assert_allclose(smooth.predict_proba(X[rows][:1])[0], expected)
    assert 0 < smooth.predict_proba(X).min() and smooth.predict_proba(X).max() < 1


@pytest.mark.parametrize("direction", [1, -1])
def test_monotone_prdt_classifier_is_smoothed_and_stays_monotone(data_dir, direction):
    """Laplace smoothing shrinks small leaves more than large ones, which can reverse the order a monotonic
    constraint fixed; the smoothed tree keeps that order and no leaf claims certainty."""
    X, y = linnos_reads(data_dir, n=5000)
    X = pd.DataFrame(X).astype(float)
    constraint = [0] * X.shape[1]
    constraint[0] = direction
    tree = PrDTClassifier(random_state=0, monotonic_cst=constraint).fit(X, y)
    assert tree.leaf_smoothing_ == 1.0
    proba = tree.predict_proba(X)[:, 1]
    assert 0 < proba.min() and proba.max() < 1
    rows = X.sample(300, random_state=0)
    grid = np.unique(np.quantile(X.iloc[:, 0], np.linspace(0, 1, 41)))
    sweep = np.array([tree.predict_proba(rows.assign(**{X.columns[0]: value}))[:, 1] for value in grid])
    assert (direction * np.diff(sweep, axis=0) >= 0).all()


def test_smoothing_a_monotone_tree_cannot_reverse_its_order():
    """A large leaf of 90% positives left of a pure 3-row leaf: Laplace alone gives 0.899 and 0.8 (reversed);
    both are held at their midpoint instead, which keeps the increasing order and the decisions."""
    X = np.r_[np.full(1000, 0.25), np.full(3, 0.75)][:, None]
    y = np.r_[np.ones(900), np.zeros(100), np.ones(3)].astype(int)
    tree = PrDTClassifier(monotonic_cst=[1], random_state=0).fit(X, y)
    low, high = tree.predict_proba([[0.25], [0.75]])[:, 1]
    assert low <= high < 1
    np.testing.assert_allclose([low, high], (901 / 1002 + 4 / 5) / 2)
    np.testing.assert_array_equal(tree.predict([[0.25], [0.75]]), [1, 1])


def test_prdt_smoothing_survives_pruning_search_and_model_files(data_dir, tmp_path):
    from primo.io import load
    from primo.search import PruningSearch

    X, y = linnos_reads(data_dir, n=3000)
    search = PruningSearch(PrDTClassifier(random_state=0), cv=3, random_state=0, progress=False).fit(X, y)
    alpha = search.best_params_["ccp_alpha"]
    direct = PrDTClassifier(random_state=0, ccp_alpha=alpha).fit(X, y)
    np.testing.assert_allclose(search.best_estimator_.predict_proba(X), direct.predict_proba(X))
    loaded = load(direct.save(tmp_path / "tree.primo"))
    np.testing.assert_allclose(loaded.predict_proba(X), direct.predict_proba(X))
    assert loaded.leaf_smoothing_ == 1.0


def test_pram_simplified_shapes_have_at_most_k_pieces_and_match_a_fit(data_dir, tmp_path):
    from primo.io import load
    from primo.models.pram import term_pieces

    X, y, X_test, _ = clara_ms(data_dir)
    model = PrAMRegressor(interactions=2, **FAST_PRAM).fit(X, y)
    small = model.simplified(4)
    assert small.max_pieces == 4 and model.max_pieces is None  # a copy; the original is untouched
    for features, scores in zip(small.ebm_.term_features_, small.ebm_.term_scores_):
        inner = np.asarray(scores)[(slice(1, -1),) * len(features)]
        assert len(np.unique(inner)) <= 4
    assert small.size_ < model.size_ / 5
    # Each term keeps its weighted mean (the intercept keeps its meaning).
    for before, after, weights in zip(model.ebm_.term_scores_, small.ebm_.term_scores_, model.ebm_.bin_weights_):
        np.testing.assert_allclose(np.sum(after * weights), np.sum(before * weights), atol=1e-6 * np.sum(weights))
    # The bags share the drawn pieces, so the error band a report draws belongs to the simplified shape.
    ebm = small.ebm_
    for scores, bags, spread in zip(ebm.term_scores_, ebm.bagged_scores_, ebm.standard_deviations_):
        np.testing.assert_allclose(np.average(bags, axis=0, weights=ebm.bag_weights_), scores, atol=1e-9)
        np.testing.assert_allclose(np.sqrt(np.average((bags - scores) ** 2, axis=0, weights=ebm.bag_weights_)), spread)
    refit = PrAMRegressor(interactions=2, max_pieces=4, **FAST_PRAM).fit(X, y)
    np.testing.assert_allclose(refit.predict(X_test), small.predict(X_test))
    loaded = load(small.save(tmp_path / "small.primo"))
    np.testing.assert_allclose(loaded.predict(X_test), small.predict(X_test))
    assert loaded.max_pieces == 4
    assert term_pieces(np.array([0.0, 1.0, 1.0, 2.0, 0.0]), 1) == 2
    for bad in (0, 2.5, "a", True):
        with pytest.raises(InputError, match="max_pieces"):
            PrAMRegressor(max_pieces=bad, **FAST_PRAM).fit(X, y)
        with pytest.raises(InputError, match="max_pieces"):
            model.simplified(bad)


def test_pram_max_terms_keeps_the_most_important_terms_and_matches_a_fit(data_dir, tmp_path):
    """Dropping the least important terms after boosting: the same model from a fit or from simplified(),
    terms first and pieces second, kept through a model file and every export's tables."""
    import onnxruntime as ort

    from primo.export import compile_python, to_onnx
    from primo.io import load

    X, y, X_test, _ = clara_ms(data_dir)
    model = PrAMRegressor(interactions=2, **FAST_PRAM).fit(X, y)
    ranked = list(model.term_importances().index)
    small = model.simplified(max_terms=3)
    assert small.max_terms == 3 and model.max_terms is None and len(model.term_names_) == 12
    assert small.term_names_ == [name for name in model.term_names_ if name in ranked[:3]]
    # What is left is each kept term's own contribution: the dropped terms were removed, nothing re-fitted.
    kept = [model.term_names_.index(name) for name in small.term_names_]
    expected = model.ebm_.intercept_ + model.eval_terms(X_test)[:, kept].sum(axis=1)
    np.testing.assert_allclose(small.predict(X_test), expected)
    both = model.simplified(4, max_terms=3)
    assert both.size_ < small.size_ and len(both.term_names_) == 3
    refit = PrAMRegressor(interactions=2, max_terms=3, max_pieces=4, **FAST_PRAM).fit(X, y)
    np.testing.assert_allclose(refit.predict(X_test), both.predict(X_test))
    assert model.simplified(max_terms=50).term_names_ == model.term_names_
    loaded = load(both.save(tmp_path / "small.primo"))
    assert loaded.max_terms == 3
    np.testing.assert_allclose(loaded.predict(X_test), both.predict(X_test))
    # Features left without any term are still inputs of every export.
    predict_one = compile_python(both)
    np.testing.assert_allclose([predict_one(row) for row in X_test.to_numpy()], both.predict(X_test))
    session = ort.InferenceSession(to_onnx(both).SerializeToString())
    np.testing.assert_allclose(session.run(None, {"X": X_test.to_numpy(dtype=np.float64)})[0].ravel(),
                               both.predict(X_test), rtol=1e-6)
    for bad in (0, 2.5, "a", True):
        with pytest.raises(InputError, match="max_terms"):
            PrAMRegressor(max_terms=bad, **FAST_PRAM).fit(X, y)
        with pytest.raises(InputError, match="max_terms"):
            model.simplified(max_terms=bad)


def test_pram_simplification_handles_categories_missing_values_and_classes():
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"city": rng.choice(["Lyon", "Paris", "Oslo", "Rome", "Kyiv"], n),
                      "size": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n))})
    y = np.where(X["city"].isin(["Paris", "Rome"]), 2, np.where(X["size"].fillna(0) > 0, 1, 0))
    model = PrAMClassifier(**FAST_PRAM).fit(X, y)
    small = model.simplified(2)
    assert small.size_ < model.size_
    np.testing.assert_allclose(small.predict_proba(X).sum(axis=1), 1.0)
    assert (small.predict(X) == y).mean() > 0.8


def test_pram_does_not_repeat_interprets_advice_about_its_own_plots():
    """interpret warns that its plots hide missing values and multiclass pairs; Primo's explanations show both
    (the missing bin's score, one pair heatmap per class), so a PrAM fit stays quiet about them."""
    import warnings

    from primo.explain import explain_global

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    X[::9, 0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PrAMClassifier(max_rounds=30, outer_bags=1, n_jobs=1).fit(X, np.arange(120) % 3)
    terms = explain_global(model).terms
    assert terms[0].missing_score is not None and any(len(term.features) == 2 for term in terms)


@pytest.mark.parametrize("family", [PrDTRegressor, PrAMRegressor])
def test_an_identifier_column_is_warned_about_by_name(family):
    """A text column with a value per row (a name, an id, free text) fits, but as categories its values are unseen
    on new rows: the user hears which column; a column of a few categories is not mentioned."""
    import warnings

    from primo.errors import InputWarning

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "city": rng.choice(["Paris", "Lyon"], 120),
                      "name": [f"house {i}" for i in range(120)]})
    params = {"max_rounds": 30, "outer_bags": 1, "n_jobs": 1} if family is PrAMRegressor else {}
    with pytest.warns(InputWarning, match=r"'name' \(120 distinct values in 120 rows\) look like identifiers"):
        family(**params).fit(X, X["a"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        family(**params).fit(X.drop(columns="name"), X["a"])


@pytest.mark.parametrize("family", [PrDTRegressor, PrAMRegressor])
def test_a_column_numbering_the_rows_is_warned_about_by_name(family):
    """A numeric row number or sequential id carries the order the rows were stored in (here sorted by the
    target, as many tables are): the user hears which column; numbers of the same range that repeat, or
    that miss a step, are not mentioned."""
    import warnings

    from primo.errors import InputWarning

    rng = np.random.default_rng(0)
    y = np.sort(rng.normal(size=120))
    X = pd.DataFrame({"a": rng.normal(size=120), "row": np.arange(1, 121), "id": rng.permutation(120) + 5000.0})
    params = {"max_rounds": 30, "outer_bags": 1, "n_jobs": 1} if family is PrAMRegressor else {}
    with pytest.warns(InputWarning, match=r"'row' \(each integer from 1 to 120 once\), 'id' \(each integer from "
                                          r"5000 to 5119 once\) look like row numbers"):
        family(**params).fit(X, y)
    repeated = X.assign(row=np.r_[np.arange(1, 119), 7, 120], id=np.arange(120) * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        family(**params).fit(repeated, y)


def test_a_search_gives_an_input_warning_once_and_does_not_count_it_as_a_librarys():
    from primo.errors import InputWarning
    from primo.search import BayesianSearch

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "name": [f"house {i}" for i in range(120)]})
    search = BayesianSearch(PrAMRegressor(max_rounds=30, outer_bags=1, n_jobs=1), n_trials=3, cv=3, n_jobs=1,
                            progress=False, random_state=0)
    with pytest.warns(InputWarning) as caught:
        search.fit(X, X["a"])
    assert sum(issubclass(w.category, InputWarning) for w in caught) == 1
    assert not any("identifiers" in message for message in search.warnings_)


@pytest.mark.parametrize("family", [PrDTClassifier, PrAMClassifier])
def test_rows_without_names_are_warned_about_as_scikit_learn_does(family):
    """A model fit on named columns reads an array by position: scikit-learn's UserWarning, in its words, from
    every prediction method; named rows (in any order) and a model fit on an array stay quiet; a wrong width is
    an error alone."""
    import warnings

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    y = (X["a"] > 0).astype(int)
    params = {"max_rounds": 30, "outer_bags": 1, "n_jobs": 1} if family is PrAMClassifier else {}
    model = family(**params).fit(X, y)
    methods = [model.predict, model.predict_proba] + ([model.decision_function] if family is PrAMClassifier else [])
    expected = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    for method in methods:
        with pytest.warns(UserWarning, match=expected):
            method(X.to_numpy()[:5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in methods:
            method(X[:5])
            method(X[["b", "a"]][:5])
        with pytest.raises(ValueError, match="X has 1 features"):
            model.predict(X.to_numpy()[:5, :1])
        family(**params).fit(X.to_numpy(), y).predict(X.to_numpy()[:5])


def test_pram_pairs_leave_out_pairs_of_more_than_max_pair_cells():
    """interpret keeps every category of a nominal feature in a pair term (free text made pairs 300x slower), so
    interpret's choice of pairs skips a pair of more than MAX_PAIR_CELLS cells: a 300-value column against a
    continuous feature cut to 32 bins, not against a two-value one; main effects stay, pairs named by the
    caller are kept, and an object array's numbers are cut like numbers."""
    from primo.models.pram import MAX_PAIR_CELLS

    rng = np.random.default_rng(0)
    n = 900
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "kind": rng.choice(["x", "y"], n),
                      "city": [f"c{i}" for i in rng.integers(0, 300, n)]})
    assert 300 * 2 <= MAX_PAIR_CELLS < 300 * 32
    y = X["a"] * X["b"] + (X["city"].str[1:].astype(int) % 5) * (X["a"] > 0)
    params = {"max_rounds": 100, "outer_bags": 1, "n_jobs": 1, "interactions": 6}

    def pairs(model):
        return {name for name in model.ebm_.term_names_ if " & " in name}

    model = PrAMRegressor(**params).fit(X, y)
    assert "city" in model.ebm_.term_names_ and pairs(model) == {"a & b", "a & kind", "b & kind", "kind & city"}
    assert "a & city" in pairs(PrAMRegressor(**params, max_interaction_bins=16).fit(X, y))
    named = PrAMRegressor(**{**params, "interactions": [("a", "city")]}).fit(X, y)
    assert pairs(named) == {"a & city"}
    as_array = X.assign(a=(X["a"] * 100).round().astype(int).astype(str)).to_numpy(dtype=object)
    assert "feature_0000 & feature_0001" in pairs(PrAMRegressor(**params).fit(as_array[:, [0, 1, 3]], y))


def test_pair_cells_read_the_callers_feature_types():
    """Categories or cut points the caller lists in ``feature_types`` are the bins counted, not the column's values."""
    from primo.models.pram import _pairs_too_large

    X = pd.DataFrame({"a": np.arange(600.0), "city": [f"c{i % 300}" for i in range(600)]})
    assert _pairs_too_large(X, ["continuous", "nominal"], 32) == [(0, 1)]
    assert _pairs_too_large(X, [[-1.0, 0.0, 1.0], "nominal"], 32) == []  # 4 bins x 300
    assert _pairs_too_large(X, [["x", "y"], "nominal"], 32) == []  # 2 categories x 300
    assert _pairs_too_large(X, ["continuous", "continuous"], 32) == []


def test_pair_cells_never_leave_out_two_continuous_features():
    """The bound is for categories, which interpret never cuts; two numbers cut to the caller's
    ``max_interaction_bins`` (here 128 x 128 cells) stay candidates however fine the cut."""
    from primo.models.pram import MAX_PAIR_CELLS, _pairs_too_large

    X = pd.DataFrame({"a": np.arange(600.0), "b": np.arange(600.0)[::-1], "city": [f"c{i % 300}" for i in range(600)]})
    assert 128 * 128 > MAX_PAIR_CELLS
    assert _pairs_too_large(X, None, 128) == [(0, 2), (1, 2)]


@pytest.mark.parametrize("family", [PrDTClassifier, PrAMClassifier])
def test_named_rows_for_a_model_fit_without_names_are_warned_about_as_scikit_learn_does(family):
    """The reverse of the warning above: a model fit on an array reads a DataFrame's columns by position, whatever
    their names, and says so in scikit-learn's words, once per call of every prediction method (before: interpret's
    own "falling back to positional columns" for a PrAM, and nothing for a PrDT whose rows were encoded, such as a
    boolean column). Arrays, a frame whose column labels are not text (scikit-learn's rule: no names), and a model
    fit on names stay quiet; a wrong width is an error alone."""
    import warnings

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120), "c": rng.integers(0, 2, size=120)})
    y = (X["a"] > 0).astype(int)
    params = {"max_rounds": 30, "outer_bags": 1, "n_jobs": 1} if family is PrAMClassifier else {"random_state": 0}
    model = family(**params).fit(X.to_numpy(), y)
    methods = [model.predict, model.predict_proba] + ([model.decision_function, model.eval_terms]
                                                      if family is PrAMClassifier else [model.apply, model.decision_path])
    expected = f"X has feature names, but {family.__name__} was fitted without feature names"
    for rows in (X[:5], X[:5].astype({"c": bool})):
        for method in methods:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                method(rows)
            assert [str(w.message) for w in caught] == [expected], method.__name__
            assert caught[0].category is UserWarning
    reordered = X[["b", "a", "c"]][:5]
    with pytest.warns(UserWarning, match=expected):  # read by position, not by name
        np.testing.assert_array_equal(model.predict_proba(reordered), model.predict_proba(reordered.to_numpy()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in methods:
            method(X.to_numpy()[:5])
            method(pd.DataFrame(X.to_numpy()[:5]))  # column labels 0, 1, 2: no names
        with pytest.raises(ValueError, match="X has 2 features"):
            model.predict(X[["a", "b"]][:5])
        family(**params).fit(X, y).predict(X[:5])


def test_pram_regressor_learns_targets_of_any_scale():
    """interpret learned an intercept alone on targets near 1e40 (draw 7's physical constants) and other terms near
    1e20 or 1e-30; PrAM boosts in units of a power of two, so the model is the same at any scale (up to the rounding
    of the scaled target), and bit-identical for a power-of-two scale."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    params = {"outer_bags": 2, "n_jobs": 1, "random_state": 0, "max_rounds": 200}
    expected = PrAMRegressor(**params).fit(X, y).predict(X)
    for scale in (1e-40, 1e20, 1e40):
        model = PrAMRegressor(**params).fit(X, y * scale)
        assert model.ebm_.min_target_ == pytest.approx(y.min() * scale)
        np.testing.assert_allclose(model.predict(X) / scale, expected, rtol=1e-6)
    np.testing.assert_array_equal(PrAMRegressor(**params).fit(X, y * 2.0 ** 30).predict(X), expected * 2.0 ** 30)
