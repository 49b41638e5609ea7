"""The LinnOS black box: a 31-256-2 ReLU network with biased training, and its integer twin.

``LinnOSNet`` takes the 9 raw features (``features.RAW_FEATURE_NAMES``), encodes them into
LinnOS's 31 decimal digits itself (as the kernel does before each inference) and classifies a
read as slow (1) or fast (0). It is built on scikit-learn's ``MLPClassifier`` (one hidden layer
of 256 ReLU units, Adam, a fixed number of epochs). For two classes scikit-learn uses a single
logistic output ``z`` instead of LinnOS's two linear outputs ``(o0, o1)`` followed by argmax;
the two are the same classifier (``argmax(o0, o1) = 1  <=>  o1 - o0 > 0``, and softmax over two
logits is the sigmoid of their difference), with 8,449 instead of 8,706 parameters.

**Biased training.** LinnOS penalises false submits (slow reads predicted fast) more than false
revokes, because a false submit makes the application wait on a slow device while a false revoke
only costs a failover. Here every slow training read has sample weight ``slow_weight``
(default 4.0) and every fast read weight 1. With p85 labels (15% slow) a factor of 4 makes the
slow class weigh 0.6/(0.6+0.85) ≈ 41% of the loss. On the four FlashNet traces (p85 labels,
causal features, 50 epochs) it lowered the false submit rate from 0.10–0.22 to 0.06–0.14 of all
reads against unweighted training, while false revokes rose from 0.02–0.05 to 0.14–0.23
(``python -m adapters.linnos.evaluate``). The factor is a parameter: LinnOS publishes none.

**Integer inference.** The kernel has no floating point, so ``quantize`` turns the network into
fixed-point integers (``QuantizedLinnOSNet``): each layer's weights are scaled by a power of two
chosen so the largest magnitude fits ``weight_bits`` signed bits, hidden activations stay in
int32 (the inputs are digits 0–9, so the bound is small) and the output is accumulated in int64.
``adapters.linnos.c_inference.linnos_net_c_source`` emits the same computation in C.

Example
-------
>>> net = LinnOSNet(epochs=5, random_state=0).fit(X_train, y_train)  # doctest: +SKIP
>>> q = net.quantize()  # doctest: +SKIP
>>> (q.predict(X_test) == net.predict(X_test)).mean()  # doctest: +SKIP
"""
from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .features import N_DIGIT_FEATURES, RAW_FEATURE_NAMES, digit_encode

logger = logging.getLogger(__name__)


