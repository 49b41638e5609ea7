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
  one pattern flag (the 84th) after comparing missed CRC loops with their nearest detected ones.
  Which flag, and by how much, must not be read off the rows the result is scored on, so the
  choice is automated and scored two honest ways:

  - :func:`fix_false_negatives` — training data only: in k-fold CV, the held-out false negatives
    of each fold model are explained by their nearest correctly detected positives
    (:func:`primo.adjust.diagnose_errors`, Hamming distance on the 0/1 flags), the bins they
    point at become candidate shifts (:func:`primo.adjust.suggest_term_edits`), and the
    candidate (times a few multiples of its shift) with the best out-of-fold F1 is applied to
    the final model, only if it beats the unedited out-of-fold F1;
  - :func:`cross_fitted_fix` — the paper's setting, where the developer fixes misses seen in
    use: the same selection runs on one half of the test rows (:func:`fix_false_negatives_on`,
    counterfactuals from the training set) and the edited model predicts the other half, and
    vice versa, so no test row is scored by an edit chosen with it.

  Applied edits are recorded in ``metadata_["edits"]``.

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
#: Largest share of the training rows a candidate bin may hold (see ``_choose_edit``).
MAX_BIN_SHARE = 0.5


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
    """Outcome of :func:`fix_false_negatives` or :func:`fix_false_negatives_on`.

    ``model`` is the edited model (the input model itself when no candidate helped); ``chosen``
    the selected candidate (``term``, ``x_value``, ``shift``, ``multiplier``, its P/R/F1 on the
    selection rows) or None; ``before`` the unedited P/R/F1 on the same rows; ``trials`` every
    scored candidate; ``diagnoses`` the counterfactual diagnoses of the false negatives found.
    """

    model: object
    chosen: dict | None
    before: dict
    trials: pd.DataFrame
    diagnoses: list[ErrorDiagnosis]

    @property
    def edit(self) -> str | None:
        """The applied edit's summary, or None."""
        return self.model.metadata_["edits"][-1]["summary"] if self.chosen else None


@dataclass(frozen=True)
class _Unit:
    """A model, the rows whose false negatives it should fix, and where their counterfactuals come from."""

    model: object
    X: pd.DataFrame
    y: np.ndarray
    reference_X: pd.DataFrame
    reference_y: np.ndarray


def _check_frame(X, name: str) -> pd.DataFrame:
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"{name} must be a DataFrame of named features (edits and counterfactuals address terms by name)")
    return X


def _choose_edit(model, units: list[_Unit], *, k: int, n_candidates: int, multipliers,
                 max_bin_share: float) -> GuidedEdit:
    """Diagnose each unit's false negatives, pool the suggested shifts, keep the one whose edit
    (applied to every unit's model) gives the best F1 on the units' rows, and apply it to ``model``.

    Bins holding more than ``max_bin_share`` of the training rows are not candidates: shifting
    them (e.g. "flag absent" of a rare flag) moves almost every row, a threshold change in
    disguise rather than a fix aimed at the errors."""
    diagnoses, suggestions = [], []
    for unit in units:
        # Hamming distance (scale=1.0): the flags are 0/1, standardizing would favour rare flags.
        diagnosis = diagnose_errors(unit.model, unit.X, unit.y, kind="false_negatives", reference_X=unit.reference_X,
                                    reference_y=unit.reference_y, k=k, scale=1.0)
        diagnoses.append(diagnosis)
        found = suggest_term_edits(unit.model, diagnosis)
        # The units' models were fit on their reference rows: bin weight / rows = share of rows in the bin.
        found["bin_share"] = found["bin_weight"] / len(unit.reference_y)
        suggestions.append(found[found["bin_share"] <= max_bin_share])
        logger.info("AI PRIMO+: %d false negatives among %d rows", len(diagnosis.rows), len(unit.y))
    y = np.concatenate([unit.y for unit in units])

    def scores(models) -> dict:
        return positive_class_scores(y, np.concatenate([m.predict(u.X) for m, u in zip(models, units)]))

    before = scores([unit.model for unit in units])
    pooled = pd.concat(suggestions, ignore_index=True)
    if pooled.empty:
        return GuidedEdit(model, None, before, pd.DataFrame(), diagnoses)
    # One candidate per (term, bin): errors summed over units, shift = median boundary-reaching shift.
    candidates = (pooled.groupby(["term", "bin"], as_index=False)
                  .agg(x_value=("x_value", "first"), n_errors=("n_errors", "sum"),
                       flip_shift=("flip_shift", "median"), bin_weight=("bin_weight", "median"))
                  .sort_values(["n_errors", "bin_weight"], ascending=[False, True], kind="stable")
                  .head(n_candidates))
    rows = []
    for candidate in candidates.itertuples():
        for multiplier in multipliers:
            shift = float(candidate.flip_shift * multiplier)
            edited = [shift_term_scores(u.model, candidate.term, shift, values=[candidate.x_value]) for u in units]
            rows.append({"term": candidate.term, "x_value": float(candidate.x_value),
                         "n_errors": int(candidate.n_errors), "bin_weight": float(candidate.bin_weight),
                         "multiplier": float(multiplier), "shift": shift, **scores(edited)})
    # Best F1; among ties the smallest shift (the least change to the model).
    trials = pd.DataFrame(rows).sort_values(["f1", "shift"], ascending=[False, True], kind="stable")
    best = trials.iloc[0].to_dict()
    if best["f1"] <= before["f1"]:
        logger.info("AI PRIMO+: no candidate beats the unedited F1 %.4f", before["f1"])
        return GuidedEdit(model, None, before, trials, diagnoses)
    edited = shift_term_scores(model, best["term"], best["shift"], values=[best["x_value"]])
    logger.info("AI PRIMO+: %s (F1 on the selection rows %.4f -> %.4f)", edited.metadata_["edits"][-1]["summary"],
                before["f1"], best["f1"])
    return GuidedEdit(edited, best, before, trials, diagnoses)


