"""From counterfactuals to candidate edits of a PrAM's shape functions.

A misclassified row x can only be moved by editing scores of the bins *it* falls in. Its
counterfactual neighbors say by how much: the raw-score gap ``Σ_t c_t(n) − c_t(x)`` between x and
its neighbors is the change that would give x their outcome, and the per-term differences say
which terms make that gap. :func:`suggest_term_edits` lists, for every (1-D term, bin of the
errors), the errors in that bin, the median gap (the suggested shift), the term's own share of
it, and how many training rows share the bin (what else the edit moves). Choosing among the
candidates (and how much of the gap to shift) is left to the developer or to a cross-validated
selection on training data.

Example
-------
>>> diagnosis = diagnose_errors(pram, X_valid, y_valid, reference_X=X_train, reference_y=y_train)  # doctest: +SKIP
>>> candidates = suggest_term_edits(pram, diagnosis)  # doctest: +SKIP
>>> best = candidates.iloc[0]  # doctest: +SKIP
>>> edited = shift_term_scores(pram, best.term, best.shift, bins=[best.bin])  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from primo.adjust.counterfactual import ErrorDiagnosis
from primo.adjust.terms import check_pram, value_bins

_COLUMNS = ["term", "bin", "x_value", "n_errors", "flip_shift", "shift", "term_push", "bin_weight"]


def suggest_term_edits(model, diagnosis: ErrorDiagnosis) -> pd.DataFrame:
    """Candidate shifts of one bin of a 1-D term, sized by the counterfactuals of the errors.

    Parameters
    ----------
    model : the binary PrAM classifier the diagnosis was made with.
    diagnosis : from :func:`~primo.adjust.diagnose_errors`.

    Returns
    -------
    DataFrame, one row per (term, inner bin holding at least one error), sorted by ``n_errors``
    (largest first) then ``bin_weight`` (smallest first: the most specific edits):
    ``term``, ``bin`` (inner-bin index, for ``shift_term_scores(bins=[bin])``), ``x_value`` (a
    value of the errors in that bin), ``n_errors``, ``flip_shift`` (median over those errors of the
    raw-score change that just reaches the decision boundary), ``shift`` (median over those errors
    of the mean raw-score gap to their neighbors; both signed for
    :func:`~primo.adjust.shift_term_scores`),
    ``term_push`` (mean change of this term's contribution from x to its neighbors, towards the
    desired class: positive when the term itself separates them), ``bin_weight`` (training rows
    in the bin).

    Example
    -------
    >>> suggest_term_edits(pram, diagnosis).head(3)  # doctest: +SKIP
    """
    ebm = check_pram(model, "suggest_term_edits")
    results = [r for r in diagnosis.results if r.term_deltas is not None and not r.neighbors.empty]
    if not results:
        return pd.DataFrame(columns=_COLUMNS)
    # Contributions are towards classes_[1]; flip them when the errors should become classes_[0].
    sign = 1.0 if diagnosis.desired == model.classes_[-1] else -1.0
    names = model.feature_names_
    queries = pd.DataFrame([r.x for r in results])
    # The binary decision is raw score > 0: an error at raw score s needs -s to reach the boundary.
    raw = model.decision_function(queries if getattr(model, "feature_names_in_", None) is not None
                                  else queries.to_numpy())
    rows = []
    for term, features in enumerate(ebm.term_features_):
        if len(features) != 1:
            continue
        name, feature = str(ebm.term_names_[term]), names[features[0]]
        x_bins = value_bins(model, term, [r.x[feature] for r in results])
        for x_bin in np.unique(x_bins[x_bins >= 0]):
            members = [r for r, b in zip(results, x_bins) if b == x_bin]
            flips = raw[x_bins == x_bin]
            gaps = [sign * r.term_deltas.sum(axis=1).mean() for r in members]
            pushes = np.concatenate([sign * r.term_deltas[name].to_numpy() for r in members])
            rows.append({
                "term": name,
                "bin": int(x_bin),
                "x_value": members[0].x[feature],
                "n_errors": len(members),
                "flip_shift": float(-np.median(flips)),
                "shift": float(sign * np.median(gaps)),
                "term_push": float(np.mean(pushes)),
                "bin_weight": float(ebm.bin_weights_[term][x_bin + 1]),
            })
    out = pd.DataFrame(rows, columns=_COLUMNS)
    return out.sort_values(["n_errors", "bin_weight"], ascending=[False, True], kind="stable").reset_index(drop=True)