class LinnOSNet(ClassifierMixin, BaseEstimator):
    """LinnOS's per-device slow-read classifier (31 digit inputs, 256 ReLU units, biased loss).

    Parameters
    ----------
    hidden_units : int
        Width of the hidden layer (256 in LinnOS).
    slow_weight : float
        Sample weight of slow training reads (fast reads weigh 1): the biased-training factor.
    epochs : int
        Training epochs (fixed; no early stopping). The Primo paper trains LinnOS for 50.
    batch_size : int
        Adam mini-batch size.
    learning_rate : float
        Adam step size.
    latency_unit_us : int
        Unit of the latency digits (see ``features.digit_encode``).
    random_state : int or None
        Seed of the weight initialisation and batch shuffling.

    Attributes
    ----------
    mlp_ : MLPClassifier
        The fitted network (on digit inputs).
    classes_ : ndarray, ``[0, 1]``
    n_features_in_ : int, 9
    feature_names_in_ : ndarray of str
        Set when ``fit`` received a DataFrame.
    fit_time_s_ : float
        Wall-clock training time in seconds.
    fit_cpu_time_s_ : float
        CPU time of the training (one BLAS thread), insensitive to other load on the machine.

    Example
    -------
    >>> net = LinnOSNet(epochs=50, slow_weight=4.0, random_state=0)  # doctest: +SKIP
    >>> net.fit(reads[RAW_FEATURE_NAMES], labels).predict(reads[RAW_FEATURE_NAMES])  # doctest: +SKIP
    """

    def __init__(
        self,
        hidden_units: int = 256,
        slow_weight: float = 4.0,
        epochs: int = 50,
        batch_size: int = 256,
        learning_rate: float = 1e-3,
        latency_unit_us: int = 1,
        random_state: int | None = None,
    ):
        self.hidden_units = hidden_units
        self.slow_weight = slow_weight
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.latency_unit_us = latency_unit_us
        self.random_state = random_state

    def fit(self, X, y):
        """Train on raw features ``X`` (n, 9) and labels ``y`` (1 = slow, 0 = fast); return self."""
        digits = self._encode(X, fitting=True)
        y = np.asarray(y).ravel()
        if y.shape[0] != digits.shape[0]:
            raise ValueError(f"X has {digits.shape[0]} rows but y has {y.shape[0]} labels")
        if not np.isin(y, (0, 1)).all() or np.unique(y).size != 2:
            raise ValueError("y must hold both labels 0 (fast) and 1 (slow), and nothing else")
        if self.slow_weight <= 0:
            raise ValueError(f"slow_weight must be positive, got {self.slow_weight}")
        self.mlp_ = MLPClassifier(
            hidden_layer_sizes=(self.hidden_units,),
            activation="relu",
            solver="adam",
            batch_size=self.batch_size,
            learning_rate_init=self.learning_rate,
            max_iter=self.epochs,
            # A fixed epoch budget, as LinnOS trains: never stop on a loss plateau.
            tol=0.0,
            n_iter_no_change=self.epochs + 1,
            random_state=self.random_state,
        )
        start, cpu_start = time.perf_counter(), time.process_time()
        # The per-batch matrices are tiny (256 x 31, 256 x 256): extra BLAS threads only add
        # overhead, and on a busy machine oversubscription made training ~3x slower.
        with warnings.catch_warnings(), threadpool_limits(limits=1, user_api="blas"):
            warnings.simplefilter("ignore", ConvergenceWarning)  # expected: the budget is fixed
            self.mlp_.fit(digits, y, sample_weight=np.where(y == 1, self.slow_weight, 1.0))
        self.fit_time_s_ = time.perf_counter() - start
        self.fit_cpu_time_s_ = time.process_time() - cpu_start
        self.classes_ = self.mlp_.classes_
        logger.info("LinnOSNet trained on %d reads in %.1f s (%.1f s CPU)", y.size, self.fit_time_s_,
                    self.fit_cpu_time_s_)
        return self

    def decision_function(self, X) -> np.ndarray:
        """The output logit ``z`` (slow when ``z > 0``) for raw features ``X``."""
        check_is_fitted(self, "mlp_")
        hidden = np.maximum(self._encode(X) @ self.mlp_.coefs_[0] + self.mlp_.intercepts_[0], 0)
        return (hidden @ self.mlp_.coefs_[1] + self.mlp_.intercepts_[1]).ravel()

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of (fast, slow), shape (n, 2)."""
        check_is_fitted(self, "mlp_")
        return self.mlp_.predict_proba(self._encode(X))

    def predict(self, X) -> np.ndarray:
        """1 (slow) or 0 (fast) per row of raw features ``X``."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def quantize(self, weight_bits: int = 16) -> QuantizedLinnOSNet:
        """Fixed-point integer copy of the network (see the module docstring).

        Parameters
        ----------
        weight_bits : int
            Signed bit width that every weight and hidden bias must fit (8–24).

        Example
        -------
        >>> q = net.quantize(weight_bits=16)  # doctest: +SKIP
        >>> q.predict(X[:5])  # doctest: +SKIP
        """
        check_is_fitted(self, "mlp_")
        if not 8 <= weight_bits <= 24:
            raise ValueError(f"weight_bits must be between 8 and 24, got {weight_bits}")
        w1, w2 = self.mlp_.coefs_
        b1, b2 = self.mlp_.intercepts_
        limit = 2 ** (weight_bits - 1) - 1
        shift1 = _fraction_bits(max(np.abs(w1).max(), np.abs(b1).max()), limit)
        shift2 = _fraction_bits(np.abs(w2).max(), limit)
        return QuantizedLinnOSNet(
            w1=np.rint(w1 * 2.0**shift1).astype(np.int32),
            b1=np.rint(b1 * 2.0**shift1).astype(np.int32),
            w2=np.rint(w2.ravel() * 2.0**shift2).astype(np.int32),
            b2=int(np.rint(b2[0] * 2.0 ** (shift1 + shift2))),
            shift1=shift1,
            shift2=shift2,
            latency_unit_us=self.latency_unit_us,
        )

    def _encode(self, X, fitting: bool = False) -> np.ndarray:
        if fitting:
            self.n_features_in_ = len(RAW_FEATURE_NAMES)
            if hasattr(X, "columns"):
                self.feature_names_in_ = np.asarray(RAW_FEATURE_NAMES, dtype=object)
        return digit_encode(X, self.latency_unit_us).astype(float)


def _fraction_bits(max_abs: float, limit: int) -> int:
    """Largest power-of-two exponent ``s`` with ``max_abs * 2**s <= limit``."""
    if max_abs == 0:
        return 0
    return int(np.floor(np.log2(limit / max_abs)))


@dataclass(frozen=True)
class QuantizedLinnOSNet:
    """Integer-only LinnOS network: ``z = relu(d @ w1 + b1) @ w2 + b2``, slow when ``z > 0``.

    ``d`` are the 31 input digits; ``w1``/``b1`` are scaled by ``2**shift1`` and ``w2`` by
    ``2**shift2`` (so ``b2`` by ``2**(shift1 + shift2)``). The hidden layer needs int32, the
    output int64. Built by ``LinnOSNet.quantize``.
    """

    w1: np.ndarray  # (31, hidden) int32
    b1: np.ndarray  # (hidden,) int32
    w2: np.ndarray  # (hidden,) int32
    b2: int
    shift1: int
    shift2: int
    latency_unit_us: int = 1

    def __post_init__(self):
        hidden = self.w1.shape[1]
        if self.w1.shape[0] != N_DIGIT_FEATURES or self.b1.shape != (hidden,) or self.w2.shape != (hidden,):
            raise ValueError(f"inconsistent shapes w1 {self.w1.shape}, b1 {self.b1.shape}, w2 {self.w2.shape}")
        # Worst case of the hidden accumulator: every digit 9 with the largest weights.
        bound = 9 * np.abs(self.w1.astype(np.int64)).sum(axis=0).max() + np.abs(self.b1).max()
        if bound >= 2**31:
            raise ValueError("hidden accumulator could overflow int32; use fewer weight_bits")

    def decision_function(self, X) -> np.ndarray:
        """Integer logits (int64) for raw features ``X``."""
        digits = digit_encode(X, self.latency_unit_us).astype(np.int64)
        hidden = np.maximum(digits @ self.w1.astype(np.int64) + self.b1, 0)
        return hidden @ self.w2.astype(np.int64) + self.b2

    def predict(self, X) -> np.ndarray:
        """1 (slow) or 0 (fast) per row, computed with integers only."""
        return (self.decision_function(X) > 0).astype(np.int64)
