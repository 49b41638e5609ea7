"""Run exported models the way users would: gcc-compiled C, node, lua5.1, onnxruntime. Plus edge-case rows."""
import json
import re
import subprocess
import textwrap

import numpy as np
import onnxruntime as ort
import pandas as pd

from primo.export.codegen import lua_string
from primo.export.tables import AdditiveTables, TreeTables

GCC = ["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]


def c_outputs(header: str, tables, rows: np.ndarray, tmp_path, *, name: str, integer: bool = False) -> np.ndarray:
    """Compile ``header`` with a driver and return one output row per input row.

    Columns — PrDT: leaf, predict[, probabilities…]; PrAM: scores…, predict (class index or value).
    """
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
    (tmp_path / f"{name}.h").write_text(header)
    (tmp_path / f"{name}_driver.c").write_text(driver)
    binary = tmp_path / f"{name}_driver"
    compiled = subprocess.run(GCC + [str(tmp_path / f"{name}_driver.c"), "-o", str(binary)], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    dtype = np.int64 if integer else np.float64
    payload = np.int64(len(rows)).tobytes() + np.ascontiguousarray(rows, dtype=dtype).tobytes()
    result = subprocess.run([str(binary)], input=payload, capture_output=True, check=True)
    return np.frombuffer(result.stdout, dtype=dtype).reshape(len(rows), n_out)


_JS_RUNNER = """\
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


def js_outputs(source: str, rows: np.ndarray, tmp_path) -> dict:
    """Run the ES module with node on ``rows``; dict of arrays predict/proba/decision/leaf."""
    module, runner, data = tmp_path / "model.mjs", tmp_path / "runner.mjs", tmp_path / "rows.json"
    module.write_text(source)
    runner.write_text(_JS_RUNNER)
    data.write_text(json.dumps([[v if np.isfinite(v) else repr(v) for v in row] for row in np.asarray(rows).tolist()]))
    result = subprocess.run(["node", str(runner), str(module), str(data)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
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


def _lua_value(v) -> str:
    if isinstance(v, str):
        return lua_string(v)
    if v != v:
        return "0/0"
    if np.isinf(v):
        return "math.huge" if v > 0 else "-math.huge"
    return repr(float(v))


def lua_outputs(source: str, rows, tmp_path) -> list[list[str]]:
    """Run the module on ``rows`` (lists of numbers or strings); one list of output fields per row."""
    (tmp_path / "model.lua").write_text(source)
    (tmp_path / "rows.lua").write_text(
        "return {\n" + ",\n".join("{" + ", ".join(_lua_value(v) for v in row) + "}" for row in rows) + "\n}\n")
    (tmp_path / "runner.lua").write_text(_LUA_RUNNER)
    done = subprocess.run(["lua5.1", str(tmp_path / "runner.lua"), str(tmp_path / "model.lua"), str(tmp_path / "rows.lua")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [[_LUA_UNESCAPE.sub(lambda m: _LUA_ESCAPES[m.group(1)], field) for field in line.split("\t")]
            for line in done.stdout.split("\n")[:-1]]


_LUA_ESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
_LUA_UNESCAPE = re.compile(r"\\([\\tnr])")


def onnx_outputs(model_proto, rows: np.ndarray) -> dict:
    session = ort.InferenceSession(model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"X": np.ascontiguousarray(rows, dtype=np.float64)})))


# --------------------------------------------------------------------------- edge cases


def edge_rows(tables, base: np.ndarray) -> np.ndarray:
    """Rows probing every split: values at, just below and just above each threshold or bin edge
    (in float64 and float32), NaN, far out of range, and unseen categories, on a few real rows."""
    specials: dict[int, list[float]] = {j: [np.nan, -1e30, 1e30] for j in range(tables.n_features)}
    if isinstance(tables, TreeTables):
        for node in np.flatnonzero(tables.left != -1):
            t = tables.threshold[node]
            if not np.isfinite(t):  # a missing-values-only split ("x <= inf")
                continue
            t32 = np.float32(t)
            specials[int(tables.feature[node])] += [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), float(t32),
                                                    float(np.nextafter(t32, np.float32(np.inf))),
                                                    float(np.nextafter(t32, np.float32(-np.inf)))]
    else:
        for binning in tables.binnings:
            if binning.is_categorical:
                values = binning.categories
                specials[binning.feature] += [*values, -1.0, values.max() + 1, values.min() + 0.5, -np.inf, np.inf]
            else:
                for c in binning.cuts:
                    specials[binning.feature] += [c, np.nextafter(c, -np.inf)]
                specials[binning.feature] += [-np.inf, np.inf]
    rows = []
    for base_row in base:
        for j, values in specials.items():
            for v in values:
                row = base_row.copy()
                row[j] = v
                rows.append(row)
    return np.asarray(rows, dtype=np.float64)


def decoded_frame(tables: AdditiveTables, rows: np.ndarray) -> pd.DataFrame:
    """Encoded PrAM rows back as the DataFrame the Python model takes (codes → text, bad codes → unseen)."""
    frame = pd.DataFrame(rows, columns=tables.feature_names)
    for j, vocabulary in tables.vocabularies.items():
        def text(code):
            if code != code:
                return None
            if 0 <= code < len(vocabulary) and code == int(code):
                return vocabulary[int(code)]
            return "<unseen>"
        frame[tables.feature_names[j]] = pd.Series([text(v) for v in rows[:, j]], dtype=object)
    return frame
