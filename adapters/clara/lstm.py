"""Clara's pretrained Clara-CP LSTM, reimplemented in numpy (the CP black-box baseline / teacher).

Clara embeds each of the 70 token ids (64-d), runs a TensorFlow-1 ``LSTMCell`` (64 units) over
**all** 70 positions, padding included, from a zero state, and maps the last hidden state to
``σ(h @ out_W + out_b)``. The cell follows TensorFlow's conventions (``lstm_kernel`` stacks the
input and recurrent weights; gates ``i, j, f, o`` in that order; forget bias +1.0 added at run
time, not stored in ``lstm_bias``)::

    z = [x_t, h] @ kernel + bias;  i, j, f, o = split(z, 4)
    c = σ(f + 1.0)·c + σ(i)·tanh(j);  h = σ(o)·tanh(c)

Scale: the target ``y`` of ``cp_*.npz`` is instruction count / 60 and the model predicts on that
same scale (a sigmoid, so at most 60 instructions); multiply by
:data:`~adapters.clara.data.CP_TARGET_SCALE` for instruction counts. On ``cp_real_nfs.npz`` this
reimplementation gives the average per-NF WMAPE of 0.1507 that the Primo paper reports (15.1%).

Hand-written rather than loaded into a deep-learning framework: the cell is six lines of numpy,
and the project does not depend on TensorFlow or PyTorch.
"""
from __future__ import annotations

import os

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from adapters.clara.data import CP_SEQ_LEN, check_cp_tokens, load_cp_lstm_weights

#: TensorFlow's LSTMCell default, added to the forget gate at run time.
FORGET_BIAS = 1.0


class ClaraLSTMRegressor(RegressorMixin, BaseEstimator):
    """Clara's pretrained CP LSTM behind the scikit-learn regressor API.

    ``fit`` does not train: it loads the published weights (Clara's 103k-program training set is
    not public), so the model can be used wherever a fitted regressor is expected, e.g. as a
    distillation teacher.

    Parameters
    ----------
    data_dir : path, optional
        Shared data directory holding ``clara/cp_clara_lstm_weights.npz``.
    batch_size : int, default 4096
        Rows per forward pass (bounds memory: ~5 KB of state per row).

    Attributes
    ----------
    weights_ : dict of str -> ndarray
        ``embedding``, ``lstm_kernel``, ``lstm_bias``, ``out_W``, ``out_b`` (float64).
    n_features_in_ : int
        70 token positions.

    Example
    -------
    >>> from adapters.clara.data import load_cp
    >>> lstm = ClaraLSTMRegressor().fit()  # doctest: +SKIP
    >>> lstm.predict(load_cp("real_nfs").X)[:3] * 60  # instruction counts  # doctest: +SKIP
    """

    def __init__(self, data_dir: str | os.PathLike | None = None, batch_size: int = 4096):
        self.data_dir = data_dir
        self.batch_size = batch_size

    def fit(self, X=None, y=None):
        """Load the pretrained weights (``X`` and ``y`` are accepted for API compatibility and ignored)."""
        if not (isinstance(self.batch_size, (int, np.integer)) and self.batch_size > 0):
            raise ValueError(f"batch_size must be a positive integer, got {self.batch_size!r}")
        self.weights_ = load_cp_lstm_weights(self.data_dir)
        self.n_features_in_ = CP_SEQ_LEN
        return self

    def predict(self, X) -> np.ndarray:
        """Predict instruction count / 60 for each row of token ids (n, 70)."""
        check_is_fitted(self, "weights_")
        X = check_cp_tokens(X)
        return np.concatenate(
            [self._forward(X[start : start + self.batch_size]) for start in range(0, len(X), self.batch_size)]
            or [np.empty(0)]
        )

    def _forward(self, X: np.ndarray) -> np.ndarray:
        w = self.weights_
        n_units = w["lstm_kernel"].shape[1] // 4
        h = np.zeros((len(X), n_units))
        c = np.zeros((len(X), n_units))
        embedded = w["embedding"][X]  # (n, 70, 64)
        for t in range(X.shape[1]):
            z = np.concatenate([embedded[:, t], h], axis=1) @ w["lstm_kernel"] + w["lstm_bias"]
            i, j, f, o = np.split(z, 4, axis=1)
            c = expit(f + FORGET_BIAS) * c + expit(i) * np.tanh(j)
            h = expit(o) * np.tanh(c)
        return expit(h @ w["out_W"] + w["out_b"]).ravel()
