"""C implementations of slow-read predictors and a harness that times them with gcc.

LinnOS runs its network inside the kernel's block layer, in C, without floating point. To
charge a realistic inference cost in the simulator, the predictors are emitted as C functions
with the same signature, ``int predict(const int32_t x[9])`` (the 9 raw features in
``features.RAW_FEATURE_NAMES`` order, 1 = slow), and timed by a small harness:

* ``linnos_net_c_source(QuantizedLinnOSNet)``: digit encoding + integer 31-256-1 network
  (the 31-256-2 argmax, see ``linnos_net``), exactly what ``QuantizedLinnOSNet.predict`` computes;
* ``primo_tree_c_source(PrDT)``: Primo's own integer export (``primo.export.to_c(...,
  integer=True)``, the header a kernel module would include) behind that signature;
* ``decision_tree_c_source(DecisionTreeClassifier)``: an integer walk over a plain scikit-learn
  tree's arrays (used by the phase-1 evaluation).

The model is compiled as its own translation unit with kernel-like flags (``-O2
-mgeneral-regs-only``: no SSE/FPU registers, hence no vectorisation, as in kernel code) and
called through a function call from the harness; the harness times whole passes over real
feature rows with ``clock_gettime`` and reports nanoseconds per prediction (warm caches, one
core: a lower bound of the in-kernel cost, which also pays for feature collection).

Example
-------
>>> source = linnos_net_c_source(net.quantize())  # doctest: +SKIP
>>> timing = measure_c_predictor(source, reads[RAW_FEATURE_NAMES])  # doctest: +SKIP
>>> timing.ns_per_prediction, (timing.predictions == net.quantize().predict(reads)).all()  # doctest: +SKIP
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from primo.export import model_tables, quantize, to_c

from .features import LATENCY_FEATURES, PENDING_FEATURES, RAW_FEATURE_NAMES, as_raw_matrix
from .linnos_net import QuantizedLinnOSNet

KERNEL_CFLAGS = ("-O2", "-mgeneral-regs-only")

_HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_FEATURES %(n_features)d
int predict(const int32_t *x);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* usage: harness features.bin n_rows passes predictions.bin
   prints: min_ns_per_prediction median_ns_per_prediction checksum */
int main(int argc, char **argv) {
    if (argc != 5) return 2;
    long n = atol(argv[2]), passes = atol(argv[3]);
    int32_t *x = malloc(sizeof(int32_t) * N_FEATURES * n);
    unsigned char *out = malloc(n);
    double *pass_ns = malloc(sizeof(double) * passes);
    FILE *f = fopen(argv[1], "rb");
    if (!x || !out || !pass_ns || !f) return 3;
    if (fread(x, sizeof(int32_t) * N_FEATURES, n, f) != (size_t)n) return 4;
    fclose(f);
    for (long i = 0; i < n; i++) out[i] = (unsigned char)predict(x + N_FEATURES * i);
    f = fopen(argv[4], "wb");
    if (!f || fwrite(out, 1, n, f) != (size_t)n) return 5;
    fclose(f);
    long checksum = 0;
    for (long p = 0; p < passes; p++) {
        double start = now_ns();
        for (long i = 0; i < n; i++) checksum += predict(x + N_FEATURES * i);
        pass_ns[p] = (now_ns() - start) / n;
    }
    /* insertion sort: passes is small */
    for (long i = 1; i < passes; i++)
        for (long j = i; j > 0 && pass_ns[j - 1] > pass_ns[j]; j--) {
            double t = pass_ns[j]; pass_ns[j] = pass_ns[j - 1]; pass_ns[j - 1] = t;
        }
    printf("%%.4f %%.4f %%ld\n", pass_ns[0], pass_ns[passes / 2], checksum);
    return 0;
}
"""


@dataclass(frozen=True)
class CTiming:
    """Predictions of the compiled C model and its cost per prediction (ns)."""

    predictions: np.ndarray
    ns_per_prediction: float  # median over passes
    min_ns_per_prediction: float


def c_compiler_available(cc: str = "gcc") -> bool:
    """True when the C compiler ``cc`` is on the PATH."""
    return shutil.which(cc) is not None


def _c_array(values, ctype: str, name: str) -> str:
    flat = ", ".join(str(int(v)) for v in np.asarray(values).ravel())
    shape = "".join(f"[{s}]" for s in np.shape(values))
    return f"static const {ctype} {name}{shape} = {{{flat}}};"


