"""ONNX export: PrDT as an ONNX-ML tree ensemble, PrAM as standard operators without a branch.

A PrAM is binned the way interpret bins it, but each feature **once**, over the union of its main-term
and pair edges (:func:`~primo.export.tables.share_binnings`), and for all features at once: the input
is transposed to ``[features, rows]`` so that every per-feature constant broadcasts over a contiguous
run of rows. A row's value picks a cell of a uniform grid over the feature's edges, the cell says where
among the sorted edges to start, and a few fixed halving steps (``GatherElements``, ``GreaterOrEqual``)
settle the bin (:class:`_Grid`, :func:`_search_features`): no data-dependent branch, so rows in random
order cost what rows in file order do (onnxruntime's tree op, used before 2026-12-01, walked one search
tree per feature: 3–3.8× slower in random order on the benchmark's PrAMs). Each term's index into one
concatenated score table is then a sum of small lookups (level bin × stride), a main term first riding
in a pair table of its feature where that stays small (:func:`~primo.export.tables.fold_main_terms`),
and one ``GatherElements`` per score and a ``ReduceSum`` over terms add the scores; the intercept comes
last. Indices are int32. Missing values start on a missing slot that no step leaves (bin 0);
categorical features end with an equality test, so unseen values reach the unseen bin.

A PrDT is its own tree, an ONNX-ML ``TreeEnsemble`` (opset 5) on the float64 input: each float64
threshold ``t`` becomes ``float32_threshold(t)``, the float64 test equal to scikit-learn's
``float32(x) <= t`` (so the input needs no rounding), and each node's missing-value direction is
kept (skl2onnx ignores it). A regressor's leaves hold its float64 values; a classifier's hold the
leaf number, which picks float64 probabilities and the label (skl2onnx returns float32 outputs).

Files use the oldest format and opsets their operators allow (:data:`OPSET`, IR version from the opsets),
so older runtimes load them: a PrAM needs onnxruntime 1.15, a PrDT 1.21, or 1.15 with ``ml_opset=3``
(:data:`MIN_ONNXRUNTIME`, also in each file's ``primo.min_onnxruntime`` metadata property).

Graph input ``X``: float64 ``[N, n_features]`` (see :mod:`primo.export.tables` for missing values and
categories). Text categories are passed as codes; the model's metadata property
``primo.vocabularies`` holds ``{feature name: [category of code 0, 1, ...]}`` as JSON and
``primo.unseen_category`` says what an unseen category is passed as (PrDT ``NaN``: missing; PrAM ``-1``). Outputs: ``label`` ``[N]`` and ``probabilities`` ``[N, n_classes]`` for classifiers (PrAM
classifiers also ``scores``, the raw additive scores), ``prediction`` ``[N]`` for regressors.

Example
-------
>>> import onnxruntime as ort  # doctest: +SKIP
>>> session = ort.InferenceSession(to_onnx(model).SerializeToString())  # doctest: +SKIP
>>> label, proba = session.run(["label", "probabilities"], {"X": X.astype("float64")})  # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from primo.errors import InputError
from primo.export.codegen import float32_threshold, json_literal
from primo.export.tables import (AdditiveTables, Binning, SharedBinning, TreeTables, fold_main_terms, model_tables,
                                 share_binnings)

#: The lowest default-domain opset with every operator as used here (``Shape`` with ``start``/``end``: 15),
#: so that the runtimes systems embed, often older than ours, load the file.
OPSET = 15
# PrDT: TreeEnsemble (opset 5), whose float64 leaf weights are the model's outputs themselves.
# A PrDT also as ``to_onnx(tree, ml_opset=3)``: a TreeEnsembleRegressor giving the leaf number, which
# picks the float64 value (older runtimes; one lookup more a row). A PrAM uses default-domain operators only.
ML_OPSETS = {"additive": (None,), "tree": (5, 3)}
#: The oldest onnxruntime that loads each export and gives the same outputs, found by running exports in
#: its releases (2026-11-30; the PrAM graph again on 2026-12-01), by (family, ai.onnx.ml opset): a PrAM
#: (IR version 8) and a PrDT's opset-3 graph run in 1.15, the oldest release for this Python; a PrDT's
#: ``TreeEnsemble`` (opset 5) arrived in 1.21. Each file says its own in the ``primo.min_onnxruntime``
#: metadata property.
MIN_ONNXRUNTIME = {("additive", None): "1.15", ("tree", 5): "1.21", ("tree", 3): "1.15"}
#: A PrDT's leaf numbers travel as float32 with ``ml_opset=3`` (the operator's output), exact up to 2^24.
MAX_SCORE_ENTRIES = 2 ** 24
#: A PrAM graph's indices are int32.
MAX_INDEX = 2 ** 31 - 1
#: A PrAM feature's search grid has at most this many cells a key (rounded up to a power of two), and
#: :data:`MAX_GRID_CELLS` in all: with the benchmark's PrAMs every feature then settles its bin in at
#: most 3 steps (Clara-MS's request counts: 272 cuts, 8,192 cells; 4 steps with 4,096 cells, 11% slower).
GRID_CELLS_PER_KEY = 16
MAX_GRID_CELLS = 2 ** 16


def to_onnx(model, *, name: str = "primo_model", ml_opset: int | None = None) -> onnx.ModelProto:
    """ONNX model of a fitted PrDT or PrAM (or its tables), checked with ``onnx.checker``.

    ``ml_opset``: a PrDT's ai.onnx.ml opset, which decides the oldest onnxruntime that runs the file
    (:data:`MIN_ONNXRUNTIME`): the default 5 needs 1.21, 3 runs in 1.15 at one lookup more a row. A PrAM's
    graph has no ai.onnx.ml operator (it runs in 1.15), so it takes none.

    Example
    -------
    >>> onnx.save(to_onnx(model), "model.onnx")  # doctest: +SKIP
    """
    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    family = "tree" if isinstance(tables, TreeTables) else "additive"
    if family == "additive" and ml_opset is not None:
        raise InputError(f"a PrAM's ONNX graph uses no ai.onnx.ml operator, so it takes no ml_opset (got {ml_opset!r}); "
                         "ml_opset chooses a PrDT's tree operator", argument="ml_opset")
    ml_opset = ML_OPSETS[family][0] if ml_opset is None else ml_opset
    if ml_opset not in ML_OPSETS[family]:
        raise InputError(f"a PrDT exports to ONNX with ai.onnx.ml opset {' or '.join(map(str, ML_OPSETS[family]))}, "
                         f"not {ml_opset!r}", argument="ml_opset")
    graph = _Graph(tables.n_features)
    if family == "tree":
        _tree_graph(tables, graph, ml_opset)
    else:
        _additive_graph(tables, graph)
    opsets = [helper.make_opsetid("", OPSET)] + ([] if ml_opset is None else [helper.make_opsetid("ai.onnx.ml", ml_opset)])
    onnx_model = helper.make_model(
        helper.make_graph(graph.nodes, name, [graph.input], graph.outputs, graph.initializers),
        ir_version=helper.find_min_ir_version_for(opsets),  # the oldest file format these opsets allow
        opset_imports=opsets,
        producer_name="primo",
        doc_string=f"{type(model).__name__} exported by primo.export.to_onnx",
    )
    properties = {"primo.min_onnxruntime": MIN_ONNXRUNTIME[family, ml_opset]}
    if tables.vocabularies:
        properties.update({
            "primo.vocabularies": json_literal({tables.feature_names[j]: v for j, v in tables.vocabularies.items()}),
            "primo.unseen_category": "NaN" if isinstance(tables, TreeTables) else "-1",
        })
    helper.set_model_props(onnx_model, properties)
    onnx.checker.check_model(onnx_model)
    return onnx_model


class _Graph:
    """Nodes, constants and outputs of the graph under construction."""

    def __init__(self, n_features: int):
        self.n_features = n_features
        self.input = helper.make_tensor_value_info("X", TensorProto.DOUBLE, [None, n_features])
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []

    def constant(self, name: str, array: np.ndarray) -> str:
        """An initializer; asking again for a name gives the first one (callers reuse e.g. ``axis1``)."""
        if name not in {i.name for i in self.initializers}:
            self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str, **attributes) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [output], **attributes))
        return output

    def flatten(self, column: str, output: str) -> str:
        """``column`` ``[N, 1]`` as ``[N]``: a Reshape, which onnxruntime runs without a copy (a Squeeze
        there measured 5-6 ns/row slower on 10k-row batches)."""
        return self.op("Reshape", [column, self.constant("flat", np.array([-1]))], output)

    def column_lookups(self, table: np.ndarray, index: str, name: str) -> list[str]:
        """``table[index, k]`` for every column ``k`` of a 2-D ``table``, each shaped like ``index``.

        One ``GatherElements`` per column, not one ``Gather`` of rows: onnxruntime's ``Gather`` copies
        each row as its own block (~8 ns per element, measured), ``GatherElements`` ~1 ns; building
        flat indices ``index · K + k`` instead needs a broadcast ``Add`` that costs more than the lookups.
        """
        return [self.op("GatherElements", [self.constant(f"{name}_{k}", np.ascontiguousarray(table[:, k])), index],
                        f"{name}_column_{k}", axis=0) for k in range(table.shape[1])]

    def output(self, name: str, elem_type: int, shape: list) -> None:
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))

    def classify(self, class_index: str, tables, labels: np.ndarray | None = None) -> None:
        """``label`` output: ``labels`` (default: the classes) gathered by ``class_index``."""
        classes = np.asarray(tables.classes if labels is None else labels)
        if classes.dtype.kind in "US" or classes.dtype.hasobject:
            classes, elem_type = np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING
        elif classes.dtype.kind == "b":
            elem_type = TensorProto.BOOL
        elif classes.dtype.kind in "iu":
            classes, elem_type = classes.astype(np.int64), TensorProto.INT64
        else:
            classes, elem_type = classes.astype(np.float64), TensorProto.DOUBLE
        self.op("GatherElements", [self.constant("classes", classes), class_index], "label", axis=0)
        self.output("label", elem_type, [None])


def _tree_graph(t: TreeTables, graph: _Graph, ml_opset: int) -> None:
    """The tree as a ``TreeEnsemble`` (ai.onnx.ml opset 5, float64 leaf weights): a regressor's leaves
    hold its values, so nothing follows the tree; a classifier's hold the leaf number, which picks the
    float64 probabilities and the label (one tree copy per class measured 2× slower than these two
    lookups). With opset 3, a ``TreeEnsembleRegressor`` (float32 output) gives every leaf number, so a
    regressor's value is looked up too.

    Thresholds are ``float32_threshold(t)``: the float64 test equal to scikit-learn's
    ``float32(x) <= t``, so the float64 input needs no rounding.
    """
    n_leaves = len(t.leaf_values)
    if ml_opset == 3:
        if n_leaves > MAX_SCORE_ENTRIES:
            raise ValueError(f"the PrDT has {n_leaves} leaves; ONNX export with ml_opset=3 numbers up to "
                             f"{MAX_SCORE_ENTRIES} exactly in float32")
        graph.nodes.append(_tree_regressor_node(t))
    else:
        graph.nodes.append(_tree_ensemble_node(t))
    leaf_numbers = t.is_classifier or ml_opset == 3
    output = graph.flatten("tree_output", "leaf_double" if leaf_numbers else "prediction")
    if leaf_numbers:
        leaf = graph.op("Cast", [output], "leaf", to=TensorProto.INT64)
    if not t.is_classifier:
        if leaf_numbers:
            graph.op("GatherElements", [graph.constant("leaf_value", t.leaf_values[:, 0].copy()), leaf], "prediction",
                     axis=0)
        graph.output("prediction", TensorProto.DOUBLE, [None])
        return
    n_classes = len(t.classes)
    column = graph.constant("column", np.array([-1, 1]))
    columns = [graph.op("Reshape", [proba, column], f"{proba}_2d")
               for proba in graph.column_lookups(t.leaf_values, leaf, "leaf_proba")]
    graph.op("Concat", columns, "probabilities", axis=1)
    graph.output("probabilities", TensorProto.DOUBLE, [None, n_classes])
    graph.classify(leaf, t, labels=np.asarray(t.classes)[t.leaf_labels])  # each leaf's label


def _tree_ensemble_node(t: TreeTables) -> onnx.NodeProto:
    """One ``TreeEnsemble`` (opset 5) of the tree, output ``tree_output``: a regressor's leaves weigh
    their values, a classifier's their leaf numbers."""
    internal = np.flatnonzero(t.left != -1)
    n_leaves = len(t.leaf_values)
    position = np.empty(len(t.left), dtype=np.int64)
    position[internal] = np.arange(len(internal))
    position[t.left == -1] = np.arange(n_leaves)  # leaf numbers count leaves in node order, as here
    if len(internal) == 0:  # a single leaf: one node whose branches both reach it
        features, splits, missing, true_ids, false_ids, true_leaf, false_leaf = [0], [0.0], [0], [0], [0], [1], [1]
    else:
        features, missing = t.feature[internal].tolist(), t.missing_left[internal].astype(int).tolist()
        splits = [float32_threshold(v) for v in t.threshold[internal]]
        true_ids, false_ids = position[t.left[internal]].tolist(), position[t.right[internal]].tolist()
        true_leaf = (t.left[t.left[internal]] == -1).astype(int).tolist()
        false_leaf = (t.left[t.right[internal]] == -1).astype(int).tolist()
    weights = np.arange(n_leaves, dtype=np.float64) if t.is_classifier else t.leaf_values[:, 0]
    return helper.make_node(
        "TreeEnsemble", ["X"], ["tree_output"], domain="ai.onnx.ml",
        aggregate_function=1, post_transform=0, n_targets=1, tree_roots=[0],  # SUM, NONE
        nodes_featureids=features, nodes_splits=numpy_helper.from_array(np.asarray(splits, dtype=np.float64)),
        nodes_modes=numpy_helper.from_array(np.zeros(len(splits), dtype=np.uint8)),  # BRANCH_LEQ
        nodes_truenodeids=true_ids, nodes_trueleafs=true_leaf, nodes_falsenodeids=false_ids, nodes_falseleafs=false_leaf,
        nodes_missing_value_tracks_true=missing,
        leaf_targetids=[0] * n_leaves, leaf_weights=numpy_helper.from_array(weights),
    )


