"""The rule that keeps the simplest trial within noise of the best, and the loss-size front."""
import math

import pandas as pd
import pytest

from primo.search.choice import choose_trial, pareto_front, paired_standard_error, within_noise, worse_share


def _trials(scores, fold_losses, sizes, errors=None):
    return pd.DataFrame({"score": scores, "loss": scores, "fold_losses": fold_losses, "reference_loss": 1.0,
                         "size": sizes, "error": errors or [None] * len(scores)})


def test_paired_rule_keeps_the_smallest_trial_within_one_paired_standard_error():
    # trial 1 is worse than trial 0 on every fold by 0.02 ± 0.01: beyond noise when paired
    trials = _trials([0.30, 0.32, 0.305], [[.28, .30, .32], [.29, .33, .34], [.27, .30, .345]], [40, 5, 12])
    assert choose_trial(trials) == 2
    assert paired_standard_error([.29, .33, .34], [.28, .30, .32]) == pytest.approx(0.0057735, rel=1e-4)
    assert list(within_noise(trials, 0, None)) == [True, False, True]


def test_the_noise_margin_is_capped_at_two_percent_of_the_lowest_loss():
    # folds so noisy that trial 1 is within one paired standard error, but 0.1 above the best is
    # more than 2% of the best loss (0.30); the trivial predictor's loss plays no part
    trials = _trials([0.30, 0.40, 0.305], [[.1, .5, .3], [.4, .2, .6], [.1, .49, .325]], [40, 5, 12])
    assert list(within_noise(trials, 0, None)) == [True, False, True]
    trials["reference_loss"] = 10.0
    assert list(within_noise(trials, 0, None)) == [True, False, True]
    assert choose_trial(trials) == 2


def test_a_trial_worse_than_the_best_on_most_folds_is_not_within_noise():
    # trial 1's mean is within one paired standard error of the best (one lucky fold), but it loses on
    # 3 of 4 folds; trial 2 loses on exactly half and stays; trial 3, scored on fewer folds (raced), is
    # unpaired: no majority to count, and no standard error either
    trials = _trials([0.300, 0.302, 0.303, 0.300], [[.30, .30, .30, .30], [.31, .31, .31, .278],
                                                   [.31, .31, .29, .30], [.31]], [40, 3, 10, 1])
    assert list(within_noise(trials, 0, None)) == [True, False, True, True]
    assert choose_trial(trials.iloc[:3]) == 2
    assert worse_share([.31, .31, .31, .278], [.30] * 4) == 0.75 and worse_share([.31], [.30] * 4) == 0.0


def test_tolerance_is_in_units_of_the_trivial_predictor():
    trials = _trials([0.30, 0.32, 0.5], [[.3, .3]] * 3, [40, 5, 1])
    trials["reference_loss"] = 2.0
    assert choose_trial(trials, tolerance=0.01) == 1  # 0.32 <= 0.30 + 0.01 * 2.0
    assert choose_trial(trials, tolerance=0.005) == 0
    assert choose_trial(trials, tolerance=0) == 0
    with pytest.raises(ValueError, match="tolerance"):
        choose_trial(trials, tolerance=-1)


def test_failed_trials_are_never_chosen_and_ties_in_size_go_to_the_lower_score():
    trials = _trials([0.1, 0.3, 0.31], [[.1, .1], [.3, .3], [.31, .31]], [1, 5, 5], [ "boom", None, None])
    trials.loc[0, "score"] = math.nan
    assert choose_trial(trials, tolerance=0.05) == 1
    with pytest.raises(ValueError, match="no successful trial"):
        choose_trial(trials.iloc[[0]])


def test_pareto_front_marks_the_trials_nothing_beats_on_both_loss_and_size():
    trials = _trials([0.30, 0.32, 0.31, 0.50, 0.29], [[]] * 5, [40, 5, 50, 1, 80])
    assert list(pareto_front(trials)) == [True, True, False, True, True]
