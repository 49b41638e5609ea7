"""``primo casestudy pensieve``: distil Pensieve's actor into a PrDT and measure it against the actor,
a Metis-style tree and the classic ABR algorithms.

Steps (all on the shared data; nothing is copied):

1. VIPER distillation of the actor into a PrDT over the 25 student features, with Bayesian search of
   the pruning, on the 142 HSDPA traces only (:mod:`adapters.pensieve.distillation`);
2. the Metis-style baseline: a 273-leaf CART tree fit once on the actor's own HSDPA decisions;
3. average linear QoE (per trace: mean reward of chunks 1..47; then the mean over traces) of every
   policy on HSDPA (the training traces) and FCC (never used in training);
4. model size (tree nodes vs actor parameters) and per-decision CPU time of the actor (numpy), the
   trees in Python (scikit-learn ``predict``, Primo's ``compile_python`` fast path), in C and in
   JavaScript (node), with the exported code's decisions checked against the model's;
5. outputs in ``--out``: ``results.json``, ``README.md`` (tables), ``report.html`` (Primo's
   interpretation report of the tree with the case-study results and figures on top),
   ``timeline.svg`` and ``qoe_cdf.svg``, the tree as ``pensieve_tree.primo`` (model file),
   ``pensieve_tree.mjs`` (JavaScript ABR rule), ``pensieve_tree.h`` (C) and ``pensieve_tree.txt``.

Run: ``primo casestudy pensieve --data-dir ../shared/data --out reports/pensieve`` (2-6 minutes
on 2 busy cores; ``--quick`` is a smoke run on a few traces, well under a minute). ``primo -v ...``
logs each step.
"""
from __future__ import annotations

import argparse
import json
import logging
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

import primo
from primo.datasets import resolve_data_dir
from primo.export import compile_python, to_c
from primo.io import atomic_write_bytes
from primo.models.latency import cpu_us_per_call

from adapters.pensieve.abr_rule import abr_rule_c, abr_rule_js, metrics_from_observation
from adapters.pensieve.actor import load_actor
from adapters.pensieve.baselines import BolaPolicy, BufferBasedPolicy, RateBasedPolicy, RobustMPCPolicy
from adapters.pensieve.casestudy_docs import METIS, PRIMO, RL, write_html_report, write_readme
from adapters.pensieve.compare_policies import PUBLISHED
from adapters.pensieve.distillation import distill_actor
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.evaluation import play_traces
from adapters.pensieve.figures import Timeline, qoe_cdf_figure, timeline_figure
from adapters.pensieve.golden import golden_qoe, load_golden_logs
from adapters.pensieve.latency import c_decisions, js_decisions
from adapters.pensieve.metis import TreePolicy, collect_teacher_rollouts, fit_metis_tree
from adapters.pensieve.observation import states_from_observations
from adapters.pensieve.student import DROPPED_FEATURES, STUDENT_FEATURES, StudentPolicy, student_view
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.traces import load_trace_set
from adapters.pensieve.video import load_video

logger = logging.getLogger(__name__)

QOE_DEFINITION = (
    "linear QoE of a chunk = bitrate Mbps − 4.3 × rebuffering s − |bitrate change| Mbps; the QoE of a trace "
    "is the mean over chunks 1..47 (chunk 0 is fetched at 750 kbps before any decision); a trace set's "
    "QoE is the mean over its traces"
)
TIMELINE_POLICIES = ("BB", "robustMPC", RL, METIS, PRIMO)


@dataclass(frozen=True)
class Settings:
    """How much work a run does (the full run and ``--quick`` differ only here)."""

    n_iterations: int = 10
    episodes_per_iteration: int = 60
    n_trials: int = 12
    lam: float = 1e-5
    eval_traces: int | None = None  # traces scoring each VIPER iteration (None: all HSDPA)
    hsdpa_traces: int | None = None  # evaluation subsets (None: all)
    fcc_traces: int | None = None
    latency_decisions: int = 2000
    latency_repeats: int = 20
    seed: int = 0


FULL = Settings()
QUICK = Settings(n_iterations=2, episodes_per_iteration=6, n_trials=4, eval_traces=6, hsdpa_traces=10,
                 fcc_traces=10, latency_decisions=200, latency_repeats=2)


