"""Run an exported model where it will run -- gcc-compiled C, node, lua5.1, onnxruntime -- and check it.

:func:`verify_export` is what ``primo export --verify TABLE`` does after writing a file: it runs the
**written file** in its runtime on the table's rows and compares every prediction with the model's
own ``predict``, so a user sees on their rows, before embedding it, that the export says what the
model says. The runners are small harnesses written here because no library runs generated code in
these runtimes: a C driver that streams float64 rows through stdin (compiled with warnings as errors),
an ES module runner for node, a Lua runner that prints exact (``%.17g``) values, and onnxruntime.

``primo export --integer --verify TABLE`` runs an integer-mode C header the same way, on the rows
scaled as its header says.

Each runner raises :class:`ExportRuntimeError` naming the tool when it is missing or the code does not
compile or run.

Example
-------
>>> verify_export(model, "c", "model.h", X_test, name="model").summary()  # doctest: +SKIP
'all 200 predictions equal the model's'
"""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from primo.export.codegen import identifier, lua_string
from primo.export.tables import RELATIVE_TOLERANCE, TreeTables, encode_categories, model_tables
from primo.models._base import names_warned_once

GCC = ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
#: Largest absolute difference a regression prediction may show, per format: what each promises
#: (``primo/export/README.md``; JavaScript and Lua sum their scores in another order and print them).
TOLERANCE = {"c": 1e-9, "js": 1e-6, "lua": 1e-6, "onnx": 1e-9, "json": 1e-9}
RUNTIMES = {"c": "gcc", "js": "node", "lua": "lua5.1", "onnx": "onnxruntime", "json": "primo"}


class ExportRuntimeError(RuntimeError):
    """A runtime an export needs is missing, or the exported code did not compile or run there."""


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(command, capture_output=True, **kwargs)
    except FileNotFoundError:
        raise ExportRuntimeError(f"{command[0]} is not installed (it runs this export); install it or "
                                 "verify another format") from None
    if done.returncode != 0:
        stderr = done.stderr if isinstance(done.stderr, str) else done.stderr.decode(errors="replace")
        raise ExportRuntimeError(f"{Path(command[0]).name} failed (exit {done.returncode}): {stderr.strip()[:2000]}")
    return done


def c_outputs(header: str, tables, rows: np.ndarray, directory, *, name: str, integer: bool = False) -> np.ndarray:
    """Compile ``header`` with a driver and return one output row per input row.

    Columns -- PrDT: leaf, predict[, probabilities...]; PrAM: scores..., predict (class index or value).
    """
    directory = Path(directory)
    ctype = "int64_t" if integer else "double"
    macro = name.upper()
    if isinstance(tables, TreeTables):
        body = [f"out[0] = {name}_leaf(row);", f"out[1] = {name}_predict(row);"]
        n_out = 2
        if tables.is_classifier and not integer:
            body.append(f"{name}_predict_proba(row, out + 2);")
            n_out += len(tables.classes)
    elif tables.n_scores > 1:
        body = [f"{name}_decision(row, out);", f"out[{tables.n_scores}] = {name}_predict(row);"]
        n_out = tables.n_scores + 1
    else:
        body = [f"out[0] = {name}_decision(row);",
                f"out[1] = {name}_predict(row);" if tables.is_classifier else "out[1] = out[0];"]
        n_out = 2
    driver = textwrap.dedent(f"""\
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include "{name}.h"
        int main(void)
        {{
            long n, i;
            {ctype} *x;
            if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
            x = malloc(sizeof *x * n * {macro}_N_FEATURES);
            if (fread(x, sizeof *x, n * {macro}_N_FEATURES, stdin) != (size_t)(n * {macro}_N_FEATURES)) return 1;
            for (i = 0; i < n; i++) {{
                const {ctype} *row = x + i * {macro}_N_FEATURES;
                {ctype} out[{n_out}];
                {" ".join(body)}
                fwrite(out, sizeof *out, {n_out}, stdout);
            }}
            free(x);
            return 0;
        }}
        """)
    (directory / f"{name}.h").write_text(header)
    (directory / f"{name}_driver.c").write_text(driver)
    binary = directory / f"{name}_driver"
    _run(GCC + [str(directory / f"{name}_driver.c"), "-o", str(binary)], text=True)
    dtype = np.int64 if integer else np.float64
    payload = np.int64(len(rows)).tobytes() + np.ascontiguousarray(rows, dtype=dtype).tobytes()
    result = _run([str(binary)], input=payload)
    return np.frombuffer(result.stdout, dtype=dtype).reshape(len(rows), n_out)