def _tree_regressor_node(t: TreeTables) -> onnx.NodeProto:
    """The tree as one ``TreeEnsembleRegressor`` (ai.onnx.ml opset 3, float64 splits; output float32
    ``tree_output``) whose leaves weigh their leaf number, as :func:`_tree_ensemble_node` numbers them. The
    operator takes the tree's own node numbering (root 0, each id once)."""
    is_leaf = t.left == -1
    internal = ~is_leaf
    leaves = np.flatnonzero(is_leaf)
    splits = [float32_threshold(v) if inner else 0.0 for v, inner in zip(t.threshold, internal)]
    return helper.make_node(
        "TreeEnsembleRegressor", ["X"], ["tree_output"], domain="ai.onnx.ml",
        aggregate_function="SUM", post_transform="NONE", n_targets=1,
        nodes_treeids=[0] * len(t.left), nodes_nodeids=list(range(len(t.left))),
        nodes_featureids=np.where(internal, t.feature, 0).tolist(),
        nodes_modes=["LEAF" if leaf else "BRANCH_LEQ" for leaf in is_leaf],
        nodes_truenodeids=np.where(internal, t.left, 0).tolist(),
        nodes_falsenodeids=np.where(internal, t.right, 0).tolist(),
        nodes_missing_value_tracks_true=(internal & t.missing_left).astype(int).tolist(),
        nodes_values_as_tensor=numpy_helper.from_array(np.asarray(splits, dtype=np.float64)),
        target_treeids=[0] * len(leaves), target_nodeids=leaves.tolist(), target_ids=[0] * len(leaves),
        target_weights=t.leaf_index[leaves].astype(np.float32).tolist(),
    )


