"""Post-processing with prior knowledge: monotonic constraints, counterfactuals, auditable edits.

* :func:`monotonize` — make a PrAM (weighted isotonic fit of the shape function, PAV) or a PrDT
  (refit with scikit-learn's ``monotonic_cst``) monotone in chosen features.
* :func:`counterfactuals`, :class:`MinimalChangeSearch` — the smallest change of x's mutable
  features that flips the decision, searched over the tree's leaves or the PrAM's bins and
  verified by the model; :class:`CounterfactualIndex`, :func:`diagnose_errors` — the nearest
  reference rows with the desired outcome (BallTree), the feature differences and, for a PrAM,
  which terms' contributions change the prediction most; for one row, many rows, or all false
  negatives/positives of a model; :func:`suggest_term_edits` turns them into candidate edits.
* :func:`set_term_scores`, :func:`shift_term_scores`, :func:`scale_term_scores` (PrAM),
  :func:`set_leaf_value`, :func:`set_threshold` (PrDT) — explicit, named edits.
* :func:`replay`, :func:`undo`, :func:`format_edits` — every edit is recorded in
  ``model.metadata_["edits"]`` (saved in the model file) and can be replayed on a fresh fit or undone.
* :func:`compare_models` — what an edit changed: shape functions, predictions, metrics.

Every edit returns a new model unless called with ``inplace=True``.

Example
-------
>>> import primo.adjust as adjust
>>> plus = adjust.monotonize(pram, ["A_i", "R_ec"], direction="increasing")  # doctest: +SKIP
>>> print(adjust.compare_models(pram, plus, X_test, y_test).summary())  # doctest: +SKIP
>>> plus.save("clara_ms_plus.primo")  # the edit log travels with the model  # doctest: +SKIP
"""
from primo.adjust.compare import ChangeReport, compare_models
from primo.adjust.counterfactual import (
    CounterfactualIndex,
    CounterfactualResult,
    ErrorDiagnosis,
    diagnose_errors,
)
from primo.adjust.guided import suggest_term_edits
from primo.adjust.minimal_change import MinimalChangeSearch, counterfactuals
from primo.adjust.log import edits_of, format_edits, replay, undo
from primo.adjust.monotone import isotonic_shape, monotonize
from primo.adjust.terms import scale_term_scores, select_bins, set_term_scores, shift_term_scores
from primo.adjust.trees import set_leaf_value, set_threshold

__all__ = [
    "ChangeReport",
    "CounterfactualIndex",
    "CounterfactualResult",
    "ErrorDiagnosis",
    "MinimalChangeSearch",
    "compare_models",
    "counterfactuals",
    "diagnose_errors",
    "edits_of",
    "format_edits",
    "isotonic_shape",
    "monotonize",
    "replay",
    "scale_term_scores",
    "select_bins",
    "set_leaf_value",
    "set_term_scores",
    "set_threshold",
    "shift_term_scores",
    "suggest_term_edits",
    "undo",
]
