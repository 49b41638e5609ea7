"""Automatic model selection against stated requirements, on real data."""
import pytest

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrimoClassifier, PrimoRegressor, RequirementsNotMetError
from tests.primo.helpers import clara_ms, linnos_reads

FAST = {"pram": {"max_rounds": 200, "outer_bags": 1, "n_jobs": 1}}


def test_selects_a_model_meeting_the_complexity_budget(data_dir):
    X, y = linnos_reads(data_dir, n=2000)
    auto = PrimoClassifier(scoring="f1", n_trials=4, max_complexity=600, family_params=FAST, random_state=0).fit(X, y)
    report = auto.selection_report_
    assert set(report["family"]) == {"prdt", "pram"}
    assert report["selected"].sum() == 1
    # every PrAM has complexity >= max_bins >= 8 per pair term; the winner must respect the budget
    assert auto.best_estimator_.complexity_ <= 600
    assert isinstance(auto.best_estimator_, (PrDTClassifier, PrAMClassifier))
    assert (report["latency_us"] > 0).all() and (report["latency_p90_us"] >= report["latency_us"]).all()
    assert auto.predict(X).shape == (len(X),)
    assert auto.best_estimator_.metadata_["selection"]


def test_max_size_keeps_a_model_a_person_can_read(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    free = PrimoRegressor(n_trials=3, family_params=FAST, random_state=0).fit(X, y)
    limit = free.best_estimator_.size_ // 4
    capped = PrimoRegressor(n_trials=3, max_size=limit, family_params=FAST, random_state=0).fit(X, y)
    report = capped.selection_report_
    assert capped.best_estimator_.size_ <= limit
    assert report.loc[report["selected"], "size"].item() <= limit
    # what was given up is visible: the capped model validates no better than the free one
    assert report.loc[report["selected"], "score"].item() >= free.selection_report_.loc[
        free.selection_report_["selected"], "score"].item() - 1e-12
    with pytest.raises(RequirementsNotMetError, match="max_size 0.5 by"):
        PrimoRegressor(n_trials=2, max_size=0.5, family_params=FAST, random_state=0).fit(X, y)


@pytest.mark.parametrize("limits, named", [
    ({"max_size": "40"}, "max_size"), ({"max_size": 0}, "max_size"), ({"max_latency_us": float("nan")}, "max_latency_us"),
    ({"max_complexity": True}, "max_complexity"), ({"min_score": [0.5]}, "min_score")])
def test_a_bad_limit_is_named_before_anything_is_searched(limits, named):
    from primo.errors import InputError

    with pytest.raises(InputError, match=named) as excinfo:
        PrimoRegressor(**limits).fit([[0.0], [1.0], [2.0], [3.0]], [0.0, 1.0, 2.0, 3.0])
    assert excinfo.value.argument == named


def test_impossible_requirements_say_which_and_by_how_much(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.raises(RequirementsNotMetError) as excinfo:
        PrimoRegressor(n_trials=3, max_loss=0.01, max_latency_us=0.001, family_params=FAST, random_state=0).fit(X, y)
    message = str(excinfo.value)
    assert "prdt:" in message and "pram:" in message
    assert "max_loss 0.01 by" in message and "max_latency_us 0.001 by" in message


def test_min_score_needs_a_score_like_metric(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.raises(ValueError, match="max_loss"):
        PrimoRegressor(scoring="mae", min_score=0.5, n_trials=2, families=("prdt",)).fit(X, y)


def test_unknown_family_is_rejected(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.raises(ValueError, match="families"):
        PrimoRegressor(families=("svm",)).fit(X, y)


def test_selection_is_never_worse_than_either_default_beyond_noise(data_dir):
    """Both families' defaults are trials on the same folds, so the kept model validates within noise of them."""
    X, y, _, _ = clara_ms(data_dir)
    auto = PrimoRegressor(n_trials=3, family_params=FAST, random_state=0, n_jobs=1).fit(X, y)
    pool = {family: search.trials_ for family, search in auto.searches_.items()}
    defaults = [pool["prdt"].iloc[0], pool["pram"].iloc[0]]
    assert pool["prdt"].iloc[0]["ccp_alpha"] == 0.0 and pool["pram"].iloc[0]["source"] == "estimator"
    # and PrAM at EBM's 1,024 bins beside it (Clara-MS's features have 600+ distinct values)
    start = pool["pram"].iloc[1]
    assert start["source"] == "start" and start["max_bins"] == 1024 and len(start["fold_losses"]) == 5
    kept = auto.selection_report_.set_index("family").loc[auto.best_family_]
    best_default = min(d["score"] for d in defaults)
    assert kept["score"] <= best_default + 2 * kept["loss_se"]
    assert kept["within_noise"] and kept["relative_loss"] < 1
    assert {"loss_se", "relative_loss", "size", "latency_us", "within_noise"} <= set(auto.selection_report_.columns)
    # each candidate's saved history marks the trial it was refit from
    for family, model in auto.candidates_.items():
        history = model.metadata_["search"]
        kept = [t for t in history["trials"] if t["chosen"]]
        assert len(kept) == 1 and kept[0]["trial"] == history["chosen_trial"] and kept[0]["params"] == history["best_params"]
        assert all(model.get_params()[k] == v for k, v in history["best_params"].items())


def test_text_columns_and_missing_values_select_without_crashing(data_dir):
    import numpy as np
    import pandas as pd

    X, y, _, _ = clara_ms(data_dir)
    X = X.copy()
    X["tier"] = np.where(X["R_state"] > X["R_state"].median(), "large", "small")
    X.loc[X.index[::7], "A_i"] = np.nan
    auto = PrimoRegressor(n_trials=2, family_params=FAST, random_state=0, n_jobs=1).fit(X, y)
    assert auto.predict(X).shape == (len(X),)
    assert pd.notna(auto.selection_report_["loss"]).all()


def test_a_family_whose_every_trial_fails_is_reported_and_the_other_selected(data_dir):
    import numpy as np

    from primo.search import TrialsFailedError

    X, y, _, _ = clara_ms(data_dir)
    broken = {"pram": {**FAST["pram"], "monotone_constraints": [1] * (X.shape[1] + 3)}}  # wrong length: every fit fails
    with pytest.warns(UserWarning, match="pram: every trial failed"):
        auto = PrimoRegressor(n_trials=2, family_params=broken, random_state=0, n_jobs=1).fit(X, y)
    assert auto.best_family_ == "prdt" and np.isfinite(auto.predict(X)).all()
    failed = auto.selection_report_.set_index("family").loc["pram"]
    assert not failed["selected"] and failed["reason"].startswith("every trial failed")
    with pytest.raises(TrialsFailedError, match="pram: every trial failed"):
        PrimoRegressor(families=("pram",), n_trials=2, family_params=broken, random_state=0, n_jobs=1).fit(X, y)


def test_a_family_that_refuses_the_input_is_reported_and_the_other_selected(data_dir):
    """Infinity: PrDT (float32) refuses it, PrAM reads it beyond every bin edge; input every family refuses
    raises that family's own error."""
    import numpy as np

    from primo.errors import ColumnMismatchError, InputError

    X, y, _, _ = clara_ms(data_dir)
    X = X.copy()
    X.loc[X.index[:3], "A_i"] = np.inf
    with pytest.warns(UserWarning, match="prdt: column 'A_i' of X holds infinity"):
        auto = PrimoRegressor(n_trials=2, family_params=FAST, random_state=0, n_jobs=1).fit(X, y)
    assert auto.best_family_ == "pram" and np.isfinite(auto.predict(X)).all()
    refused = auto.selection_report_.set_index("family").loc["prdt"]
    assert not refused["selected"] and "holds infinity" in refused["reason"]
    with pytest.raises(InputError, match="column 'A_i' of X holds infinity"):
        PrimoRegressor(families=("prdt",), n_trials=2, random_state=0).fit(X, y)
    with pytest.raises(ColumnMismatchError, match="duplicate column names"):
        PrimoRegressor(n_trials=2, family_params=FAST, random_state=0, n_jobs=1).fit(
            X.set_axis(["A_i", *X.columns[1:-1], "A_i"], axis=1), y)


def test_the_selected_pram_is_refit_on_every_row_unless_the_refit_breaks_a_limit(data_dir, monkeypatch):
    """Its validated average is of 5 one-bag folds, each on 4/5 of the rows; the kept model is the refit."""
    from primo.search import BayesianSearch

    X, y, _, _ = clara_ms(data_dir)
    options = dict(families=("pram",), n_trials=3, random_state=0, n_jobs=1,
                   family_params={"pram": {"max_rounds": 200, "outer_bags": 2, "n_jobs": 1}})
    auto = PrimoRegressor(**options).fit(X, y)
    assert auto.best_estimator_.outer_bags == 2
    assert auto.selection_report_["size"].item() == auto.best_estimator_.size_

    class Oversized(PrAMRegressor):
        size_ = 10**9

    real_refit = BayesianSearch._refit_model

    def oversized_refit(self, *args):
        model = real_refit(self, *args)
        model.__class__ = Oversized
        return model

    monkeypatch.setattr(BayesianSearch, "_refit_model", oversized_refit)
    capped = PrimoRegressor(**options, max_size=10**6).fit(X, y)
    assert capped.best_estimator_.outer_bags == 5 and capped.best_estimator_.size_ < 10**6
    assert capped.selection_report_["size"].item() == capped.best_estimator_.size_


def test_an_unseeded_fit_is_reproduced_by_the_seed_it_drew(data_dir):
    """Without random_state one seed is drawn for every family; passing it back refits the same selection."""
    import numpy as np

    X, y, X_test, _ = clara_ms(data_dir)
    cheap = {"pram": {"max_rounds": 50, "outer_bags": 1, "n_jobs": 1}}
    drawn = PrimoRegressor(n_trials=3, family_params=cheap, n_jobs=1, progress=False).fit(X, y)
    seeds = {search.random_state for search in drawn.searches_.values()}
    assert len(seeds) == 1
    again = PrimoRegressor(n_trials=3, family_params=cheap, n_jobs=1, progress=False, random_state=seeds.pop()).fit(X, y)
    for family in drawn.searches_:
        assert drawn.searches_[family].trials_["loss"].tolist() == again.searches_[family].trials_["loss"].tolist()
    np.testing.assert_array_equal(drawn.predict(X_test), again.predict(X_test))


def test_a_selection_no_better_than_the_median_searches_median_trees_and_is_warned_about():
    """A heavy-tailed target scored on MAE: every model fits the mean and loses to the constant median, so PrDT
    is searched again with trees grown on absolute error, and the user hears that nothing beat the constant."""
    import warnings

    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 3))  # no signal
    y = np.exp(rng.normal(scale=2.0, size=600))
    with pytest.warns(UserWarning, match=r"trivial predictor.*median of y.*absolute error were searched too"):
        auto = PrimoRegressor(random_state=0, n_trials=4, progress=False).fit(X, y)
    assert auto.searches_["prdt"].estimator.criterion == "absolute_error"
    assert auto.best_family_ == "prdt" and auto.best_estimator_.n_leaves_ == 1
    np.testing.assert_allclose(auto.predict(X[:5]), np.median(y))  # the constant that beat every model
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a target the features explain: no second search, no warning
        auto = PrimoRegressor(families=("prdt",), random_state=0, progress=False).fit(X, np.log(y) + X[:, 0])
    assert auto.searches_["prdt"].estimator.criterion == "squared_error"


def test_a_pram_search_far_behind_the_tree_stops_after_its_default():
    """A three-way parity that a tree of 8 leaves finds exactly and no additive model with pairs can: the PrAM
    search stops after its default trial (wvs_immig's PrAM trials took minutes at 13-18x the tree's loss), and
    the report says so; where PrAM competes, its search runs its course."""
    import numpy as np

    from primo.selection import FAR_BEHIND

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 3))
    y = 10.0 * ((X > 0.5).sum(axis=1) % 2)
    auto = PrimoRegressor(random_state=0, n_trials=6, n_jobs=1, progress=False).fit(X, y)
    pram, prdt = auto.searches_["pram"], auto.searches_["prdt"]
    assert auto.best_family_ == "prdt" and prdt.trials_["relative_loss"].min() < 0.1
    assert pram.stopped_ and len(pram.trials_) == 1 and pram.trials_["source"].tolist() == ["estimator"]
    assert pram.stop_above == pytest.approx(FAR_BEHIND * prdt.trials_["relative_loss"].min())
    assert pram.trials_["relative_loss"].iloc[0] > pram.stop_above
    reason = auto.selection_report_.set_index("family").at["pram", "reason"]
    assert "search stopped after 1 trial" in reason
    additive = PrimoRegressor(random_state=0, n_trials=3, n_jobs=1, progress=False,
                              family_params={"pram": {"max_rounds": 200}}).fit(X[:200], 3 * X[:200, 0] + X[:200, 1] ** 2)
    assert additive.searches_["pram"].stopped_ is None and len(additive.searches_["pram"].trials_) > 1