JS_RUNNER = """\
import { readFileSync } from "node:fs";
const model = await import(process.argv[2]);
const special = { nan: NaN, inf: Infinity, "-inf": -Infinity };  // JSON has no NaN or infinities
const rows = JSON.parse(readFileSync(process.argv[3], "utf8")).map((r) => r.map((v) => (v in special ? special[v] : v)));
const out = rows.map((x) => ({
  predict: model.predict(x),
  proba: model.predictProba ? model.predictProba(x) : null,
  decision: model.decisionFunction ? model.decisionFunction(x) : null,
  leaf: model.leaf ? model.leaf(x) : null,
}));
process.stdout.write(JSON.stringify(out));
"""


def js_outputs(source: str, rows: np.ndarray, directory) -> dict:
    """Run the ES module with node on ``rows``; dict of arrays predict/proba/decision/leaf."""
    directory = Path(directory)
    module, runner, data = directory / "model.mjs", directory / "runner.mjs", directory / "rows.json"
    module.write_text(source)
    runner.write_text(JS_RUNNER)
    data.write_text(json.dumps([[v if np.isfinite(v) else repr(v) for v in row] for row in np.asarray(rows).tolist()]))
    out = json.loads(_run(["node", str(runner), str(module), str(data)], text=True).stdout)
    return {key: np.asarray([o[key] for o in out], dtype=object if key == "predict" else None) for key in out[0]}


_LUA_RUNNER = """\
local model = dofile(arg[1])
local rows = dofile(arg[2])
local function show(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  if type(v) == "string" then  -- escaped, so a label holding a tab or newline stays one field
    return (v:gsub("\\\\", "\\\\\\\\"):gsub("\\t", "\\\\t"):gsub("\\n", "\\\\n"):gsub("\\r", "\\\\r"))
  end
  return tostring(v)
end
for _, x in ipairs(rows) do
  local out = {show(model.predict(x))}
  if model.leaf then out[#out + 1] = show(model.leaf(x)) end
  if model.decision_function then
    local s = model.decision_function(x)
    if type(s) == "table" then for _, v in ipairs(s) do out[#out + 1] = show(v) end
    else out[#out + 1] = show(s) end
  end
  if model.predict_proba then for _, p in ipairs(model.predict_proba(x)) do out[#out + 1] = show(p) end end
  io.write(table.concat(out, "\\t"), "\\n")
end
"""
_LUA_ESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
_LUA_UNESCAPE = re.compile(r"\\([\\tnr])")


def _lua_value(v) -> str:
    if isinstance(v, str):
        return lua_string(v)
    if v != v:
        return "0/0"
    if np.isinf(v):
        return "math.huge" if v > 0 else "-math.huge"
    return repr(float(v))


def lua_outputs(source: str, rows, directory) -> list[list[str]]:
    """Run the module on ``rows`` (lists of numbers or strings); one list of output fields per row."""
    directory = Path(directory)
    (directory / "model.lua").write_text(source)
    (directory / "rows.lua").write_text(
        "return {\n" + ",\n".join("{" + ", ".join(_lua_value(v) for v in row) + "}" for row in rows) + "\n}\n")
    (directory / "runner.lua").write_text(_LUA_RUNNER)
    done = _run(["lua5.1", str(directory / "runner.lua"), str(directory / "model.lua"), str(directory / "rows.lua")],
                text=True)
    return [[_LUA_UNESCAPE.sub(lambda m: _LUA_ESCAPES[m.group(1)], field) for field in line.split("\t")]
            for line in done.stdout.split("\n")[:-1]]


def onnx_outputs(model, rows: np.ndarray) -> dict:
    """Run an ONNX model (a ModelProto or its serialized bytes) with onnxruntime; outputs by name."""
    import onnxruntime as ort

    payload = model if isinstance(model, bytes) else model.SerializeToString()
    session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"X": np.ascontiguousarray(rows, dtype=np.float64)})))


@dataclass(frozen=True)
class Verification:
    """How an exported file's predictions compare with the model's on the same rows."""

    format: str
    runtime: str
    n_rows: int
    n_differ: int
    max_abs_difference: float  # regression; NaN for classifiers
    first_differing_row: int | None

    @property
    def ok(self) -> bool:
        return self.n_differ == 0

    def summary(self) -> str:
        spread = "" if np.isnan(self.max_abs_difference) else f", max |difference| {self.max_abs_difference:.3g}"
        if self.ok:
            return f"all {self.n_rows} predictions equal the model's{spread}"
        return (f"{self.n_differ} of {self.n_rows} predictions differ from the model's{spread}; "
                f"first at row {self.first_differing_row}")


