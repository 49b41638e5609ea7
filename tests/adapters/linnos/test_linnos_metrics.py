"""False submit / false revoke / F1 definitions."""
import pytest

from adapters.linnos.metrics import classification_summary, false_revoke_rate, false_submit_rate, slow_f1

# 10 reads: 4 slow. Predictions: 3 slow caught, 1 slow missed (false submit), 2 fast revoked.
Y_TRUE = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
Y_PRED = [1, 1, 1, 0, 1, 1, 0, 0, 0, 0]


def test_rates_are_over_all_reads():
    assert false_submit_rate(Y_TRUE, Y_PRED) == pytest.approx(1 / 10)
    assert false_revoke_rate(Y_TRUE, Y_PRED) == pytest.approx(2 / 10)


def test_f1_of_slow_class():
    # TP 3, FP 2, FN 1 -> 2*3 / (6 + 2 + 1)
    assert slow_f1(Y_TRUE, Y_PRED) == pytest.approx(6 / 9)


def test_summary_is_consistent():
    s = classification_summary(Y_TRUE, Y_PRED)
    assert s["false_submit_rate"] + s["false_revoke_rate"] == pytest.approx(1 - s["accuracy"])
    assert s["slow_recall"] == pytest.approx(3 / 4)
    assert s["slow_precision"] == pytest.approx(3 / 5)
    assert s["slow_fraction"] == pytest.approx(0.4)


def test_degenerate_predictors():
    never_slow = [0] * 10
    assert false_submit_rate(Y_TRUE, never_slow) == pytest.approx(0.4)
    assert false_revoke_rate(Y_TRUE, never_slow) == 0
    assert slow_f1(Y_TRUE, never_slow) == 0
    assert false_revoke_rate(Y_TRUE, [1] * 10) == pytest.approx(0.6)


@pytest.mark.parametrize("y_true, y_pred, message", [
    ([1, 0], [1], "differ in length"),
    ([], [], "empty"),
    ([1, 2], [1, 0], "only 0"),
])
def test_bad_input(y_true, y_pred, message):
    with pytest.raises(ValueError, match=message):
        classification_summary(y_true, y_pred)
