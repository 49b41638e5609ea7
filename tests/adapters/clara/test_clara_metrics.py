"""Clara metrics on hand-computed examples."""
import pytest

from adapters.clara.metrics import (
    error_difference, mae, mae_difference, mean_group_wmape, positive_class_scores, wmape, wmape_per_group,
)


def test_mae():
    assert mae([40, 50, 30], [41, 47, 30]) == pytest.approx(4 / 3)


def test_wmape_divides_by_the_prediction_sum_not_the_truth_sum():
    # |1-2| + |1-4| = 4; Σpred = 2 -> 2.0 (dividing by Σy = 6 would give 0.667).
    assert wmape([2, 4], [1, 1]) == pytest.approx(2.0)
    assert wmape([1, 1], [2, 4]) == pytest.approx(4 / 6)


def test_wmape_needs_positive_predictions():
    with pytest.raises(ValueError, match="sum to 0"):
        wmape([1, 2], [0, 0])


def test_group_wmape_is_an_unweighted_mean_over_groups():
    y_true = [2, 4, 1, 10]
    y_pred = [1, 1, 2, 10]
    groups = [3, 3, 7, 7]
    # group 3: 4 / 2 = 2.0; group 7: (1 + 0) / 12 = 1/12. Pooled would be 5/14.
    assert wmape_per_group(y_true, y_pred, groups) == pytest.approx({3: 2.0, 7: 1 / 12})
    assert mean_group_wmape(y_true, y_pred, groups) == pytest.approx((2.0 + 1 / 12) / 2)


def test_positive_class_scores():
    # TP = 2, FP = 1, FN = 1 -> precision = recall = F1 = 2/3; the 0s (TN = 2) do not count.
    scores = positive_class_scores([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0])
    assert scores == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3})
    # Recall 1/3, precision 1 -> F1 = 2·1·(1/3) / (4/3) = 0.5.
    assert positive_class_scores([1, 1, 1, 0], [1, 0, 0, 0])["f1"] == pytest.approx(0.5)
    assert positive_class_scores([1, 0], [0, 0]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_mismatched_lengths_are_rejected():
    with pytest.raises(ValueError, match="differ in length"):
        mae([1, 2], [1])
    with pytest.raises(ValueError, match="groups has 1"):
        wmape_per_group([1, 2], [1, 2], [0])


def test_error_difference_is_paired_and_mae_difference_uses_it():
    d = error_difference([1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0], n_resamples=200)
    # Every row differs by exactly -1: the paired interval collapses onto the difference.
    assert d == pytest.approx({"difference": -1.0, "low": -1.0, "high": -1.0, "median": -1.0})
    assert mae_difference([0, 0, 0, 0], [1, 2, 3, 4], [2, 3, 4, 5], n_resamples=200) == pytest.approx(d)
    with pytest.raises(ValueError, match="differ in length"):
        error_difference([1.0], [1.0, 2.0])
