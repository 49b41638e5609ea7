"""New Clara-CP basic blocks for a teacher to label: concatenations and crops of real ones.

Distilling Clara's LSTM needs inputs it can label beyond the 2,911 synthetic blocks. The
generic generators of :mod:`primo.distill.augment` move numeric features; token ids are
categories, so moving them numerically makes no sense. Two sequence-level generators instead,
both built only from the training blocks given to them:

* :func:`concatenate_blocks` — block A followed by block B (when both fit in 70 tokens): a
  longer straight-line sequence, whose count the teacher should see as roughly the sum;
* :func:`crop_blocks` — a contiguous piece of a block that ends on a token that ends training
  blocks (its last token somewhere), so pieces end like blocks do rather than mid-instruction.

The token meaning is not published (ids only), so these generators stay at the level of whole
blocks and block-ending tokens rather than editing instructions.

Example
-------
>>> X = np.zeros((2, 70), dtype=int); X[0, :4] = [5, 9, 6, 9]; X[1, :2] = [7, 9]
>>> augment_blocks(X, 4, random_state=0).shape
(4, 70)
"""
from __future__ import annotations

import numpy as np

from adapters.clara.data import CP_PAD, CP_SEQ_LEN, check_cp_tokens

METHODS = ("concat", "crop", "both")


def _lengths(X: np.ndarray) -> np.ndarray:
    return (X != CP_PAD).sum(axis=1)


def _check_n(n_samples) -> int:
    if int(n_samples) != n_samples or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    return int(n_samples)


def concatenate_blocks(X, n_samples: int, *, random_state=None) -> np.ndarray:
    """``n_samples`` blocks made of two random blocks of ``X`` back to back (at most 70 tokens).

    Parameters
    ----------
    X : array-like of shape (n, 70)
        Training token blocks (right-padded ids).
    n_samples : int
        Number of blocks to generate.
    random_state : int, numpy Generator or None

    Example
    -------
    >>> X = np.zeros((2, 70), dtype=int); X[0, :2] = [5, 9]; X[1, :1] = [7]
    >>> concatenate_blocks(X, 1, random_state=1)[0, :4]
    array([5, 9, 7, 0])
    """
    X = check_cp_tokens(X)
    n_samples = _check_n(n_samples)
    rng = np.random.default_rng(random_state)
    lengths = _lengths(X)
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == 0 or 2 * lengths[nonempty].min() > CP_SEQ_LEN:
        raise ValueError("no two blocks of X fit together in 70 tokens")
    pairs = np.empty((0, 2), dtype=np.int64)
    while len(pairs) < n_samples:  # rejection sampling: most pairs fit (the median block has 5 tokens)
        draw = rng.choice(nonempty, size=(2 * (n_samples - len(pairs)) + 8, 2))
        pairs = np.vstack([pairs, draw[lengths[draw].sum(axis=1) <= CP_SEQ_LEN]])
    pairs = pairs[:n_samples]
    out = np.zeros((n_samples, CP_SEQ_LEN), dtype=np.int64)
    for row, (a, b) in enumerate(pairs):
        la, lb = lengths[a], lengths[b]
        out[row, :la] = X[a, :la]
        out[row, la:la + lb] = X[b, :lb]
    return out


def crop_blocks(X, n_samples: int, *, random_state=None) -> np.ndarray:
    """``n_samples`` contiguous pieces of blocks of ``X``, each ending on a block-ending token.

    A piece starts anywhere in a block of 2+ tokens and ends before the block's last token, on a
    token that is the last token of some block of ``X``; it is strictly shorter than its block.

    Example
    -------
    >>> X = np.zeros((2, 70), dtype=int); X[0, :4] = [5, 9, 6, 9]; X[1, :1] = [9]
    >>> crop_blocks(X, 3, random_state=2)[:, :3]  # [5, 9] or [9]: pieces end on 9 before the end
    array([[9, 0, 0],
           [5, 9, 0],
           [5, 9, 0]])
    """
    X = check_cp_tokens(X)
    n_samples = _check_n(n_samples)
    rng = np.random.default_rng(random_state)
    lengths = _lengths(X)
    ends = np.zeros(X.max(initial=0) + 1, dtype=bool)
    ends[X[lengths > 0, lengths[lengths > 0] - 1]] = True
    # Positions (row, i) where a piece may end: a block-ending token, not the block's last token.
    rows, cols = np.nonzero(ends[X] & (X != CP_PAD) & (np.arange(CP_SEQ_LEN) < (lengths - 1)[:, None]))
    if rows.size == 0:
        raise ValueError("X has no block with an inner block-ending token to crop at")
    out = np.zeros((n_samples, CP_SEQ_LEN), dtype=np.int64)
    picks = rng.integers(rows.size, size=n_samples)
    starts = rng.integers(0, cols[picks] + 1)  # any start up to the chosen end, inclusive
    for k, (row, end, start) in enumerate(zip(rows[picks], cols[picks], starts)):
        piece = X[row, start:end + 1]
        out[k, :len(piece)] = piece
    return out


def augment_blocks(X, n_samples: int, *, method: str = "both", random_state=None) -> np.ndarray:
    """Generate ``n_samples`` new blocks from ``X`` (``"both"``: half concatenations, half crops).

    Parameters
    ----------
    X : array-like of shape (n, 70)
        Training blocks; nothing else is used.
    n_samples : int
    method : {"concat", "crop", "both"}, default "both"
    random_state : int, numpy Generator or None

    Example
    -------
    >>> from adapters.clara.data import load_cp
    >>> augment_blocks(load_cp("synthetic").X, 1000, random_state=0).shape
    (1000, 70)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    n_samples = _check_n(n_samples)
    rng = np.random.default_rng(random_state)
    if method == "concat":
        return concatenate_blocks(X, n_samples, random_state=rng)
    if method == "crop":
        return crop_blocks(X, n_samples, random_state=rng)
    half = n_samples // 2
    return np.vstack([concatenate_blocks(X, half, random_state=rng),
                      crop_blocks(X, n_samples - half, random_state=rng)])
