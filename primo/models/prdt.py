"""PrDT: a full CART tree pruned by minimal cost-complexity pruning.

The tree is grown with no size limit and then pruned with ``ccp_alpha`` (Breiman et al.'s
R_α(T) = R(T) + α·|leaves|), which is exactly what scikit-learn's trees do when given
``ccp_alpha``; PrDT therefore *is* a scikit-learn tree (so ``export_text``, ``plot_tree``,
skl2onnx and friends keep working) with Primo's complexity measure, printing and model files.

Example
-------
>>> from sklearn.datasets import load_iris
>>> from primo import PrDTClassifier
>>> X, y = load_iris(return_X_y=True)
>>> tree = PrDTClassifier(ccp_alpha=0.01).fit(X, y)
>>> tree.n_leaves_, tree.depth_, tree.complexity_
(5, 4, 20)
"""
from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import is_classifier
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.tree._tree import Tree
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from primo.errors import InputError, InputTypeError, InputWarning, rows_text
from primo.models._base import (PrimoModelMixin, _beyond_float32, _column_names, _is_sparse,
                                DENSE_ROWS, beyond_float32_text, check_prediction_input, check_training_input)
from primo.models.encoding import category_split, encode_table, fit_vocabularies, needs_encoding
from primo.models._pruning import PruningPath
from primo.validation import validate_tree_state


