"""Run ABR policies over traces and score them with Pensieve's linear QoE.

The QoE of one trace is the mean per-chunk reward excluding chunk 0 (fetched at the default level
before any decision); a trace set's score is the mean over traces.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from adapters.pensieve.baselines import Policy
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.simulator import ChunkOutcome
from adapters.pensieve.traces import Trace
from adapters.pensieve.video import Video

logger = logging.getLogger(__name__)

LOG_COLUMNS = ("time_s", "bitrate_kbps", "buffer_s", "rebuffer_s", "chunk_bytes", "delay_ms", "reward")


@dataclass
class VideoRun:
    """One video played on one trace: the simulator's outcome and reward of every chunk."""

    trace_name: str
    outcomes: list[ChunkOutcome] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)

    @property
    def qoe(self) -> float:
        """Mean reward over chunks 1..47."""
        return float(np.mean(self.rewards[1:]))



def pensieve_logs(runs: Sequence[VideoRun]) -> dict[str, np.ndarray]:
    """Rows in the layout of Pensieve's logs (:data:`LOG_COLUMNS`), keyed by trace name.

    The time column is one clock (ms, delays then sleeps added chunk by chunk, printed in s)
    running across the videos in the order given, as in the original logs.

    Example
    -------
    >>> logs = pensieve_logs(play_traces(BufferBasedPolicy(), traces, video))  # doctest: +SKIP
    """
    logs, clock_ms = {}, 0.0
    for run in runs:
        rows = []
        for outcome, reward in zip(run.outcomes, run.rewards):
            clock_ms += outcome.delay_ms
            clock_ms += outcome.sleep_ms
            rows.append([clock_ms / 1000.0, outcome.bitrate_kbps, outcome.buffer_s, outcome.rebuffer_s,
                         outcome.chunk_bytes, outcome.delay_ms, reward])
        logs[run.trace_name] = np.array(rows)
    return logs


@dataclass(frozen=True)
class EvaluationResult:
    """Per-trace QoE of one policy and their mean."""

    qoe_per_trace: dict[str, float]

    @property
    def mean_qoe(self) -> float:
        return float(np.mean(list(self.qoe_per_trace.values())))


def play_video(env: PensieveEnv, policy: Policy, trace_index: int, act_after_last_chunk: bool = True) -> VideoRun:
    """Play one video on ``env.traces[trace_index]`` with ``policy``.

    Parameters
    ----------
    env : PensieveEnv
    policy : Policy
        Its ``reset()`` is called first, then ``act(obs)`` once per decision.
    trace_index : int
    act_after_last_chunk : bool, default True
        Pensieve's test scripts also run the policy on the observation after the last chunk and
        discard the action. It matters for stateful policies: a sampling actor draws one more
        random number, robustMPC records one more prediction error.

    Example
    -------
    >>> run = play_video(env, BufferBasedPolicy(), 0)  # doctest: +SKIP
    >>> len(run.rewards)  # doctest: +SKIP
    48
    """
    policy.reset()
    obs, info = env.reset(options={"trace_index": trace_index})
    run = VideoRun(info["trace_name"], [info["outcome"]], [info["reward"]])
    terminated = False
    while not terminated:
        obs, reward, terminated, _, info = env.step(policy.act(obs))
        run.outcomes.append(info["outcome"])
        run.rewards.append(reward)
    if act_after_last_chunk:
        policy.act(obs)
    return run


def play_traces(
    policy: Policy, traces: Sequence[Trace], video: Video, *, act_after_last_chunk: bool = True, progress: bool = False
) -> list[VideoRun]:
    """Play one video per trace, back to back in the given order, with one policy object (so a
    stateful policy carries its state from one video to the next, as in Pensieve's scripts)."""
    env = PensieveEnv(traces, video)
    indices = tqdm(range(len(traces)), desc="traces", disable=not progress)
    return [play_video(env, policy, i, act_after_last_chunk) for i in indices]


def evaluate_policy(
    policy: Policy, traces: Sequence[Trace], video: Video, *, progress: bool = False
) -> EvaluationResult:
    """Per-trace QoE (mean reward excluding chunk 0) of ``policy`` over ``traces``.

    Example
    -------
    >>> result = evaluate_policy(BufferBasedPolicy(), load_trace_set("hsdpa"), load_video())  # doctest: +SKIP
    >>> round(result.mean_qoe, 3)  # doctest: +SKIP
    """
    runs = play_traces(policy, traces, video, progress=progress)
    result = EvaluationResult({run.trace_name: run.qoe for run in runs})
    logger.info("%s: mean QoE %.4f over %d traces", type(policy).__name__, result.mean_qoe, len(runs))
    return result