def _additive_graph(t: AdditiveTables, graph: _Graph) -> None:
    scores = _term_scores(t, graph)
    if not t.is_classifier:
        graph.flatten(scores, "prediction")
        graph.output("prediction", TensorProto.DOUBLE, [None])
        return
    graph.output("scores", TensorProto.DOUBLE, [None, t.n_scores])
    if t.link == "logit":
        positive = graph.op("Sigmoid", [scores], "positive")
        negative = graph.op("Sub", [graph.constant("one", np.array([[1.0]])), positive], "negative")
        graph.op("Concat", [negative, positive], "probabilities", axis=1)
        log_odds = graph.flatten(scores, "log_odds")
        is_positive = graph.op("Greater", [log_odds,
                                           graph.constant("zero", np.array(0.0))], "is_positive")
        index = graph.op("Cast", [is_positive], "class_index", to=TensorProto.INT64)
    else:
        graph.op("Softmax", [scores], "probabilities", axis=1)
        index = graph.op("ArgMax", [scores], "class_index", axis=1, keepdims=0)
    graph.output("probabilities", TensorProto.DOUBLE, [None, len(t.classes)])
    graph.classify(index, t)


def _term_scores(t: AdditiveTables, graph: _Graph) -> str:
    """``scores`` ``[N, n_scores]``: intercept + every term's score, each feature binned once.

    Branch-free, features along axis 0 (``[F, N]``, so that each feature's constants broadcast over a
    contiguous run of rows): :func:`_search_features` gives each row's shared bin of every feature,
    then each term's flat table index is the sum of one small lookup per axis (level bin × stride, plus
    the term's offset), and one ``GatherElements`` per score fetches every term's score for a
    ``ReduceSum`` over terms.
    """
    intercept = graph.constant("intercept", t.intercept[np.newaxis, :])
    if not t.terms:  # the intercept alone, one row per input row
        n_rows = graph.op("Shape", ["X"], "n_rows", start=0, end=1)
        shape = graph.op("Concat", [n_rows, graph.constant("n_scores", np.array([t.n_scores]))], "scores_shape", axis=0)
        return graph.op("Expand", [intercept, shape], "scores")
    # Fewer terms, fewer lookups: main terms ride in pair tables (same sums).
    binnings, terms = fold_main_terms(t.binnings, t.terms)
    tables = [term.scores.reshape(-1, t.n_scores) for term in terms]
    offsets = np.cumsum([0] + [len(table) for table in tables])
    if offsets[-1] > MAX_INDEX:
        raise ValueError(f"the PrAM has {offsets[-1]} score entries; ONNX export supports up to {MAX_INDEX}")
    shared = share_binnings(binnings, terms)
    bins = _search_features(shared, graph)
    # Each term reads two axes (a main term's second one adds 0): per axis, a [T, N] gather of the
    # features' bins, then one lookup in the concatenated maps (graph bin -> level bin · stride).
    position = {b: i for i, one in enumerate(shared) for b in one.level_bins}
    maps, readers = [], ([], [])
    start = 0
    for offset, term in zip(offsets, terms):
        strides = term.strides(binnings)
        for axis in (0, 1):
            if axis < len(strides):
                b, stride = strides[axis]
                level = shared[position[b]].level_bins[b][_graph_bins(shared[position[b]].binning)]
                maps.append(level * stride + (offset if axis == 0 else 0))
            else:
                b = strides[0][0]
                maps.append(np.zeros(len(_graph_bins(shared[position[b]].binning)), dtype=np.int64))
            readers[axis].append((position[b], start))
            start += len(maps[-1])
    term_maps = graph.constant("term_maps", np.concatenate(maps).astype(np.int32))
    index = None
    for axis, reader in enumerate(readers):
        feature_bins = graph.op("Gather", [bins, graph.constant(f"axis{axis}_features", np.array([f for f, _ in reader]))],
                                f"axis{axis}_bins", axis=0)
        entry = graph.op("Add", [feature_bins, graph.constant(f"axis{axis}_maps", _column([m for _, m in reader], np.int32))],
                         f"axis{axis}_entry")
        if axis == 0:
            terms_by_rows = graph.op("Shape", [entry], "terms_by_rows")
        part = graph.op("GatherElements", [term_maps, graph.flatten(entry, f"axis{axis}_flat_entry")], f"axis{axis}_index",
                        axis=0)
        index = part if index is None else graph.op("Add", [index, part], "term_index")
    sums = [graph.op("ReduceSum", [graph.op("Reshape", [scores, terms_by_rows], f"{scores}_by_row", allowzero=1),
                                   graph.constant("axis0", np.array([0]))], f"{scores}_sum", keepdims=1)
            for scores in graph.column_lookups(np.concatenate(tables), index, "term_tables")]
    total = sums[0] if len(sums) == 1 else graph.op("Concat", sums, "term_sum", axis=0)
    return graph.op("Add", [graph.op("Transpose", [total], "term_sum_by_row", perm=[1, 0]), intercept], "scores")