def _policies(actor, video, tree, metis) -> dict[str, Callable]:
    """Fresh-policy factories by label (stateful policies must start anew on each trace set)."""
    return {
        PRIMO: lambda: StudentPolicy(tree),
        RL: lambda: ActorTeacher(actor),
        "Pensieve RL (sampled, seed 42)": lambda: ActorTeacher(actor, np.random.RandomState(42)),
        METIS: lambda: TreePolicy(metis),
        "robustMPC": lambda: RobustMPCPolicy(video),
        "BB": BufferBasedPolicy,
        "RB": RateBasedPolicy,
        "BOLA": BolaPolicy,
    }


def _published(label: str, trace_set: str) -> float | None:
    key = {PRIMO: "Primo tree", RL: "RL", METIS: "Metis"}.get(label, label)
    return PUBLISHED[trace_set].get(key)


def evaluate(policies: dict[str, Callable], trace_sets: dict, video) -> dict:
    """Per-trace QoE of every policy on every trace set (traces played back to back, one policy
    object per set, as Pensieve's test scripts do)."""
    results = {}
    for set_name, traces in trace_sets.items():
        results[set_name] = {}
        for label, make_policy in policies.items():
            start = time.perf_counter()
            runs = play_traces(make_policy(), traces, video)
            qoe = {run.trace_name: run.qoe for run in runs}
            results[set_name][label] = {
                "mean_qoe": float(np.mean(list(qoe.values()))),
                "median_qoe": float(np.median(list(qoe.values()))),
                "published": _published(label, set_name),
                "per_trace": qoe,
            }
            logger.info("%s %-32s QoE %.4f (%.1f s)", set_name, label, results[set_name][label]["mean_qoe"],
                        time.perf_counter() - start)
    return results


def measure_latency(actor, tree, metis, observations: np.ndarray, settings: Settings) -> dict:
    """Per-decision CPU time (µs) of each way to decide, on states the actor visited; the exported
    C and JavaScript decisions are compared with the Python model's."""
    obs = observations[: settings.latency_decisions]
    rows = student_view(obs)
    states = states_from_observations(obs)
    expected = tree.predict(pd.DataFrame(rows, columns=list(STUDENT_FEATURES)))
    fast_tree, fast_metis = compile_python(tree), compile_python(metis)
    row_lists, obs_lists = rows.tolist(), obs.tolist()
    if [fast_tree(r) for r in row_lists] != expected.tolist():
        raise RuntimeError("compile_python disagrees with the tree's predict")
    us = {
        "Pensieve actor, numpy (6x8 state -> argmax)": cpu_us_per_call(
            lambda s: int(np.argmax(actor.action_probabilities(s))), list(states)),
        f"{PRIMO}, scikit-learn predict (1 row)": cpu_us_per_call(_unnamed(tree.predict),
                                                                  [r[None] for r in rows[:500]]),
        f"{PRIMO}, Python fast path (compile_python)": cpu_us_per_call(fast_tree, row_lists),
        f"{METIS}, scikit-learn predict (1 row)": cpu_us_per_call(metis.predict, [o[None] for o in obs[:500]]),
        f"{METIS}, Python fast path (compile_python)": cpu_us_per_call(fast_metis, obs_lists),
    }
    checks = {}
    c_tree = c_decisions(abr_rule_c(tree), "pensieve_tree_quality", rows, repeats=settings.latency_repeats)
    if c_tree is not None:  # gcc found
        us[f"{PRIMO}, C (gcc -O2)"] = c_tree[1] / 1000.0
        checks["c_mismatches"] = int(np.sum(c_tree[0] != expected))
        c_metis = c_decisions(to_c(metis, name="metis_tree"), "metis_tree_predict", obs,
                              repeats=settings.latency_repeats)
        us[f"{METIS}, C (gcc -O2)"] = c_metis[1] / 1000.0
        checks["c_metis_mismatches"] = int(np.sum(metis.classes_[c_metis[0]] != metis.predict(obs)))
    module = abr_rule_js(tree)
    js_rows = js_decisions(module, "predict", row_lists, repeats=settings.latency_repeats)
    if js_rows is not None:
        us[f"{PRIMO}, JavaScript predict(row) (node)"] = js_rows[1] / 1000.0
        checks["js_mismatches"] = int(np.sum(js_rows[0] != expected))
        metrics = [metrics_from_observation(o) for o in obs]
        js_rule = js_decisions(module, "chooseQuality", metrics, repeats=settings.latency_repeats)
        us[f"{PRIMO}, JavaScript chooseQuality(metrics) (node)"] = js_rule[1] / 1000.0
        checks["js_rule_mismatches"] = int(np.sum(js_rule[0] != expected))
    return {"decisions": int(len(obs)), "us_per_decision": us, "export_checks": checks}


