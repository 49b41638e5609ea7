"""Readable features of Clara-CP basic blocks (70 right-padded token ids, vocabulary 125, 0 = pad).

The token ids are Clara's encoding of LLVM IR; the public data does not say which id is which
opcode or operand (``ai_click_loops.jsonl`` names opcodes, but its 102-dim vectors are
sequential-pattern flags, not these ids), so features are named by id: ``count_tok_17``.

Feature families (each one a switch of :class:`CPTokenFeatures`):

* ``length`` — number of non-padding tokens;
* ``count_tok_<id>`` — bag of tokens, one column per id seen ``min_count`` times in training;
* ``count_other_tok`` — tokens without a column of their own (rare or unseen in training);
* ``n_distinct_tok`` — number of distinct ids in the block;
* ``count_bigram_<a>_<b>`` — the ``n_bigrams`` most frequent adjacent pairs in training;
* ``first_tok_is_<id>`` / ``last_tok_is_<id>`` — position-aware indicators of the block's
  first and last token (ids seen there ``min_count`` times in training).

Everything data-dependent (which ids, pairs and boundary tokens get a column) is learned in
``fit`` from the training rows only; ``transform`` never changes it, so the evaluation-only real
NFs cannot leak into the features.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from adapters.clara.data import CP_PAD, CP_VOCAB_SIZE, check_cp_tokens


def token_counts(X: np.ndarray) -> np.ndarray:
    """Per-row count of every token id: (n, 125) int64, column 0 counts padding.

    Example
    -------
    >>> token_counts(np.array([[3, 3, 4] + [0] * 67]))[0, [0, 3, 4]]
    array([67,  2,  1])
    """
    X = check_cp_tokens(X)
    # bincount over (row, id) pairs: one vectorized pass instead of a loop over 125 ids.
    flat = (np.arange(len(X))[:, None] * CP_VOCAB_SIZE + X).ravel()
    return np.bincount(flat, minlength=len(X) * CP_VOCAB_SIZE).reshape(len(X), CP_VOCAB_SIZE)


def _bigram_codes(X: np.ndarray) -> np.ndarray:
    """Adjacent non-padding pairs encoded as ``a * 125 + b``; pairs touching padding give -1."""
    left, right = X[:, :-1], X[:, 1:]
    return np.where((left != CP_PAD) & (right != CP_PAD), left * CP_VOCAB_SIZE + right, -1)


class CPTokenFeatures(TransformerMixin, BaseEstimator):
    """Named, interpretable features of CP token sequences (a scikit-learn transformer).

    Parameters
    ----------
    length : bool, default True
        Add ``length`` (non-padding tokens).
    counts : bool, default True
        Add ``count_tok_<id>`` for every id seen at least ``min_count`` times in training.
    min_count : int, default 1
        Training occurrences an id, pair or boundary token needs to get its own column.
    other : bool, default False
        Add ``count_other_tok``: tokens without their own column. Useful only with
        ``min_count > 1``: otherwise it is zero on every training row and nothing is learned.
    n_distinct : bool, default False
        Add ``n_distinct_tok``.
    n_bigrams : int, default 0
        Number of most frequent training bigrams to count (``count_bigram_<a>_<b>``).
    boundary_tokens : bool, default False
        Add ``first_tok_is_<id>`` and ``last_tok_is_<id>`` indicators.

    Attributes
    ----------
    vocabulary_ : ndarray of int
        Ids with a ``count_tok`` column, ascending.
    bigrams_ : ndarray of shape (k, 2)
        Pairs with a ``count_bigram`` column, most frequent first.
    first_tokens_, last_tokens_ : ndarray of int
        Ids with a boundary indicator.
    n_features_in_ : int
        70.

    Example
    -------
    >>> X = np.array([[5, 7, 5] + [0] * 67])
    >>> f = CPTokenFeatures(n_bigrams=2).fit(X)
    >>> list(f.get_feature_names_out())
    ['length', 'count_tok_5', 'count_tok_7', 'count_bigram_5_7', 'count_bigram_7_5']
    >>> f.transform(X)
    array([[3., 2., 1., 1., 1.]])
    """

    def __init__(
        self,
        length: bool = True,
        counts: bool = True,
        min_count: int = 1,
        other: bool = False,
        n_distinct: bool = False,
        n_bigrams: int = 0,
        boundary_tokens: bool = False,
    ):
        self.length = length
        self.counts = counts
        self.min_count = min_count
        self.other = other
        self.n_distinct = n_distinct
        self.n_bigrams = n_bigrams
        self.boundary_tokens = boundary_tokens

    def fit(self, X, y=None):
        """Learn which ids, bigrams and boundary tokens get columns, from training rows ``X`` only."""
        if not (isinstance(self.min_count, (int, np.integer)) and self.min_count >= 1):
            raise ValueError(f"min_count must be an integer >= 1, got {self.min_count!r}")
        if not (isinstance(self.n_bigrams, (int, np.integer)) and self.n_bigrams >= 0):
            raise ValueError(f"n_bigrams must be an integer >= 0, got {self.n_bigrams!r}")
        X = check_cp_tokens(X)
        self.vocabulary_ = self._frequent(X[X != CP_PAD].ravel())
        codes = _bigram_codes(X)
        pair_counts = np.bincount(codes[codes >= 0], minlength=CP_VOCAB_SIZE**2)
        # Most frequent first; a stable sort breaks ties by the smaller id pair.
        order = np.argsort(-pair_counts, kind="stable")[: self.n_bigrams]
        order = order[pair_counts[order] >= self.min_count]
        self.bigrams_ = np.stack([order // CP_VOCAB_SIZE, order % CP_VOCAB_SIZE], axis=1)
        first, last = self._boundaries(X)
        self.first_tokens_ = self._frequent(first)
        self.last_tokens_ = self._frequent(last)
        self.n_features_in_ = X.shape[1]
        self.feature_names_out_ = np.array(self._names(), dtype=object)
        return self

    def transform(self, X) -> np.ndarray:
        """Return the (n, n_features) float matrix; columns as :meth:`get_feature_names_out`."""
        check_is_fitted(self, "vocabulary_")
        X = check_cp_tokens(X)
        counts = token_counts(X)
        lengths = counts[:, 1:].sum(axis=1)
        columns = []
        if self.length:
            columns.append(lengths[:, None])
        if self.counts:
            columns.append(counts[:, self.vocabulary_])
        if self.other:
            columns.append((lengths - counts[:, self.vocabulary_].sum(axis=1))[:, None])
        if self.n_distinct:
            columns.append((counts[:, 1:] > 0).sum(axis=1)[:, None])
        if len(self.bigrams_):
            columns.append(self._bigram_counts(X))
        if self.boundary_tokens:
            first, last = self._boundaries(X)
            columns.append(first[:, None] == self.first_tokens_[None, :])
            columns.append(last[:, None] == self.last_tokens_[None, :])
        if not columns:
            return np.empty((len(X), 0))
        return np.hstack(columns).astype(float)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of the output columns (``length``, ``count_tok_17``, ``first_tok_is_20``, ...)."""
        check_is_fitted(self, "feature_names_out_")
        return self.feature_names_out_.copy()

    def _bigram_counts(self, X: np.ndarray) -> np.ndarray:
        k = len(self.bigrams_)
        column_of = np.full(CP_VOCAB_SIZE**2, -1)  # pair code -> output column, -1 = not counted
        column_of[self.bigrams_[:, 0] * CP_VOCAB_SIZE + self.bigrams_[:, 1]] = np.arange(k)
        codes = _bigram_codes(X)
        columns = np.where(codes >= 0, column_of[np.maximum(codes, 0)], -1)
        rows = np.broadcast_to(np.arange(len(X))[:, None], columns.shape)
        kept = columns >= 0
        flat = rows[kept] * k + columns[kept]
        return np.bincount(flat, minlength=len(X) * k).reshape(len(X), k)

    def _frequent(self, ids: np.ndarray) -> np.ndarray:
        counts = np.bincount(ids, minlength=CP_VOCAB_SIZE)
        counts[CP_PAD] = 0
        return np.flatnonzero(counts >= self.min_count)

    @staticmethod
    def _boundaries(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """First and last non-padding token of every row (0 for an all-padding row)."""
        lengths = (X != CP_PAD).sum(axis=1)
        last = X[np.arange(len(X)), np.maximum(lengths - 1, 0)]
        return X[:, 0], last

    def _names(self) -> list[str]:
        names = ["length"] if self.length else []
        if self.counts:
            names += [f"count_tok_{t}" for t in self.vocabulary_]
        if self.other:
            names.append("count_other_tok")
        if self.n_distinct:
            names.append("n_distinct_tok")
        names += [f"count_bigram_{a}_{b}" for a, b in self.bigrams_]
        if self.boundary_tokens:
            names += [f"first_tok_is_{t}" for t in self.first_tokens_]
            names += [f"last_tok_is_{t}" for t in self.last_tokens_]
        return names