def test_automatic_selection_behaves_as_a_scikit_learn_meta_estimator():
    """Feature names, decision_function and tags follow the selected model, as scikit-learn's meta-estimators
    do; a 2-D target is refused before any search; sparse rows leave the family that reads them."""
    import numpy as np
    import pandas as pd
    import scipy.sparse
    from sklearn.utils import get_tags

    from primo.errors import InputError

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150)})
    labels = (X["a"] + 0.3 * rng.normal(size=150) > 0).astype(int)
    cheap = {"pram": {"max_rounds": 50, "outer_bags": 1, "n_jobs": 1}}
    pram = PrimoClassifier(families=("pram",), n_trials=1, family_params=cheap, n_jobs=1, progress=False,
                           random_state=0).fit(X, labels)
    assert list(pram.feature_names_in_) == ["a", "b"] and get_tags(pram).input_tags.allow_nan
    np.testing.assert_allclose(pram.decision_function(X), pram.best_estimator_.decision_function(X))
    tree = PrimoClassifier(families=("prdt",), n_jobs=1, progress=False, random_state=0).fit(X, labels)
    assert not hasattr(tree, "decision_function")  # a PrDT has none, as scikit-learn's trees
    tree.fit(X.to_numpy(), labels)
    assert not hasattr(tree, "feature_names_in_")  # refit on an array: the names are gone with the model
    with pytest.raises(InputError, match=r"y has shape \(150, 2\)"):
        PrimoRegressor(progress=False).fit(X, np.c_[X["a"], X["b"]])
    with pytest.warns(UserWarning, match="pram: .*sparse"):
        sparse = PrimoRegressor(family_params=cheap, n_trials=1, n_jobs=1, progress=False,
                                random_state=0).fit(scipy.sparse.csr_matrix(X.to_numpy()), X["a"].to_numpy())
    assert sparse.best_family_ == "prdt"