def linnos_net_c_source(qnet: QuantizedLinnOSNet) -> str:
    """C source of ``int predict(const int32_t x[9])`` for a quantized LinnOS network.

    The function encodes the raw features into LinnOS's 31 digits (saturating like
    ``features.digit_encode``) and evaluates the integer network; it returns exactly
    ``qnet.predict``'s answer.

    Example
    -------
    >>> "int predict(const int32_t *x)" in linnos_net_c_source(net.quantize())  # doctest: +SKIP
    True
    """
    n_inputs, hidden = qnet.w1.shape
    return "\n".join(
        [
            "#include <stdint.h>",
            f"/* LinnOS 31-{hidden}-1 network, fixed point: layer 1 x 2^{qnet.shift1}, "
            f"layer 2 x 2^{qnet.shift2}. */",
            _c_array(qnet.w1.T, "int32_t", "W1"),  # row per hidden unit: contiguous inner loop
            _c_array(qnet.b1, "int32_t", "B1"),
            _c_array(qnet.w2, "int32_t", "W2"),
            f"static const int64_t B2 = {qnet.b2}LL;",
            "static void put_digits(int32_t v, int32_t cap, int n, int32_t *d) {",
            "    if (v > cap) v = cap;",
            "    for (int i = n - 1; i >= 0; i--) { d[i] = v % 10; v /= 10; }",
            "}",
            "int predict(const int32_t *x) {",
            f"    int32_t in[{n_inputs}];",
            f"    for (int k = 0; k < {len(PENDING_FEATURES)}; k++) put_digits(x[k], 999, 3, in + 3 * k);",
            f"    for (int k = 0; k < {len(LATENCY_FEATURES)}; k++)",
            f"        put_digits(x[{len(PENDING_FEATURES)} + k] / {qnet.latency_unit_us}, 9999, 4,"
            f" in + {3 * len(PENDING_FEATURES)} + 4 * k);",
            "    int64_t z = B2;",
            f"    for (int j = 0; j < {hidden}; j++) {{",
            "        int32_t acc = B1[j];",
            f"        for (int i = 0; i < {n_inputs}; i++) acc += W1[j][i] * in[i];",
            "        if (acc > 0) z += (int64_t)acc * W2[j];",
            "    }",
            "    return z > 0;",
            "}",
            "",
        ]
    )


def decision_tree_c_source(tree) -> str:
    """C source of ``int predict(const int32_t x[9])`` walking a fitted scikit-learn tree.

    Features are integers, so each split ``x <= t`` is compiled as ``x <= floor(t)``, which
    gives the same branch; the leaf answers the majority class (``tree.classes_``, 0/1).

    Parameters
    ----------
    tree : sklearn.tree.DecisionTreeClassifier
        Fitted on the 9 raw features with labels 0/1.

    Example
    -------
    >>> source = decision_tree_c_source(DecisionTreeClassifier(max_depth=3).fit(X, y))  # doctest: +SKIP
    """
    if getattr(tree, "n_features_in_", None) != len(RAW_FEATURE_NAMES):
        raise ValueError(f"tree must be fitted on the {len(RAW_FEATURE_NAMES)} raw features")
    t = tree.tree_
    leaf_class = np.asarray(tree.classes_)[np.argmax(t.value[:, 0, :], axis=1)].astype(int)
    return "\n".join(
        [
            "#include <stdint.h>",
            f"/* decision tree, {t.node_count} nodes, depth {t.max_depth} */",
            _c_array(t.children_left, "int32_t", "LEFT"),
            _c_array(t.children_right, "int32_t", "RIGHT"),
            _c_array(np.maximum(t.feature, 0), "int32_t", "FEATURE"),
            _c_array(np.floor(np.where(t.feature >= 0, t.threshold, 0)), "int32_t", "THRESHOLD"),
            _c_array(leaf_class, "int32_t", "CLASS"),
            "int predict(const int32_t *x) {",
            "    int32_t n = 0;",
            "    while (LEFT[n] >= 0) n = x[FEATURE[n]] <= THRESHOLD[n] ? LEFT[n] : RIGHT[n];",
            "    return CLASS[n];",
            "}",
            "",
        ]
    )