class _PrDTMixin(PrimoModelMixin):
    def _check_training_input(self, X, y, sample_weight=None):
        """``fit``'s checks of its input (a search runs them once, before any trial)."""
        X = check_training_input(self, X, y, sample_weight, classifier=is_classifier(self), multi_output=True,
                                 accept_sparse=True, text_in_arrays=False)
        if _is_sparse(X):
            _check_sparse_cells(X, _column_names(None, X.shape[1]))
        return X

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the full tree, prune it with ``ccp_alpha``; returns ``self``.

        Bad input (see :mod:`primo.errors`) raises before the model changes.
        """
        X = self._check_training_input(X, y, sample_weight)
        target = np.asarray(y)
        if isinstance(X, np.ndarray) and not X.flags.writeable:
            # scikit-learn's NaN scan of the tree fit needs a writable buffer (read-only float32 fails).
            X = X.copy()
        vocabularies = {}
        if needs_encoding(X):
            if is_classifier(self):
                # Several outputs: the categories are ordered for the first one (the others may need
                # more than one split to separate a subset).
                labels = target if target.ndim == 1 else target[:, 0]
                vocabularies = fit_vocabularies(X, labels, sample_weight=sample_weight, classes=np.unique(labels))
            else:
                vocabularies = fit_vocabularies(X, target, sample_weight=sample_weight)
            X = encode_table(X, vocabularies)
        _warn_float32_merges(X)
        super().fit(X, y, sample_weight=sample_weight, check_input=check_input)
        self.categories_ = vocabularies
        self.features_missing_in_fit_ = _features_with_missing(X)
        self.metadata_ = {}
        return self

    def encode_rows(self, X):
        """X as the fitted ``tree_`` reads it: text categories as codes (unseen ones NaN), booleans as 0/1.

        Numeric input is returned untouched (DataFrame columns are put in the model's order). Useful to
        encode validation rows once and then walk ``tree_`` directly (e.g. ``tree_.apply(np.asarray(model.encode_rows(X), dtype=np.float32))``).

        Example
        -------
        >>> tree = PrDTRegressor().fit(pd.DataFrame({"city": ["Lyon", "Paris"]}), [1.0, 2.0])
        >>> tree.encode_rows(pd.DataFrame({"city": ["Paris", "Oslo"]}))["city"].tolist()
        [1.0, nan]
        """
        return self._encode_checked(check_prediction_input(self, X))  # DataFrame columns in the model's order

    def _encode_checked(self, X):
        vocabularies = getattr(self, "categories_", {})
        if _is_sparse(X):  # the shared checks stop at a sparse matrix's shape
            if vocabularies:
                names = [self.feature_names_[j] for j in sorted(vocabularies)]
                raise InputTypeError(f"X is a sparse matrix, but {type(self).__name__} reads {names} as text "
                                     "categories: pass a DataFrame", argument="X", column=names[0])
            _check_sparse_cells(X, self.feature_names_)
            return X
        if not vocabularies and not needs_encoding(X):
            return X  # numeric input goes to scikit-learn untouched
        if not isinstance(X, pd.DataFrame):
            # Column by column: numbers in a categorical column are codes, text is looked up.
            X = pd.DataFrame(np.asarray(X), columns=self.feature_names_).infer_objects()
        encoded = encode_table(X, vocabularies)
        return encoded if hasattr(self, "feature_names_in_") else encoded.to_numpy()

    def _tree_rows(self, X, check_input: bool):
        """``(rows, check_input)`` for scikit-learn's tree: numeric rows Primo has checked go as float32
        without scikit-learn's second check of the same things (most of a 1-row call's time)."""
        if not check_input:
            return self.encode_rows(X), False
        checked = check_prediction_input(self, X, numeric_frames_as_arrays=not getattr(self, "categories_", {}))
        if isinstance(checked, np.ndarray) and checked.dtype.kind in "fiu":
            rows = np.ascontiguousarray(checked, dtype=np.float32)  # values beyond float32's range were refused
            # NaN where the tree cannot take it: scikit-learn's own error.
            if not np.isnan(rows).any() or self._support_missing_values(rows):
                return rows, False
            if checked is not X:  # the frame itself, whose names scikit-learn checks
                return self.encode_rows(X), True
        rows = self._encode_checked(checked)
        if isinstance(rows, pd.DataFrame) and not hasattr(self, "feature_names_in_"):
            # A tree fit without names reads a table by position: its values, or scikit-learn would repeat
            # check_prediction_input's warning about the table's names.
            rows = rows.to_numpy()
        return rows, True

    def predict(self, X, check_input=True):
        """Predicted class or value of each row (X as at fit: array, or DataFrame with text/category columns)."""
        return super().predict(*self._tree_rows(X, check_input))

    def apply(self, X, check_input=True):
        """Index of the leaf (node id in ``tree_``) each row reaches."""
        return super().apply(*self._tree_rows(X, check_input))

    def decision_path(self, X, check_input=True):
        """Sparse indicator of the nodes each row visits."""
        return super().decision_path(*self._tree_rows(X, check_input))

    def _features_read_as_numbers(self) -> list[int]:
        categorical = getattr(self, "categories_", {})
        return [j for j in range(self.n_features_in_) if j not in categorical]

    @property
    def n_leaves_(self) -> int:
        """Number of leaves of the pruned tree."""
        check_is_fitted(self)
        return int(self.tree_.n_leaves)

    @property
    def depth_(self) -> int:
        """Depth of the pruned tree (a single leaf has depth 0)."""
        check_is_fitted(self)
        return int(self.tree_.max_depth)

    @property
    def complexity_(self) -> int:
        """The paper's C(θ) for PrDT: number of leaves × depth."""
        return self.n_leaves_ * self.depth_

    @property
    def size_(self) -> int:
        """Readable size (what model selection minimizes): the number of leaves, i.e. rules to read."""
        return self.n_leaves_

    def _prune_tree(self):
        # scikit-learn's hook after growing the full tree; same subtree as its pruning, without its
        # quadratic weakest-link scan (see primo.models._pruning).
        check_is_fitted(self)
        if self.ccp_alpha > 0.0:
            self.tree_ = PruningPath(self.tree_).prune(self.ccp_alpha)

    def __str__(self) -> str:
        try:
            check_is_fitted(self)
        except Exception:
            return repr(self)
        header = (
            f"{type(self).__name__}: {self.n_leaves_} leaves, depth {self.depth_}, "
            f"complexity {self.complexity_} (ccp_alpha={self.ccp_alpha:g})"
        )
        return f"{header}\n{self.rules_text()}"

    def rules_text(self) -> str:
        """The tree as indented rules, one branch per line (what ``print(tree)`` shows below its header).

        Numeric splits read ``feature <= t`` / ``feature >  t``; categorical splits name the categories
        that reach each branch (``city in {Lyon, Nice}``, or ``city not in {...}`` when that is shorter);
        a split of missing from present values reads ``x is missing``; the branch that missing values
        (and unseen categories) take is marked ``(or missing)`` for categorical features and for
        features that had missing values at fit time.

        Example
        -------
        >>> print(PrDTRegressor().fit(pd.DataFrame({"city": ["Lyon", "Paris"]}), [1.0, 2.0]).rules_text())
        |--- city in {Lyon}
        |   |--- value: [1.0000]
        |--- city in {Paris} (or missing)
        |   |--- value: [2.0000]
        <BLANKLINE>
        """
        check_is_fitted(self)
        conditions = split_conditions(self)
        tree, lines = self.tree_, []
        # An explicit stack (not recursion): unpruned trees can be deeper than Python's recursion limit.
        stack: list[tuple[int, int, str | None]] = [(0, 0, None)]
        while stack:
            node, depth, condition = stack.pop()
            if condition is not None:
                lines.append(f"{'|   ' * (depth - 1)}|--- {condition}")
            if tree.children_left[node] == -1:
                lines.append(f"{'|   ' * depth}|--- {self._leaf_text(node)}")
                continue
            left_text, right_text = conditions[node]
            stack.append((int(tree.children_right[node]), depth + 1, right_text))
            stack.append((int(tree.children_left[node]), depth + 1, left_text))
        return "\n".join(lines) + "\n"

    def _leaf_text(self, node: int) -> str:
        value = self.tree_.value[node]  # (n_outputs, n_classes or 1)
        if not is_classifier(self):
            return f"value: [{', '.join(f'{v:.4f}' for v in value[:, 0])}]"
        if self.n_outputs_ == 1:
            return f"class: {self.classes_[int(np.argmax(value[0]))]}"
        labels = [classes[int(np.argmax(value[k, :len(classes)]))] for k, classes in enumerate(self.classes_)]
        return f"class: [{', '.join(str(label) for label in labels)}]"

    # -- model files: the scikit-learn Tree is rebuilt from its node arrays, no pickle.
    def _get_state(self) -> dict:
        state = {
            k: v
            for k, v in vars(self).items()
            if k.endswith("_") and not k.startswith("_") and k not in ("tree_", "metadata_")
        }
        # Lists, not arrays/sets, so the model file and the JSON export stay plain.
        state["categories_"] = {int(j): [str(c) for c in vocabulary] for j, vocabulary in self.categories_.items()}
        tree = self.tree_
        state["tree_"] = {
            "n_features": int(tree.n_features),
            "n_classes": np.asarray(tree.n_classes, dtype=np.intp),
            "n_outputs": int(tree.n_outputs),
            **tree.__getstate__(),
        }
        return state

    def _set_state(self, state: dict) -> None:
        # A state may come from a hostile file: scikit-learn's tree walk does not bounds-check nodes.
        validate_tree_state(state, classifier=is_classifier(self))
        state = dict(state)
        tree_state = dict(state.pop("tree_"))
        tree = Tree(
            tree_state.pop("n_features"),
            np.asarray(tree_state.pop("n_classes"), dtype=np.intp),
            tree_state.pop("n_outputs"),
        )
        tree.__setstate__(tree_state)
        # Files saved before categories existed hold numeric models only.
        state.setdefault("categories_", {})
        state.setdefault("features_missing_in_fit_", [])
        if is_classifier(self):
            state.setdefault("leaf_smoothing_", 0.0)  # files saved before smoothing hold raw frequencies
        for key, value in state.items():
            setattr(self, key, value)
        self.categories_ = {int(j): [str(c) for c in vocabulary] for j, vocabulary in self.categories_.items()}
        self.tree_ = tree


