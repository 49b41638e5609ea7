"""ONNX export: PrDT and PrAM as ONNX-ML tree ensembles plus a few standard ops.

A PrAM (a ``TreeEnsembleRegressor``, ai.onnx.ml opset 3) is binned the way interpret bins it, but
each feature **once**: one small tree per feature searches the union of that feature's bin edges
(main terms and pairs may be cut differently, see :func:`~primo.export.tables.share_binnings`) with
a balanced binary search, and each of its leaves adds, for every term that reads the feature, that
bin's share of the term's row-major index into one concatenated score table (pairs:
``bin_a · n_b + bin_b``, summed over the two features' trees). A main term first rides in a pair table
of its feature where that stays small (:func:`~primo.export.tables.fold_main_terms`), since each term
costs one output of the tree op and one gather (side by side on the benchmark's PrAMs with 10 pairs,
random rows: Clara-MS 618 → 600 ns/row, LinnOS 468 → 433). One ``GatherElements`` per score (class)
then fetches every term's score and a ``ReduceSum`` adds them; the intercept comes last.
Indices travel as float32 (the operator's output type), exact below 2^24 table entries. Missing
values reach bin 0 down the search's leftmost path (see :func:`_lookup_tree`); categorical searches
end in an equality test, so unseen values reach the unseen bin.

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

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from primo.errors import InputError
from primo.export.codegen import float32_threshold, json_literal
from primo.export.tables import (AdditiveTables, Binning, TreeTables, fold_main_terms, model_tables,
                                 share_binnings)

#: The lowest default-domain opset with every operator as used here (``Shape`` with ``start``/``end``: 15),
#: so that the runtimes systems embed, often older than ours, load the file.
OPSET = 15
# PrAM: TreeEnsembleRegressor (opset 3), whose leaves may feed several targets (float32 output).
# PrDT: TreeEnsemble (opset 5), whose float64 leaf weights are the model's outputs themselves.
# A PrDT also as ``to_onnx(tree, ml_opset=3)``: a TreeEnsembleRegressor giving the leaf number, which
# picks the float64 value (older runtimes; one lookup more a row).
ML_OPSETS = {"additive": (3,), "tree": (5, 3)}
#: The oldest onnxruntime that loads each export and gives the same outputs, found by running exports in
#: its releases (2026-11-30), by (family, ai.onnx.ml opset): a PrAM (IR version 8) and a PrDT's opset-3
#: graph run in 1.15, the oldest release for this Python; a PrDT's ``TreeEnsemble`` (opset 5) arrived in
#: 1.21. Each file says its own in the ``primo.min_onnxruntime`` metadata property.
MIN_ONNXRUNTIME = {("additive", 3): "1.15", ("tree", 5): "1.21", ("tree", 3): "1.15"}
#: PrAM score indices travel as float32 (the operator's output), exact up to 2^24.
MAX_SCORE_ENTRIES = 2 ** 24


class _Ensemble:
    """Accumulates the trees of one ``TreeEnsembleRegressor`` (output float32, one column per target).

    A tree is built bottom-up as nested tuples, ``("leaf", {target: weight})`` or
    ``("node", feature, split, missing_true, true_child, false_child)``, every node ``x <= split``
    (onnxruntime runs single-mode ensembles on its faster path), and numbered in pre-order by
    :meth:`add_tree`, root first.
    """

    def __init__(self, *, float64_splits: bool):
        self.float64_splits = float64_splits
        self.tree, self.node_id, self.feature, self.split, self.missing_true = [], [], [], [], []
        self.is_leaf, self.true_id, self.false_id = [], [], []
        self.target_tree, self.target_node, self.target_id, self.target_weight = [], [], [], []
        self.n_trees = 0

    @staticmethod
    def leaf(weights: dict[int, float]) -> tuple:
        return ("leaf", weights)

    @staticmethod
    def node(feature: int, split: float, true_child: tuple, false_child: tuple, missing_true: bool = False) -> tuple:
        return ("node", int(feature), float(split), bool(missing_true), true_child, false_child)

    def add_tree(self, root: tuple) -> None:
        tree, first = self.n_trees, len(self.node_id)
        # An explicit stack: unpruned trees can be deeper than Python's recursion limit.
        stack: list[tuple[tuple, int | None, list | None]] = [(root, None, None)]
        while stack:
            item, parent, side = stack.pop()
            number = len(self.node_id) - first
            if parent is not None:
                side[parent] = number
            self.tree.append(tree)
            self.node_id.append(number)
            self.true_id.append(0)
            self.false_id.append(0)
            if item[0] == "leaf":
                self.is_leaf.append(True)
                self.feature.append(0)
                self.split.append(0.0)
                self.missing_true.append(0)
                for target, weight in sorted(item[1].items()):
                    self.target_tree.append(tree)
                    self.target_node.append(number)
                    self.target_id.append(int(target))
                    self.target_weight.append(float(weight))
                continue
            _, feature, split, missing_true, true_child, false_child = item
            self.is_leaf.append(False)
            self.feature.append(feature)
            self.split.append(split)
            self.missing_true.append(int(missing_true))
            me = len(self.node_id) - 1
            stack.append((false_child, me, self.false_id))
            stack.append((true_child, me, self.true_id))  # popped first: numbered right after its parent
        self.n_trees += 1

    def make_node(self, input_name: str, output_name: str, n_targets: int) -> onnx.NodeProto:
        splits = np.asarray(self.split, dtype=np.float64 if self.float64_splits else np.float32)
        split_attribute = ({"nodes_values_as_tensor": numpy_helper.from_array(splits)} if self.float64_splits
                           else {"nodes_values": splits.tolist()})
        return helper.make_node(
            "TreeEnsembleRegressor", [input_name], [output_name], domain="ai.onnx.ml",
            aggregate_function="SUM", post_transform="NONE", n_targets=n_targets,
            nodes_treeids=self.tree, nodes_nodeids=self.node_id, nodes_featureids=self.feature,
            nodes_modes=["LEAF" if leaf else "BRANCH_LEQ" for leaf in self.is_leaf],
            nodes_truenodeids=self.true_id, nodes_falsenodeids=self.false_id,
            nodes_missing_value_tracks_true=self.missing_true,
            target_treeids=self.target_tree, target_nodeids=self.target_node, target_ids=self.target_id,
            target_weights=np.asarray(self.target_weight, dtype=np.float32).tolist(),
            **split_attribute,
        )


def to_onnx(model, *, name: str = "primo_model", ml_opset: int | None = None) -> onnx.ModelProto:
    """ONNX model of a fitted PrDT or PrAM (or its tables), checked with ``onnx.checker``.

    ``ml_opset``: the ai.onnx.ml opset, which decides the oldest onnxruntime that runs the file
    (:data:`MIN_ONNXRUNTIME`): a PrDT's default 5 needs 1.21, 3 runs in 1.15 at one lookup more a row; a
    PrAM has 3 only.

    Example
    -------
    >>> onnx.save(to_onnx(model), "model.onnx")  # doctest: +SKIP
    """
    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    family = "tree" if isinstance(tables, TreeTables) else "additive"
    ml_opset = ML_OPSETS[family][0] if ml_opset is None else ml_opset
    if ml_opset not in ML_OPSETS[family]:
        raise InputError(f"a {'PrDT' if family == 'tree' else 'PrAM'} exports to ONNX with ai.onnx.ml opset "
                         f"{' or '.join(map(str, ML_OPSETS[family]))}, not {ml_opset!r}", argument="ml_opset")
    graph = _Graph(tables.n_features)
    if family == "tree":
        _tree_graph(tables, graph, ml_opset)
    else:
        _additive_graph(tables, graph)
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", ml_opset)]
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
        ensemble = _Ensemble(float64_splits=True)
        ensemble.add_tree(_nested_tree(t))
        graph.nodes.append(ensemble.make_node("X", "tree_output", 1))
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


def _nested_tree(t: TreeTables) -> tuple:
    """The tree as :class:`_Ensemble` tuples whose leaves weigh their leaf number (leaves counted in node
    order, as :func:`_tree_ensemble_node` counts them); built bottom-up without recursion (unpruned trees
    can be deeper than Python's recursion limit)."""
    leaf_number = np.cumsum(t.left == -1) - 1
    order, stack = [], [0]
    while stack:  # pre-order, so that every child comes after its parent
        node = stack.pop()
        order.append(node)
        if t.left[node] != -1:
            stack += [int(t.left[node]), int(t.right[node])]
    built = {}
    for node in reversed(order):
        if t.left[node] == -1:
            built[node] = _Ensemble.leaf({0: float(leaf_number[node])})
        else:
            built[node] = _Ensemble.node(t.feature[node], float32_threshold(t.threshold[node]), built.pop(int(t.left[node])),
                                         built.pop(int(t.right[node])), missing_true=bool(t.missing_left[node]))
    return built[0]


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
    """``scores`` ``[N, n_scores]``: intercept + every term's score, each feature binned once."""
    intercept = graph.constant("intercept", t.intercept[np.newaxis, :])
    if not t.terms:  # the intercept alone, one row per input row
        n_rows = graph.op("Shape", ["X"], "n_rows", start=0, end=1)
        shape = graph.op("Concat", [n_rows, graph.constant("n_scores", np.array([t.n_scores]))], "scores_shape", axis=0)
        return graph.op("Expand", [intercept, shape], "scores")
    # Fewer terms, fewer tree outputs and gathers: main terms ride in pair tables (same sums).
    binnings, terms = fold_main_terms(t.binnings, t.terms)
    # Every term's table, flattened row-major and concatenated: term i starts at offsets[i].
    tables = [term.scores.reshape(-1, t.n_scores) for term in terms]
    offsets = np.cumsum([0] + [len(table) for table in tables])
    if offsets[-1] > MAX_SCORE_ENTRIES:
        raise ValueError(f"the PrAM has {offsets[-1]} score entries; ONNX export supports up to {MAX_SCORE_ENTRIES}")
    # For each binning, the terms reading it and the stride of its bin in their row-major index.
    readers: dict[int, list[tuple[int, int]]] = {}
    for i, term in enumerate(terms):
        for b, stride in term.strides(binnings):
            readers.setdefault(b, []).append((i, stride))
    ensemble = _Ensemble(float64_splits=True)
    offset_added = set()
    for shared in share_binnings(binnings, terms):
        # The first tree that reaches a term also adds the term's offset.
        owned = {i for b in shared.level_bins for i, _ in readers.get(b, []) if i not in offset_added}
        offset_added |= owned

        def leaf(shared_bin: int, shared=shared, owned=owned):
            weights = {i: float(offsets[i]) for i in owned}
            for b, level_bins in shared.level_bins.items():
                for i, stride in readers.get(b, []):
                    weights[i] = weights.get(i, 0.0) + float(level_bins[shared_bin]) * stride
            # A leaf that adds nothing still names a target: onnxruntime 1.15 refuses a leaf with none.
            return ensemble.leaf({i: w for i, w in weights.items() if w != 0.0} or {0: 0.0})

        ensemble.add_tree(_lookup_tree(ensemble, shared.binning, leaf))
    n_terms = len(terms)
    graph.nodes.append(ensemble.make_node("X", "term_index_float", n_terms))
    index = graph.op("Cast", ["term_index_float"], "term_index", to=TensorProto.INT32)
    flat_index = graph.op("Reshape", [index, graph.constant("flat", np.array([-1]))], "flat_index")
    rows_by_terms = graph.constant("rows_by_terms", np.array([-1, n_terms]))
    # Per score: [N, terms], summed along its contiguous last axis (onnxruntime's fast reduction).
    sums = [graph.op("ReduceSum", [graph.op("Reshape", [scores, rows_by_terms], f"{scores}_by_term"),
                                   graph.constant("axis1", np.array([1]))], f"{scores}_sum", keepdims=1)
            for scores in graph.column_lookups(np.concatenate(tables), flat_index, "term_tables")]
    total = sums[0] if len(sums) == 1 else graph.op("Concat", sums, "term_sum", axis=1)
    return graph.op("Add", [total, intercept], "scores")


def _lookup_tree(ensemble: _Ensemble, binning: Binning, below) -> tuple:
    """Subtree routing a value to ``below(bin)`` by a balanced search.

    Every node is ``x <= split`` (so a strict ``x < c`` is written ``x <= c⁻``, with ``c⁻`` the largest
    float64 below ``c``). NaN fails every comparison. A continuous search sends it left at every node
    of its leftmost path (the node's missing-value direction: onnxruntime checks NaN at every node
    anyway, so a flag costs nothing) to a last test ``x <= cuts[0]⁻`` that only NaN fails: missing
    values reach bin 0 with no extra node on any other path. A categorical search (a handful of
    values) starts with ``x <= +inf``, which only NaN fails.
    """
    f = binning.feature
    if binning.is_categorical:
        values, bins, unseen = binning.categories, binning.category_bins, binning.n_bins - 1

        def equal(i: int):  # reached only with x <= values[i] and x > values[i - 1]: x == values[i] iff x > values[i]⁻
            return ensemble.node(f, _below(values[i]), below(unseen), below(int(bins[i])))

        def search(lo: int, hi: int):  # the value can only be values[lo..hi]
            if lo == hi:
                if hi < len(values) - 1:
                    return equal(lo)
                return ensemble.node(f, values[hi], equal(hi), below(unseen))  # no upper bound yet
            mid = (lo + hi) // 2
            return ensemble.node(f, values[mid], search(lo, mid), search(mid + 1, hi))

        present = search(0, len(values) - 1) if len(values) else below(unseen)
        return ensemble.node(f, np.inf, present, below(0))
    cuts = binning.cuts

    def search(lo: int, hi: int):  # bins lo..hi; bin k holds cuts[k-2] <= x < cuts[k-1]
        if lo == hi:
            if lo == 1:  # bin 1 (x < cuts[0]) or NaN, which came down the leftmost path
                return ensemble.node(f, _below(cuts[0]) if len(cuts) else np.inf, below(1), below(0))
            return below(lo)
        mid = (lo + hi) // 2
        return ensemble.node(f, _below(cuts[mid - 1]), search(lo, mid), search(mid + 1, hi), missing_true=lo == 1)

    return search(1, len(cuts) + 1)


def _below(value: float) -> float:
    return float(np.nextafter(value, -np.inf))
