"""Exact pruning search: every subtree of one grown tree per fold, no refits, the simplest within noise."""
import numpy as np
import pytest
from sklearn.model_selection import KFold

from primo import PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.models._pruning import PruningPath
from primo.search import BayesianSearch, PruningSearch
from primo.search.pruning import candidate_alphas
from tests.primo.helpers import clara_ms, linnos_reads
from tests.primo.tables_any import housing


def test_scores_equal_refitting_the_pruned_tree_on_each_fold(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    search = PruningSearch(PrDTRegressor(random_state=0), cv=3, random_state=0, max_candidates=12).fit(X, y)
    trials = search.trials_
    assert len(trials) <= 14 and trials.at[0, "ccp_alpha"] == 0.0  # the unpruned tree (PrDT's default) first
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    for _, row in trials.iloc[[0, 3, 7, -1]].iterrows():
        refit = [np.abs(PrDTRegressor(random_state=0, ccp_alpha=row["ccp_alpha"]).fit(X.iloc[tr], y.iloc[tr])
                        .predict(X.iloc[va]) - y.iloc[va]).mean() for tr, va in splits]
        assert row["fold_losses"] == pytest.approx(refit)
        assert row["loss"] == pytest.approx(np.mean(refit))


def test_scores_equal_refitting_with_text_category_and_missing_columns():
    # The validation rows are encoded once per fold: an unseen city (in one fold's validation rows
    # only), missing cities and kinds must score as the refit tree predicts them.
    X, y = housing(n=600)
    X["city"] = X["city"].astype(object)
    X.loc[:5, "city"] = "Oslo"
    X.loc[10::17, "city"] = None
    X.loc[12::19, "kind"] = np.nan
    search = PruningSearch(PrDTRegressor(random_state=0), cv=3, random_state=0, max_candidates=8,
                           progress=False).fit(X, y)
    splits = list(KFold(3, shuffle=True, random_state=0).split(X))
    for _, row in search.trials_.iloc[[0, 2, -2]].iterrows():
        refit = [np.abs(PrDTRegressor(random_state=0, ccp_alpha=row["ccp_alpha"]).fit(X.iloc[tr], y.iloc[tr])
                        .predict(X.iloc[va]) - y.iloc[va]).mean() for tr, va in splits]
        assert row["fold_losses"] == pytest.approx(refit)


def test_candidates_cover_the_path_from_the_full_tree_to_the_root(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    path = PruningPath(PrDTRegressor(random_state=0).fit(X, y).tree_)
    alphas = candidate_alphas(path, 20)
    leaves = [path.prune(a).n_leaves for a in alphas]
    assert alphas[0] == 0.0 and leaves[0] == path.n_leaves[0] and leaves[-1] == 1
    assert len(alphas) <= 22 and np.all(np.diff(alphas) > 0) and np.all(np.diff(leaves) < 0)
    everything = candidate_alphas(path, 10_000)
    assert len({path.prune(a).n_leaves for a in everything}) == len(everything)  # one α per distinct subtree


def test_keeps_a_small_tree_no_worse_than_a_bayesian_search_beyond_noise(data_dir):
    X, y, X_test, y_test = clara_ms(data_dir)
    exact = PruningSearch(PrDTRegressor(random_state=0), cv=5, random_state=0).fit(X, y)
    bayes = BayesianSearch(PrDTRegressor(random_state=0), cv=5, n_trials=15, tolerance=0, random_state=0).fit(X, y)
    chosen = exact.trials_.loc[exact.best_index_]
    assert chosen["loss"] <= bayes.best_loss_ + chosen["loss_se"]
    assert exact.best_estimator_.n_leaves_ <= bayes.best_estimator_.n_leaves_
    assert exact.best_estimator_.ccp_alpha == exact.best_params_["ccp_alpha"]
    # the refit prunes the tree grown on every row: the same tree a plain fit at that alpha grows
    plain = PrDTRegressor(random_state=0, ccp_alpha=exact.best_params_["ccp_alpha"]).fit(X, y)
    assert np.array_equal(plain.predict(X_test), exact.best_estimator_.predict(X_test))
    assert exact.best_estimator_.metadata_["search"]["method"] == "pruning path"


def test_classifier_and_hold_out(data_dir):
    X, y = linnos_reads(data_dir, n=2000)
    search = PruningSearch(PrDTClassifier(random_state=0), scoring="f1", random_state=0).fit(X, y)
    assert search.scoring_ == "1-f1" and len(search.trials_.at[0, "fold_losses"]) == 10  # hold-out chunks
    assert search.best_estimator_.n_leaves_ == search.trials_.at[search.best_index_, "size"]


def test_only_prdt(data_dir):
    X, y, _, _ = clara_ms(data_dir)
    with pytest.raises(TypeError, match="PrDT"):
        PruningSearch(PrAMRegressor()).fit(X, y)