class PrDTClassifier(_PrDTMixin, DecisionTreeClassifier):
    """Pruned decision tree classifier (PrDT).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
    ccp_alpha : float, default=0.0
        Cost-complexity pruning strength; Primo's search tunes it (log scale).
    max_depth, min_samples_leaf, min_weight_fraction_leaf : optional extra limits on the grown tree
        (the paper grows it fully).
    class_weight : dict, "balanced" or None
        Class weights, e.g. ``{1: 4.0}`` to make slow I/Os costlier (LinnOS's biased training).
    monotonic_cst : array-like of {-1, 0, 1}, optional
        Per-feature monotonic constraint (binary classification only; see scikit-learn).
    leaf_smoothing : float, default=1.0
        Laplace smoothing of the class probabilities: every node's class frequencies get this many
        extra rows (of weight 1, the unit of ``sample_weight`` and ``class_weight``) of each class.
        The same amount for every class keeps each leaf's majority class, so ``predict`` is
        unchanged; it stops a pure leaf of a few rows from claiming certainty (one miss of a
        probability of 1 costs a log loss of 34.5). 0 gives scikit-learn's raw frequencies. With
        ``monotonic_cst`` a smoothed probability is kept within the bounds the constraint sets on its
        node (:func:`smooth_class_frequencies`), so the order the constraint fixed holds; a leaf near
        0.5 can then cross it (LinnOS reads, 8 constraints: at most 5 of 5,000 decisions changed).
    random_state : int, optional

    Attributes
    ----------
    tree_, classes_, n_features_in_, feature_names_in_ : as in scikit-learn.
    n_leaves_, depth_, complexity_ : size of the pruned tree; complexity = leaves × depth.
    leaf_smoothing_ : float, the smoothing applied to ``tree_`` (0 when none).
    metadata_ : dict, search/distillation history and edit log saved with the model.
    """

    _parameter_constraints = {
        **DecisionTreeClassifier._parameter_constraints,
        "leaf_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        criterion="gini",
        ccp_alpha=0.0,
        max_depth=None,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        class_weight=None,
        monotonic_cst=None,
        leaf_smoothing=1.0,
        random_state=None,
    ):
        super().__init__(
            criterion=criterion,
            ccp_alpha=ccp_alpha,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            class_weight=class_weight,
            monotonic_cst=monotonic_cst,
            random_state=random_state,
        )
        self.leaf_smoothing = leaf_smoothing

    def _prune_tree(self):
        # Smoothing every node before pruning gives every subtree of the pruning path smoothed leaves.
        self.leaf_smoothing_ = float(self.leaf_smoothing)
        if self.leaf_smoothing_ > 0:
            smooth_class_frequencies(self.tree_, self.leaf_smoothing_, self.monotonic_cst)
        super()._prune_tree()

    def predict_proba(self, X, check_input=True):
        """Class probabilities of each row, in the order of ``classes_``."""
        return super().predict_proba(*self._tree_rows(X, check_input))


