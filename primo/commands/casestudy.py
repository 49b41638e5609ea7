"""``primo casestudy NAME``: regenerate a case study's results and reports.

Case studies register themselves in the ``primo.casestudies`` entry-point group (see
pyproject.toml) as ``name = "module:main"``, where ``main(argv)`` parses the remaining arguments.
"""
from __future__ import annotations

import argparse
from importlib.metadata import entry_points

GROUP = "primo.casestudies"


def available() -> dict:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def register(subparsers) -> None:
    parser = subparsers.add_parser("casestudy", help="run a case study (" + ", ".join(sorted(available())) + ")",
                                   description=__doc__)
    parser.add_argument("name", help="case study name")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments of the case study (e.g. --data-dir DIR --out DIR)")
    parser.set_defaults(func=run)


def run(args) -> int:
    studies = available()
    if args.name not in studies:
        raise ValueError(f"unknown case study {args.name!r} (available: {', '.join(sorted(studies)) or 'none installed'})")
    return int(studies[args.name].load()(args.args) or 0)
