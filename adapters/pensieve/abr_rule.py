"""The distilled tree as code a video player calls: a JavaScript ABR rule module and a C header.

JavaScript (:func:`abr_rule_js`): :func:`primo.export.to_js`'s ES module of the tree, plus
``observation(metrics)`` and ``chooseQuality(metrics)``, which take the player's metrics under the
names below and return the quality index (0..5) of the next chunk. A dash.js custom rule (a class
registered with ``player.addABRCustomRule``) calls ``chooseQuality`` from its switch-request method
with metrics read from dash.js's ``DashMetrics`` and its own throughput history.

================================  =============================================================
metrics field                     meaning (the units the tree was trained in)
================================  =============================================================
``lastBitrateKbps``               bitrate of the chunk just downloaded
``bufferLevelS``                  buffer level after it, seconds
``throughputsMBps``               recent chunk throughputs, newest first, bytes / download ms
                                  / 1000 (the download time includes the request's RTT); up
                                  to 8 used, missing ones count as 0 as before a video starts
``downloadTimesS``                recent chunk download times (s, RTT included), newest first
``nextChunkSizesBytes``           size of the next chunk at each of the 6 qualities
``chunksLeft``                    chunks not downloaded yet
================================  =============================================================

C (:func:`abr_rule_c`): :func:`primo.export.to_c`'s header plus ``NAME_quality(x)``, the quality
index for one row ``x`` in the order of :data:`~adapters.pensieve.student.STUDENT_FEATURES`.

Example
-------
>>> open("pensieve_tree.mjs", "w").write(abr_rule_js(tree))  # doctest: +SKIP
>>> # import { chooseQuality } from "./pensieve_tree.mjs"; chooseQuality({lastBitrateKbps: 1850, ...})
"""
from __future__ import annotations

import json

import numpy as np

from primo.export import model_tables, to_c, to_js

from adapters.pensieve.observation import (
    BUFFER_LAGS, CHUNKS_LEFT, DOWNLOAD_TIME_LAGS, FEATURE_INDEX, NEXT_SIZES, THROUGHPUT_LAGS,
)
from adapters.pensieve.state import S_LEN
from adapters.pensieve.student import STUDENT_FEATURES
from adapters.pensieve.video import BITRATES_KBPS, N_LEVELS

_LAST_BITRATE = FEATURE_INDEX["last_bitrate_kbps"]

_JS_RULE = """\

// ---------------------------------------------------------------------------------------------
// ABR rule interface (adapters.pensieve.abr_rule): the player's metrics -> quality index 0..5.
// metrics = {lastBitrateKbps, bufferLevelS, throughputsMBps[], downloadTimesS[] (newest first,
//            up to 8), nextChunkSizesBytes[6], chunksLeft}. Sketch of a dash.js custom rule:
//   getSwitchRequest(rulesContext) {
//     const request = SwitchRequest(context).create();
//     request.quality = chooseQuality(metricsFromDashJs(rulesContext));  // your own glue
//     request.reason = {rule: "PrimoPensieveTree"};
//     return request;
//   }
export const bitratesKbps = __BITRATES__;
export const historyLength = __HISTORY__;

function history(values, name) {
  if (!Array.isArray(values)) throw new TypeError(`metrics.${name} must be an array, newest first`);
  const out = new Array(historyLength).fill(0);  // chunks before the video started count as 0
  for (let k = 0; k < Math.min(historyLength, values.length); k++) out[k] = Number(values[k]);
  return out;
}

function scalar(metrics, name) {
  const v = metrics[name];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new TypeError(`metrics.${name} must be a finite number`);
  return v;
}

// The tree's input row (featureNames order) from the player's metrics.
export function observation(metrics) {
  const sizes = metrics.nextChunkSizesBytes;
  if (!Array.isArray(sizes) || sizes.length !== bitratesKbps.length) {
    throw new TypeError(`metrics.nextChunkSizesBytes must hold ${bitratesKbps.length} sizes, one per quality`);
  }
  return [
    scalar(metrics, "lastBitrateKbps"),
    scalar(metrics, "bufferLevelS"),
    ...history(metrics.throughputsMBps, "throughputsMBps"),
    ...history(metrics.downloadTimesS, "downloadTimesS"),
    ...sizes.map((bytes) => Number(bytes) / 1000 / 1000),
    scalar(metrics, "chunksLeft"),
  ];
}

// Quality index (0..5) of the next chunk.
export function chooseQuality(metrics) {
  return predict(observation(metrics));
}
"""