class PrDTRegressor(_PrDTMixin, DecisionTreeRegressor):
    """Pruned decision tree regressor (PrDT).

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "absolute_error", "poisson"}, default="squared_error"
    ccp_alpha : float, default=0.0
        Cost-complexity pruning strength (in units of the criterion, e.g. squared target units).
    max_depth, min_samples_leaf, monotonic_cst, random_state : as for :class:`PrDTClassifier`.
    """

    def __init__(
        self,
        *,
        criterion="squared_error",
        ccp_alpha=0.0,
        max_depth=None,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        monotonic_cst=None,
        random_state=None,
    ):
        super().__init__(
            criterion=criterion,
            ccp_alpha=ccp_alpha,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            monotonic_cst=monotonic_cst,
            random_state=random_state,
        )

    def _compute_partial_dependence_recursion(self, grid, target_features):
        # scikit-learn's partial dependence ("recursion", its default for regression trees) walks tree_ with
        # the grid's own values: a categorical feature's grid holds text, its splits the category codes.
        vocabularies = {i: self.categories_[j] for i, j in enumerate(np.asarray(target_features).tolist())
                        if j in self.categories_}
        if vocabularies:
            grid = encode_table(pd.DataFrame(np.asarray(grid, dtype=object)), vocabularies).to_numpy()
        return super()._compute_partial_dependence_recursion(grid, target_features)