@dataclass(frozen=True)
class _Grid:
    """Where a branch-free search of one feature's sorted ``keys`` (cuts or categories) starts.

    A value ``x`` falls in cell ``clip(floor((x - lo) · scale), 0, n_cells - 1)``, which never
    decreases with ``x``, so every key of a lower cell is below ``x`` and every key of a higher cell
    above it. The search starts after the ``first[c]`` keys of cells below ``c - 1`` and settles the
    keys of cells ``c - 1 .. c + 1`` (at most ``2^steps - 1``) by halving: one cell of slack, so a
    runtime that computes the cell an ulp apart (e.g. a fused multiply-add) still finds the same bin.
    """

    keys: np.ndarray
    lo: float
    scale: float
    first: np.ndarray
    steps: int

    @staticmethod
    def cells(values: np.ndarray, lo: float, scale: float, n_cells: int) -> np.ndarray:
        """The graph's cell arithmetic (``Sub``, ``Mul``, ``Floor``, ``Max``, ``Min``) in NumPy."""
        with np.errstate(over="ignore"):  # x - lo may round to ±inf: the first or last cell, as in the graph
            return np.minimum(np.maximum(np.floor((values - lo) * scale), 0), n_cells - 1).astype(np.int64)

    @classmethod
    def fit(cls, keys: np.ndarray, n_cells: int) -> _Grid:
        finite = keys[np.isfinite(keys)]
        lo, hi = (float(finite[0]), float(finite[-1])) if len(finite) else (0.0, 0.0)
        span = (hi / 2 - lo / 2) * 2  # halves first: hi - lo may overflow
        scale = n_cells / span if span > 0 else 1.0
        if not 0 < scale < np.inf:  # a positive finite scale keeps the cells monotone (x - lo never NaN · 0)
            scale = 1.0
        counts = np.bincount(cls.cells(keys, lo, scale, n_cells), minlength=n_cells)
        window = np.convolve(counts, np.ones(3, dtype=np.int64))[1:-1]  # keys in cells c - 1 .. c + 1
        first = np.r_[0, 0, np.cumsum(counts)][:n_cells]
        return cls(keys, lo, scale, first, int(window.max()).bit_length())


