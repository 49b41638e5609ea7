"""The ``primo`` command.

Sub-commands live in :mod:`primo.commands`, one module each with a ``register(subparsers)``
function; they are discovered automatically, so a new command is one new module. Case studies
(``primo casestudy NAME``) come from the ``primo.casestudies`` entry-point group, which keeps
``primo`` free of imports from ``adapters``.

Start-up is kept short (``primo --help`` imports neither numpy, pandas, scikit-learn nor
interpret): command modules import what they need inside their ``run`` functions.

Warnings: Primo's own are printed after the command; third-party ones (interpret's notices,
scikit-learn, scikit-optimize, and those a search collected from its trials) are counted and
summarised in one line, e.g. ``primo fit: 3 warnings from interpret suppressed; -v to show``;
``-v`` lists them.

Example
-------
>>> main(["--version"])  # doctest: +SKIP
primo 0.3.0
"""
from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
import warnings
from collections import Counter
from pathlib import Path

from primo._version import __version__

_PRIMO_DIR = Path(__file__).resolve().parent
# The categories Python hides by default stay hidden: recording every warning must not surface them.
_HIDDEN_BY_DEFAULT = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
# Searches count the warnings of their trials themselves and log the counts with this ``extra`` key.
SEARCH_WARNINGS_KEY = "warning_counts"
SEARCH_SOURCE = "the search's libraries"


def warning_source(filename: str) -> str:
    """The installed distribution a warning was raised in, or ``"primo"`` for the project's own code.

    Example
    -------
    >>> warning_source("/venv/lib/python3.11/site-packages/interpret/utils/_misc.py")
    'interpret'
    >>> warning_source(__file__)
    'primo'
    """
    parts = Path(filename).parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts[:-1]:
            return Path(parts[parts.index(marker) + 1]).stem
    return "primo"


class WarningSummary:
    """The warnings of one command, counted by source; third-party ones are summarised, not printed.

    Example
    -------
    >>> summary = WarningSummary()
    >>> summary.add("interpret", "UserWarning: missing values", count=3)
    >>> summary.lines("fit", verbose=False)
    ['primo fit: 3 warnings from interpret suppressed; -v to show']
    """

    def __init__(self) -> None:
        self.counts: Counter = Counter()  # (source, text) -> occurrences

    def add(self, source: str, text: str, count: int = 1) -> None:
        self.counts[(source, text)] += count

    def record(self, caught) -> None:
        """Add warnings caught by :func:`warnings.catch_warnings` (``record=True``)."""
        for w in caught:
            if not issubclass(w.category, _HIDDEN_BY_DEFAULT):
                source = warning_source(w.filename)
                where = "" if source == "primo" else f" ({Path(w.filename).name}:{w.lineno})"
                self.add(source, f"{w.category.__name__}: {w.message}{where}")

    def lines(self, command: str, verbose: bool) -> list[str]:
        """Primo's own warnings one by one; third-party ones listed (``verbose``) or counted in one line."""
        out = [f"primo {command}: warning: {text}" + (f" ({n} times)" if n > 1 else "")
               for (source, text), n in self.counts.items() if source == "primo"]
        by_source = Counter()
        for (source, _), n in self.counts.items():
            if source != "primo":
                by_source[source] += n
        if not by_source:
            return out
        if verbose:
            for source, total in by_source.most_common():
                out.append(f"primo {command}: {total} warning{'s' * (total > 1)} from {source}:")
                out += [f"  {n}x {text}" for (s, text), n in self.counts.most_common() if s == source]
            return out
        counts = [f"{n} warning{'s' * (n > 1)} from {source}" if i == 0 else f"{n} from {source}"
                  for i, (source, n) in enumerate(by_source.most_common())]
        return out + [f"primo {command}: {', '.join(counts)} suppressed; -v to show"]


class _SearchWarningFilter(logging.Filter):
    """Moves a search's logged warning counts into the command's summary instead of a log line."""

    def __init__(self, summary: WarningSummary) -> None:
        super().__init__()
        self.summary = summary

    def filter(self, record: logging.LogRecord) -> bool:
        counts = getattr(record, SEARCH_WARNINGS_KEY, None)
        if counts is None:
            return True
        if not getattr(record, "_counted_in_summary", False):  # every handler sees the record: count it once
            for text, n in counts.items():
                self.summary.add(SEARCH_SOURCE, text, n)
            record._counted_in_summary = True
        return False


def build_parser() -> argparse.ArgumentParser:
    import primo.commands

    parser = argparse.ArgumentParser(prog="primo", description="Interpretable models for learning-augmented systems.")
    parser.add_argument("--version", action="version", version=f"primo {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="Primo's progress logs and every third-party warning in full (-vv: debug logs of every library)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(primo.commands.__path__), key=lambda m: m.name):
        if not module_info.name.startswith("_"):
            importlib.import_module(f"primo.commands.{module_info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # -v: Primo's (and the case studies') progress logs; -vv: every library's debug logs too
    logging.basicConfig(level=logging.DEBUG if args.verbose > 1 else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    project_loggers = {name: logging.getLogger(name) for name in ("primo", "adapters")}
    levels_before = {name: logger.level for name, logger in project_loggers.items()}
    if args.verbose:
        for logger in project_loggers.values():
            logger.setLevel(logging.INFO if args.verbose == 1 else logging.DEBUG)
    summary = WarningSummary()
    search_filter = _SearchWarningFilter(summary)
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(search_filter)
    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for category in _HIDDEN_BY_DEFAULT:
                warnings.simplefilter("ignore", category)
            try:
                return int(args.func(args) or 0)
            except (ValueError, FileNotFoundError, IsADirectoryError, KeyError) as exc:  # ModelFileError is a ValueError
                # str() of a KeyError is the repr of its message, in quotes
                message = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else exc
                print(f"primo {args.command}: error: {message}", file=sys.stderr)
                return 2
    finally:
        for handler in handlers:
            handler.removeFilter(search_filter)
        for name, logger in project_loggers.items():  # main() may run again in the same process (tests)
            logger.setLevel(levels_before[name])
        summary.record(caught)
        for line in summary.lines(args.command, verbose=args.verbose > 0):
            print(line, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