def primo_tree_c_source(model, name: str = "primo_tree", check_data=None) -> str:
    """C source of ``int predict(const int32_t x[9])`` around Primo's integer export of a PrDT.

    The body is ``primo.export.to_c(model, integer=True)`` (no floating point; the header states
    the integer-vs-float check on ``check_data`` when given), followed by an adapter that scales
    the raw features as the export asks (``x_int = x * scale``; the scales are 1 for the integer
    queue lengths and µs latencies whenever the thresholds are integers or halves) and answers
    1 for slow.

    The model is either a ``PrDTClassifier`` with classes ``[0, 1]`` (the export's class index is
    the label) or a soft-label student from ``primo.distill.distill`` (a ``PrDTRegressor`` whose
    ``metadata_["distillation"]["decision"]`` turns its output into a label): its slow/fast
    answer is then fixed per leaf, so the adapter looks it up in a table of 0/1 per leaf computed
    here from the float leaf values, with no fixed-point comparison that could round differently.

    Parameters
    ----------
    model : fitted PrDTClassifier or soft-label PrDTRegressor on the 9 raw features.
    name : C prefix of the exported functions.
    check_data : rows on which the export counts integer-vs-float mismatches (header comment).

    Example
    -------
    >>> source = primo_tree_c_source(primo_e, check_data=X_test)  # doctest: +SKIP
    >>> measure_c_predictor(source, X_test).ns_per_prediction  # doctest: +SKIP
    """
    if getattr(model, "n_features_in_", None) != len(RAW_FEATURE_NAMES):
        raise ValueError(f"model must be fitted on the {len(RAW_FEATURE_NAMES)} raw features")
    tables = model_tables(model)
    scales = quantize(tables).feature_scales
    header = to_c(model, name=name, integer=True, check_data=check_data)
    lines = [header, _c_array(scales, "int64_t", "SCALE")]
    if tables.is_classifier:
        if [int(c) for c in tables.classes] != [0, 1]:
            raise ValueError(f"a classifier must have classes [0, 1] (fast, slow), got {list(tables.classes)}")
        answer = f"{name}_predict(v)"
    else:
        decision = (getattr(model, "metadata_", None) or {}).get("distillation", {}).get("decision")
        if not decision or decision.get("kind") != "threshold":
            raise ValueError("a regression tree needs the threshold decision of a soft-label distillation")
        classes = np.asarray(decision["classes"])
        slow = classes[(tables.leaf_values[:, 0] >= decision["threshold"]).astype(int)]
        lines.append(_c_array(slow, "unsigned char", "LEAF_SLOW"))
        answer = f"LEAF_SLOW[{name}_leaf(v)]"
    lines += [
        "int predict(const int32_t *x) {",
        f"    int64_t v[{len(RAW_FEATURE_NAMES)}];",
        f"    for (int k = 0; k < {len(RAW_FEATURE_NAMES)}; k++) v[k] = (int64_t)x[k] * SCALE[k];",
        f"    return {answer};",
        "}",
        "",
    ]
    return "\n".join(lines)


def measure_c_predictor(
    model_source: str,
    raw_features,
    passes: int = 21,
    cc: str = "gcc",
    model_cflags: tuple[str, ...] = KERNEL_CFLAGS,
) -> CTiming:
    """Compile a C predictor, run it on ``raw_features`` and time it.

    Parameters
    ----------
    model_source : str
        C source defining ``int predict(const int32_t *x)``.
    raw_features : DataFrame or array (n, 9)
        Integer raw features (rounded to int32).
    passes : int
        Timed passes over all rows; the result is the median (and minimum) pass.
    cc : str
        C compiler.
    model_cflags : tuple of str
        Flags for the model's translation unit (default: kernel-like, see module docstring).

    Raises
    ------
    RuntimeError
        If the compiler is missing, or compilation or the run fails (the message has stderr).

    Example
    -------
    >>> measure_c_predictor(linnos_net_c_source(q), X[:1000]).ns_per_prediction  # doctest: +SKIP
    """
    if not c_compiler_available(cc):
        raise RuntimeError(f"C compiler {cc!r} not found on PATH")
    rows = np.ascontiguousarray(np.rint(as_raw_matrix(raw_features)), dtype=np.int32)
    with tempfile.TemporaryDirectory(prefix="linnos_c_") as tmp:
        folder = Path(tmp)
        (folder / "model.c").write_text(model_source)
        (folder / "harness.c").write_text(_HARNESS % {"n_features": len(RAW_FEATURE_NAMES)})
        rows.tofile(folder / "features.bin")
        _run([cc, *model_cflags, "-c", "model.c", "-o", "model.o"], folder)
        _run([cc, "-O2", "harness.c", "model.o", "-o", "harness"], folder)
        out = _run(
            ["./harness", "features.bin", str(len(rows)), str(passes), "predictions.bin"], folder
        )
        predictions = np.fromfile(folder / "predictions.bin", dtype=np.uint8).astype(np.int64)
    min_ns, median_ns, _ = out.split()
    return CTiming(predictions, float(median_ns), float(min_ns))


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()}"
        )
    return done.stdout