def _unnamed(predict: Callable) -> Callable:
    """``predict`` on bare arrays (what a system passes), without scikit-learn's feature-name warning."""
    def call(X):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return predict(X)

    return call


def model_sizes(actor, tree, metis) -> dict:
    """Parameters of the actor and nodes of the trees (the paper's measure of model complexity)."""
    return {
        "actor_parameters": actor.n_parameters,
        "primo_nodes": int(tree.tree_.node_count),
        "primo_leaves": tree.n_leaves_,
        "primo_depth": tree.depth_,
        "metis_nodes": int(metis.tree_.node_count),
        "metis_leaves": int(metis.get_n_leaves()),
        "metis_depth": int(metis.get_depth()),
        "actor_over_primo": actor.n_parameters / tree.tree_.node_count,
        "metis_over_primo": metis.tree_.node_count / tree.tree_.node_count,
    }


def golden_primo_comparison(data_dir, hsdpa_results: dict) -> dict:
    """The paper's own tree (its golden logs, 6 HSDPA traces) beside ours and the actor on those traces."""
    logs = load_golden_logs("primo", data_dir)
    names = [name for name in logs if name in hsdpa_results[PRIMO]["per_trace"]]
    if not names:
        return {"traces": []}
    return {
        "traces": names,
        "paper_primo_tree": float(np.mean([golden_qoe(logs[name]) for name in names])),
        "our_primo_tree": float(np.mean([hsdpa_results[PRIMO]["per_trace"][n] for n in names])),
        "rl_argmax": float(np.mean([hsdpa_results[RL]["per_trace"][n] for n in names])),
    }


def timelines(trace, policies: dict[str, Callable], video, data_dir) -> dict[str, Timeline]:
    """One video on ``trace`` per policy of :data:`TIMELINE_POLICIES`, plus the paper's tree when
    Pensieve's golden logs hold it for this trace."""
    result = {label: Timeline.from_run(play_traces(policies[label](), [trace], video)[0])
              for label in TIMELINE_POLICIES}
    paper = load_golden_logs("primo", data_dir).get(trace.name)
    if paper is not None:
        result["Primo paper's tree (golden log)"] = Timeline.from_log(paper)
    return result


