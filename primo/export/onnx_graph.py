"""ONNX export: PrDT and PrAM as one ONNX-ML ``TreeEnsemble`` (opset 5, float64) plus a few standard ops.

A PrAM's shape functions are lookups over sorted bin edges, so each term becomes a small tree: a
balanced binary search over the edges (O(log bins) per term instead of one comparison per edge, as
earlier EBM converters do), with the term's scores in the leaves. Missing values are rewritten to -inf
first (a real -inf to the lowest finite float, the same bin), so one ``x <= -inf`` test at the bottom
of the lowest bin sends them to bin 0. A pair term is the search on its first feature with a search
on the second under each leaf.
Categorical searches end in an equality test, so unseen values reach the unseen bin. Multiclass models
get one tree per term and class. The ensemble sums the trees; the intercept is added afterwards.

A PrDT is its own tree: node thresholds in float64 applied to inputs rounded to float32 (as
scikit-learn does), each node's missing-value direction kept, and the leaf number looked up in
float64 tables. skl2onnx is not used because it sends missing values by ``x <= t`` regardless of the
learned direction and returns float32 outputs.

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

from primo.export.codegen import json_literal
from primo.export.tables import AdditiveTables, Binning, TreeTables, model_tables

OPSET = 21
ML_OPSET = 5
IR_VERSION = 10  # what onnxruntime ≥ 1.20 reads
_LEQ = 0  # TreeEnsemble node mode BRANCH_LEQ


class _Ensemble:
    """Accumulates the node and leaf arrays of an ONNX-ML TreeEnsemble; a child is ("node"|"leaf", id)."""

    def __init__(self):
        self.feature, self.mode, self.split, self.missing_true = [], [], [], []
        self.true_child, self.false_child = [], []
        self.leaf_target, self.leaf_weight = [], []
        self.roots: list[int] = []

    def leaf(self, target: int, weight: float) -> tuple[str, int]:
        self.leaf_target.append(int(target))
        self.leaf_weight.append(float(weight))
        return ("leaf", len(self.leaf_weight) - 1)

    def node(self, feature: int, mode: int, split: float, true_child, false_child, missing_true=False):
        self.feature.append(int(feature))
        self.mode.append(mode)
        self.split.append(float(split))
        self.missing_true.append(int(bool(missing_true)))
        self.true_child.append(true_child)
        self.false_child.append(false_child)
        return ("node", len(self.feature) - 1)

    def add_tree(self, root) -> None:
        if root[0] == "leaf":  # a tree must start at a node: one whose branches meet at the leaf
            root = self.node(0, _LEQ, 0.0, root, root)
        self.roots.append(root[1])

    def make_node(self, input_name: str, output_name: str, n_targets: int) -> onnx.NodeProto:
        return helper.make_node(
            "TreeEnsemble", [input_name], [output_name], domain="ai.onnx.ml",
            aggregate_function=1,  # SUM
            post_transform=0,  # NONE
            n_targets=n_targets,
            tree_roots=self.roots,
            nodes_featureids=self.feature,
            nodes_modes=numpy_helper.from_array(np.asarray(self.mode, dtype=np.uint8)),
            nodes_splits=numpy_helper.from_array(np.asarray(self.split, dtype=np.float64)),
            nodes_truenodeids=[c[1] for c in self.true_child],
            nodes_trueleafs=[int(c[0] == "leaf") for c in self.true_child],
            nodes_falsenodeids=[c[1] for c in self.false_child],
            nodes_falseleafs=[int(c[0] == "leaf") for c in self.false_child],
            nodes_missing_value_tracks_true=self.missing_true,
            leaf_targetids=self.leaf_target,
            leaf_weights=numpy_helper.from_array(np.asarray(self.leaf_weight, dtype=np.float64)),
        )


def to_onnx(model, *, name: str = "primo_model") -> onnx.ModelProto:
    """ONNX model of a fitted PrDT or PrAM (or its tables), checked with ``onnx.checker``.

    Example
    -------
    >>> onnx.save(to_onnx(model), "model.onnx")  # doctest: +SKIP
    """
    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    graph = _Graph(tables.n_features)
    if isinstance(tables, TreeTables):
        _tree_graph(tables, graph)
    else:
        _additive_graph(tables, graph)
    onnx_model = helper.make_model(
        helper.make_graph(graph.nodes, name, [graph.input], graph.outputs, graph.initializers),
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("ai.onnx.ml", ML_OPSET)],
        producer_name="primo",
        doc_string=f"{type(model).__name__} exported by primo.export.to_onnx",
    )
    if tables.vocabularies:
        helper.set_model_props(onnx_model, {
            "primo.vocabularies": json_literal({tables.feature_names[j]: v for j, v in tables.vocabularies.items()}),
            "primo.unseen_category": "NaN" if isinstance(tables, TreeTables) else "-1",
        })
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
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, inputs: list[str], output: str, **attributes) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [output], **attributes))
        return output

    def output(self, name: str, elem_type: int, shape: list) -> None:
        self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))

    def classify(self, class_index: str, tables) -> None:
        """``label`` output: the class labels gathered by index."""
        classes = np.asarray(tables.classes)
        if classes.dtype.kind in "US" or classes.dtype.hasobject:
            classes, elem_type = np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING
        elif classes.dtype.kind == "b":
            elem_type = TensorProto.BOOL
        elif classes.dtype.kind in "iu":
            classes, elem_type = classes.astype(np.int64), TensorProto.INT64
        else:
            classes, elem_type = classes.astype(np.float64), TensorProto.DOUBLE
        self.op("Gather", [self.constant("classes", classes), class_index], "label", axis=0)
        self.output("label", elem_type, [None])


def _tree_graph(t: TreeTables, graph: _Graph) -> None:
    ensemble = _Ensemble()
    children: dict[int, tuple[str, int]] = {}
    # Children before parents: scikit-learn numbers every child after its parent.
    for node in reversed(range(len(t.left))):
        if t.left[node] == -1:
            children[node] = ensemble.leaf(0, t.leaf_index[node])
        else:
            children[node] = ensemble.node(t.feature[node], _LEQ, t.threshold[node], children[t.left[node]],
                                           children[t.right[node]], missing_true=t.missing_left[node])
    ensemble.add_tree(children[0])
    as_float = graph.op("Cast", ["X"], "X_float32", to=TensorProto.FLOAT)
    rounded = graph.op("Cast", [as_float], "X_rounded", to=TensorProto.DOUBLE)
    graph.nodes.append(ensemble.make_node(rounded, "leaf_number", 1))
    leaf = graph.op("Cast", [graph.op("Squeeze", ["leaf_number", graph.constant("axis1", np.array([1]))], "leaf_double")],
                    "leaf", to=TensorProto.INT64)
    if t.is_classifier:
        graph.op("Gather", [graph.constant("leaf_proba", t.leaf_values), leaf], "probabilities", axis=0)
        graph.output("probabilities", TensorProto.DOUBLE, [None, len(t.classes)])
        index = graph.op("Gather", [graph.constant("leaf_class", t.leaf_labels.astype(np.int64)), leaf], "class_index", axis=0)
        graph.classify(index, t)
    else:
        graph.op("Gather", [graph.constant("leaf_value", t.leaf_values[:, 0]), leaf], "prediction", axis=0)
        graph.output("prediction", TensorProto.DOUBLE, [None])


def _additive_graph(t: AdditiveTables, graph: _Graph) -> None:
    ensemble = _Ensemble()
    for term in t.terms:
        for k in range(t.n_scores):
            ensemble.add_tree(_term_tree(ensemble, t, term.binnings, term.scores[..., k], k))
    # Missing values become -inf and a real -inf becomes the lowest finite float (same bin, as every cut
    # is finite), so "x <= -inf" singles out missing values without onnxruntime's per-node NaN checks.
    lowest = graph.constant("lowest", np.array(np.finfo(np.float64).min))
    finite_low = graph.op("Max", ["X", lowest], "X_no_minus_inf")
    is_missing = graph.op("IsNaN", ["X"], "X_is_missing")
    marked = graph.op("Where", [is_missing, graph.constant("minus_inf", np.array(-np.inf)), finite_low], "X_marked")
    graph.nodes.append(ensemble.make_node(marked, "term_sum", t.n_scores))
    scores = graph.op("Add", ["term_sum", graph.constant("intercept", t.intercept[np.newaxis, :])], "scores")
    if not t.is_classifier:
        graph.op("Squeeze", [scores, graph.constant("axis1", np.array([1]))], "prediction")
        graph.output("prediction", TensorProto.DOUBLE, [None])
        return
    graph.output("scores", TensorProto.DOUBLE, [None, t.n_scores])
    if t.link == "logit":
        positive = graph.op("Sigmoid", [scores], "positive")
        negative = graph.op("Sub", [graph.constant("one", np.array([[1.0]])), positive], "negative")
        graph.op("Concat", [negative, positive], "probabilities", axis=1)
        log_odds = graph.op("Squeeze", [scores, graph.constant("axis1", np.array([1]))], "log_odds")
        is_positive = graph.op("Greater", [log_odds,
                                           graph.constant("zero", np.array(0.0))], "is_positive")
        index = graph.op("Cast", [is_positive], "class_index", to=TensorProto.INT64)
    else:
        graph.op("Softmax", [scores], "probabilities", axis=1)
        index = graph.op("ArgMax", [scores], "class_index", axis=1, keepdims=0)
    graph.output("probabilities", TensorProto.DOUBLE, [None, len(t.classes)])
    graph.classify(index, t)


def _term_tree(ensemble: _Ensemble, t: AdditiveTables, binnings: tuple[int, ...], scores: np.ndarray, target: int):
    """Search on the first binning; under each of its bins, the rest of the term (or a score leaf)."""
    binning = t.binnings[binnings[0]]

    def below(bin_index: int):
        if len(binnings) == 1:
            return ensemble.leaf(target, scores[bin_index])
        return _term_tree(ensemble, t, binnings[1:], scores[bin_index], target)

    return _lookup_tree(ensemble, binning, below)


def _lookup_tree(ensemble: _Ensemble, binning: Binning, below):
    """Subtree routing a value to ``below(bin)`` by a balanced search; missing values arrive as -inf.

    Every node is ``x <= split`` (onnxruntime runs single-mode ensembles on a faster path), so a
    strict ``x < c`` is written ``x <= c⁻`` with ``c⁻`` the largest float64 below ``c`` — the same test.
    """
    f = binning.feature
    if binning.is_categorical:
        values, bins, unseen = binning.categories, binning.category_bins, binning.n_bins - 1

        def equal(i: int):  # reached only with x <= values[i] and x > values[i - 1]: x == values[i] iff x > values[i]⁻
            return ensemble.node(f, _LEQ, _below(values[i]), below(unseen), below(int(bins[i])))

        def search(lo: int, hi: int):  # the value can only be values[lo..hi]
            if lo == hi:
                if hi < len(values) - 1:
                    return equal(lo)
                return ensemble.node(f, _LEQ, values[hi], equal(hi), below(unseen))  # no upper bound yet
            mid = (lo + hi) // 2
            return ensemble.node(f, _LEQ, values[mid], search(lo, mid), search(mid + 1, hi))

        present = search(0, len(values) - 1) if len(values) else below(unseen)
        return ensemble.node(f, _LEQ, -np.inf, below(0), present)
    else:
        cuts = binning.cuts

        def search(lo: int, hi: int):  # bins lo..hi; bin k holds cuts[k-2] <= x < cuts[k-1]
            if lo == hi:
                # Only the lowest bin's range holds -inf, i.e. the missing values: tested there, off the main path.
                return ensemble.node(f, _LEQ, -np.inf, below(0), below(1)) if lo == 1 else below(lo)
            mid = (lo + hi) // 2
            return ensemble.node(f, _LEQ, _below(cuts[mid - 1]), search(lo, mid), search(mid + 1, hi))

        return search(1, len(cuts) + 1)


def _below(value: float) -> float:
    return float(np.nextafter(value, -np.inf))
