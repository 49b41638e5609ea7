"""``primo demo``: run the whole pipeline on an embedded dataset and write its outputs to a folder."""
from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("demo", help="run the pipeline on an embedded dataset", description=__doc__)
    parser.add_argument("--out", default="primo-demo", help="output folder (default: ./primo-demo)")
    parser.add_argument("--trials", type=int, default=10, help="Bayesian-search trials per model family")
    parser.add_argument("--seed", type=int, default=0)
    parser.set_defaults(func=run)


def run(args) -> int:
    from primo.demo import run_demo

    run_demo(args.out, n_trials=args.trials, seed=args.seed)
    return 0
