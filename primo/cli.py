"""The ``primo`` command.

Sub-commands live in :mod:`primo.commands`, one module each with a ``register(subparsers)``
function; they are discovered automatically, so a new command is one new module. Case studies
(``primo casestudy NAME``) come from the ``primo.casestudies`` entry-point group, which keeps
``primo`` free of imports from ``adapters``.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys

from primo._version import __version__
from primo.io import ModelFileError


def build_parser() -> argparse.ArgumentParser:
    import primo.commands

    parser = argparse.ArgumentParser(prog="primo", description="Interpretable models for learning-augmented systems.")
    parser.add_argument("--version", action="version", version=f"primo {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(primo.commands.__path__), key=lambda m: m.name):
        if not module_info.name.startswith("_"):
            importlib.import_module(f"primo.commands.{module_info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(args.verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError, IsADirectoryError, ModelFileError, KeyError) as exc:
        print(f"primo {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
