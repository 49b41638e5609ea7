"""Distillation wall time and fidelity vs number of samples and of DAgger/VIPER iterations.

Two real teachers:

1. supervised — an MLP trained on Clara-MS (680 NFs → best core count) distilled into a PrDT,
   with 0…N quantile-space perturbations labeled by the teacher; fidelity = R² of the tree against
   the MLP on the 198 held-out NFs.
2. policy extraction — Pensieve's pretrained actor (HSDPA traces) distilled with VIPER into a
   PrDT; one run per number of training episodes per iteration, one row per iteration: cumulative
   wall time, states aggregated, held-out reward (student and teacher, same episodes) and
   fidelity (agreement with the actor on the states the student visits).

Run: ``python benchmarks/distill_scaling.py [--data-dir DIR] [--iterations 6] [--episodes 10 40]``
"""
from __future__ import annotations

import argparse
import logging
import time
import warnings

import pandas as pd
from sklearn.compose import TransformedTargetRegressor
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from primo.datasets import resolve_data_dir
from primo.distill import ViperDistiller, distill


def supervised_table(data_dir, sample_counts, n_trials: int, seed: int) -> pd.DataFrame:
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    X, y = train.drop(columns="cores"), train["cores"]
    X_test, y_test = test.drop(columns="cores"), test["cores"]
    network = make_pipeline(
        StandardScaler(), MLPRegressor(hidden_layer_sizes=(64, 32), max_iter=300, random_state=seed)
    )
    teacher = TransformedTargetRegressor(network, transformer=StandardScaler()).fit(X, y)
    rows = []
    for n_augment in sample_counts:
        start = time.perf_counter()
        student = distill(
            teacher, X, "prdt", X_test=X_test, y_test=y_test, augment="perturb" if n_augment else None,
            n_augment=n_augment, noise_scale=0.02, n_trials=n_trials, random_state=seed,
        )
        record = student.metadata_["distillation"]
        rows.append({
            "augmented": n_augment,
            "samples": record["iterations"][0]["n_samples"],
            "seconds": time.perf_counter() - start,
            "fidelity_r2": record["fidelity"],
            "leaves": student.n_leaves_,
            "depth": student.depth_,
            "student_mae": record["accuracy"]["student"]["mae"],
            "teacher_mae": record["accuracy"]["teacher"]["mae"],
        })
    return pd.DataFrame(rows)


def viper_table(data_dir, episode_counts, n_iterations: int, eval_episodes: int, n_trials: int, n_jobs: int,
                seed: int) -> pd.DataFrame:
    from adapters.pensieve import ActorTeacher, PensieveEnv, load_actor, load_trace_set, load_video

    traces = load_trace_set("hsdpa", data_dir)
    video = load_video(data_dir)
    teacher = ActorTeacher(load_actor(data_dir))

    def make_env(episode_seed):  # the seed picks the trace
        return PensieveEnv(traces, video, trace_selection="random", seed=episode_seed)

    tables = []
    for episodes in episode_counts:
        distiller = ViperDistiller(
            n_iterations=n_iterations, episodes_per_iteration=episodes, eval_episodes=eval_episodes,
            n_trials=n_trials, n_jobs=n_jobs, random_state=seed,
        ).fit(teacher, make_env)
        history = distiller.history_
        tables.append(pd.DataFrame({
            "episodes/iter": episodes,
            "iteration": history["iteration"],
            "states": history["n_states"],
            "cum_seconds": history["seconds"].cumsum(),
            "reward": history["reward"],
            "teacher_reward": distiller.teacher_reward_,
            "fidelity": history["fidelity"],
            "fidelity_teacher_states": history["fidelity_teacher_states"],
            "leaves": history["n_leaves"],
            "depth": history["depth"],
            "best": history["iteration"] == distiller.best_iteration_,
        }))
    return pd.concat(tables, ignore_index=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Distillation wall time and fidelity vs samples and iterations")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--samples", type=int, nargs="+", default=[0, 2000, 8000],
                        help="augmented inputs for the supervised part")
    parser.add_argument("--episodes", type=int, nargs="+", default=[10, 40], help="VIPER episodes per iteration")
    parser.add_argument("--iterations", type=int, default=6)
    parser.add_argument("--eval-episodes", type=int, default=40)
    parser.add_argument("--trials", type=int, default=10, help="Bayesian-search trials per student")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-viper", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.filterwarnings("ignore", module="skopt")  # "point evaluated before" notices
    data_dir = resolve_data_dir(args.data_dir)
    pd.set_option("display.width", 200)

    # The search's Gaussian process works on tiny matrices: multi-threaded BLAS only adds contention.
    with threadpool_limits(1):
        print("Supervised distillation: Clara-MS MLP -> PrDT (fidelity = R² vs the MLP on 198 held-out NFs)")
        table = supervised_table(data_dir, args.samples, args.trials, args.seed)
        print(table.to_string(index=False, float_format="%.4g"))
        if not args.skip_viper:
            print(f"\nVIPER: Pensieve actor -> PrDT on HSDPA ({args.eval_episodes} held-out episodes; reward = QoE "
                  "summed over 47 chunks)")
            table = viper_table(data_dir, args.episodes, args.iterations, args.eval_episodes, args.trials,
                                args.n_jobs, args.seed)
            print(table.to_string(index=False, float_format="%.4g"))


if __name__ == "__main__":
    main()