def fix_false_negatives(model, X: pd.DataFrame, y, *, cv: int = 3, k: int = 5, n_candidates: int = 12,
                        multipliers=SHIFT_MULTIPLIERS, max_bin_share: float = MAX_BIN_SHARE,
                        random_state: int = 0) -> GuidedEdit:
    """PRIMO+ for Clara-AI, training data only: a guided score shift chosen by cross-validation.

    Each fold's model (a clone of ``model`` fit on the other folds) explains its held-out false
    negatives by their nearest detected positives among its training rows; a candidate shift is
    applied to every fold model and scored by the out-of-fold F1 (``before``/``chosen`` hold
    out-of-fold scores).

    Parameters
    ----------
    model : fitted binary PrAMClassifier (the one to edit), fit on (X, y).
    X : DataFrame of the training flags; y : its labels (1 = CRC loop).
    cv : folds of the stratified cross-validation that finds and scores the candidates.
    k : counterfactuals per false negative.
    n_candidates : (term, bin) candidates kept, most errors first.
    multipliers : multiples of each candidate's suggested shift to score.
    max_bin_share : bins holding a larger share of the training rows are not edited.
    random_state : seeds the folds.

    Example
    -------
    >>> fix = fix_false_negatives(pram, X_train, y_train, cv=3)  # doctest: +SKIP
    >>> fix.before["f1"], (fix.chosen or {}).get("f1")  # doctest: +SKIP
    """
    X = _check_frame(X, "X")
    y = np.asarray(y).ravel()
    units = []
    for fit_rows, held_out in StratifiedKFold(cv, shuffle=True, random_state=random_state).split(X, y):
        fold_model = clone(model).fit(X.iloc[fit_rows], y[fit_rows])
        units.append(_Unit(fold_model, X.iloc[held_out], y[held_out], X.iloc[fit_rows], y[fit_rows]))
    return _choose_edit(model, units, k=k, n_candidates=n_candidates, multipliers=multipliers,
                        max_bin_share=max_bin_share)


def fix_false_negatives_on(model, X_dev: pd.DataFrame, y_dev, reference_X: pd.DataFrame, reference_y, *,
                           k: int = 5, n_candidates: int = 12, multipliers=SHIFT_MULTIPLIERS,
                           max_bin_share: float = MAX_BIN_SHARE) -> GuidedEdit:
    """A guided score shift chosen on labelled development rows ``X_dev`` (e.g. errors seen in use).

    The false negatives of ``model`` among ``X_dev`` are explained by their nearest detected
    positives in the reference rows (the training set); candidates are scored by the F1 on
    ``X_dev``. ``model`` must have been fit on the reference rows. Evaluate the result on other
    rows only.

    Example
    -------
    >>> fix = fix_false_negatives_on(pram, X_dev, y_dev, X_train, y_train)  # doctest: +SKIP
    """
    unit = _Unit(model, _check_frame(X_dev, "X_dev"), np.asarray(y_dev).ravel(),
                 _check_frame(reference_X, "reference_X"), np.asarray(reference_y).ravel())
    return _choose_edit(model, [unit], k=k, n_candidates=n_candidates, multipliers=multipliers,
                        max_bin_share=max_bin_share)


@dataclass
class CrossFittedEdit:
    """Outcome of :func:`cross_fitted_fix`: out-of-half predictions and the edit chosen on each half.

    ``predictions[i]`` comes from the model edited on the half that does *not* contain row i;
    ``halves[j]`` are the rows of half j and ``fixes[j]`` the edit chosen on them.
    """

    predictions: np.ndarray
    halves: list[np.ndarray]
    fixes: list[GuidedEdit]


def cross_fitted_fix(model, X: pd.DataFrame, y, reference_X: pd.DataFrame, reference_y, *, random_state: int = 0,
                     **options) -> CrossFittedEdit:
    """Score "fix the false negatives you see" honestly: choose on one half of X, predict the other.

    X is split into two stratified halves; :func:`fix_false_negatives_on` chooses an edit on each
    half and the edited model predicts the other half, so no row is scored by an edit chosen with
    it. ``options`` go to :func:`fix_false_negatives_on`.

    Example
    -------
    >>> crossfit = cross_fitted_fix(pram, X_test, y_test, X_train, y_train)  # doctest: +SKIP
    >>> positive_class_scores(y_test, crossfit.predictions)  # doctest: +SKIP
    """
    X = _check_frame(X, "X")
    y = np.asarray(y).ravel()
    splits = list(StratifiedKFold(2, shuffle=True, random_state=random_state).split(X, y))
    predictions = np.zeros(len(y), dtype=int)
    halves, fixes = [], []
    for dev, held_out in splits:
        fix = fix_false_negatives_on(model, X.iloc[dev], y[dev], reference_X, reference_y, **options)
        predictions[held_out] = fix.model.predict(X.iloc[held_out])
        halves.append(dev)
        fixes.append(fix)
    return CrossFittedEdit(predictions, halves, fixes)
