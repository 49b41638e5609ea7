"""PRIMO+: the paper's post-processing of Clara's PrAMs with domain knowledge, via :mod:`primo.adjust`.

* **Clara-MS** — monotonic constraints on ``A_i`` (IMEM accesses) and ``R_ec`` (EMEM/compute
  ratio), the paper's two features: both shape functions (and the pair terms containing them)
  are replaced by their weighted isotonic fits (:func:`primo.adjust.monotonize`). The paper
  states the direction for ``R_ec`` only ("cores proportional to the memory/compute
  intensity"); :func:`monotone_ms` takes each direction from the sign of the feature's rank
  correlation with the core count in the *training* set, which gives ``R_ec`` increasing
  (ρ = +0.48, the paper's direction) and ``A_i`` decreasing (ρ = −0.69). Forcing ``A_i``
  upwards contradicts the training data (``directions="increasing"`` reproduces that variant).
* **Clara-AI** — counterfactual-guided fixing of false negatives. The paper raises the score of
  one pattern flag (the 84th) after comparing missed CRC loops with their nearest detected ones;
  which flag, and by how much, must not be read off the test set. Here the choice is made on the
  training set only (:func:`fix_false_negatives`): in k-fold CV, the held-out false negatives of
  each fold model are explained by their nearest correctly detected positives
  (:func:`primo.adjust.diagnose_errors`, Hamming distance on the 0/1 flags), the bins they point
  at become candidate shifts (:func:`primo.adjust.suggest_term_edits`), and the candidate (times
  a few multiples of its shift) with the best out-of-fold F1 is applied to the final model — only
  if it beats the unedited out-of-fold F1. The edit is recorded in ``metadata_["edits"]``.

Example
-------
>>> plus = monotone_ms(ms_pram, ms.X, ms.y)  # doctest: +SKIP
>>> fix = fix_false_negatives(ai_pram, X_train, y_train, random_state=0)  # doctest: +SKIP
>>> fix.model.metadata_["edits"][-1]["summary"] if fix.chosen else "no edit"  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from adapters.clara.metrics import positive_class_scores
from primo.adjust import ErrorDiagnosis, diagnose_errors, monotonize, shift_term_scores, suggest_term_edits

logger = logging.getLogger(__name__)

#: Clara-MS features whose shape functions PRIMO+ makes monotone (increasing), as in the paper.
MS_MONOTONE = ("A_i", "R_ec")
#: Multiples of a candidate's suggested shift that are tried (the suggestion just reaches the boundary).
SHIFT_MULTIPLIERS = (0.5, 1.0, 1.5, 2.0, 3.0)


def training_directions(X_train: pd.DataFrame, y_train, features=MS_MONOTONE) -> dict[str, str]:
    """Monotone direction of each feature: the sign of its Spearman correlation with y (training rows).

    Example
    -------
    >>> from adapters.clara.data import load_ms
    >>> ms = load_ms("train")
    >>> training_directions(ms.X, ms.y)
    {'A_i': 'decreasing', 'R_ec': 'increasing'}
    """
    return {f: "increasing" if spearmanr(X_train[f], y_train)[0] >= 0 else "decreasing" for f in features}


def monotone_ms(model, X_train: pd.DataFrame, y_train, features=MS_MONOTONE, directions=None):
    """PRIMO+ for Clara-MS: ``model`` made monotone in ``A_i`` and ``R_ec`` (a new model).

    Parameters
    ----------
    model : fitted PrAMRegressor on the MS features.
    X_train, y_train : its training rows (they set the directions, see :func:`training_directions`).
    features : the features to constrain.
    directions : optional override, a direction or a dict feature → direction (e.g. "increasing",
        the paper's wording applied to both).

    Example
    -------
    >>> [e["term"] for e in monotone_ms(ms_pram, ms.X, ms.y).metadata_["edits"]]  # doctest: +SKIP
    ['A_i', 'R_ec']
    """
    if directions is None:
        directions = training_directions(X_train, y_train, features)
    return monotonize(model, list(features), direction=directions)


@dataclass
class GuidedEdit:
    """Outcome of :func:`fix_false_negatives`.

    ``model`` is the edited model (the input model itself when no candidate helped); ``chosen``
    the selected candidate (``term``, ``x_value``, ``shift``, ``multiplier``, out-of-fold scores)
    or None; ``oof_before`` the unedited out-of-fold P/R/F1; ``trials`` every scored candidate;
    ``diagnoses`` the per-fold counterfactual diagnoses of the held-out false negatives.
    """

    model: object
    chosen: dict | None
    oof_before: dict
    trials: pd.DataFrame
    diagnoses: list[ErrorDiagnosis]


def _oof_predict(models, folds, X) -> np.ndarray:
    out = np.zeros(len(X), dtype=int)
    for model, (_, held_out) in zip(models, folds):
        out[held_out] = model.predict(X.iloc[held_out])
    return out


def fix_false_negatives(model, X: pd.DataFrame, y, *, cv: int = 3, k: int = 5, n_candidates: int = 12,
                        multipliers=SHIFT_MULTIPLIERS, random_state: int = 0) -> GuidedEdit:
    """PRIMO+ for Clara-AI: a counterfactual-guided score shift chosen by cross-validation.

    Parameters
    ----------
    model : fitted binary PrAMClassifier (the one to edit), fit on (X, y).
    X : DataFrame of the training flags; y : its labels (1 = CRC loop).
    cv : folds of the stratified cross-validation that finds and scores the candidates.
    k : counterfactuals per false negative.
    n_candidates : (term, bin) candidates kept, most errors first.
    multipliers : multiples of each candidate's suggested shift to score.
    random_state : seeds the folds.

    Example
    -------
    >>> fix = fix_false_negatives(pram, X_train, y_train, cv=3)  # doctest: +SKIP
    >>> fix.oof_before["f1"], (fix.chosen or {}).get("oof_f1")  # doctest: +SKIP
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError("X must be a DataFrame of named features (edits and counterfactuals address terms by name)")
    y = np.asarray(y).ravel()
    folds = list(StratifiedKFold(cv, shuffle=True, random_state=random_state).split(X, y))
    fold_models, diagnoses, suggestions = [], [], []
    for number, (fit_rows, held_out) in enumerate(folds):
        fold_model = clone(model).fit(X.iloc[fit_rows], y[fit_rows])
        # Hamming distance (scale=1.0): the flags are 0/1, standardizing would favour rare flags.
        diagnosis = diagnose_errors(fold_model, X.iloc[held_out], y[held_out], kind="false_negatives",
                                    reference_X=X.iloc[fit_rows], reference_y=y[fit_rows], k=k, scale=1.0)
        found = suggest_term_edits(fold_model, diagnosis)
        found["fold"] = number
        fold_models.append(fold_model)
        diagnoses.append(diagnosis)
        suggestions.append(found)
        logger.info("AI PRIMO+: fold %d has %d held-out false negatives", number, len(diagnosis.rows))
    oof_before = positive_class_scores(y, _oof_predict(fold_models, folds, X))
    pooled = pd.concat(suggestions, ignore_index=True)
    if pooled.empty:
        return GuidedEdit(model, None, oof_before, pd.DataFrame(), diagnoses)
    # One candidate per (term, bin): errors summed over folds, shift = median boundary-reaching shift.
    candidates = (pooled.groupby(["term", "bin"], as_index=False)
                  .agg(x_value=("x_value", "first"), n_errors=("n_errors", "sum"),
                       flip_shift=("flip_shift", "median"), bin_weight=("bin_weight", "median"))
                  .sort_values(["n_errors", "bin_weight"], ascending=[False, True], kind="stable")
                  .head(n_candidates))
    rows = []
    for candidate in candidates.itertuples():
        for multiplier in multipliers:
            shift = float(candidate.flip_shift * multiplier)
            edited = [shift_term_scores(m, candidate.term, shift, values=[candidate.x_value]) for m in fold_models]
            scores = positive_class_scores(y, _oof_predict(edited, folds, X))
            rows.append({"term": candidate.term, "x_value": float(candidate.x_value),
                         "n_errors": int(candidate.n_errors), "bin_weight": float(candidate.bin_weight),
                         "multiplier": float(multiplier), "shift": shift,
                         **{f"oof_{name}": value for name, value in scores.items()}})
    # Best out-of-fold F1; among ties the smallest shift (the least change to the model).
    trials = pd.DataFrame(rows).sort_values(["oof_f1", "shift"], ascending=[False, True], kind="stable")
    best = trials.iloc[0].to_dict()
    if best["oof_f1"] <= oof_before["f1"]:
        logger.info("AI PRIMO+: no candidate beats the unedited out-of-fold F1 %.4f", oof_before["f1"])
        return GuidedEdit(model, None, oof_before, trials, diagnoses)
    edited = shift_term_scores(model, best["term"], best["shift"], values=[best["x_value"]])
    logger.info("AI PRIMO+: %s (out-of-fold F1 %.4f -> %.4f)", edited.metadata_["edits"][-1]["summary"],
                oof_before["f1"], best["oof_f1"])
    return GuidedEdit(edited, best, oof_before, trials, diagnoses)
