"""Which distillation settings make the Pensieve tree generalize to traces it was neither trained
nor selected on: the case study's split, one distillation per variant and seed, and the tree against
its teacher (the actor's argmax) on the held-out test traces, paired over traces.

Variants differ in the rollouts and the state weights (VIPER's probability margin, DAgger's uniform
weights, Q-weights from Monte-Carlo rollouts in the simulator, bandwidth-scaled rollouts, more
episodes, a smaller λ) and in the traces that choose the VIPER iteration (HSDPA validation traces
only, or the validation mix with FCC's validation part). Traces below the lowest bitrate never
choose; they are in the test traces, and each row also gives the result without them.

Run: ``python -m adapters.pensieve.generalization [--data-dir DIR] [--variants margin-mix ...]
[--seeds 0 1 2] [--out reports/pensieve/generalization.json]`` (1.5-7 minutes per distillation on
2 shared cores; Q-weights are the slow ones).
"""
from __future__ import annotations

import argparse
import json
import logging
import time
import warnings

import numpy as np

from primo.io import atomic_write_bytes
from primo.report.claims import paired_bootstrap
from primo.report.markdown import table_text

from adapters.pensieve.actor import load_actor
from adapters.pensieve.casestudy import FULL, pathological_traces, split_trace_sets
from adapters.pensieve.casestudy_docs import number
from adapters.pensieve.distillation import distill_actor
from adapters.pensieve.evaluation import evaluate_policy
from adapters.pensieve.student import StudentPolicy
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.traces import load_trace_set
from adapters.pensieve.video import load_video

#: name -> (description, distill_actor options, selection: "mix" or "train")
VARIANTS = {
    "margin-train": ("margin weights; chosen on HSDPA validation only", {}, "train"),
    "margin-mix": ("margin weights (the case study)", {}, "mix"),
    "bandwidth-mix": ("margin weights, rollouts on bandwidth ×[0.25, 2]", {"bandwidth_scale": (0.25, 2.0)}, "mix"),
    "bandwidth120-mix": ("margin weights, rollouts on bandwidth ×[0.25, 2], 120 episodes per iteration",
                         {"bandwidth_scale": (0.25, 2.0), "episodes_per_iteration": 120}, "mix"),
    "dagger-mix": ("uniform weights (DAgger)", {"weighting": "uniform"}, "mix"),
    "q-mix": ("Q-weights (Monte-Carlo, 8 chunks)", {"weighting": "q"}, "mix"),
    "q-bandwidth-mix": ("Q-weights, rollouts on bandwidth ×[0.25, 2]",
                        {"weighting": "q", "bandwidth_scale": (0.25, 2.0)}, "mix"),
    "q-labels-mix": ("labels argmax of the Monte-Carlo Q-values (an improved teacher, not the actor)",
                     {"weighting": "q", "q_labels": True}, "mix"),
    "lambda1e-6-mix": ("margin weights, λ = 1e-6 (larger trees)", {"lam": 1e-6}, "mix"),
}
HEADER = ["variant", "seed", "leaves", "paired mean, all test traces [95%]", "without traces below 300 kbps [95%]",
          "median paired", "median QoE tree vs actor", "better / worse traces", "minutes"]


def run_variant(name: str, seed: int, split, actor, video, actor_qoe: dict, slow: set[str], **work) -> dict:
    """Distil one variant with one seed on the case study's split; the tree against the actor on the test traces.

    ``work`` overrides the amount of work (``n_iterations``, ``episodes_per_iteration``, ``n_trials``).

    Example
    -------
    >>> run_variant("margin-mix", 0, split, actor, video, actor_qoe, set())["mean"]  # doctest: +SKIP
    """
    description, options, selection = VARIANTS[name]
    choosing = split.validation + (split.test_validation if selection == "mix" else [])
    start = time.perf_counter()
    distiller = distill_actor(actor, video, split.rollout, validation_traces=[t for t in choosing if t.name not in slow],
                              **{"lam": FULL.lam, **options, **work}, random_state=seed)
    tree = distiller.best_student_
    tree_qoe = evaluate_policy(StudentPolicy(tree), split.test, video).qoe_per_trace
    names = list(tree_qoe)
    a, b = np.array([tree_qoe[n] for n in names]), np.array([actor_qoe[n] for n in names])
    keep = np.array([n not in slow for n in names])
    every, normal = paired_bootstrap(a, b), paired_bootstrap(a[keep], b[keep])
    return {"variant": name, "description": description, "seed": seed, "iteration": int(distiller.best_iteration_),
            "leaves": int(tree.n_leaves_), "all": every.to_dict(), "without_slow": normal.to_dict(),
            "median_tree": float(np.median(a)), "median_actor": float(np.median(b)),
            "better": int(np.sum(a > b + 1e-9)), "worse": int(np.sum(a < b - 1e-9)),
            "minutes": (time.perf_counter() - start) / 60.0}


def table_row(r: dict) -> list[str]:
    every, normal = r["all"], r["without_slow"]
    return [VARIANTS[r["variant"]][0], str(r["seed"]), str(r["leaves"]),
            f"{number(every['mean'])} [{number(every['low'])}, {number(every['high'])}]",
            f"{number(normal['mean'])} [{number(normal['low'])}, {number(normal['high'])}]",
            number(every["median"]), f"{r['median_tree']:.3f} vs {r['median_actor']:.3f}",
            f"{r['better']} / {r['worse']}", f"{r['minutes']:.1f}"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", default=None, help="also write the rows as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.filterwarnings("ignore", module="skopt")
    video, actor = load_video(args.data_dir), load_actor(args.data_dir)
    # The split depends on the split seed only (FULL.seed), so every variant and seed meets the same test traces.
    split = split_trace_sets(load_trace_set("hsdpa", args.data_dir), load_trace_set("fcc", args.data_dir), FULL)
    slow = set(pathological_traces(split.train + split.test_validation + split.test))
    actor_qoe = evaluate_policy(ActorTeacher(actor), split.test, video).qoe_per_trace
    rows = []
    for name in args.variants:
        for seed in args.seeds:
            rows.append(run_variant(name, seed, split, actor, video, actor_qoe, slow))
            print(table_text(HEADER, [table_row(rows[-1])]).splitlines()[-1], flush=True)
            if args.out:
                atomic_write_bytes(args.out, json.dumps(rows, indent=1).encode())
    print(table_text(HEADER, [table_row(r) for r in rows]))


if __name__ == "__main__":
    main()