def _exported_predictions(tables, format: str, path: Path, X, name: str | None, integer) -> np.ndarray:
    """The predictions of the exported file at ``path`` (of a model with these tables) on the rows of ``X``,
    computed in its runtime; ``name`` is the C prefix it was written with (default: the file's stem),
    ``integer`` the quantized model of an integer-mode C header."""
    rows = encode_categories(tables, X)
    if format == "json":
        from primo.io import model_from_document

        return np.asarray(model_from_document(json.loads(path.read_text())).predict(X))
    if format == "onnx":
        out = onnx_outputs(path.read_bytes(), rows)
        return out["label"] if tables.is_classifier else out["prediction"]
    with tempfile.TemporaryDirectory(prefix="primo-verify-") as directory:
        if format == "c":
            prefix = identifier(name or path.stem)
            header = path.read_text()
            if integer is not None:
                _check_integer_header(header, prefix, integer.score_scale)
                rows = integer.scale_inputs(rows)  # as the header tells a caller to
            out = c_outputs(header, tables, rows, directory, name=prefix, integer=integer is not None)
            column = 1 if isinstance(tables, TreeTables) or not tables.is_classifier else -1
            values = out[:, column]
            if tables.is_classifier:
                return tables.classes[values.astype(int)]
            return values if integer is None else values / integer.score_scale
        if format == "js":
            return js_outputs(path.read_text(), rows, directory)["predict"]
        if format == "lua":
            return np.asarray([fields[0] for fields in lua_outputs(path.read_text(), rows.tolist(), directory)],
                              dtype=object)
    raise ValueError(f"cannot verify format {format!r}; choose one of {', '.join(RUNTIMES)}")


def _check_integer_header(header: str, prefix: str, score_scale: int) -> None:
    """Refuse to read a header's outputs with another fixed-point scale than it was written with."""
    written = re.search(rf"^#define {prefix.upper()}_SCORE_SCALE (\d+)$", header, flags=re.MULTILINE)
    if written is None:
        raise ExportRuntimeError(f"the header defines no {prefix.upper()}_SCORE_SCALE: it is not an integer-mode "
                                 f"export named {prefix!r}")
    if int(written.group(1)) != score_scale:
        raise ExportRuntimeError(f"the header's score scale is {written.group(1)}, not {score_scale}: pass the "
                                 "scales it was written with")


def verify_export(model, format: str, path, X, *, name: str | None = None, integer=None) -> Verification:
    """Run the exported file at ``path`` in its runtime on ``X`` and compare with ``model.predict(X)``
    (row by row, as :func:`differing_rows` does, within the format's :data:`TOLERANCE`).

    For an integer-mode C header, ``integer`` is the :func:`~primo.export.quantize` model it was written
    with (the same ``feature_scales`` and ``score_scale``): the rows are scaled as its header tells a
    caller to, and a regression prediction may differ by the fixed-point rounding of its score tables
    (``integer.prediction_tolerance``) -- any other difference is a row the integer model gets wrong.

    The file is executed (compiled and run, or imported): verify files Primo wrote, not files of
    unknown origin; a model file of unknown origin is safe to load, an export of it is code.
    """
    if integer is not None and format != "c":
        raise ValueError(f"integer mode is C only, not {format!r}")
    tables = model_tables(model)
    expected = np.asarray(model.predict(X))  # scikit-learn's warning about X's names, when due: here only
    with names_warned_once():  # not again from the JSON export, read back as the same model
        got = np.asarray(_exported_predictions(tables, format, Path(path), X, name, integer))
    if len(got) != len(expected):
        raise ExportRuntimeError(f"the {format} export returned {len(got)} predictions for {len(expected)} rows")
    tolerance = TOLERANCE[format] if integer is None else integer.prediction_tolerance
    wrong, largest = differing_rows(got, expected, classifier=tables.is_classifier, tolerance=tolerance)
    return Verification(format, RUNTIMES[format], len(expected), int(wrong.size), largest,
                        int(wrong[0]) if wrong.size else None)


def differing_rows(got, expected, *, classifier: bool, tolerance: float = 1e-9) -> tuple[np.ndarray, float]:
    """Indices of the rows where ``got`` is not ``expected``, and the largest absolute difference (regression).

    Labels must be equal (compared as numbers when both read as one, else as lower-case text: Lua prints
    booleans as true/false, and a runtime may print the class 1.0 as 1); values within ``tolerance``
    or :data:`RELATIVE_TOLERANCE` of the value (a target of 1e12 carries rounding beyond 1e-9), both
    missing counting as equal.
    """
    if classifier:
        return np.flatnonzero([not _same_label(g, e) for g, e in zip(got, expected)]), float("nan")
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    close = np.isclose(got, expected, rtol=RELATIVE_TOLERANCE, atol=tolerance, equal_nan=True)
    gap = np.abs(got - expected)
    return np.flatnonzero(~close), float(np.nanmax(gap)) if np.isfinite(gap).any() else 0.0


def _same_label(got, expected) -> bool:
    try:
        return float(got) == float(expected)
    except (TypeError, ValueError):
        return str(got).lower() == str(expected).lower()
