"""Paper claims judged by paired statistics: one structure, one bootstrap, one Markdown table.

A case study checks a published claim ("Primo-E lowers the mean read latency against LinnOS") by
measuring both sides on the same units (traces, NFs, jobs, rows) and looking at the per-unit
differences ``a − b``. :func:`paired_bootstrap` gives their mean, a percentile bootstrap interval of
that mean (units resampled, both sides together) and their median; a :class:`Claim` puts it beside
the paper's figure and the exact policy or model that produced that figure, and derives a verdict
from the interval and the direction the claim asserts:

* **holds**: the whole interval lies on the claimed side of 0;
* **does not hold**: the whole interval lies on the other side;
* **within noise**: the interval contains 0 (or there is a single unit, so no interval at all).

:func:`claims_table` renders claims through :func:`primo.report.markdown.table`;
:func:`format_number` formats other numbers the same way (typographic minus). ``Claim.to_dict`` /
``Claim.from_dict`` keep claims in a ``results.json``.

Example
-------
>>> d = paired_bootstrap([1.0, 1.2, 0.9, 1.1], [1.5, 1.6, 1.4, 1.7], n_resamples=500)
>>> c = Claim("A is faster than B", paper_value="−30%", paper_source="A (paper, Fig. 3)",
...           measured="A 1.05 s vs B 1.55 s", difference=d, expected="lower", units="traces")
>>> c.verdict
'holds'
>>> print("\\n".join(claims_table([c])))  # doctest: +ELLIPSIS
| claim | paper (source) | measured | paired difference a − b [95% interval] | median | units | verdict |
...
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy.stats import bootstrap

from primo.report.markdown import table

Direction = Literal["lower", "higher"]
VERDICTS = ("holds", "within noise", "does not hold")


@dataclass(frozen=True)
class PairedDifference:
    """Per-unit differences ``a − b`` summarized: mean, bootstrap interval of the mean, median.

    ``low``/``high`` are NaN when there is a single unit (nothing to resample); ``median`` is None
    when the producer of a stored result did not record it.
    """

    mean: float
    low: float
    high: float
    median: float | None
    n: int
    confidence: float = 0.95

    def to_dict(self) -> dict:
        """Plain JSON-ready values (NaN becomes None)."""
        return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict) -> "PairedDifference":
        """Inverse of :meth:`to_dict`."""
        values = dict(data)
        for key in ("low", "high"):
            values[key] = math.nan if values.get(key) is None else float(values[key])
        return cls(**values)


def paired_bootstrap(a, b, *, n_resamples: int = 5000, confidence: float = 0.95,
                     random_state: int = 0) -> PairedDifference:
    """mean(a − b) over paired units with its percentile bootstrap interval, and the median difference.

    ``a[i]`` and ``b[i]`` must be measured on the same unit ``i`` (a trace, an NF, a job, a row); the
    units are resampled with both sides together (scipy's ``bootstrap(paired=True)``).

    Example
    -------
    >>> d = paired_bootstrap([0, 1, 2], [1, 1, 2], n_resamples=200)
    >>> round(d.mean, 4), d.median, d.n
    (-0.3333, 0.0, 3)
    """
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.shape[0]} vs {b.shape[0]}")
    if a.size == 0:
        raise ValueError("paired samples are empty")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("paired samples contain NaN or infinite values")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    differences = a - b
    low = high = math.nan
    if a.size > 1:
        # scipy's bootstrap instead of a hand-written one; percentile (not BCa) so that constant
        # differences give a point interval instead of a degenerate-data warning.
        interval = bootstrap((a, b), lambda x, y, axis: x.mean(axis=axis) - y.mean(axis=axis), paired=True,
                             n_resamples=n_resamples, confidence_level=confidence, method="percentile",
                             random_state=random_state).confidence_interval
        low, high = float(interval.low), float(interval.high)
    return PairedDifference(mean=float(differences.mean()), low=low, high=high,
                            median=float(np.median(differences)), n=int(a.size), confidence=confidence)


def verdict(difference: PairedDifference, expected: Direction) -> str:
    """*holds*, *within noise* or *does not hold* for a claim that ``a − b`` is ``expected`` ("lower" or "higher").

    Example
    -------
    >>> verdict(PairedDifference(-2.0, -3.0, -1.0, -2.0, 10), "lower")
    'holds'
    """
    if expected not in ("lower", "higher"):
        raise ValueError(f"expected must be 'lower' or 'higher', got {expected!r}")
    low, high = difference.low, difference.high
    if math.isnan(low) or math.isnan(high) or low <= 0 <= high:
        return "within noise"
    below = high < 0
    return "holds" if below == (expected == "lower") else "does not hold"


@dataclass(frozen=True)
class Claim:
    """A published claim beside this run's paired measurement.

    Parameters
    ----------
    statement : the claim, worded so that ``a − b`` is ``expected`` when it holds (Markdown).
    paper_value : the published figure, as printed (e.g. ``"−26.2%"``).
    paper_source : the exact policy or model that produced it in the paper (e.g. ``"Pensieve actor
        sampled with seed 42 (original logs)"``).
    measured : this run's values of both sides, as text (e.g. ``"Primo-E 1.23 ms vs LinnOS 1.30 ms"``).
    difference : :func:`paired_bootstrap` of ``a`` and ``b``.
    expected : "lower" or "higher": the sign of ``a − b`` the claim asserts.
    units : what was paired ("traces", "NFs", "jobs", "rows").
    number_format : format spec of the difference, interval and median (e.g. ``"+.3f"``, ``"+.1%"``).
    note : anything a reader needs beside the numbers (a pathological unit, a protocol caveat).
    """

    statement: str
    paper_value: str
    paper_source: str
    measured: str
    difference: PairedDifference
    expected: Direction
    units: str = "rows"
    number_format: str = "+.3f"
    note: str = ""

    def __post_init__(self):
        verdict(self.difference, self.expected)  # validates `expected` at construction

    @property
    def verdict(self) -> str:
        """See :func:`verdict`."""
        return verdict(self.difference, self.expected)

    def to_dict(self) -> dict:
        """Plain JSON-ready values, verdict included (for ``results.json``)."""
        out = asdict(self)
        out["difference"] = self.difference.to_dict()
        out["verdict"] = self.verdict
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Claim":
        """Inverse of :meth:`to_dict` (the stored verdict is recomputed, not trusted)."""
        values = {k: v for k, v in data.items() if k != "verdict"}
        values["difference"] = PairedDifference.from_dict(values["difference"])
        return cls(**values)


def claims_table(claims: list[Claim]) -> list[str]:
    """The claims as Markdown table lines (then a blank line); cells are the claims' own Markdown.

    Example
    -------
    >>> c = Claim("x", "1", "model M", "0.9 vs 1.0", PairedDifference(-0.1, -0.2, 0.05, -0.1, 4), "lower")
    >>> claims_table([c])[2]
    '| x | 1 (model M) | 0.9 vs 1.0 | −0.100 [−0.200, +0.050] | −0.100 | 4 rows | within noise |'
    """
    confidences = {c.difference.confidence for c in claims}
    if len(confidences) > 1:
        raise ValueError(f"claims in one table must share one confidence level, got {sorted(confidences)}")
    level = f"{100 * confidences.pop():g}%" if confidences else "95%"
    rows = []
    for c in claims:
        d, spec = c.difference, c.number_format
        interval = ("no interval (one unit)" if math.isnan(d.low)
                    else f"[{format_number(d.low, spec)}, {format_number(d.high, spec)}]")
        verdict_text = c.verdict if not c.note else f"{c.verdict}; {c.note}"
        rows.append([c.statement, f"{c.paper_value} ({c.paper_source})" if c.paper_source else c.paper_value,
                     c.measured, f"{format_number(d.mean, spec)} {interval}",
                     "–" if d.median is None else format_number(d.median, spec), f"{d.n} {c.units}", verdict_text])
    return table(["claim", "paper (source)", "measured", f"paired difference a − b [{level} interval]", "median",
                  "units", "verdict"], rows)


def format_number(value: float, spec: str = "+.3f") -> str:
    """``format(value, spec)`` with a typographic minus and no "−0.000" from a rounded tiny negative.

    Example
    -------
    >>> format_number(-0.0421, "+.1%"), format_number(-1e-9)
    ('−4.2%', '+0.000')
    """
    text = format(value + 0.0, spec)
    if text.lstrip("+-").strip("0.%×") == "":
        text = text.replace("-", "+")
    return text.replace("-", "−")