def _check_student(model) -> None:
    tables = model_tables(model)
    if tuple(tables.feature_names) != STUDENT_FEATURES:
        raise ValueError(
            "the ABR rule needs a tree fit on the student features (adapters.pensieve.student.STUDENT_FEATURES) "
            f"in that order; this model has {tables.feature_names[:4]}..."
        )
    if not tables.is_classifier or not set(np.asarray(tables.classes).tolist()) <= set(range(N_LEVELS)):
        raise ValueError(f"the ABR rule needs a classifier over quality levels 0..{N_LEVELS - 1}")


def abr_rule_js(model) -> str:
    """ES-module source: the tree (:func:`primo.export.to_js`) plus ``observation``/``chooseQuality``.

    Parameters
    ----------
    model : fitted PrDTClassifier over :data:`~adapters.pensieve.student.STUDENT_FEATURES`
        predicting quality levels.

    Raises
    ------
    ValueError
        If the model was fit on other features or does not predict quality levels.

    Example
    -------
    >>> source = abr_rule_js(tree)  # doctest: +SKIP
    """
    _check_student(model)
    rule = _JS_RULE.replace("__BITRATES__", json.dumps(list(BITRATES_KBPS))).replace("__HISTORY__", str(S_LEN))
    return to_js(model) + rule


def abr_rule_c(model, *, name: str = "pensieve_tree") -> str:
    """C99 header: :func:`primo.export.to_c` (float mode) plus ``int NAME_quality(const double *x)``.

    Example
    -------
    >>> open("pensieve_tree.h", "w").write(abr_rule_c(tree))  # doctest: +SKIP
    """
    _check_student(model)
    header = to_c(model, name=name)
    guard_end = header.rstrip().rsplit("\n", 1)
    if len(guard_end) != 2 or not guard_end[1].startswith("#endif"):
        raise RuntimeError("unexpected layout of primo.export.to_c output: no closing include guard")
    classes = [int(c) for c in model_tables(model).classes]
    quality = (
        f"/* Quality index (0..{N_LEVELS - 1}) of the next chunk: the label of {name}_predict's class. */\n"
        f"static const int {name}_quality_of_class[{len(classes)}] = {{{', '.join(map(str, classes))}}};\n\n"
        f"static inline int {name}_quality(const double *x)\n{{\n"
        f"    return {name}_quality_of_class[{name}_predict(x)];\n}}\n\n"
    )
    return guard_end[0] + "\n" + quality + guard_end[1] + "\n"


def metrics_from_observation(obs: np.ndarray) -> dict:
    """The player metrics (:func:`abr_rule_js`'s ``metrics``) that one 41-feature observation stands for.

    Example
    -------
    >>> metrics_from_observation(env.reset()[0])["lastBitrateKbps"]  # doctest: +SKIP
    750.0
    """
    obs = np.asarray(obs, dtype=float)
    return {
        "lastBitrateKbps": float(obs[_LAST_BITRATE]),
        "bufferLevelS": float(obs[BUFFER_LAGS[0]]),
        "throughputsMBps": obs[THROUGHPUT_LAGS].tolist(),
        "downloadTimesS": obs[DOWNLOAD_TIME_LAGS].tolist(),
        # Back to whole bytes: the observation holds bytes / 1000 / 1000.
        "nextChunkSizesBytes": np.round(obs[NEXT_SIZES] * 1e6).astype(int).tolist(),
        "chunksLeft": int(obs[CHUNKS_LEFT]),
    }
