"""Black-box baselines of the scheduler predictors (Lucid Table 7): RF, LightGBM, XGBoost, MLP.

Lucid compares its models with these four families "with default hyper-parameters"; the
factory follows that, with three exceptions: a fixed ``random_state``, a bounded
``n_jobs`` (the machine is shared), and the MLP (Lucid's "DNN"), which gets median-imputed,
standardized inputs, two hidden layers and early stopping, because scikit-learn's default
single-layer MLP neither accepts missing values nor converges on raw counts.
:func:`make_ebm` gives the bounded interpret EBM used as a stand-in for Primo's PrAM.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.impute import SimpleImputer
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

BASELINE_NAMES = ("rf", "lightgbm", "xgboost", "mlp")
"""Names accepted by :func:`make_baseline`, in Lucid's table order."""


def make_baseline(name: str, task: str = "regression", *, random_state: int = 0, n_jobs: int = 1,
                  **params) -> BaseEstimator:
    """Return an unfitted baseline estimator.

    Parameters
    ----------
    name : one of :data:`BASELINE_NAMES` (``"rf"``, ``"lightgbm"``, ``"xgboost"``, ``"mlp"``).
    task : ``"regression"`` or ``"classification"``.
    random_state : seed for every model.
    n_jobs : threads for the models that support it.
    **params : overrides passed to the underlying estimator (for the MLP: to
        ``MLPRegressor``/``MLPClassifier``, not to the scaler).

    Example
    -------
    >>> model = make_baseline("lightgbm", n_estimators=50)
    >>> type(model).__name__
    'LGBMRegressor'
    """
    if task not in ("regression", "classification"):
        raise ValueError(f"task must be 'regression' or 'classification', got {task!r}")
    regression = task == "regression"
    if name == "rf":
        cls = RandomForestRegressor if regression else RandomForestClassifier
        return cls(**{"random_state": random_state, "n_jobs": n_jobs, **params})
    if name == "lightgbm":
        import lightgbm  # optional dependency (casestudies extra)
        cls = lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier
        return cls(**{"random_state": random_state, "n_jobs": n_jobs, "verbose": -1, **params})
    if name == "xgboost":
        import xgboost  # optional dependency (casestudies extra)
        cls = xgboost.XGBRegressor if regression else xgboost.XGBClassifier
        return cls(**{"random_state": random_state, "n_jobs": n_jobs, **params})
    if name == "mlp":
        cls = MLPRegressor if regression else MLPClassifier
        mlp = cls(**{"hidden_layer_sizes": (64, 64), "max_iter": 500, "early_stopping": True,
                     "random_state": random_state, **params})
        # networks take no missing values: history features are NaN for a user's first jobs
        return make_pipeline(SimpleImputer(strategy="median"), StandardScaler(), mlp)
    raise ValueError(f"unknown baseline {name!r}; choose from {BASELINE_NAMES}")


def make_ebm(random_state: int = 0, **params):
    """A bounded interpret EBM regressor: the stand-in for Primo's PrAM until phase 2.

    Defaults (``max_rounds=2000``, ``outer_bags=2``, ``interactions=10``, one thread) keep a
    20k-row fit well under a minute on this machine; interpret's own defaults (14 bags,
    50,000 rounds) take many minutes.

    Example
    -------
    >>> make_ebm().outer_bags
    2
    """
    from interpret.glassbox import ExplainableBoostingRegressor

    settings = {"max_rounds": 2000, "outer_bags": 2, "interactions": 10, "n_jobs": 1,
                "random_state": random_state, **params}
    return ExplainableBoostingRegressor(**settings)


@dataclass
class TimedFit:
    """A fitted model with its training and prediction wall-clock times (seconds)."""

    model: BaseEstimator
    fit_seconds: float
    predict_seconds: float
    prediction: np.ndarray


def fit_predict_timed(model: BaseEstimator, X_train, y_train, X_test) -> TimedFit:
    """Fit ``model`` and predict ``X_test``, measuring both steps.

    Example
    -------
    >>> import numpy as np
    >>> X = np.arange(20.0).reshape(-1, 1)
    >>> run = fit_predict_timed(make_baseline("rf", n_estimators=5), X, X.ravel(), X[:3])
    >>> run.prediction.shape
    (3,)
    """
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fitted = time.perf_counter()
    prediction = np.asarray(model.predict(X_test))
    return TimedFit(model, fitted - start, time.perf_counter() - fitted, prediction)
