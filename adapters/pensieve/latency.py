"""Per-decision inference cost of ABR policies in compiled C and JavaScript (node).

All timings are CPU time of the process that makes the decisions (``CLOCK_PROCESS_CPUTIME_ID`` in
C; ``process.cpuUsage`` in node), mean per decision, best of several passes over the same
decisions: the machine is shared, and wall-clock time there measures the neighbours as much as the
code. Python callables are timed the same way by :func:`primo.models.latency.cpu_us_per_call`.
The C and JavaScript runs also return their decisions, so the caller can check that the exported
code decides exactly as the Python model.

Example
-------
>>> decisions, ns = c_decisions(abr_rule_c(tree), "pensieve_tree_quality", rows)  # doctest: +SKIP
"""
from __future__ import annotations

import json
import logging
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

_C_HARNESS = """\
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "model.h"

int main(void)
{
    long n, i, r, pass;
    double best = 1e300;
    volatile long sink = 0;
    double *x;
    if (fread(&n, sizeof n, 1, stdin) != 1) return 1;
    x = malloc(sizeof *x * n * __WIDTH__);
    if (x == NULL || fread(x, sizeof *x, n * __WIDTH__, stdin) != (size_t)(n * __WIDTH__)) return 1;
    for (i = 0; i < n; i++) printf("%d\\n", __CALL__(x + i * __WIDTH__));
    for (pass = 0; pass < __PASSES__; pass++) {
        struct timespec start, stop;
        long acc = 0;
        double ns;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
        for (r = 0; r < __REPEATS__; r++)
            for (i = 0; i < n; i++) acc += __CALL__(x + i * __WIDTH__);
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &stop);
        sink += acc;
        ns = ((stop.tv_sec - start.tv_sec) * 1e9 + (stop.tv_nsec - start.tv_nsec)) / ((double)n * __REPEATS__);
        if (ns < best) best = ns;
    }
    printf("ns %.3f\\n", best);
    free(x);
    return 0;
}
"""

_JS_HARNESS = """\
import { readFileSync } from "node:fs";
import * as rule from "./rule.mjs";
const inputs = JSON.parse(readFileSync(new URL("./inputs.json", import.meta.url), "utf8"));
const call = rule[process.argv[2]];
const decisions = inputs.map((input) => call(input));
let best = Infinity, sink = 0;
for (let pass = 0; pass < __PASSES__; pass++) {
  const start = process.cpuUsage();
  for (let r = 0; r < __REPEATS__; r++) for (const input of inputs) sink += call(input);
  const used = process.cpuUsage(start);
  best = Math.min(best, ((used.user + used.system) * 1e3) / (inputs.length * __REPEATS__));
}
console.log(JSON.stringify({decisions, ns: best, sink}));
"""


def c_decisions(header: str, function: str, rows: np.ndarray, *, repeats: int = 20,
                passes: int = 5) -> tuple[np.ndarray, float] | None:
    """Compile ``header`` with gcc -O2, call ``function(const double *row)`` (returning an int) on every
    row; returns (decisions, ns per call), or None when gcc is not installed.

    Example
    -------
    >>> decisions, ns = c_decisions(abr_rule_c(tree), "pensieve_tree_quality", rows)  # doctest: +SKIP
    """
    compiler = shutil.which("gcc")
    if compiler is None:
        logger.warning("gcc not found: C latency not measured")
        return None
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    source = (_C_HARNESS.replace("__WIDTH__", str(rows.shape[1])).replace("__CALL__", function)
              .replace("__REPEATS__", str(int(repeats))).replace("__PASSES__", str(int(passes))))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "model.h").write_text(header)
        (work / "harness.c").write_text(source)
        _checked([compiler, "-std=c99", "-O2", "-Wall", "-Werror", "-o", str(work / "harness"),
                  str(work / "harness.c")])
        output = _checked([str(work / "harness")], np.int64(len(rows)).tobytes() + rows.tobytes())
    lines = output.decode().split()
    if lines[-2] != "ns":
        raise RuntimeError(f"unexpected output of the C harness: {lines[-4:]}")
    return np.array(lines[:-2], dtype=int), float(lines[-1])


def js_decisions(module_source: str, function: str, inputs: list, *, repeats: int = 20,
                 passes: int = 5) -> tuple[np.ndarray, float] | None:
    """Run ``function(input)`` of an ES module in node for every input (JSON-able values); returns
    (decisions, ns per call), or None when node is not installed.

    Example
    -------
    >>> decisions, ns = js_decisions(abr_rule_js(tree), "chooseQuality", metrics_list)  # doctest: +SKIP
    """
    node = shutil.which("node")
    if node is None:
        logger.warning("node not found: JavaScript latency not measured")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "rule.mjs").write_text(module_source)
        (work / "inputs.json").write_text(json.dumps(inputs))
        (work / "bench.mjs").write_text(_JS_HARNESS.replace("__REPEATS__", str(int(repeats)))
                                        .replace("__PASSES__", str(int(passes))))
        answer = json.loads(_checked([node, str(work / "bench.mjs"), function]))
    return np.array(answer["decisions"], dtype=int), float(answer["ns"])


def _checked(command: list[str], stdin: bytes | None = None) -> bytes:
    """Run ``command``; its stdout, or a RuntimeError carrying its stderr."""
    result = subprocess.run(command, input=stdin, capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed (exit {result.returncode}): "
                           f"{result.stderr.decode(errors='replace').strip()[-2000:]}")
    return result.stdout
