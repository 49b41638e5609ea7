"""The case study's figures (matplotlib, written as SVG): one trace's bitrate timeline and the
distribution of per-trace QoE, in the manner of the Primo paper's Figures 5.17 and 5.16.
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
import numpy as np  # noqa: E402

from primo.io import atomic_write_bytes  # noqa: E402

from adapters.pensieve.evaluation import VideoRun  # noqa: E402
from adapters.pensieve.traces import Trace  # noqa: E402
from adapters.pensieve.video import BITRATES_KBPS  # noqa: E402

# Text stays text (small files that search and scale well); no date, fixed ids: same input, same file.
_SVG_STYLE = {"svg.fonttype": "none", "svg.hashsalt": "primo-pensieve", "font.size": 9}


@dataclass(frozen=True)
class Timeline:
    """Bitrate decisions of one policy on one video: end time of each chunk's download (s from the
    start of the video), its bitrate (kbps), and the video's QoE."""

    times_s: np.ndarray
    bitrates_kbps: np.ndarray
    qoe: float

    @classmethod
    def from_run(cls, run: VideoRun) -> "Timeline":
        """From a simulated video (the clock advances by each download and each sleep)."""
        clock = np.cumsum([o.delay_ms + o.sleep_ms for o in run.outcomes]) / 1000.0
        return cls(clock, np.array([o.bitrate_kbps for o in run.outcomes], dtype=float), run.qoe)

    @classmethod
    def from_log(cls, log: np.ndarray) -> "Timeline":
        """From a Pensieve log (48 rows: time s, bitrate, buffer, rebuffer, bytes, delay ms, reward);
        its clock runs across videos, so the video starts at the first row's time minus its delay."""
        start = log[0, 0] - log[0, 5] / 1000.0
        return cls(log[:, 0] - start, log[:, 1], float(np.mean(log[1:, 6])))


def _svg_bytes(figure) -> bytes:
    buffer = io.BytesIO()
    with plt.rc_context(_SVG_STYLE):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def timeline_figure(timelines: Mapping[str, Timeline], trace: Trace, path: str | os.PathLike) -> Path:
    """One panel per policy: its bitrate decisions over the trace's bandwidth, QoE in the title.

    Parameters
    ----------
    timelines : {label: Timeline}
    trace : Trace
        The network trace, drawn from its first point on its own clock (the player's clock also
        counts the 80 ms RTT of each request, so the two drift apart by up to ~4 s per video).
    path : path-like
        SVG file to write.

    Example
    -------
    >>> timeline_figure({"RL": Timeline.from_run(run)}, trace, "timeline.svg")  # doctest: +SKIP
    """
    with plt.rc_context(_SVG_STYLE):
        figure, axes = plt.subplots(len(timelines), 1, figsize=(8, 1.35 * len(timelines) + 0.6), sharex=True,
                                    squeeze=False)
        end = max(float(t.times_s[-1]) for t in timelines.values())
        times = trace.times_s - trace.times_s[0]
        shown = times <= end + 5
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for i, (ax, (label, t)) in enumerate(zip(axes[:, 0], timelines.items())):
            ax.fill_between(times[shown], trace.bandwidth_mbps[shown] * 1000.0, step="pre", color="0.88",
                            linewidth=0)
            # A chunk's bitrate holds from the end of the previous download to the end of its own.
            ax.step(np.concatenate([[0.0], t.times_s]), np.concatenate([t.bitrates_kbps[:1], t.bitrates_kbps]),
                    where="pre", linewidth=1.4, color=colours[i % len(colours)])
            ax.set_title(f"{label}: QoE {t.qoe:.3f}", loc="left", fontsize=9)
            ax.set_yticks(BITRATES_KBPS[::2] + BITRATES_KBPS[-1:])
            ax.set_ylim(0, max(BITRATES_KBPS) * 1.15)
            ax.set_ylabel("kbps")
            ax.grid(alpha=0.3, linewidth=0.5)
        axes[-1, 0].set_xlim(0, end)
        axes[-1, 0].set_xlabel(f"time since the video started (s); grey: bandwidth of trace {trace.name}")
        figure.tight_layout()
        return atomic_write_bytes(path, _svg_bytes(figure))


def qoe_cdf_figure(per_trace: Mapping[str, Mapping[str, np.ndarray]], path: str | os.PathLike) -> Path:
    """CDF of per-trace QoE of each policy, one panel per trace set.

    Parameters
    ----------
    per_trace : {trace set label: {policy label: per-trace QoE values}}
    path : path-like
        SVG file to write.

    Example
    -------
    >>> qoe_cdf_figure({"HSDPA": {"RL": qoes}}, "qoe_cdf.svg")  # doctest: +SKIP
    """
    with plt.rc_context(_SVG_STYLE):
        figure, axes = plt.subplots(1, len(per_trace), figsize=(4.2 * len(per_trace), 3.4), squeeze=False)
        for ax, (set_label, policies) in zip(axes[0], per_trace.items()):
            for label, values in policies.items():
                values = np.sort(np.asarray(values, dtype=float))
                ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", linewidth=1.2,
                        label=f"{label} ({np.mean(values):.3f})")
            ax.set_title(f"{set_label} ({len(values)} traces)")
            # Symmetric log below -1: a few traces far below zero would squeeze everything else.
            ax.set_xscale("symlog", linthresh=1.0, linscale=2.0)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.set_xlabel("QoE of a trace (mean reward per chunk; log scale below −1)")
            ax.set_ylabel("fraction of traces")
            ax.grid(alpha=0.3, linewidth=0.5)
            ax.legend(loc="upper left", fontsize=7, frameon=False, title="mean QoE", title_fontsize=7)
        figure.tight_layout()
        return atomic_write_bytes(path, _svg_bytes(figure))
