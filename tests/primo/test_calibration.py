"""Probabilities you can trust: auto selection on log loss keeps held-out calibration error low (issue 16, item 5).

Slow (a full default PrimoClassifier search per table): run with ``-m slow``."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import train_test_split

from primo import PrimoClassifier
from primo.search import expected_calibration_error


@pytest.mark.slow
@pytest.mark.parametrize("loader", [load_wine, load_breast_cancer], ids=["wine", "breast_cancer"])
def test_selected_classifier_is_calibrated_on_held_out_rows(loader):
    X, y = loader(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    auto = PrimoClassifier(random_state=0, progress=False).fit(X_train, y_train)
    proba = auto.predict_proba(X_test)
    assert expected_calibration_error(y_test, proba, auto.classes_) <= 0.05
    # no probability as absurd as the 6e-53 the accuracy-chosen multiclass PrAM gave a true class
    assert proba[np.arange(len(y_test)), np.searchsorted(auto.classes_, y_test)].min() > 1e-6
