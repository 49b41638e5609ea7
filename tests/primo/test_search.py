"""Search of S(θ) = P(θ) + λ·C(θ)^γ on real data: objective, history, warm start, parallel runs."""
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import log_loss
from skopt.space import Integer, Real

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.search import BayesianSearch, ComplexityPenalty, GridSearch, RandomSearch, resolve_loss, wmape
from primo.search.objective import ValidationLoss
from primo.search.objective import log_loss_from_proba
from tests.primo.helpers import clara_ms, linnos_reads


def test_objective_adds_weighted_complexity():
    penalty = ComplexityPenalty(lam=0.01, gamma=0.5)
    assert penalty.score(0.2, 400) == pytest.approx(0.2 + 0.01 * 20)
    assert ComplexityPenalty().score(0.3, 1e9) == 0.3
    with pytest.raises(ValueError, match="lam"):
        ComplexityPenalty(lam=-1)


def test_losses_are_lower_is_better():
    model = PrDTClassifier().fit([[0], [1], [2], [3]], [0, 0, 1, 1])
    X, y = [[0], [1], [2], [3]], [0, 1, 1, 1]
    assert resolve_loss("f1", model)(model, X, y) == pytest.approx(1 - 0.8)
    assert resolve_loss("accuracy", model)(model, X, y) == pytest.approx(0.25)
    assert resolve_loss("roc_auc", model).name == "-roc_auc"
    assert resolve_loss("roc_auc", model)(model, X, y) < 0
    assert wmape([2, 2], [1, 4]) == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="unknown scoring"):
        resolve_loss("nope", model)