def smooth_class_frequencies(tree: Tree, pseudo_rows: float, monotonic_cst=None) -> None:
    """Laplace-smooth the class fractions of every node of a classification ``tree`` in place.

    Each class gets ``pseudo_rows`` extra rows of weight 1: weights count rows, as in scikit-learn (a
    row of weight 2 is two rows). Example: a pure leaf of 3 rows of 2 classes goes
    from (1, 0) to (4/5, 1/5) with ``pseudo_rows=1``.

    With ``monotonic_cst`` (a binary tree grown with it) smoothing shrinks small leaves more than large
    ones and could reverse the order the constraint fixed, so the positive class's probability is
    clipped, root to leaves, into bounds set as scikit-learn sets them while growing: at a split on a
    constrained feature, the midpoint of the two children's (smoothed, clipped) values caps one side
    and floors the other. Every leaf left of an increasing split stays at or below every leaf right of
    it; a leaf moves from its Laplace value only where that order needs it.
    """
    weights = tree.weighted_n_node_samples[:, None]
    value = tree.value  # a view: writes reach the tree; (n_nodes, n_outputs, max classes) of fractions
    for output, n_classes in enumerate(np.asarray(tree.n_classes).tolist()):
        counts = value[:, output, :n_classes] * weights
        value[:, output, :n_classes] = (counts + pseudo_rows) / (weights + n_classes * pseudo_rows)
    if monotonic_cst is None or not np.any(monotonic_cst):
        return
    positive = value[:, 0, 1].copy()
    low, high = np.full(len(positive), -np.inf), np.full(len(positive), np.inf)
    stack = [0]
    while stack:  # parents before children
        node = stack.pop()
        positive[node] = np.clip(positive[node], low[node], high[node])
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            continue
        low[[left, right]], high[[left, right]] = low[node], high[node]
        direction = monotonic_cst[tree.feature[node]]
        if direction:
            middle = np.clip(positive[[left, right]], low[node], high[node]).mean()
            below, above = (left, right) if direction > 0 else (right, left)
            high[below], low[above] = middle, middle
        stack += [left, right]
    value[:, 0, 1], value[:, 0, 0] = positive, 1.0 - positive


def _in_set(name: str, own: list[str], other: list[str]) -> str:
    """``name in {own}``, or ``name not in {other}`` when that lists fewer categories."""
    if len(other) < len(own):
        return f"{name} not in {{{', '.join(other)}}}"
    return f"{name} in {{{', '.join(own)}}}"


#: A PrDT fit warns when float32, the precision of scikit-learn's trees, merges more than this share of
#: a numeric column's distinct values and the column's whole range spans fewer than FLOAT32_FEW_STEPS
#: float32 steps (epoch seconds of a day: 675 steps of 128 s; values of 1e-300: none). A wide range whose
#: nearest values merge (LinnOS' gap_ms: 8,414 distinct values, 4,663 in float32, over millions of
#: steps) loses only distinctions below float32's seven digits, and is not warned about. Checked on at
#: most FLOAT32_CHECK_ROWS evenly spaced rows.
FLOAT32_MERGE_WARNING = 0.1
FLOAT32_FEW_STEPS = 2**16
FLOAT32_CHECK_ROWS = 20_000


