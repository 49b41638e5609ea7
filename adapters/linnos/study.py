"""The phase-2 measurements of the LinnOS case study, one trace and one history mode at a time.

``study_trace`` takes one FlashNet trace (or LinnOS's own training data, ``load_reads``) and
measures, on its last 20% of reads (by time; the first 80% train, p85 slow threshold from the
training reads):

* classification (false submit / false revoke rate, slow F1) of LinnOS (biased 31-256-1 network),
  Primo-E and Primo-P (searched PrDTs, ``primo_models.search_tree``), the unpruned tree (the "no
  Bayesian optimization" ablation) and, in full studies, the network distilled into PrDTs with
  hard and soft labels (``primo_models.distill_tree``);
* training time (wall and CPU seconds) of each model;
* each model's C cost per prediction (LinnOS: the 16-bit integer network of ``c_inference``;
  Primo: ``primo.export.to_c(..., integer=True)``), timed by ``c_inference.measure_c_predictor``;
* quantization: the integer C trees' answers against the float trees', and the LinnOS network at
  16 and 8 bits against the float one;
* robustness: the test features with the Primo chapter's Gaussian noise, averaged over seeds;
* in full studies, training on a stratified 10% of the training reads (Primo re-searched there).

``simulate`` replays each trace as the primary of 3-device arrays (``simulator``) with every
model as a failover policy, and ``generalization`` scores every trace's models on every other
trace's test reads.

Example
-------
>>> result, models = study_trace(path, "completed", Settings(), full=True)  # doctest: +SKIP
>>> result["models"]["Primo-E"]["f1_slow"]  # doctest: +SKIP
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from primo import PrDTClassifier

from .c_inference import linnos_net_c_source, measure_c_predictor, primo_tree_c_source
from .evaluate import split_by_time
from .features import RAW_FEATURE_NAMES, label_slow, read_features, slow_threshold
from .linnos_net import LinnOSNet
from .metrics import classification_summary
from .primo_models import VARIANTS, TreePredictor, distill_tree, search_tree, slow_weights, tree_structure
from .robustness import add_feature_noise, subsample_training
from .simulator import (BASE, N_ARRAY_DEVICES, FailoverPolicy, OraclePredictor, ReplicaDevice, array_members,
                        simulate_array)
from .trace import load_trace
from .training_data import is_training_data, load_training_data

logger = logging.getLogger(__name__)

LABEL_RULE = "p85"  # the Primo chapter's LinnOS setting
LINNOS_WEIGHT_BITS = (16, 8)
DISTILLED = {"Primo-D (hard)": "hard", "Primo-D (soft)": "soft"}


@dataclass(frozen=True)
class Settings:
    """Budget of a run (the defaults are the full study).

    ``epochs``: LinnOS training epochs (the paper's 50). ``n_trials``: Bayesian search trials per
    tree. ``max_reads``: keep only the first reads of each trace (quick runs). ``noise_seeds``:
    noise draws averaged in the robustness test. ``c_passes``: timed passes over the test reads.
    """

    epochs: int = 50
    n_trials: int = 20
    max_reads: int | None = None
    noise_seeds: int = 3
    c_passes: int = 21
    seed: int = 0


@dataclass
class TraceModels:
    """What the array simulation and the cross-trace test need from one studied trace."""

    name: str
    test: pd.DataFrame
    threshold_us: float
    predictors: dict  # policy name -> predictor used in the simulator (LinnOS: its integer network)
    cost_us: dict  # policy name -> measured C cost of one prediction (µs)
    scorers: dict  # model name -> predictor scored in the tables (LinnOS: the float network)
    trees: dict = field(default_factory=dict)  # Primo model name -> fitted PrDT


def study_trace(path: Path, history: str, settings: Settings, *, full: bool = True) -> tuple[dict, TraceModels]:
    """Measure one trace (see the module docstring); returns the JSON-ready result and the models.

    ``full=False`` skips distillation and the 10%-training experiment (used for the
    artifact-style history, a comparison only).
    """
    reads = load_reads(path, history)
    if settings.max_reads:
        reads = reads.iloc[: settings.max_reads]
    train, test = split_by_time(reads)
    threshold = slow_threshold(train["latency_us"], LABEL_RULE)
    X_train, X_test = train[RAW_FEATURE_NAMES], test[RAW_FEATURE_NAMES]
    y_train, y_test = label_slow(train["latency_us"], threshold), label_slow(test["latency_us"], threshold)
    result: dict = {
        "trace": path.name, "history": history, "format": "linnos-training-data" if is_training_data(path) else "trace",
        "n_reads": len(reads), "n_train": len(train), "n_test": len(test),
        "threshold_us": threshold, "inflection_us": slow_threshold(train["latency_us"], "inflection"),
        "test_slow_fraction": float(y_test.mean()),
        "queue_length": queue_length_signal(train["pending_now"], y_train),
    }
    logger.info("%s (%s history): %d reads, p85 threshold %.0f µs", path.name, history, len(reads), threshold)

    net = LinnOSNet(epochs=settings.epochs, random_state=settings.seed).fit(X_train, y_train)
    trees = {name: search_tree(X_train, y_train, lam=lam, n_trials=settings.n_trials, random_state=settings.seed)
             for name, lam in VARIANTS.items()}
    if full:
        for name, labels in DISTILLED.items():
            trees[name] = distill_tree(net, X_train, X_test, y_test, labels=labels, lam=VARIANTS["Primo-P"],
                                       n_trials=settings.n_trials, random_state=settings.seed)
    scorers = {"LinnOS": net, **{name: TreePredictor(tree) for name, tree in trees.items()}}
    result["models"] = {name: classification_summary(y_test, model.predict(X_test)) for name, model in scorers.items()}
    result["models"]["LinnOS"].update(parameters=_n_parameters(net), slow_weight=net.slow_weight, epochs=net.epochs)
    for name, tree in trees.items():
        result["models"][name].update(tree_structure(tree), ccp_alpha=float(tree.ccp_alpha))
        if "distillation" in tree.metadata_:
            record = tree.metadata_["distillation"]
            result["models"][name].update(fidelity=record["fidelity"], labels=record["labels"])
    result["no_search"] = _unpruned_tree(X_train, y_train, X_test, y_test, settings.seed)
    result["training"] = _training_times(net, trees, X_train, y_train, settings.seed)

    inference, quantization, linnos_q16 = _c_costs(net, trees, X_test, y_test, settings.c_passes)
    result["inference_ns"], result["quantization"] = inference, quantization
    result["robustness"] = _robustness(scorers, X_test, y_test, settings)
    if full:
        result["train_10pct"] = _less_data(X_train, y_train, X_test, y_test, settings)

    predictors = {"LinnOS": linnos_q16, **{name: scorers[name] for name in trees}}
    cost_us = {name: inference[name]["median_ns"] / 1000 for name in predictors}
    models = TraceModels(path.name, test, threshold, predictors, cost_us, scorers, trees)
    return result, models


def load_reads(path: Path, history: str) -> pd.DataFrame:
    """One row per read with ``latency_us`` and the raw features, from a trace or LinnOS training data.

    A FlashNet-format trace gives ``submit_us`` too (``features.read_features``); LinnOS's own
    training data (``training_data``, detected by its digit lines) has no times and holds the
    ``completed`` history only.

    Example
    -------
    >>> load_reads(Path("mldrive0.csv"), "completed").columns[:2].tolist()  # doctest: +SKIP
    ['latency_us', 'pending_now']
    """
    if not is_training_data(path):
        return read_features(load_trace(path), history=history)
    if history != "completed":
        raise ValueError(f"{path} is LinnOS training data, whose history is the reads completed last; the "
                         f"{history!r} history cannot be computed from it (use --history completed)")
    return load_training_data(path)


def queue_length_signal(pending_now, y) -> dict:
    """How much the current queue length says about slowness: its spread, and the slow share per group.

    Groups are cut at the queue length's quartiles (``x <= q25``, ``q25 < x <= q50``...); many reads
    share the same length near the replayer's cap (~64), so tied quartiles merge groups and a group
    can hold more than a quarter of the reads. Empty groups are left out.

    Example
    -------
    >>> groups = queue_length_signal(np.arange(8), np.array([0, 0, 0, 0, 0, 1, 1, 1]))["groups"]
    >>> [(g["max_pending"], g["slow_fraction"]) for g in groups]
    [(1.0, 0.0), (3.0, 0.0), (5.0, 0.5), (7.0, 1.0)]
    """
    pending = np.asarray(pending_now, dtype=float)
    y = np.asarray(y)
    edges = np.unique(np.quantile(pending, [0.25, 0.5, 0.75]))
    group = np.digitize(pending, edges, right=True)
    groups = [{"max_pending": float(pending[group == k].max()), "share_of_reads": float(np.mean(group == k)),
               "slow_fraction": float(y[group == k].mean())}
              for k in range(len(edges) + 1) if np.any(group == k)]
    return {
        "percentiles": {f"p{q}": float(v) for q, v in zip((10, 50, 90), np.percentile(pending, (10, 50, 90)))},
        "groups": groups,
    }


def _n_parameters(net: LinnOSNet) -> int:
    return int(sum(w.size for w in net.mlp_.coefs_) + sum(b.size for b in net.mlp_.intercepts_))


def _unpruned_tree(X_train, y_train, X_test, y_test, seed: int) -> dict:
    """The ablation without Bayesian optimization: the same biased tree, grown fully, not pruned."""
    tree = PrDTClassifier(random_state=seed).fit(X_train, y_train, sample_weight=slow_weights(y_train))
    return {**classification_summary(y_test, tree.predict(X_test)), **tree_structure(tree),
            "nodes": int(tree.tree_.node_count)}


def _training_times(net: LinnOSNet, trees: dict, X_train, y_train, seed: int) -> dict:
    """Wall/CPU seconds: the network's 50 epochs; each tree's whole search, and one final fit alone."""
    times = {"LinnOS": {"train_s": net.fit_time_s_, "train_cpu_s": net.fit_cpu_time_s_}}
    for name in VARIANTS:
        tree = trees[name]
        cpu = time.process_time()
        PrDTClassifier(ccp_alpha=tree.ccp_alpha, random_state=seed).fit(
            X_train, y_train, sample_weight=slow_weights(y_train))
        times[name] = {"search_s": tree.metadata_["training"]["search_s"],
                       "search_cpu_s": tree.metadata_["training"]["search_cpu_s"],
                       "fit_cpu_s": time.process_time() - cpu,
                       "n_trials": len(tree.metadata_["search"]["trials"])}
    for name, tree in trees.items():
        if "distillation" in tree.metadata_:
            times[name] = {"distill_s": tree.metadata_["distillation"]["iterations"][-1]["seconds"]}
    return times


def _c_costs(net: LinnOSNet, trees: dict, X_test, y_test, passes: int):
    """C cost per prediction of every model, and what integer arithmetic changes in their answers."""
    float_answers = net.predict(X_test)
    inference, quantization = {}, {"LinnOS": {"float": classification_summary(y_test, float_answers)}}
    quantized = {bits: net.quantize(weight_bits=bits) for bits in LINNOS_WEIGHT_BITS}
    for bits, qnet in quantized.items():
        answers = qnet.predict(X_test)
        quantization["LinnOS"][f"int{bits}"] = {
            **classification_summary(y_test, answers), "answers_changed": int(np.sum(answers != float_answers))}
    timing = measure_c_predictor(linnos_net_c_source(quantized[16]), X_test, passes=passes)
    inference["LinnOS"] = _timing_record(timing, quantized[16].predict(X_test), "16-bit integer network")
    for name, tree in trees.items():
        source = primo_tree_c_source(tree, name="primo_tree", check_data=X_test)
        timing = measure_c_predictor(source, X_test, passes=passes)
        answers = TreePredictor(tree).predict(X_test)
        inference[name] = _timing_record(timing, answers, "primo.export.to_c(integer=True)")
        quantization[name] = {
            "float": classification_summary(y_test, answers),
            "integer_c": classification_summary(y_test, timing.predictions),
            "answers_changed": int(np.sum(timing.predictions != answers)),
        }
    return inference, quantization, quantized[16]


def _timing_record(timing, expected: np.ndarray, what: str) -> dict:
    return {"median_ns": timing.ns_per_prediction, "min_ns": timing.min_ns_per_prediction, "model": what,
            "c_matches_python": bool(np.array_equal(timing.predictions, expected))}


def _robustness(scorers: dict, X_test, y_test, settings: Settings) -> dict:
    """Clean vs noisy test features (σ = 5 queue lengths, σ = 100 µs latencies), mean over seeds."""
    noisy = [add_feature_noise(X_test, random_state=settings.seed + k) for k in range(settings.noise_seeds)]
    out = {}
    for name, model in scorers.items():
        runs = pd.DataFrame([classification_summary(y_test, model.predict(X)) for X in noisy])
        out[name] = {"clean": classification_summary(y_test, model.predict(X_test)),
                     "noisy": runs.mean().to_dict(), "noisy_std": runs.std(ddof=0).to_dict(),
                     "n_seeds": settings.noise_seeds}
    return out


def _less_data(X_train, y_train, X_test, y_test, settings: Settings) -> dict:
    """Every model retrained (Primo: re-searched) on a stratified 10% of the training reads."""
    X_small, y_small = subsample_training(X_train, y_train, fraction=0.1, random_state=settings.seed)
    order = np.argsort(X_small.index.to_numpy())  # back to submit order for the time-ordered validation
    X_small, y_small = X_small.iloc[order], np.asarray(y_small)[order]
    models = {"LinnOS": LinnOSNet(epochs=settings.epochs, random_state=settings.seed).fit(X_small, y_small)}
    for name, lam in VARIANTS.items():
        models[name] = search_tree(X_small, y_small, lam=lam, n_trials=settings.n_trials, random_state=settings.seed)
    out = {"n_train": len(X_small)}
    for name, model in models.items():
        out[name] = classification_summary(y_test, model.predict(X_test))
        if name != "LinnOS":
            out[name].update(tree_structure(model))
    return out


# --------------------------------------------------------------------------- across traces


def simulate(devices: list[TraceModels], layouts=("traces", "shifted")) -> dict:
    """Latency of every policy on each trace's arrays: ``{layout: {trace: {policy: summary}}}``.

    Policies: Base, one per model (each device asks its own model; every prediction costs the
    mean measured C cost over the array's devices), and Oracle (perfect knowledge of each
    device's p85 label: what a perfect p85 classifier would do, not a latency bound).
    """
    out: dict = {layout: {} for layout in layouts}
    names = list(devices[0].predictors)
    for i, primary in enumerate(devices):
        for layout in layouts:
            members = array_members(devices, i, layout, N_ARRAY_DEVICES)
            array = [ReplicaDevice(f"{d.name}+{offset}us", d.test, offset) for d, offset in members]
            policies = [BASE] + [
                FailoverPolicy(name, [d.predictors[name] for d, _ in members],
                               float(np.mean([d.cost_us[name] for d, _ in members])))
                for name in names
            ] + [FailoverPolicy("Oracle", [OraclePredictor(d.test, d.threshold_us) for d, _ in members])]
            results = simulate_array(array, policies)
            out[layout][primary.name] = {"devices": [device.name for device in array],
                                         **{name: r.summary() for name, r in results.items()}}
    return out


def generalization(devices: list[TraceModels]) -> dict:
    """Each trace's models scored on every trace's test reads (labelled with that trace's threshold).

    Returns ``{"traces": [names], "models": {model: {metric: matrix}}}`` where
    ``matrix[i][j]`` is the model trained on trace ``i`` tested on trace ``j``.
    """
    metrics = ("f1_slow", "false_submit_rate", "false_revoke_rate")
    out: dict = {"traces": [d.name for d in devices], "models": {}}
    for name in devices[0].scorers:
        tables = {metric: [[0.0] * len(devices) for _ in devices] for metric in metrics}
        for i, source in enumerate(devices):
            for j, target in enumerate(devices):
                y = label_slow(target.test["latency_us"], target.threshold_us)
                scores = classification_summary(y, source.scorers[name].predict(target.test[RAW_FEATURE_NAMES]))
                for metric in metrics:
                    tables[metric][i][j] = scores[metric]
        out["models"][name] = tables
    return out