def _plan_grids(shared: list[SharedBinning]) -> list[_Grid]:
    """One :class:`_Grid` per feature, all searched in the same number of steps: the fewest that every
    feature reaches with up to :data:`GRID_CELLS_PER_KEY` cells a key (rounded up to a power of two; each
    feature then in the fewest cells that do)."""
    keys = [np.asarray(one.binning.categories if one.binning.is_categorical else one.binning.cuts, dtype=np.float64)
            for one in shared]
    # Each feature's grids from 1 cell up, doubling, fitted once.
    fits = [[_Grid.fit(k, 2 ** e) for e in range(min(MAX_GRID_CELLS.bit_length(),
                                                     (GRID_CELLS_PER_KEY * max(1, len(k)) - 1).bit_length() + 1))]
            for k in keys]
    steps = max(min(grid.steps for grid in grids) for grids in fits)
    return [next(grid for grid in grids if grid.steps <= steps) for grids in fits]


def _graph_bins(binning: Binning) -> np.ndarray:
    """The shared bin of each bin number :func:`_search_features` gives: 0 missing, ``1 + #{keys <= x}``;
    a categorical feature's unmatched values get number ``len(categories) + 2``, its unseen bin."""
    if not binning.is_categorical:
        return np.arange(binning.n_bins - 1)  # a continuous search never gives the unseen bin
    unseen = binning.n_bins - 1
    return np.r_[0, unseen, np.arange(1, unseen), unseen]