def _warn_float32_merges(X) -> None:
    """Warn, naming them, about columns whose distinct values float32 cannot tell apart (the tree then
    cannot split between them, silently); nothing for sparse input."""
    if not isinstance(X, pd.DataFrame) and not (isinstance(X, np.ndarray) and X.dtype.kind in "fiu"):
        return
    step = max(1, len(X) // FLOAT32_CHECK_ROWS)  # the sample is taken before anything is converted
    if isinstance(X, pd.DataFrame):
        numeric = X.iloc[::step].select_dtypes("number")
        values, names = numeric.to_numpy(dtype=np.float64, na_value=np.nan), [str(c) for c in numeric.columns]
    else:
        values, names = np.asarray(X[::step], dtype=np.float64), _column_names(None, X.shape[1])
    merged = []
    for name, column in zip(names, values.T):
        column = column[~np.isnan(column)]
        if column.size == 0:
            continue
        distinct = np.unique(column).size
        kept = np.unique(column.astype(np.float32)).size
        low, high = column.min(), column.max()
        steps = (high - low) / float(np.spacing(np.float32(max(abs(low), abs(high)))))
        if (distinct - kept) > FLOAT32_MERGE_WARNING * distinct and steps < FLOAT32_FEW_STEPS:
            merged.append(f"{name!r} ({distinct:,} distinct values, {kept:,} in float32)")
    if merged:
        warnings.warn(f"a PrDT reads X in float32, which cannot tell apart many values of {', '.join(merged)}: the "
                      "tree cannot split between them; subtract an offset (e.g. the first timestamp) or rescale",
                      InputWarning, stacklevel=3)


def _check_sparse_cells(X, names: list[str]) -> None:
    """NaN or values beyond float32 stored in a sparse ``X``, named by column and rows: scikit-learn's trees
    read NaN as missing in dense X only (their own error says the model takes no NaN at all)."""
    if X.dtype.kind != "f":
        return
    cells = X.tocoo()
    bad = np.isnan(cells.data) | _beyond_float32(cells.data)
    if not bad.any():
        return
    j = int(cells.col[bad].min())
    column = np.zeros(X.shape[0])
    column[cells.row[cells.col == j]] = cells.data[cells.col == j]
    if np.isnan(column).any():
        raise InputError(f"column {names[j]!r} of sparse X holds NaN at rows {rows_text(np.isnan(column))}; "
                         f"scikit-learn's trees read NaN as missing in dense X only: {DENSE_ROWS}, or fill them in",
                         argument="X", column=names[j])
    raise InputError(f"column {names[j]!r} of sparse X holds {beyond_float32_text(column)} at rows "
                     f"{rows_text(_beyond_float32(column))}; a PrDT cannot read them (scikit-learn's trees work in "
                     "float32): clip or rescale the column to finite float32 numbers", argument="X", column=names[j])


def _features_with_missing(X) -> list[int]:
    """Columns of the (numeric) training rows holding NaN; nothing for sparse input."""
    if isinstance(X, pd.DataFrame):
        return [int(j) for j in np.flatnonzero(X.isna().to_numpy().any(axis=0))]
    if isinstance(X, np.ndarray) and X.dtype.kind == "f":
        return [int(j) for j in np.flatnonzero(np.isnan(X).any(axis=0))]
    return []


def split_conditions(model, number_format: str = "{:.4f}") -> list[tuple[str, str] | None]:
    """The readable condition of the left and right branch of every node (None at leaves).

    Works for a PrDT and for any fitted scikit-learn tree (numeric splits only). See
    :meth:`PrDTRegressor.rules_text` for the wording; ``number_format`` formats thresholds.

    Example
    -------
    >>> tree = PrDTRegressor().fit(pd.DataFrame({"x": [1.0, 2.0, np.nan]}), [1.0, 1.0, 3.0])
    >>> split_conditions(tree, "{:g}")[0]
    ('x is not missing', 'x is missing')
    """
    tree = model.tree_
    names = getattr(model, "feature_names_", None)  # a plain scikit-learn tree has only feature_names_in_
    if names is None:
        known = getattr(model, "feature_names_in_", None)
        names = [str(n) for n in known] if known is not None else [f"x{i}" for i in range(tree.n_features)]
    vocabularies = getattr(model, "categories_", {})
    annotated = set(vocabularies) | set(getattr(model, "features_missing_in_fit_", ()))
    conditions: list[tuple[str, str] | None] = [None] * tree.node_count
    # Walk from the root carrying, per categorical feature, the code range [lo, hi) that reaches the
    # node, so each branch lists only the categories that can get there.
    stack: list[tuple[int, dict]] = [(0, {})]
    while stack:
        node, reachable = stack.pop()
        if tree.children_left[node] == -1:
            continue
        feature, threshold = int(tree.feature[node]), float(tree.threshold[node])
        name, vocabulary = names[feature], vocabularies.get(feature)
        missing_left = bool(tree.missing_go_to_left[node])
        left_reach = right_reach = reachable
        if vocabulary is None and np.isinf(threshold):
            # scikit-learn's split of present values (all <= inf) from missing ones.
            present, missing = f"{name} is not missing", f"{name} is missing"
            conditions[node] = (missing, present) if missing_left else (present, missing)
        else:
            if vocabulary is None:
                number = number_format.format(threshold)
                left, right = f"{name} <= {number}", f"{name} >  {number}"
            else:
                lo, hi = reachable.get(feature, (0, len(vocabulary)))
                below, _ = category_split(vocabulary, threshold)
                cut = min(max(len(below), lo), hi)
                left_set, right_set = vocabulary[lo:cut], vocabulary[cut:hi]
                left, right = _in_set(name, left_set, right_set), _in_set(name, right_set, left_set)
                left_reach, right_reach = {**reachable, feature: (lo, cut)}, {**reachable, feature: (cut, hi)}
            if feature in annotated:
                left, right = (f"{left} (or missing)", right) if missing_left else (left, f"{right} (or missing)")
            conditions[node] = (left, right)
        stack.append((int(tree.children_left[node]), left_reach))
        stack.append((int(tree.children_right[node]), right_reach))
    return conditions