def test_default_prdt_space_spans_the_pruning_path(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = BayesianSearch(PrDTRegressor(random_state=0), n_trials=1, random_state=0).fit(X, y)
    alpha = search.space_["ccp_alpha"]
    path = PrDTRegressor(random_state=0).cost_complexity_pruning_path(X, y).ccp_alphas
    assert alpha.prior == "log-uniform"
    assert alpha.high == pytest.approx(path.max())
    assert alpha.high / alpha.low > 1e3  # many orders of magnitude, as the paper needs


def test_bayesian_search_beats_unpruned_tree_and_records_history(data_dir):
    X, y, X_test, y_test = clara_ms(data_dir)
    search = BayesianSearch(PrDTRegressor(random_state=0), n_trials=12, cv=3, random_state=0).fit(X, y)
    trials = search.trials_
    assert len(trials) == 12 and trials.at[0, "source"] == "estimator" and trials.at[0, "ccp_alpha"] == 0.0
    assert {"ccp_alpha", "loss", "loss_se", "relative_loss", "complexity", "size", "score", "fit_time", "pareto",
            "chosen"} <= set(trials.columns)
    # the kept trial is the smallest within noise of the lowest S, and on the loss-size front
    assert trials["chosen"].sum() == 1 and trials.at[search.best_index_, "chosen"] and trials.at[search.best_index_, "pareto"]
    assert search.best_score_ >= trials["score"].min() == trials.at[search.optimum_index_, "score"]
    assert trials.at[search.best_index_, "size"] <= trials.at[search.optimum_index_, "size"]
    assert 0 < trials["relative_loss"].min() < 1
    unpruned = PrDTRegressor(random_state=0).fit(X, y)
    mae = lambda m: np.abs(m.predict(X_test) - y_test).mean()
    assert mae(search.best_estimator_) < mae(unpruned)
    history = search.best_estimator_.metadata_["search"]
    assert history["method"] == "bayesian" and len(history["trials"]) == 12


@pytest.mark.slow
def test_bayesian_pram_search_beats_default_pram_on_clara_ms(data_dir):
    """The foundation's acceptance check (benchmarks/search_clara_ms.py runs it over several seeds)."""
    X, y, X_test, y_test = clara_ms(data_dir)
    template = PrAMRegressor(max_rounds=1000, outer_bags=2, n_jobs=1, random_state=0)
    search = BayesianSearch(template, scoring="mae", n_trials=25, cv=5, n_jobs=2, tolerance=0,
                            evaluate_estimator=False, random_state=0).fit(X, y)
    default = PrAMRegressor(n_jobs=1, random_state=0).fit(X, y)
    mae = lambda m: np.abs(m.predict(X_test) - y_test).mean()
    assert mae(search.best_estimator_) < mae(default)
    losses = search.trials_["loss"]
    assert losses.min() == search.best_loss_ and losses.max() > search.best_loss_ + 0.05


def test_complexity_weight_selects_smaller_trees(data_dir):
    X, y = linnos_reads(data_dir)
    # tolerance=0: the paper's rule (lowest S), so that λ alone makes the difference
    plain = BayesianSearch(PrDTClassifier(random_state=0), scoring="f1", n_trials=10, tolerance=0,
                           random_state=0).fit(X, y)
    frugal = BayesianSearch(PrDTClassifier(random_state=0), scoring="f1", lam=1e-3, n_trials=10, tolerance=0,
                            random_state=0).fit(X, y)
    assert frugal.best_estimator_.complexity_ < plain.best_estimator_.complexity_


def test_search_is_reproducible_and_parallel_batches_match(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    make = lambda jobs: BayesianSearch(PrDTRegressor(random_state=0), n_trials=8, n_jobs=jobs, batch_size=2,
                                       evaluate_estimator=False, random_state=3).fit(X, y).trials_
    first, second = make(1), make(2)
    pd.testing.assert_frame_equal(first.drop(columns="fit_time"), second.drop(columns="fit_time"))
    # constant-liar batches: the two points of a batch are never the same
    pairs = first["ccp_alpha"].to_numpy().reshape(-1, 2)
    assert np.all(pairs[:, 0] != pairs[:, 1])


def test_random_and_grid_search_share_the_api(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    random = RandomSearch(PrDTRegressor(), n_trials=6, random_state=0).fit(X, y)
    grid = GridSearch(PrDTRegressor(), space={"ccp_alpha": Real(1e-3, 10, prior="log-uniform"),
                                              "min_samples_leaf": Integer(1, 8)},
                      n_trials=9, evaluate_estimator=False, random_state=0).fit(X, y)
    assert len(random.trials_) == 6 and random.method == "random"
    assert len(grid.trials_) == 9
    assert sorted(grid.trials_["min_samples_leaf"].unique()) == [1, 4, 8]
    assert random.trials_to_reach(random.best_score_) <= 6
    assert random.trials_to_reach(-1.0) is None


def test_warm_start_from_prior_trials_needs_fewer_trials(data_dir):
    """Yesterday's search (on a subset) guides today's: the prior reaches the cold search's best sooner."""
    X, y, _, _ = clara_ms(data_dir)
    yesterday = BayesianSearch(PrDTRegressor(random_state=0), n_trials=15, cv=3, random_state=1).fit(X[:500], y[:500])
    cold = BayesianSearch(PrDTRegressor(random_state=0), n_trials=12, cv=3, random_state=2).fit(X, y)
    warm = BayesianSearch(PrDTRegressor(random_state=0), n_trials=12, cv=3, random_state=2,
                          prior=yesterday).fit(X, y)
    assert (warm.trials_["source"] == "prior").sum() > 0
    target = cold.best_score_ * 1.05  # within 5% of what the cold search ends with
    assert warm.trials_to_reach(target) is not None
    assert warm.trials_to_reach(target) < cold.trials_to_reach(target)


def test_failed_trials_are_recorded_not_fatal(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    space = {"min_samples_leaf": Integer(-2, 5)}  # values < 1 are invalid for scikit-learn
    search = RandomSearch(PrDTRegressor(), space=space, n_trials=12, random_state=0).fit(X, y)
    assert search.trials_["error"].notna().any()
    assert search.best_params_["min_samples_leaf"] >= 1


def test_searches_and_selection_count_x_rows_with_one_helper():
    """count_rows (primo.models._base) is the one count of X's rows for the target checks of a search and of
    automatic selection (it was the same expression written out in both): shape[0] where X has a shape (a sparse
    matrix has no len), else len. A y of another length is named, before any trial, in both."""
    import scipy.sparse

    import primo.search.searchers
    import primo.selection
    from primo import PrimoRegressor
    from primo.errors import InputError
    from primo.models._base import count_rows

    X = np.arange(12.0).reshape(6, 2)
    rows = [X, pd.DataFrame(X), scipy.sparse.csr_matrix(X), X.tolist()]
    assert [count_rows(r) for r in rows] == [6, 6, 6, 6]
    assert primo.search.searchers.count_rows is count_rows and primo.selection.count_rows is count_rows
    for fit in (BayesianSearch(PrDTRegressor(), n_trials=2, progress=False).fit,
                PrimoRegressor(families=("prdt",), n_trials=2, progress=False).fit):
        with pytest.raises(InputError, match="X has 6 rows but y has 5"):
            fit(scipy.sparse.csr_matrix(X), np.ones(5))


def test_bad_search_arguments():
    with pytest.raises(ValueError, match="n_trials"):
        BayesianSearch(PrDTRegressor(), n_trials=0).fit(np.zeros((4, 1)), np.arange(4))
    with pytest.raises(ValueError, match="default search space"):
        from sklearn.linear_model import Ridge
        BayesianSearch(Ridge()).fit(np.zeros((4, 1)), np.arange(4))


def test_starts_are_scored_on_every_fold_outside_the_space_within_the_budget(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = BayesianSearch(PrAMRegressor(max_rounds=50, outer_bags=1, n_jobs=1), n_trials=5, cv=3, race_folds=2,
                            starts=[{"max_bins": 1024}], refit=False, random_state=0, progress=False).fit(X, y)
    trials = search.trials_
    start = trials[trials["source"] == "start"]
    assert list(start["trial"]) == [2] and start["max_bins"].iloc[0] == 1024
    assert len(start["fold_losses"].iloc[0]) == 3 and not start["partial"].iloc[0]
    assert (trials["source"] != "simplify").sum() <= 5  # 4 of the budget (the simplification path its fifth), 1 start
    # beyond the space's 512 bins, so the optimizer was not told it
    assert all(point[list(search.space_).index("max_bins")] <= 512 for point in search._optimizer.Xi)
    model = search._refit_model(start["params"].iloc[0], X, y, None)
    assert model.max_bins == 1024 and model.ebm_.max_bins == 1024


def test_starts_are_scored_beside_the_budget(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = BayesianSearch(PrAMRegressor(max_rounds=20, outer_bags=1, n_jobs=1), n_trials=1, cv=3,
                            starts=[{"max_bins": 64}], refit=False, random_state=0, progress=False).fit(X, y)
    assert list(search.trials_["source"]) == ["estimator", "start"]


def test_starts_are_skipped_when_the_time_budget_is_spent():
    X, y = np.random.default_rng(0).normal(size=(200, 3)), np.arange(200.0)
    search = BayesianSearch(PrAMRegressor(max_rounds=5, outer_bags=1, n_jobs=1), n_trials=3, cv=2,
                            starts=[{"max_bins": 64}], time_budget_s=1e-3, refit=False, random_state=0,
                            progress=False).fit(X, y)
    assert list(search.trials_["source"]) == ["estimator"]  # the start would have overrun the budget


@pytest.mark.parametrize("starts, named", [([{"nope": 1}], "does not have"), ([3], "list of non-empty dicts"),
                                           ([{}], "list of non-empty dicts")])
def test_a_bad_start_is_named(starts, named):
    X, y = np.random.default_rng(0).normal(size=(40, 3)), np.arange(40.0)
    with pytest.raises(ValueError, match=named):
        BayesianSearch(PrAMRegressor(max_rounds=5, outer_bags=1, n_jobs=1), n_trials=2, starts=starts,
                       progress=False).fit(X, y)


def test_pram_starts_at_ebms_bins_when_a_numeric_feature_has_more_values_than_the_estimators_bins():
    from primo.search.spaces import EBM_MAX_BINS, pram_starts

    fine = pd.DataFrame({"day": np.arange(300.0), "city": [f"c{i}" for i in range(300)]})
    assert pram_starts(PrAMRegressor(), fine) == [{"max_bins": EBM_MAX_BINS}]
    assert pram_starts(PrAMClassifier(), fine[["day"]].to_numpy()) == [{"max_bins": EBM_MAX_BINS}]
    assert pram_starts(PrAMRegressor(max_bins=300), fine) == []  # 300 values fit in 300 bins
    assert pram_starts(PrAMRegressor(max_bins=EBM_MAX_BINS), fine) == []
    # a text column's categories are not bins: 300 cities, but no fine numeric feature
    assert pram_starts(PrAMRegressor(), fine[["city"]]) == []


def test_a_budget_below_the_initial_points_is_warned_about(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.warns(UserWarning, match="no Bayesian step"):
        BayesianSearch(PrDTRegressor(random_state=0), n_trials=1, random_state=0).fit(X, y)


def test_initial_points_scale_with_the_budget(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = BayesianSearch(PrAMRegressor(max_rounds=50, outer_bags=1, n_jobs=1), n_trials=7, refit=False,
                            random_state=0).fit(X, y)
    # 5 dimensions, 7 trials: 2 initial points (the estimator and one random draw), then 3 GP steps,
    # one shrink trial and the simplification path
    assert search._optimizer._n_initial_points <= 0 and len(search._optimizer.models) >= 3


def test_time_budget_is_honoured(data_dir):
    import time

    X, y, _, _ = clara_ms(data_dir)
    start = time.perf_counter()
    budget_warning = r"time_budget_s \(4 s for this PrAMRegressor search\) left room for \d+ of the 500 trials"
    with pytest.warns(UserWarning, match=budget_warning):
        search = RandomSearch(PrAMRegressor(max_rounds=300, outer_bags=1, n_jobs=1), n_trials=500, time_budget_s=4,
                              random_state=0).fit(X, y)
    assert 1 <= len(search.trials_) < 500  # how many fit depends on the machine's load
    # Not a wall-clock assertion on the whole fit (flaky on a loaded machine): the trials that did start
    # fit inside the budget, since none starts once the time left cannot cover it and the refit.
    assert search.trials_["fit_time"].sum() < 4 * 1.5
    assert search.fit_seconds_ <= time.perf_counter() - start


def test_a_pram_fit_stops_at_its_deadline_and_is_unchanged_before_it():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    free = PrAMRegressor(outer_bags=1, max_rounds=300, n_jobs=1).fit(X, y)
    bounded = PrAMRegressor(outer_bags=1, max_rounds=300, n_jobs=1).fit(X, y, stop_at=time.time() + 3600)
    np.testing.assert_array_equal(free.predict(X), bounded.predict(X))
    assert bounded.ebm_.callback is None  # the deadline was the fit's, not the model's
    stopped = PrAMRegressor(outer_bags=1, max_rounds=300, n_jobs=1).fit(X, y, stop_at=time.time() - 1)
    assert stopped.ebm_.best_iteration_[0].max() == 1 < free.ebm_.best_iteration_[0].max()  # one boosting step
    assert np.isfinite(stopped.predict(X)).all()


def test_a_time_budget_ends_inside_the_first_trial(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    # A small learning rate: its 3 cross-fitted bags boost for ~7 s, far past the budget, which stops them.
    slow = PrAMRegressor(learning_rate=0.001, max_rounds=10**6, outer_bags=2, n_jobs=1)
    budget_warning = r"time_budget_s \(0.5 s .*\) left room for 1 of the 4 trials .* and ended during trial 1, whose"
    with pytest.warns(UserWarning, match=budget_warning):
        search = BayesianSearch(slow, n_trials=4, cv=3, cross_fit=True, trial_params={"outer_bags": 1},
                                time_budget_s=0.5, random_state=0, progress=False).fit(X, y)
    assert search.trials_["cut"].tolist() == [True]
    # no time for a refit: the model kept is the validated average of the 3 folds' bags, not 2 bags on every row
    assert search.best_estimator_.outer_bags == 3


def test_a_refit_the_time_budget_ends_is_not_kept(data_dir, monkeypatch):
    from primo import PrimoRegressor

    X, y, _, _ = clara_ms(data_dir)
    real_refit, refits = BayesianSearch._refit_model, []

    def recorded(self, *args, **kwargs):
        refits.append(real_refit(self, *args, **kwargs))
        return refits[-1]

    monkeypatch.setattr(BayesianSearch, "_refit_model", recorded)
    # The trials run to their end, and the budget ends 0.2 s into the refit of 8 bags (~2 s here): the refit starts
    # while time is left, the budget's end stops it, and the model the search validated (5 folds' one-bag average)
    # is kept rather than 8 bags boosted short.
    monkeypatch.setattr(BayesianSearch, "_trial_stop_at", lambda self: None)
    monkeypatch.setattr(BayesianSearch, "_stop_at", lambda self: time.time() + 0.2)
    model = PrimoRegressor(families=("pram",), n_trials=1, time_budget_s=1e4, random_state=0, progress=False).fit(X, y)
    assert refits == [None] and model.best_estimator_.outer_bags == 5


def test_a_hold_out_search_keeps_its_trials_fit_when_the_budget_ends_in_the_refit(data_dir, monkeypatch):
    X, y, _, _ = clara_ms(data_dir)
    slow = PrAMRegressor(learning_rate=0.001, max_rounds=10**6, outer_bags=2, n_jobs=1)
    with pytest.warns(UserWarning, match="time_budget_s"):
        search = BayesianSearch(slow, n_trials=4, time_budget_s=0.5, random_state=0, progress=False).fit(X, y)
    # One hold-out: the trial's fit on the training rows stands in for the refit on every row the budget stopped.
    # Each bag boosts on 85% of its rows (interpret's early-stopping split): 85% of the 510 training rows, not of 680.
    boosted = search.best_estimator_.ebm_.bag_weights_
    assert np.all(boosted == round(0.85 * round(0.75 * len(y)))) and np.isfinite(search.predict(X)).all()


def test_third_party_warnings_are_summarised_once(data_dir, caplog):
    import warnings as warnings_module

    from sklearn.base import BaseEstimator, RegressorMixin

    class Noisy(RegressorMixin, BaseEstimator):
        def __init__(self, depth=1):
            self.depth = depth

        def fit(self, X, y):
            warnings_module.warn("noisy library", RuntimeWarning)
            self.mean_ = float(np.mean(y))
            return self

        def predict(self, X):
            return np.full(len(X), self.mean_)

    X, y, _, _ = clara_ms(data_dir)
    with warnings_module.catch_warnings(record=True) as shown:
        warnings_module.simplefilter("always")
        search = RandomSearch(Noisy(), space={"depth": Integer(1, 5)}, n_trials=4, random_state=0).fit(X, y)
    assert not [w for w in shown if "noisy library" in str(w.message)]
    assert search.warnings_ == {"RuntimeWarning: noisy library": 5}  # 4 trials and the refit
    assert sum("noisy library" in r.getMessage() for r in caplog.records) == 1


def test_classifier_trials_report_log_loss_and_calibration(data_dir):
    X, y = linnos_reads(data_dir, n=1500)
    search = BayesianSearch(PrDTClassifier(random_state=0), n_trials=4, random_state=0).fit(X, y)
    assert search.scoring_ == "log_loss"
    trials = search.trials_.dropna(subset=["loss"])
    assert np.allclose(trials["loss"], trials["log_loss"])
    assert ((trials["ece"] >= 0) & (trials["ece"] <= 1)).all()


def test_last_trials_try_smaller_variants_of_the_best(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = BayesianSearch(PrAMRegressor(max_rounds=100, outer_bags=1, n_jobs=1), n_trials=10, refit=False,
                            random_state=0).fit(X, y)
    trials = search.trials_
    shrink = trials[trials["source"] == "shrink"]
    assert 1 <= len(shrink) <= 2  # a fifth of the budget
    best = trials[trials["source"].isin(["estimator", "search"])].sort_values("score").iloc[0]
    for _, row in shrink.iterrows():
        smaller = [n for n in ("interactions", "max_bins") if row[n] < best[n]]
        assert len(smaller) == 1  # one size parameter lowered, the rest as in the best trial
        same = [n for n in search.space_ if n not in smaller]
        assert all(row[n] == best[n] or (pd.isna(row[n]) and pd.isna(best[n])) for n in same)


def test_bayesian_search_models_the_log_of_the_relative_loss(data_dir):
    """The GP is told log(S / trivial loss + LOG_FLOOR), so expected improvement's margin is relative."""
    from primo.search.searchers import LOG_FLOOR

    X, y, _, _ = clara_ms(data_dir)
    space = {"ccp_alpha": Real(1e-4, 1.0, prior="log-uniform")}
    search = BayesianSearch(PrDTRegressor(random_state=0), space=space, n_trials=4, evaluate_estimator=False,
                            refit=False, random_state=0).fit(X, y)
    relative = search.trials_["score"].to_numpy() / search.reference_loss_
    assert np.allclose(search._optimizer.yi, np.log(relative + LOG_FLOOR))
    # A loss that can be negative (here MAE - 100) has no positive trivial loss to divide by: the GP sees S.
    def mae_minus_100(y_true, y_pred):
        return float(np.mean(np.abs(y_true - y_pred))) - 100.0

    raw = BayesianSearch(PrDTRegressor(random_state=0), space=space, scoring=mae_minus_100, n_trials=3,
                         evaluate_estimator=False, refit=False, random_state=0).fit(X, y)
    assert raw.reference_loss_ < 0
    assert np.allclose(raw._optimizer.yi, raw.trials_["score"].to_numpy())


def test_bayesian_search_passes_its_start_and_proposal_options_to_scikit_optimize(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    space = {"ccp_alpha": Real(1e-4, 1.0, prior="log-uniform")}
    search = BayesianSearch(PrDTRegressor(random_state=0), space=space, n_trials=6, n_initial_points=3,
                            initial_point_generator="lhs", acq_optimizer="sampling", evaluate_estimator=False,
                            refit=False, random_state=0).fit(X, y)
    assert search._optimizer.acq_optimizer == "sampling"
    # a Latin hypercube puts one of the three initial points in each third of the (log) range
    first = np.log10(search.trials_["ccp_alpha"].to_numpy()[:3])
    assert sorted(np.floor((first + 4) / (4 / 3)).astype(int)) == [0, 1, 2]


def test_a_cloned_bayesian_search_keeps_every_parameter():
    search = BayesianSearch(PrAMRegressor(max_bins=64), n_trials=5, cv=3, trial_params={"outer_bags": 1},
                            trust_region=0.4, initial_point_generator="portfolio", random_state=7)
    copy = clone(search)
    assert copy.get_params(deep=False).keys() == search.get_params(deep=False).keys()
    assert (copy.n_trials, copy.cv, copy.trial_params, copy.trust_region, copy.random_state) == \
        (5, 3, {"outer_bags": 1}, 0.4, 7)
    assert copy.estimator.max_bins == 64
    assert search.set_params(n_trials=9, estimator__max_bins=32).n_trials == 9


def test_portfolio_points_are_moved_into_the_space():
    from skopt.space import Categorical

    from primo.search.searchers import portfolio_points
    dimensions = [Integer(8, 512, name="max_bins"), Real(0.01, 0.3, name="learning_rate"),
                  Categorical([0], name="interactions")]
    portfolio = [{"max_bins": 1000, "learning_rate": 0.001, "interactions": 12, "max_leaves": 3},
                 {"max_bins": 600, "learning_rate": 0.0001, "interactions": 3},  # clipped onto the first
                 {"max_bins": 40.4, "learning_rate": 0.1, "interactions": 0}]
    assert portfolio_points(portfolio, dimensions) == [[512, 0.01, 0], [40, 0.1, 0]]
    assert portfolio_points(portfolio, dimensions + [Integer(1, 5, name="min_samples_leaf")]) == []
    assert portfolio_points([{"max_bins": 9, "learning_rate": 0.1, "interactions": "many"}], dimensions) == []


def test_pram_portfolio_fits_the_default_spaces_of_real_tables(data_dir):
    from sklearn.datasets import load_wine

    from primo.search.searchers import _named, portfolio_points
    from primo.search.spaces import pram_space
    X, y, _, _ = clara_ms(data_dir)  # 19 features: up to 32 pairs
    X_wine, y_wine = load_wine(return_X_y=True, as_frame=True)  # multiclass: no pairs
    for estimator, features, target in ((PrAMRegressor(), X, y), (PrAMClassifier(), X_wine, y_wine)):
        dimensions = [_named(d, n) for n, d in pram_space(estimator, features, target).items()]
        points = portfolio_points(estimator._search_portfolio, dimensions)
        assert len(points) == len(estimator._search_portfolio)
        assert all(all(v in d for v, d in zip(p, dimensions)) for p in points)
    assert {p[-1] for p in points} == {0}


def test_a_portfolio_start_replaces_random_initial_points_not_gp_steps(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    space = {"ccp_alpha": Real(1e-4, 1.0, prior="log-uniform"), "max_depth": Integer(2, 12)}
    estimator = PrDTRegressor(random_state=0, ccp_alpha=0.05, max_depth=6)  # a point of the space
    estimator._search_portfolio = ({"ccp_alpha": 0.5, "max_depth": 3}, {"ccp_alpha": 5.0, "max_depth": 30},
                                   {"ccp_alpha": 0.01, "max_depth": 12})

    def search_from_portfolio(evaluate_estimator):
        return BayesianSearch(estimator, space=space, n_trials=7, n_initial_points=2, refit=False, random_state=0,
                              evaluate_estimator=evaluate_estimator, initial_point_generator="portfolio").fit(X, y)

    search = search_from_portfolio(evaluate_estimator=False)
    drawn = search.trials_[search.trials_["source"] == "search"]
    # the first two in order (the second clipped into the space), then the GP: the third is never tried
    assert drawn[["ccp_alpha", "max_depth"]].to_numpy()[:2].tolist() == [[0.5, 3], [1.0, 12]]
    assert not ((drawn["ccp_alpha"] == 0.01) & (drawn["max_depth"] == 12)).any()
    assert len(search._optimizer.models) == len(drawn) - 1  # a GP fitted at every tell from the second on
    # the starting estimator is an initial point too: one portfolio point is left for the second
    search = search_from_portfolio(evaluate_estimator=True)
    drawn = search.trials_[search.trials_["source"] == "search"]
    assert drawn[["ccp_alpha", "max_depth"]].to_numpy()[0].tolist() == [0.5, 3]
    assert not ((drawn["ccp_alpha"] == 1.0) & (drawn["max_depth"] == 12)).any()


def test_a_trust_region_step_stays_near_the_best_point_so_far(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    alpha, depth = Real(1e-4, 1.0, prior="log-uniform", name="ccp_alpha"), Integer(2, 30, name="max_depth")
    search = BayesianSearch(PrDTRegressor(random_state=0), space={"ccp_alpha": alpha, "max_depth": depth},
                            n_trials=10, n_initial_points=3, trust_region=0.2, evaluate_estimator=False,
                            refit=False, random_state=0).fit(X, y)
    drawn = search.trials_[search.trials_["source"] == "search"].reset_index(drop=True)
    unit = np.c_[(np.log10(drawn["ccp_alpha"]) + 4) / 4, (drawn["max_depth"] - 2) / 28]
    for step in range(3, len(drawn)):
        best = drawn.loc[:step - 1, "score"].astype(float).idxmin()
        # a tenth of the side each way, and half an integer step of rounding
        assert np.all(np.abs(unit[step] - unit[best]) <= [0.1 + 1e-9, 0.1 + 0.5 / 28]), step
    with pytest.raises(ValueError, match="trust_region"):
        BayesianSearch(PrDTRegressor(), space={"ccp_alpha": alpha}, trust_region=1.5, n_trials=3).fit(X, y)


def test_a_validation_loss_is_taken_as_it_is(data_dir):
    """A ValidationLoss sees the rows, e.g. to add back an input the model corrects before scoring."""
    X, y, _, _ = clara_ms(data_dir)
    seen = []
    custom = ValidationLoss("rows-seen", lambda est, X_valid, y_valid: seen.append(len(X_valid)) or 1.0)
    model = PrDTRegressor(random_state=0, max_depth=2).fit(X, y)
    assert resolve_loss(custom, model) is custom
    assert resolve_loss(custom, model)(model, X[:7], y[:7]) == 1.0 and seen == [7]


def test_a_class_missing_from_a_training_fold_costs_a_confident_miss_not_a_crash():
    model = PrDTClassifier().fit([[0], [1], [2], [3]], ["a", "a", "b", "b"])
    loss = resolve_loss("log_loss", model)(model, [[0], [3], [1]], ["a", "b", "snow"])
    assert np.isfinite(loss) and loss > 10  # the unseen "snow" had probability 0


def test_multiclass_pram_search_with_its_fixed_pair_count_runs_to_the_end(data_dir):
    from sklearn.datasets import load_wine

    from primo import PrAMClassifier

    X, y = load_wine(return_X_y=True, as_frame=True)
    search = BayesianSearch(PrAMClassifier(max_rounds=50, outer_bags=1, n_jobs=1), n_trials=5, refit=False,
                            random_state=0).fit(X, y)
    assert search.trials_["error"].isna().all() and (search.trials_["interactions"].iloc[1:] == 0).all()


def test_search_scores_the_simplification_path_without_refitting():
    """Each post-fit parameter alone (a step that changes no model is no row), then the pieces of the fewest
    terms that validate within noise of the best; keeping a step refits that configuration."""
    from primo.search.choice import within_noise

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(2000, 8)), columns=[f"f{i}" for i in range(8)])
    y = np.sin(2 * X["f0"]) + X["f1"] + rng.normal(scale=0.3, size=2000)  # 2 real terms, 6 noise features
    search = RandomSearch(PrAMRegressor(max_rounds=200, outer_bags=1, n_jobs=1), n_trials=6, cv=3, random_state=0,
                          progress=False).fit(X, y)
    trials = search.trials_
    path = trials[trials["source"] == "simplify"]
    assert all(len(losses) == 3 for losses in path["fold_losses"])
    terms, pieces = path["max_terms"].notna(), path["max_pieces"].notna()
    terms_only, pieces_only, both = path[terms & ~pieces], path[pieces & ~terms], path[terms & pieces]
    assert list(pieces_only["max_pieces"]) == list(PrAMRegressor._post_fit_path["max_pieces"])
    assert pieces_only["size"].is_monotonic_increasing
    values = list(PrAMRegressor._post_fit_path["max_terms"])
    assert 0 < len(terms_only) < len(values)  # as many terms as the model has, or more, change nothing
    assert list(terms_only["max_terms"]) == values[:len(terms_only)]
    before = trials.drop(both.index)
    before = before[(before["source"] != "prior") & ~before["partial"].astype(bool)]
    close = within_noise(before, before["score"].astype(float).idxmin(), None)
    fewest = terms_only.loc[close[terms_only.index], "max_terms"].min()
    assert set(both["max_terms"]) == {fewest}
    assert list(both["max_pieces"]) == list(PrAMRegressor._post_fit_path["max_pieces"])
    chosen = trials.loc[trials["chosen"]].iloc[0]
    assert search.best_estimator_.max_pieces == chosen["params"].get("max_pieces")
    assert search.best_estimator_.max_terms == chosen["params"].get("max_terms")


def test_racing_scores_every_configuration_on_the_first_folds_and_only_the_finalists_on_all(data_dir):
    """Successive halving over folds: the rule compares only trials scored on every fold, paired."""
    from primo.search.searchers import RACE_FINALISTS

    X, y, _, _ = clara_ms(data_dir)
    estimator = PrAMRegressor(max_rounds=50, outer_bags=1, n_jobs=1)
    raced = RandomSearch(estimator, n_trials=10, cv=4, race_folds=2, random_state=0, refit=False,
                         progress=False).fit(X, y)
    trials = raced.trials_
    searched = trials[trials["source"] == "search"]
    partial = searched[searched["partial"]]
    complete = searched[~searched["partial"]]
    assert len(complete) == RACE_FINALISTS and len(partial) == len(searched) - RACE_FINALISTS
    assert all(len(losses) == 2 for losses in partial["fold_losses"])
    assert all(len(losses) == 4 for losses in trials[~trials["partial"]]["fold_losses"])
    # The finalists were the best on the first two folds, and their first two folds are unchanged.
    first_two = searched["fold_losses"].map(lambda losses: np.mean(losses[:2]))
    assert first_two[complete.index].max() <= first_two[partial.index].min()
    assert not trials.loc[trials["chosen"], "partial"].any()
    assert raced.trials_to_reach(float(partial["score"].min())) in (None, *trials.loc[~trials["partial"], "trial"])
    # Without a race the same configurations are scored on every fold.
    plain = RandomSearch(estimator, n_trials=10, cv=4, random_state=0, refit=False, progress=False).fit(X, y)
    assert not plain.trials_["partial"].any()
    finalists = complete["trial"].to_numpy()
    paired = plain.trials_.set_index("trial").loc[finalists, "loss"]
    assert np.allclose(paired.to_numpy(), complete["loss"].to_numpy())
    with pytest.raises(ValueError, match="race_folds"):
        RandomSearch(estimator, n_trials=3, cv=4, race_folds=0).fit(X, y)


def test_a_raced_best_trial_is_simplified_from_its_own_fold_models(data_dir, monkeypatch):
    """The finalist's models of the first folds (raced) and of the others (completion) are scored along the
    path in fold order, with no fit of its configuration again."""
    from primo.search import searchers

    X, y, _, _ = clara_ms(data_dir)
    space = {"learning_rate": Real(0.05, 0.5, name="learning_rate"), "min_samples_leaf": Integer(1, 50)}
    search = RandomSearch(PrAMRegressor(max_rounds=50, outer_bags=1, n_jobs=1), space=space, n_trials=8, cv=4,
                          race_folds=2, evaluate_estimator=False, random_state=0, refit=False, progress=False)
    fits_in_path = []
    simplify, fit = searchers._SequentialSearch._simplify, PrAMRegressor.fit

    def counted_simplify(self, *args, **kwargs):
        monkeypatch.setattr(PrAMRegressor, "fit", lambda model, *a, **k: fits_in_path.append(1) or fit(model, *a, **k))
        try:
            return simplify(self, *args, **kwargs)
        finally:
            monkeypatch.setattr(PrAMRegressor, "fit", fit)

    monkeypatch.setattr(searchers._SequentialSearch, "_simplify", counted_simplify)
    trials = search.fit(X, y).trials_
    path = trials[trials["source"] == "simplify"]
    best = trials[(trials["source"] == "search") & ~trials["partial"]].sort_values("score").iloc[0]
    assert len(path) and not fits_in_path
    step = path[path["max_pieces"].notna() & path["max_terms"].isna()].iloc[0]
    for fold, (train, valid) in enumerate(search._splits(X, np.asarray(y))):
        model = searchers.fit_on_rows(search.estimator, best["params"], X, np.asarray(y), None, train)
        variant = model.simplified(max_pieces=int(step["max_pieces"]))
        assert step["fold_losses"][fold] == pytest.approx(np.abs(variant.predict(X.iloc[valid]) - y.iloc[valid]).mean())


def test_cross_fitted_bags_never_see_their_fold_and_average_to_the_model(data_dir, monkeypatch):
    """PrAM.cross_fit: fold i's bags boost and early-stop on its training rows only; the model is all bags' mean."""
    from interpret.glassbox import ExplainableBoostingRegressor
    from sklearn.model_selection import KFold

    from primo.models.pram import fold_bags

    X, y, _, _ = clara_ms(data_dir)
    splits = list(KFold(4, shuffle=True, random_state=0).split(X))
    seen = {}
    real_fit = ExplainableBoostingRegressor.fit

    def spy(self, X, y, sample_weight=None, bags=None, init_score=None):
        seen["bags"] = bags
        return real_fit(self, X, y, sample_weight=sample_weight, bags=bags, init_score=init_score)

    monkeypatch.setattr(ExplainableBoostingRegressor, "fit", spy)
    model = PrAMRegressor(max_rounds=50, n_jobs=1).cross_fit(X, y, splits, bags_per_fold=2)
    bags = seen["bags"]
    assert model.outer_bags == bags.shape[1] == 2 * len(splits)
    for fold, (train, valid) in enumerate(splits):
        for bag in fold_bags(fold, 2):
            assert not bags[valid, bag].any()
            assert (bags[train, bag] != 0).all() and 0.1 < np.mean(bags[train, bag] == -1) < 0.2
        first, second = fold_bags(fold, 2)
        assert (bags[:, first] != bags[:, second]).any()  # each bag early-stops on its own rows
    folds = [model.bag_model(fold_bags(fold, 2)) for fold in range(len(splits))]
    assert all(m.outer_bags == 2 and m.ebm_.bagged_scores_[0].shape[0] == 2 for m in folds)
    # interpret weights each bag by its rows, which differ by at most one row per fold here.
    mean = np.mean([m.predict(X) for m in folds], axis=0)
    assert np.allclose(mean, model.predict(X), rtol=1e-3, atol=1e-3 * np.abs(y).mean())
    assert np.allclose(model.bag_model(range(2 * len(splits))).predict(X), model.predict(X))
    with pytest.raises(IndexError, match="out of range"):
        model.bag_model(2 * len(splits))
    with pytest.raises(ValueError, match="bags_per_fold"):
        PrAMRegressor().cross_fit(X, y, splits, bags_per_fold=0)


def test_cross_fitted_trials_are_refit_at_the_estimators_fidelity(data_dir, monkeypatch):
    """A cross-fitted search refits its kept PrAM on every row with the estimator's own bags; the validated
    averages stay available, and are kept when the time budget leaves no room for the refit."""
    X, y, _, _ = clara_ms(data_dir)
    estimator = PrAMRegressor(max_rounds=50, outer_bags=2, n_jobs=1)
    options = dict(n_trials=6, cv=3, cross_fit=True, trial_params={"outer_bags": 1}, random_state=0, progress=False)
    search = RandomSearch(estimator, **options).fit(X, y)
    chosen = search.trials_.loc[search.trials_["chosen"]].iloc[0]
    kept = search.best_estimator_
    assert kept.outer_bags == 2 and kept.ebm_.bagged_scores_[0].shape[0] == 2  # not the 3 validated bags
    assert {k: kept.get_params()[k] for k in chosen["params"] if k != "outer_bags"} == {
        k: v for k, v in chosen["params"].items() if k != "outer_bags"}
    # The model file says which bags the kept model has when they are not the validated trial's.
    validated_bags = chosen["params"].get("outer_bags", 2)
    assert kept.metadata_["search"]["kept_model_params"] == ({} if validated_bags == 2 else {"outer_bags": 2})
    # Without a refit, every cross-fitted trial (and each step of its simplification path) stays available.
    search = RandomSearch(estimator, **{**options, "refit": False}).fit(X, y)
    fits = []
    real_fit = PrAMRegressor.fit
    monkeypatch.setattr(PrAMRegressor, "fit", lambda self, *a, **k: fits.append(1) or real_fit(self, *a, **k))
    for _, trial in search.trials_[search.trials_["source"] != "search"].iterrows():
        model = search._validated_model(dict(trial["params"]))
        assert model.size_ == trial["size"] and model.max_pieces == trial["params"].get("max_pieces")
    assert not fits
    monkeypatch.setattr(PrAMRegressor, "fit", real_fit)
    # A refit the time budget's end stopped: the validated 3-bag average is kept as it is.
    monkeypatch.setattr(RandomSearch, "_refit_model", lambda self, params, X, y, sample_weight, stop_at=None: None)
    kept = RandomSearch(estimator, **options).fit(X, y).best_estimator_
    assert kept.outer_bags == 3 and kept.size_ == chosen["size"]
    assert kept.metadata_["search"]["kept_model_params"] == {"outer_bags": 3}
    # A search on a sample of the rows refits on every row instead.
    sampled = RandomSearch(estimator, **{**options, "search_sample_size": 0.5, "refit": False}).fit(X, y)
    assert sampled._validated_model(dict(chosen["params"])) is None


def test_trials_in_worker_processes_fit_with_one_job_and_return_the_estimators_own(data_dir):
    """In other workers an estimator's own parallel loop would run on threads (PrAM's boosting contends
    for the GIL there), so worker tasks fit with n_jobs=1; the models they return keep the estimator's."""
    import joblib

    from primo.search.searchers import _for_workers

    estimator = PrAMRegressor(max_rounds=50, outer_bags=2, n_jobs=-1)
    with joblib.Parallel(n_jobs=2) as parallel:
        assert _for_workers(parallel, estimator).n_jobs == 1 and estimator.n_jobs == -1
    with joblib.Parallel(n_jobs=1) as parallel:  # run in this process: the estimator's own jobs stay
        assert _for_workers(parallel, estimator) is estimator
    X, y, _, _ = clara_ms(data_dir)
    search = RandomSearch(estimator, n_trials=4, cv=3, cross_fit=True, trial_params={"outer_bags": 1}, n_jobs=2,
                          random_state=0, refit=False, progress=False).fit(X, y)
    searched = search.trials_[search.trials_["source"] == "search"]
    assert len(searched) and all(search._validated_model(dict(params)).n_jobs == -1
                                 for params in searched["params"])


def test_cross_fitted_estimator_is_validated_at_the_trials_rounds_and_refit_with_its_own(data_dir):
    """The starting PrAM is validated with the trials' bounded rounds, like every trial; the refit boosts with its own."""
    X, y, _, _ = clara_ms(data_dir)
    search = RandomSearch(PrAMRegressor(max_rounds=400, outer_bags=2, interactions=0, n_jobs=1), n_trials=1, cv=3,
                          cross_fit=True, trial_params={"outer_bags": 1, "max_rounds": 3}, random_state=0,
                          refit=False, progress=False).fit(X, y)
    start = search.trials_.iloc[0]
    assert start["source"] == "estimator"
    validated = search._validated_model(dict(start["params"]))
    assert validated.max_rounds == 3 and validated.bags_out_of_rounds() == {"main": 1.0, "pairs": 0.0}
    kept = clone(search).set_params(refit=True).fit(X, y).best_estimator_
    assert (kept.max_rounds, kept.outer_bags) == (400, 2)
    assert kept.metadata_["search"]["kept_model_params"] == {}


def test_cross_fitting_classes_rarer_than_the_folds():
    """Every bag boosts on every class of its fold; a search whose folds miss a class fits them one by one."""
    from interpret.glassbox import ExplainableBoostingClassifier
    from sklearn.model_selection import KFold, StratifiedKFold

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=90), "b": rng.normal(size=90)})
    y = np.repeat([f"c{i}" for i in range(30)], 3)  # three rows a class: two in each training fold of three
    estimator = PrAMClassifier(max_rounds=30, outer_bags=1, n_jobs=1, random_state=0)
    splits = list(StratifiedKFold(3, shuffle=True, random_state=0).split(X, y))
    seen = {}
    real_fit = ExplainableBoostingClassifier.fit

    def spy(self, X, y, sample_weight=None, bags=None, init_score=None):
        seen["bags"] = bags
        return real_fit(self, X, y, sample_weight=sample_weight, bags=bags, init_score=init_score)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExplainableBoostingClassifier, "fit", spy)
        model = clone(estimator).cross_fit(X, y, splits, bags_per_fold=2)
    assert model.classes_.tolist() == sorted(set(y))
    for bag in range(seen["bags"].shape[1]):
        assert set(y[seen["bags"][:, bag] == 1]) == set(y)
    # Two rows a class and five folds: some folds' training rows miss a class.
    X, y = X.iloc[:60], y[:60].copy()
    y[:] = np.repeat([f"c{i}" for i in range(30)], 2)
    splits = list(KFold(5, shuffle=True, random_state=0).split(X))
    with pytest.raises(ValueError, match="training rows hold no row of class"):
        clone(estimator).cross_fit(X, y, splits)
    search = RandomSearch(estimator, n_trials=3, cv=5, cross_fit=True, random_state=0, progress=False).fit(X, y)
    assert search.trials_["error"].isna().all() and not search._cross_fitted


@pytest.mark.parametrize("labels", [[2, 0, 1], ["Paris", "Lyon", "Nice"], [False, True]], ids=["int", "str", "bool"])
def test_fast_log_loss_equals_scikit_learns(labels):
    rng = np.random.default_rng(0)
    labels = np.array(labels, dtype=object if isinstance(labels[0], str) else None)
    proba = rng.dirichlet(np.ones(len(labels)), size=300)
    proba[:3] = 0.0
    proba[:3, 0] = 1.0  # certain, and wrong for some rows: the clipping decides the loss
    y = labels[rng.integers(0, len(labels), 300)]
    order = np.argsort(labels)
    expected = log_loss(y, proba[:, order], labels=labels[order])
    assert log_loss_from_proba(y, proba, labels) == pytest.approx(expected, rel=1e-12)


def test_a_custom_loss_named_log_loss_is_not_replaced_by_the_probability_log_loss(data_dir):
    from primo.search.searchers import score_model

    X, y = linnos_reads(data_dir, n=400)
    model = PrDTClassifier(max_depth=3, random_state=0).fit(X, y)

    def log_loss(y_true, y_pred):  # a user's own function, on hard predictions, that happens to share the name
        return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))

    result = score_model(model, resolve_loss(log_loss, model), X, np.asarray(y), chunks=False)
    assert result["loss"] == pytest.approx(log_loss(y, model.predict(X)))
    assert result["loss"] != pytest.approx(result["log_loss"])


def test_loss_at_bags_extrapolates_squared_error_of_independent_bags():
    from primo.search.searchers import loss_at_bags

    rng = np.random.default_rng(0)
    y = rng.normal(size=200_000)
    bags = y + 0.3 + rng.normal(scale=1.0, size=(8, y.size))  # shared bias 0.3, independent errors per bag

    def mse(prediction):
        return float(np.mean((prediction - y) ** 2))

    joint, single = mse(bags[:2].mean(axis=0)), float(np.mean([mse(bag) for bag in bags[:2]]))
    assert loss_at_bags(joint, single, 2, 8) == pytest.approx(mse(bags.mean(axis=0)), rel=0.01)  # 0.09 + 1/8
    assert loss_at_bags(joint, single, 2, 2) == pytest.approx(joint)
    assert loss_at_bags(joint, single, 2, 1) == pytest.approx(single)


def test_a_bagged_trial_is_scored_as_the_refit_bags_would_be(data_dir):
    from primo.search.searchers import loss_at_bags, score_model

    X, y, _, _ = clara_ms(data_dir)
    y = y.to_numpy()
    model = PrAMRegressor(outer_bags=2, max_rounds=200, n_jobs=1, random_state=0).fit(X, y)
    loss = resolve_loss("neg_mean_absolute_error", model)
    joint = loss(model, X, y)
    single = np.mean([loss(model.bag_model(bag), X, y) for bag in range(2)])
    assert score_model(model, loss, X, y, chunks=False)["loss"] == pytest.approx(joint)
    assert score_model(model, loss, X, y, chunks=False, refit_bags=8)["loss"] == pytest.approx(
        loss_at_bags(joint, single, 2, 8))
    one_bag = model.bag_model(0)
    assert score_model(one_bag, loss, X, y, chunks=False, refit_bags=8)["loss"] == pytest.approx(loss(one_bag, X, y))


def test_trials_with_fewer_bags_than_the_refit_are_extrapolated_to_its_bags():
    def refit_bags(bags, trial_params, cross_fit=True):
        return BayesianSearch(PrAMRegressor(outer_bags=bags), trial_params=trial_params,
                              cross_fit=cross_fit)._refit_bags()

    assert refit_bags(8, {"outer_bags": 2}) == 8
    assert refit_bags(8, None) is None and refit_bags(2, {"outer_bags": 2}) is None
    assert refit_bags(8, {"max_rounds": 100}) is None
    assert refit_bags(8, {"outer_bags": 2}, cross_fit=False) is None  # its refit keeps the trials' 2 bags
