"""How much the Pensieve case study's tree depends on the distillation seed and on λ.

The case study (``primo casestudy pensieve``) reports one distillation (seed 0, λ = 1e-5). This
script repeats the distillation with other seeds (and optionally other λ) with the same settings,
and scores each chosen tree on HSDPA (the training traces, also used to pick the VIPER iteration)
and FCC (never used), beside the actor and the Metis-style tree.

Run: ``python benchmarks/pensieve_distill_seeds.py [--data-dir DIR] [--seeds 0 1 2] [--lams 1e-5]
[--out benchmarks/pensieve_distill_seeds.json]`` (about 4-5 min per distillation on 2 cores).
"""
from __future__ import annotations

import argparse
import json
import logging
import time
import warnings

import numpy as np
import pandas as pd

from adapters.pensieve import (
    ActorTeacher, PensieveEnv, StudentPolicy, TreePolicy, collect_teacher_rollouts, distill_actor, evaluate_policy,
    fit_metis_tree, load_actor, load_trace_set, load_video,
)
from primo.datasets import resolve_data_dir


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--lams", type=float, nargs="+", default=[1e-5])
    parser.add_argument("--out", default=None, help="also write the table as JSON records")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.filterwarnings("ignore", module="skopt")
    data_dir = resolve_data_dir(args.data_dir)
    video, actor = load_video(data_dir), load_actor(data_dir)
    hsdpa, fcc = load_trace_set("hsdpa", data_dir), load_trace_set("fcc", data_dir)

    def qoe(policy_factory):
        return [evaluate_policy(policy_factory(), traces, video).mean_qoe for traces in (hsdpa, fcc)]

    rl = qoe(lambda: ActorTeacher(actor))
    metis = fit_metis_tree(*collect_teacher_rollouts(PensieveEnv(hsdpa, video), ActorTeacher(actor)))
    metis_qoe = qoe(lambda: TreePolicy(metis))
    rows = []
    for lam in args.lams:
        for seed in args.seeds:
            start = time.perf_counter()
            distiller = distill_actor(actor, video, hsdpa, lam=lam, random_state=seed)
            seconds = time.perf_counter() - start
            tree = distiller.best_student_
            hsdpa_qoe, fcc_qoe = qoe(lambda: StudentPolicy(tree))
            rows.append({"lam": lam, "seed": seed, "iteration": distiller.best_iteration_, "leaves": tree.n_leaves_,
                         "depth": tree.depth_, "root": tree.feature_names_[tree.tree_.feature[0]],
                         "hsdpa_qoe": hsdpa_qoe, "hsdpa_vs_rl": hsdpa_qoe / rl[0] - 1, "fcc_qoe": fcc_qoe,
                         "seconds": seconds})
            print(pd.DataFrame(rows[-1:]).to_string(index=False, float_format="%.4g"), flush=True)
    table = pd.DataFrame(rows)
    print(f"\nactor (argmax): HSDPA {rl[0]:.4f}, FCC {rl[1]:.4f}; Metis-style tree: HSDPA {metis_qoe[0]:.4f}, "
          f"FCC {metis_qoe[1]:.4f}")
    print(table.to_string(index=False, float_format="%.4g"))
    print(f"mean over runs: HSDPA {table['hsdpa_qoe'].mean():.4f} (min {table['hsdpa_qoe'].min():.4f}), "
          f"FCC {table['fcc_qoe'].mean():.4f} (min {table['fcc_qoe'].min():.4f})")
    if args.out:
        document = {"rl": {"hsdpa": rl[0], "fcc": rl[1]}, "metis_style": {"hsdpa": metis_qoe[0], "fcc": metis_qoe[1]},
                    "runs": table.to_dict(orient="records")}
        with open(args.out, "w") as handle:
            json.dump(document, handle, indent=1, default=lambda v: v.item() if isinstance(v, np.generic) else str(v))


if __name__ == "__main__":
    main()