def _search_features(shared: list[SharedBinning], graph: _Graph) -> str:
    """``bins`` ``[F, N]`` int32: each row's bin number (:func:`_graph_bins`) for every feature of ``shared``.

    Per feature, the keys are laid out as ``[NaN, keys, NaN × 2^steps]`` in one array. A row's cell
    picks its start (a missing value starts on the leading NaN), then each step compares ``x`` with the
    key ``half - 1`` ahead and moves by ``half`` if ``x >= key`` (NaN keys end the run: the comparison
    is false); so the position ends ``#{keys <= x}`` past the first key, and a missing value stays on
    the NaN (bin 0). Categorical features then check that ``x`` equals the last key passed.
    """
    grids = _plan_grids(shared)
    steps = grids[0].steps
    padding = np.full(2 ** steps, np.nan)
    key_blocks, cell_blocks, first_key, first_cell = [], [], [], []
    for grid in grids:
        first_key.append(sum(map(len, key_blocks)) + 1)
        key_blocks.append(np.r_[np.nan, grid.keys, padding])
        first_cell.append(sum(map(len, cell_blocks)) + 1)
        cell_blocks.append(np.r_[first_key[-1] - 1, grid.first + first_key[-1]])  # missing, then the cells
    keys = np.concatenate(key_blocks)
    features = [one.binning.feature for one in shared]
    columns = graph.op("Transpose", ["X"], "X_by_feature", perm=[1, 0])
    if features != list(range(graph.n_features)):
        columns = graph.op("Gather", [columns, graph.constant("features", np.array(features))], "searched", axis=0)
    missing = graph.op("IsNaN", [columns], "missing")
    scaled = graph.op("Mul", [graph.op("Sub", [columns, graph.constant("grid_lo", _column([g.lo for g in grids]))],
                                       "from_lo"), graph.constant("grid_scale", _column([g.scale for g in grids]))], "scaled")
    cell = graph.op("Min", [graph.op("Max", [graph.op("Floor", [scaled], "floored"), graph.constant("zero", np.array(0.0))],
                                     "above_0"), graph.constant("last_cell", _column([len(g.first) - 1 for g in grids]))],
                    "cell")
    cell = graph.op("Where", [missing, graph.constant("minus_one", np.array(-1.0)), cell], "cell_or_missing")
    cell = graph.op("Add", [cell, graph.constant("first_cell", _column(first_cell))], "cell_entry")
    # The search runs on flat [F · N] positions (no reshape per lookup: fewer nodes, which a 1-row call pays for).
    flat_columns = graph.flatten(columns, "flat_columns")
    cell_index = graph.flatten(graph.op("Cast", [cell], "cell_index", to=TensorProto.INT32), "flat_cell_index")
    position = graph.op("GatherElements", [graph.constant("cell_starts", np.concatenate(cell_blocks).astype(np.int32)),
                                           cell_index], "start", axis=0)
    for step in range(steps):
        half = 2 ** (steps - step - 1)
        ahead = graph.constant(f"keys_{half}_ahead", np.r_[keys[half - 1:], np.full(half - 1, np.nan)])
        key = graph.op("GatherElements", [ahead, position], f"key_{step}", axis=0)
        passed = graph.op("Cast", [graph.op("GreaterOrEqual", [flat_columns, key], f"passed_{step}")], f"moves_{step}",
                          to=TensorProto.INT32)
        if half > 1:  # a Where(passed, position + half, position) measured 2-3× slower in onnxruntime
            passed = graph.op("Mul", [passed, graph.constant(f"half_{step}", np.array(half, dtype=np.int32))], f"move_{step}")
        position = graph.op("Add", [position, passed], f"position_{step}")
    # allowzero: an empty batch's 0 is a length, not "copy the input's dimension".
    by_feature = graph.op("Shape", [columns], "features_by_rows")
    bins = graph.op("Sub", [graph.op("Reshape", [position, by_feature], "position", allowzero=1),
                            graph.constant("bin_origin", _column(np.array(first_key) - 1, np.int32))], "bins")
    categorical = np.array([one.binning.is_categorical for one in shared])
    if not categorical.any():
        return bins
    last_passed = graph.op("GatherElements", [graph.constant("keys_behind", np.r_[np.nan, keys[:-1]]), position],
                           "last_passed", axis=0)
    matched = graph.op("Or", [graph.op("Equal", [last_passed, flat_columns], "equal"), graph.flatten(missing, "flat_missing")],
                       "matched_or_missing")
    unmatched = graph.op("Reshape", [graph.op("Not", [matched], "unmatched"), by_feature], "unmatched_by_feature", allowzero=1)
    unseen = graph.op("And", [unmatched, graph.constant("categorical", _column(categorical, bool))], "unseen")
    unseen_bins = _column([len(_graph_bins(one.binning)) - 1 for one in shared], np.int32)
    return graph.op("Where", [unseen, graph.constant("unseen_bin", unseen_bins), bins], "bins_or_unseen")


def _column(values, dtype=np.float64) -> np.ndarray:
    """``values`` as a ``[F, 1]`` column, broadcast over a ``[F, N]`` tensor's rows."""
    return np.asarray(values, dtype=dtype).reshape(-1, 1)