def test_automatic_selection_warns_about_rows_without_names_as_scikit_learn_does():
    """Fit on named columns, predicted on an array: the selected model's warning (as GridSearchCV's), once."""
    import warnings

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150)})
    auto = PrimoRegressor(families=("prdt",), n_jobs=1, progress=False, random_state=0).fit(X, X["a"])
    with pytest.warns(UserWarning, match="X does not have valid feature names, but PrDTRegressor was fitted") as caught:
        auto.predict(X.to_numpy()[:5])
    assert len([w for w in caught if "valid feature names" in str(w.message)]) == 1
    classifier = PrimoClassifier(families=("prdt",), n_jobs=1, progress=False, random_state=0).fit(X, X["a"] > 0)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        classifier.predict_proba(X.to_numpy()[:5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto.predict(X[["b", "a"]][:5])
        classifier.predict(X[:5])


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_automatic_selection_warns_about_named_rows_for_a_fit_without_names_as_scikit_learn_does(family):
    """Fit on an array, predicted on a DataFrame: the selected model's warning that the columns are read by position
    (scikit-learn's words, as GridSearchCV's), once per call; before, a selected PrAM gave interpret's warning
    instead. The selection's own fit on an array gives none."""
    import warnings

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=150), "b": rng.normal(size=150)})
    cheap = {"pram": {"max_rounds": 50, "outer_bags": 1, "n_jobs": 1}}
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")
        auto = PrimoRegressor(families=(family,), n_trials=2, family_params=cheap, n_jobs=1, progress=False,
                              random_state=0).fit(X.to_numpy(), X["a"].to_numpy())
        classifier = PrimoClassifier(families=(family,), n_trials=2, family_params=cheap, n_jobs=1, progress=False,
                                     random_state=0).fit(X.to_numpy(), (X["a"] > 0).to_numpy())
        auto.predict(X.to_numpy()[:5])
        classifier.predict_proba(X.to_numpy()[:5])
    who = type(auto.best_estimator_).__name__
    for method in (auto.predict, classifier.predict, classifier.predict_proba):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            method(X[:5])
        assert [str(w.message) for w in caught if "feature names" in str(w.message)] == [
            f"X has feature names, but {type(method.__self__.best_estimator_).__name__} was fitted without feature names"]
    assert who == {"prdt": "PrDTRegressor", "pram": "PrAMRegressor"}[family]


