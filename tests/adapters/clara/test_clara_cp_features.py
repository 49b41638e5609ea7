"""CP token features: hand-computed values, readable names, nothing learned from the real NFs."""
import re

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from adapters.clara.cp_features import CPTokenFeatures, token_counts
from adapters.clara.data import load_cp

NAME = re.compile(r"^(length|count_tok_\d+|count_other_tok|n_distinct_tok|count_bigram_\d+_\d+"
                  r"|first_tok_is_\d+|last_tok_is_\d+)$")


def blocks(*rows):
    X = np.zeros((len(rows), 70), dtype=int)
    for i, row in enumerate(rows):
        X[i, : len(row)] = row
    return X


def test_hand_computed_example():
    train = blocks([5, 7, 5, 9], [5, 7, 3], [7])
    f = CPTokenFeatures(min_count=2, other=True, n_distinct=True, n_bigrams=5, boundary_tokens=True).fit(train)
    # Token counts in training: 5 -> 3, 7 -> 3, 9 -> 1, 3 -> 1: only 5 and 7 reach min_count=2.
    # Bigrams: (5,7) x2, (7,5) x1, (5,9) x1, (7,3) x1: only (5,7) reaches 2.
    # First tokens: 5 x2, 7 x1 -> {5}; last tokens: 9, 3, 7 once each -> none.
    assert list(f.get_feature_names_out()) == [
        "length", "count_tok_5", "count_tok_7", "count_other_tok", "n_distinct_tok",
        "count_bigram_5_7", "first_tok_is_5"]
    out = f.transform(blocks([5, 7, 5, 7, 8], []))
    np.testing.assert_array_equal(out, [[5, 2, 2, 1, 3, 2, 1], [0, 0, 0, 0, 0, 0, 0]])


def test_bigrams_are_the_most_frequent_training_pairs():
    train = blocks([1, 2, 1, 2, 1, 2], [3, 4])
    f = CPTokenFeatures(length=False, counts=False, n_bigrams=1).fit(train)
    assert list(f.get_feature_names_out()) == ["count_bigram_1_2"]
    assert f.transform(blocks([1, 2, 9, 1, 2]))[0, 0] == 2


def test_token_counts_counts_every_id():
    counts = token_counts(blocks([4, 4, 124]))
    assert counts.shape == (1, 125)
    assert counts[0, 4] == 2 and counts[0, 124] == 1 and counts[0, 0] == 67


@pytest.fixture(scope="module")
def cp(data_dir):
    return load_cp("synthetic", data_dir), load_cp("real_nfs", data_dir)


def test_names_are_readable_and_match_the_columns(cp):
    synthetic, real = cp
    f = CPTokenFeatures(other=True, n_distinct=True, n_bigrams=30, boundary_tokens=True).fit(synthetic.X)
    names = f.get_feature_names_out()
    assert all(NAME.match(n) for n in names)
    assert len(set(names)) == len(names) == f.transform(real.X).shape[1]
    frame = f.set_output(transform="pandas").transform(real.X)
    assert list(frame.columns) == list(names)
    # The per-token columns and the "other" bucket add up to the block length.
    counts = frame.filter(regex=r"^count_tok_").sum(axis=1) + frame["count_other_tok"]
    np.testing.assert_array_equal(counts, frame["length"])


def test_nothing_is_learned_from_the_real_nfs(cp):
    synthetic, real = cp
    f = CPTokenFeatures(n_bigrams=50, boundary_tokens=True).fit(synthetic.X)
    state = (f.vocabulary_.copy(), f.bigrams_.copy(), f.first_tokens_.copy(), f.last_tokens_.copy())
    out = f.transform(real.X)
    for before, after in zip(state, (f.vocabulary_, f.bigrams_, f.first_tokens_, f.last_tokens_)):
        np.testing.assert_array_equal(before, after)
    # Ids that occur only in the real NFs get no column of their own...
    real_only = set(np.unique(real.X)) - set(np.unique(synthetic.X))
    assert real_only, "the real NFs use ids the synthetic set lacks; this test relies on it"
    assert not real_only & set(f.vocabulary_.tolist())
    # ...and each row's features depend on that row alone.
    np.testing.assert_array_equal(f.transform(real.X[5:6]), out[5:6])


def test_parameter_and_fit_errors():
    X = blocks([1, 2])
    with pytest.raises(ValueError, match="min_count"):
        CPTokenFeatures(min_count=0).fit(X)
    with pytest.raises(ValueError, match="n_bigrams"):
        CPTokenFeatures(n_bigrams=-1).fit(X)
    with pytest.raises(NotFittedError):
        CPTokenFeatures().transform(X)
