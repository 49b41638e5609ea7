"""The model card: what a model is, how big, how good, how fast, and how it came to be.

The history parts come from ``model.metadata_`` (see ``primo/models/_base.py``): ``"search"``
(a :meth:`BayesianSearch.history`), ``"distillation"`` (``method``, ``fidelity``, ``iterations``),
``"edits"`` (records with ``operation`` and ``summary``) and any other entry, kept as given.

Example
-------
>>> from primo.explain import model_card
>>> card = model_card(model, X_test, y_test, baselines={"XGBoost": xgb})  # doctest: +SKIP
>>> card.metrics  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn import metrics as skm
from sklearn.utils.validation import check_is_fitted

from primo.explain._values import plain
from primo.models.latency import batch_latency_us, single_row_latency_us

logger = logging.getLogger(__name__)

_FAMILIES = {
    "PrDT": "PrDT: pruned CART decision tree (minimal cost-complexity pruning)",
    "PrAM": "PrAM: GA²M additive model (shape functions + pairwise interactions, fit by interpret's EBM)",
}


@dataclass(frozen=True)
class SearchHistory:
    """A hyper-parameter search as stored in ``metadata_["search"]``.

    ``trials`` has one row per trial (its parameters, ``loss``, ``complexity``, ``score`` = S(θ),
    ``fit_time``); ``best_trial`` is the row label of the chosen point (None if not found).
    """

    method: str
    scoring: str
    lam: float
    gamma: float
    best_params: dict
    best_score: float
    trials: pd.DataFrame
    best_trial: int | None


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

    ``metrics`` has one row per model (the explained model first, then the baselines) and one
    column per metric; ``latency_us`` holds the measured single-row and batch latencies.
    """

    model_class: str
    family: str
    task: str
    params: dict
    complexity: float
    complexity_formula: str
    feature_names: list[str]
    training_rows: float | None
    eval_rows: int | None
    classes: list | None
    metrics: pd.DataFrame | None
    latency_us: dict | None
    search: SearchHistory | None
    distillation: Distillation | None
    edits: list[dict]
    other_metadata: dict = field(default_factory=dict)


def model_card(model, X=None, y=None, *, baselines=None, measure_latency: bool = True,
               model_name: str | None = None) -> ModelCard:
    """Build the model card of a fitted PrDT or PrAM.

    Parameters
    ----------
    model : fitted Primo model.
    X, y : optional evaluation data; metrics need both, latency needs X.
    baselines : optional ``{name: fitted estimator or array of predictions on X}`` compared with
        the model on the same metrics (and latency, for estimators).
    measure_latency : time single-row and batch prediction on X (a fraction of a second).
    model_name : row label of the model in ``metrics`` (default: "this model (PrDT)" / "(PrAM)").

    Example
    -------
    >>> card = model_card(prdt, X_test, y_test)  # doctest: +SKIP
    >>> card.complexity_formula  # doctest: +SKIP
    '7 leaves × depth 4 = 28'
    """
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
    if y is not None and X is None:
        raise ValueError("y was given without X: metrics need the rows X that y belongs to")
    if X is not None and y is not None and len(X) != len(y):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
    latency = None
    if X is not None and measure_latency:
        latency = {"single_row": single_row_latency_us(model.predict, X),
                   "batch_per_row": batch_latency_us(model.predict, X)}
    metrics = None
    if X is not None and y is not None:
        metrics = _metrics_table(model_name or f"this model ({family})", model.predict(X), latency, X, np.asarray(y),
                                 baselines or {}, task, classes, measure_latency)
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
        feature_names=list(model.feature_names_),
        training_rows=training_rows,
        eval_rows=None if X is None else len(X),
        classes=classes,
        metrics=metrics,
        latency_us=latency,
        search=_search(metadata.pop("search", None)),
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

    Example
    -------
    >>> prediction_metrics([1.0, 2.0], [1.5, 2.0], "regression")["MAE"]
    0.25
    """
    if task == "classification":
        binary = classes is not None and len(classes) == 2
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


def _metrics_table(name, predictions, latency, X, y, baselines, task, classes, measure_latency) -> pd.DataFrame:
    rows = {name: prediction_metrics(y, predictions, task, classes)}
    if latency:
        rows[name]["latency µs/row (single)"] = latency["single_row"]
    for base_name, baseline in baselines.items():
        if hasattr(baseline, "predict"):
            predictions = baseline.predict(X)
        else:
            predictions = np.asarray(baseline)
            if predictions.shape[:1] != (len(y),):
                raise ValueError(f"baseline {base_name!r}: expected {len(y)} predictions, got shape {predictions.shape}")
        row = prediction_metrics(y, np.asarray(predictions).reshape(len(y)), task, classes)
        if measure_latency and hasattr(baseline, "predict"):
            row["latency µs/row (single)"] = single_row_latency_us(baseline.predict, X)
        rows[str(base_name)] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def _search(history) -> SearchHistory | None:
    if not history:
        return None
    trials = pd.DataFrame(history.get("trials") or [])
    best_trial = None
    if not trials.empty and "score" in trials:
        searched = trials[trials["source"] == "search"] if "source" in trials else trials
        matches = searched.index[np.isclose(searched["score"].astype(float), float(history.get("best_score", np.nan)))]
        best_trial = int(matches[0]) if len(matches) else None
    return SearchHistory(
        method=str(history.get("method", "?")),
        scoring=str(history.get("scoring", "?")),
        lam=float(history.get("lam", 0.0)),
        gamma=float(history.get("gamma", 1.0)),
        best_params=dict(history.get("best_params") or {}),
        best_score=float(history.get("best_score", np.nan)),
        trials=trials,
        best_trial=best_trial,
    )


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
