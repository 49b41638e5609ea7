"""The model card: what a model is, how big, how good, how fast, and how it came to be.

The history parts come from ``model.metadata_`` (see ``primo/models/_base.py``): ``"search"``
(a search's ``history()``, see :class:`SearchHistory`), ``"selection"`` (one row per model family
from :class:`~primo.PrimoClassifier`/:class:`~primo.PrimoRegressor`), ``"distillation"``
(``method``, ``fidelity``, ``iterations``), ``"edits"`` (records with ``operation`` and
``summary``) and any other entry, kept as given.

Example
-------
>>> from primo.explain import model_card
>>> card = model_card(model, X_test, y_test, baselines={"XGBoost": xgb})  # doctest: +SKIP
>>> card.metrics  # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn import metrics as skm
from sklearn.utils.validation import check_is_fitted

from primo.explain._values import plain
from primo.models._base import check_prediction_input, names_warned_once, names_warning_due
from primo.models.encoding import frame_from_arrow
from primo.models.latency import batch_latency_us, single_row_latency_us

logger = logging.getLogger(__name__)

_FAMILIES = {
    "PrDT": "PrDT: pruned CART decision tree (minimal cost-complexity pruning)",
    "PrAM": "PrAM: GA²M additive model (shape functions + pairwise interactions, fit by interpret's EBM)",
}


@dataclass(frozen=True)
class SearchHistory:
    """A hyper-parameter search as stored in ``metadata_["search"]`` by a search's ``history()``.

    ``trials`` has one row per trial: ``trial`` (its number), ``source`` (``"estimator"``: the
    estimator as given, ``"search"``, ``"path"``: a subtree of the PrDT pruning path, ``"refine"``,
    ``"prior"``: an earlier search's), the parameters (one column each, and all in ``params``),
    ``loss`` (validation loss, mean over folds), ``loss_se`` (its standard error), ``fold_losses``,
    ``reference_loss`` (the trivial predictor's loss), ``relative_loss`` (loss ÷ reference_loss: 1.0
    is no better than knowing nothing), ``complexity`` (the paper's C), ``size`` (readable: leaves
    of a PrDT, constant pieces of a PrAM), ``score`` = S(θ) = loss + λ·C^γ, ``log_loss`` and ``ece``
    (classifiers), ``fit_time``, ``error``, ``pareto`` (on the loss–size front) and ``chosen``.
    Files saved before the size rule (e.g. the case-study models) have only ``trial``, ``source``,
    the parameters, ``loss``, ``complexity``, ``score``, ``fit_time`` and ``error``; their rule is
    the lowest S (``rule`` is then ``"lowest S"``) and ``reference_loss`` is NaN.

    ``kept_model_params`` are the kept model's parameters that differ from the validated trial's (a
    cross-fitted search refits on every row with the estimator's own bags: ``{"outer_bags": 8}``);
    empty when they are the same, and in files saved before 2026-11-28.

    ``chosen_index`` is the row label of the trial the model was refit from (None if not found):
    the trial whose parameters equal the model's, preferring the one the search flagged (automatic
    selection may keep another trial of the family than the family's own search would);
    ``lowest_index`` is the row label of the lowest S.
    """

    method: str
    scoring: str
    rule: str
    lam: float
    gamma: float
    reference_loss: float
    best_params: dict
    kept_model_params: dict
    best_score: float
    trials: pd.DataFrame
    chosen_index: int | None
    lowest_index: int | None


@dataclass(frozen=True)
class Baseline:
    """A model to compare with in the report's metrics, and what its row was scored on.

    ``model`` is a fitted estimator (its ``predict`` is called on the report's rows) or its
    predictions on them. ``scored_on`` says what those rows are *for this baseline* when that differs
    from the report's evaluation rows' description, e.g. "its own training states" for a baseline fit
    on the very rows it is scored on, whose perfect scores would otherwise read as a result.

    Example
    -------
    >>> build(tree, X, y, baselines={"Metis-style tree": Baseline(metis.predict(X),
    ...       scored_on="its own training states")})  # doctest: +SKIP
    """

    model: object
    scored_on: str | None = None


@dataclass(frozen=True)
class Distillation:
    """A distillation run as stored in ``metadata_["distillation"]``."""

    method: str
    fidelity: object
    iterations: pd.DataFrame
    details: dict


@dataclass(frozen=True)
class ModelCard:
    """Facts about a model, as plain data (rendered by :mod:`primo.report`).

    ``metrics`` has one row per model (the explained model first, then the baselines), one column
    per metric and a last column ``scored on`` (what rows each row was scored on); ``latency_us`` holds the measured single-row and batch latencies. ``size``
    is the readable size (``size_``: leaves of a PrDT, constant pieces of a PrAM). ``selection``
    is ``metadata_["selection"]`` as a table (one row per family: ``family``, ``model``, ``loss``,
    ``loss_se``, ``relative_loss``, ``score``, ``size``, ``complexity``, ``log_loss``, ``ece``,
    ``latency_us``, ``within_noise``, ``satisfies``, ``selected``, ``reason``), None when the
    model did not come from automatic selection.
    """

    model_class: str
    family: str
    task: str
    params: dict
    complexity: float
    complexity_formula: str
    size: float | None
    feature_names: list[str]
    training_rows: float | None
    eval_rows: int | None
    classes: list | None
    metrics: pd.DataFrame | None
    latency_us: dict | None
    search: SearchHistory | None
    selection: pd.DataFrame | None
    distillation: Distillation | None
    edits: list[dict]
    other_metadata: dict = field(default_factory=dict)


def model_card(model, X=None, y=None, *, baselines=None, measure_latency: bool = True,
               model_name: str | None = None, scored_on: str | None = None) -> ModelCard:
    """Build the model card of a fitted PrDT or PrAM.

    Parameters
    ----------
    model : fitted Primo model.
    X, y : optional evaluation data (X: DataFrame, Arrow table such as polars or pyarrow, or array);
        metrics need both, latency needs X.
    baselines : optional ``{name: fitted estimator, array of predictions on X, or Baseline}``
        compared with the model on the same metrics (and latency, for estimators).
    scored_on : what the rows X are, for the metrics table's ``scored on`` column (default: "the N
        evaluation rows"); a :class:`Baseline` may say otherwise for its own row.
    measure_latency : time single-row and batch prediction on X (a fraction of a second).
    model_name : row label of the model in ``metrics`` (default: "this model (PrDT)" / "(PrAM)").

    Example
    -------
    >>> card = model_card(prdt, X_test, y_test)  # doctest: +SKIP
    >>> card.complexity_formula  # doctest: +SKIP
    '7 leaves × depth 4 = 28'
    """
    return _model_card(model, X, y, baselines=baselines, measure_latency=measure_latency, model_name=model_name,
                       scored_on=scored_on, rows_checked=False)


def _model_card(model, X, y, *, baselines, measure_latency: bool, model_name: str | None, scored_on: str | None,
                rows_checked: bool) -> ModelCard:
    """:func:`model_card`; ``rows_checked``: the caller (:func:`primo.report.build`) has checked X against the
    model itself, and so given scikit-learn's warning about X's names when it was due."""
    family = _family(model)
    check_is_fitted(model)
    classes = [plain(c) for c in model.classes_] if hasattr(model, "classes_") else None
    task = "classification" if classes is not None else "regression"
    if family == "PrDT":
        formula = f"{model.n_leaves_} leaves × depth {model.depth_} = {model.complexity_}"
        training_rows = float(model.tree_.n_node_samples[0])
    else:
        n_terms = len(model.ebm_.term_features_)
        formula = (f"(1 + {model.n_interactions_} pair terms) × {model.max_bins} bins = {model.complexity_} "
                   f"({n_terms} terms in all)")
        training_rows = float(np.sum(model.ebm_.bin_weights_[0]))  # total training weight (= rows, unweighted)
    # Once here: the latencies then time the model on the frame, not the conversion or rows taken by position.
    X = frame_from_arrow(X)
    if y is not None and X is None:
        raise ValueError("y was given without X: metrics need the rows X that y belongs to")
    if X is not None and y is not None and len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
    if X is not None and (measure_latency or y is not None) and not rows_checked:
        # The warning about X's names, when due: from this check only, not from each of the model's ~150
        # predictions below (the latencies still time the rows as given, not the checked ones).
        check_prediction_input(model, X)
    latency = predictions = None
    with names_warned_once():
        if X is not None and measure_latency:
            latency = {"single_row": single_row_latency_us(model.predict, X),
                       "batch_per_row": batch_latency_us(model.predict, X)}
        if X is not None and y is not None:
            predictions = model.predict(X)
    metrics = None
    if X is not None and y is not None:
        metrics = _metrics_table(model_name or f"this model ({family})", predictions, latency, X, np.asarray(y),
                                 baselines or {}, task, classes, measure_latency,
                                 scored_on or f"the {len(X)} evaluation rows",
                                 names_warned=names_warning_due(model, X))
    elif baselines:
        raise ValueError("baselines need evaluation data: pass X and y too")
    metadata = dict(getattr(model, "metadata_", {}) or {})
    return ModelCard(
        model_class=type(model).__name__,
        family=_FAMILIES[family],
        task=task,
        params={k: plain(v) for k, v in model.get_params(deep=False).items()},
        complexity=float(model.complexity_),
        complexity_formula=formula,
        size=float(model.size_) if hasattr(model, "size_") else None,
        feature_names=list(model.feature_names_),
        training_rows=training_rows,
        eval_rows=None if X is None else len(X),
        classes=classes,
        metrics=metrics,
        latency_us=latency,
        search=_search(metadata.pop("search", None), model.get_params(deep=False)),
        selection=_selection(metadata.pop("selection", None)),
        distillation=_distillation(metadata.pop("distillation", None)),
        edits=_edits(metadata.pop("edits", None)),
        other_metadata=metadata,
    )


def _family(model) -> str:
    if hasattr(model, "tree_"):
        return "PrDT"
    if hasattr(model, "ebm_"):
        return "PrAM"
    raise TypeError(f"expected a fitted PrDT or PrAM model, got {type(model).__name__}")


def prediction_metrics(y_true, y_pred, task: str, classes: list | None = None) -> dict:
    """Accuracy/F1 (classification; F1 of ``classes[1]`` when binary, macro otherwise) or MAE/RMSE/R².

    Binary means the model has two classes and the rows hold no other label: rows may carry a class the
    model never learned (a rare class missing from its training rows, or from a teacher's predictions
    when it was distilled), and then F1 is the macro average over every label present.

    Example
    -------
    >>> prediction_metrics([1.0, 2.0], [1.5, 2.0], "regression")["MAE"]
    0.25
    >>> prediction_metrics(["a", "b", "c"], ["a", "b", "b"], "classification", ["a", "b"])["F1"]
    0.5555555555555555
    """
    if task == "classification":
        present = set(np.asarray(y_true).tolist()) | set(np.asarray(y_pred).tolist())
        binary = classes is not None and len(classes) == 2 and present <= set(np.asarray(classes).tolist())
        average = "binary" if binary else "macro"
        extra = {"pos_label": classes[1]} if binary else {}
        return {
            "accuracy": float(skm.accuracy_score(y_true, y_pred)),
            "F1": float(skm.f1_score(y_true, y_pred, average=average, zero_division=0, **extra)),
            "precision": float(skm.precision_score(y_true, y_pred, average=average, zero_division=0, **extra)),
            "recall": float(skm.recall_score(y_true, y_pred, average=average, zero_division=0, **extra)),
        }
    return {
        "MAE": float(skm.mean_absolute_error(y_true, y_pred)),
        "RMSE": float(np.sqrt(skm.mean_squared_error(y_true, y_pred))),
        "R2": float(skm.r2_score(y_true, y_pred)),
    }


def _metrics_table(name, predictions, latency, X, y, baselines, task, classes, measure_latency,
                   scored_on: str, *, names_warned: bool = False) -> pd.DataFrame:
    """``names_warned``: the model's warning about X's names was due (and given), so a Primo baseline gives
    none; otherwise a baseline whose warning is due gives it once (from its ``predict``, not its latency)."""
    rows = {name: prediction_metrics(y, predictions, task, classes)}
    if latency:
        rows[name]["latency µs/row (single)"] = latency["single_row"]
    rows[name]["scored on"] = scored_on
    for base_name, baseline in baselines.items():
        described = baseline.scored_on if isinstance(baseline, Baseline) else None
        baseline = baseline.model if isinstance(baseline, Baseline) else baseline
        if hasattr(baseline, "predict"):
            with names_warned_once() if names_warned else contextlib.nullcontext():
                predictions = baseline.predict(X)
        else:
            predictions = np.asarray(baseline)
            if predictions.shape[:1] != (len(y),):
                raise ValueError(f"baseline {base_name!r}: expected {len(y)} predictions, got shape {predictions.shape}")
        row = prediction_metrics(y, np.asarray(predictions).reshape(len(y)), task, classes)
        if measure_latency and hasattr(baseline, "predict"):
            with names_warned_once():  # the baseline's warning, when due, came from its predict above
                row["latency µs/row (single)"] = single_row_latency_us(baseline.predict, X)
        row["scored on"] = described or "the same rows"
        rows[str(base_name)] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def _search(history, model_params: dict) -> SearchHistory | None:
    if not history:
        return None
    if not isinstance(history, dict):
        raise ValueError(f'metadata_["search"] must be a dict, got {type(history).__name__}')
    trials = pd.DataFrame(history.get("trials") or [])
    kept = history.get("kept_model_params") or {}
    if not isinstance(kept, dict):
        raise ValueError(f'metadata_["search"]["kept_model_params"] must be a dict, got {type(kept).__name__}')
    best_score = float(history.get("best_score", np.nan))
    chosen = lowest = None
    if not trials.empty and "score" in trials:
        scores = pd.to_numeric(trials["score"], errors="coerce")
        own = trials["source"] != "prior" if "source" in trials else pd.Series(True, index=trials.index)
        if scores[own].notna().any():
            lowest = int(scores[own].idxmin())
        if "chosen" in trials:
            flagged = trials.index[trials["chosen"].eq(True)]
        else:  # files saved before the size rule: the kept trial is the searched one of score best_score
            searched = trials["source"] == "search" if "source" in trials else own
            flagged = trials.index[searched & np.isclose(scores, best_score)]
        flagged = int(flagged[0]) if len(flagged) else None
        validated = {**model_params, **{k: v for k, v in (history.get("best_params") or {}).items() if k in kept}}
        chosen = _refit_trial(trials[own], flagged, validated)
    return SearchHistory(
        method=str(history.get("method", "?")),
        scoring=str(history.get("scoring", "?")),
        rule=str(history.get("rule", "lowest S")),
        lam=float(history.get("lam", 0.0)),
        gamma=float(history.get("gamma", 1.0)),
        reference_loss=float(history["reference_loss"]) if history.get("reference_loss") is not None else np.nan,
        best_params=dict(history.get("best_params") or {}),
        kept_model_params=dict(kept),
        best_score=best_score,
        trials=trials,
        chosen_index=chosen,
        lowest_index=lowest,
    )


def _refit_trial(trials: pd.DataFrame, flagged: int | None, model_params: dict) -> int | None:
    """Row label of the trial whose parameters are the model's (``flagged`` if it is one of them, or if none is)."""
    if "params" not in trials:  # older files: no parameter record to compare with
        return flagged

    def same(params) -> bool:
        return isinstance(params, dict) and all(
            name in model_params and plain(model_params[name]) == value for name, value in params.items())

    matches = trials.index[trials["params"].map(same)]
    return flagged if flagged in matches or not len(matches) else int(matches[0])


def _selection(records) -> pd.DataFrame | None:
    if not records:
        return None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError('metadata_["selection"] must be a list of dicts (one per model family)')
    return pd.DataFrame(records)


def _distillation(record) -> Distillation | None:
    if not record:
        return None
    if not isinstance(record, dict):
        raise ValueError(f'metadata_["distillation"] must be a dict, got {type(record).__name__}')
    return Distillation(
        method=str(record.get("method", "?")),
        fidelity=plain(record.get("fidelity")),
        iterations=pd.DataFrame(record.get("iterations") or []),
        details={k: v for k, v in record.items() if k not in ("method", "fidelity", "iterations")},
    )


def _edits(records) -> list[dict]:
    if not records:
        return []
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError('metadata_["edits"] must be a list of dicts (edit records)')
    return [dict(r) for r in records]