def test_under_a_budget_a_finalist_without_a_validated_model_gives_way_when_its_refit_is_cut(data_dir, monkeypatch):
    from primo.search import BayesianSearch

    X, y, _, _ = clara_ms(data_dir)
    own_fit, own_refit = BayesianSearch._validated_fit, BayesianSearch._refit_model
    attempts = []

    def estimator_only(self, params):  # as if every other trial had been raced (fitted fold by fold: no model)
        given = self.trials_.loc[self.trials_["source"] == "estimator", "params"].iloc[0]
        return own_fit(self, params) if params == given else None

    def cut_when_bounded(self, params, X, y, sample_weight, stop_at=None):  # a refit the budget's end stops
        attempts.append(stop_at)
        return None if stop_at is not None else own_refit(self, params, X, y, sample_weight)

    monkeypatch.setattr(BayesianSearch, "_validated_fit", estimator_only)
    monkeypatch.setattr(BayesianSearch, "_refit_model", cut_when_bounded)
    model = PrimoRegressor(families=("pram",), n_trials=8, time_budget_s=1e4, random_state=0, progress=False)
    model.fit(X, y)
    search = model.searches_["pram"]
    assert attempts and attempts[0] is not None  # the rule's finalist had no model, and its refit was tried
    kept = search.trials_.loc[search.trials_["trial"] == model.best_estimator_.metadata_["search"]["chosen_trial"]]
    assert kept["source"].item() == "estimator"  # then the trial with a validated model stood in for it
    assert model.best_estimator_.n_bags_ == 5  # that validated average itself: its refit was cut as well