def run(data_dir=None, out_dir="reports/pensieve", *, settings: Settings = FULL, timeline_trace: str = "norway_bus_1",
        n_jobs: int = 1) -> dict:
    """Run the whole case study and write its outputs to ``out_dir``; returns the results dict.

    Example
    -------
    >>> results = run("../shared/data", "reports/pensieve", settings=QUICK)  # doctest: +SKIP
    >>> results["qoe"]["hsdpa"]["Primo tree (PrDT)"]["mean_qoe"]  # doctest: +SKIP
    """
    start = time.perf_counter()
    data_dir, out = resolve_data_dir(data_dir), Path(out_dir)
    video, actor = load_video(data_dir), load_actor(data_dir)
    hsdpa, fcc = load_trace_set("hsdpa", data_dir), load_trace_set("fcc", data_dir)
    by_name = {trace.name: trace for trace in hsdpa}
    if timeline_trace not in by_name:
        raise ValueError(f"timeline trace {timeline_trace!r} is not an HSDPA trace")

    distill_start, distill_cpu_start = time.perf_counter(), time.process_time()
    distiller = distill_actor(
        actor, video, hsdpa, n_iterations=settings.n_iterations, episodes_per_iteration=settings.episodes_per_iteration,
        eval_traces=settings.eval_traces, n_trials=settings.n_trials, lam=settings.lam, n_jobs=n_jobs,
        random_state=settings.seed, progress=True,
    )
    distill_seconds, distill_cpu_seconds = time.perf_counter() - distill_start, time.process_time() - distill_cpu_start
    tree = distiller.best_student_

    trace_sets = {"hsdpa": hsdpa[: settings.hsdpa_traces], "fcc": fcc[: settings.fcc_traces]}
    metis_start = time.perf_counter()
    observations, teacher_actions = collect_teacher_rollouts(PensieveEnv(trace_sets["hsdpa"], video),
                                                             ActorTeacher(actor))
    metis = fit_metis_tree(observations, teacher_actions, random_state=settings.seed)
    metis_seconds = time.perf_counter() - metis_start

    policies = _policies(actor, video, tree, metis)
    qoe = evaluate(policies, trace_sets, video)

    student_rows = pd.DataFrame(student_view(observations), columns=list(STUDENT_FEATURES))
    results = {
        "primo_version": primo.__version__,
        "settings": asdict(settings),
        "qoe_definition": QOE_DEFINITION,
        "traces": {name: len(traces) for name, traces in trace_sets.items()},
        "qoe": qoe,
        "golden_primo_tree": golden_primo_comparison(data_dir, qoe["hsdpa"]),
        "student_features": list(STUDENT_FEATURES),
        "dropped_features": list(DROPPED_FEATURES),
        "tree": {
            "n_leaves": tree.n_leaves_, "depth": tree.depth_, "nodes": int(tree.tree_.node_count),
            "ccp_alpha": float(tree.ccp_alpha), "root_feature": tree.feature_names_[tree.tree_.feature[0]],
            "features_by_level": features_by_level(tree),
            "agreement_with_actor_on_actor_states": float(np.mean(tree.predict(student_rows) == teacher_actions)),
            "metis_agreement_on_actor_states": float(np.mean(metis.predict(observations) == teacher_actions)),
        },
        "distillation": {
            "wall_seconds": distill_seconds,
            "cpu_seconds": distill_cpu_seconds,  # this process only (n_jobs=1: all of it)
            "best_iteration": int(distiller.best_iteration_),
            "teacher_reward": float(distiller.teacher_reward_),
            "iterations": distiller.history_.to_dict(orient="records"),
            "metis_fit_seconds": metis_seconds,
        },
        "size": model_sizes(actor, tree, metis),
        "latency": measure_latency(actor, tree, metis, observations, settings),
    }

    out.mkdir(parents=True, exist_ok=True)
    tree.save(out / "pensieve_tree.primo")
    atomic_write_bytes(out / "pensieve_tree.mjs", abr_rule_js(tree).encode())
    atomic_write_bytes(out / "pensieve_tree.h", abr_rule_c(tree).encode())
    atomic_write_bytes(out / "pensieve_tree.txt", (str(tree) + "\n").encode())
    timeline_figure(timelines(by_name[timeline_trace], policies, video, data_dir), by_name[timeline_trace],
                    out / "timeline.svg")
    qoe_cdf_figure({f"{name.upper()}": {label: list(r["per_trace"].values()) for label, r in qoe[name].items()
                                         if label in TIMELINE_POLICIES}
                    for name in qoe}, out / "qoe_cdf.svg")
    results["timeline_trace"] = timeline_trace
    results["total_seconds"] = time.perf_counter() - start
    write_html_report(tree, student_rows, teacher_actions, metis.predict(observations), results, out)
    write_readme(results, out)
    atomic_write_bytes(out / "results.json", _json(results).encode())
    logger.info("case study written to %s in %.0f s", out, results["total_seconds"])
    return results


def features_by_level(tree, n_levels: int = 3) -> list[list[str]]:
    """Features tested at each of the first ``n_levels`` levels of the tree (root first), each once."""
    t, names, level, result = tree.tree_, tree.feature_names_, [0], []
    for _ in range(n_levels):
        tested = [names[t.feature[node]] for node in level if t.children_left[node] != -1]
        result.append(list(dict.fromkeys(tested)))
        level = [c for node in level for c in (t.children_left[node], t.children_right[node]) if c != -1]
    return result


def _json(results: dict) -> str:
    def default(value):
        if isinstance(value, np.generic):
            return value.item()
        raise TypeError(f"not JSON-serializable: {type(value).__name__}")

    return json.dumps(results, indent=1, default=default, allow_nan=False)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``primo casestudy pensieve``)."""
    parser = argparse.ArgumentParser(prog="primo casestudy pensieve", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None,
                        help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--out", default="reports/pensieve", help="output directory (default: reports/pensieve)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 VIPER iterations, 10 traces per set")
    parser.add_argument("--timeline-trace", default="norway_bus_1", help="HSDPA trace of the timeline figure")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers for rollouts and the search")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    warnings.filterwarnings("ignore", module="skopt")  # "point evaluated before" notices
    settings = QUICK if args.quick else FULL
    settings = Settings(**{**asdict(settings), "seed": args.seed})
    run(args.data_dir, args.out, settings=settings, timeline_trace=args.timeline_trace, n_jobs=args.n_jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
