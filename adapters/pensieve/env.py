"""Gymnasium-style environment over the ABR simulator: one episode = one video on one trace.

``reset`` downloads chunk 0 at the default level (750 kbps), as Pensieve does, and returns the first
observation; each ``step(level)`` downloads the next chunk. An episode has 47 decisions, and its
rewards are exactly the per-chunk rewards that enter the QoE (chunk 0 is excluded); the reward of
chunk 0 is in ``info["reward"]`` after ``reset``.

The API follows Gymnasium (``reset(seed, options) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``) without depending on it.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from adapters.pensieve.observation import FEATURE_NAMES, ObservationHistory
from adapters.pensieve.simulator import ABRSimulator, ChunkOutcome, linear_qoe_reward
from adapters.pensieve.traces import Trace
from adapters.pensieve.video import DEFAULT_LEVEL, N_LEVELS, Video

TRACE_SELECTIONS = ("round_robin", "random")


class PensieveEnv:
    """Adaptive-bitrate streaming as an episodic decision problem.

    Parameters
    ----------
    traces : sequence of Trace
        Traces episodes are played on.
    video : Video
        Chunk sizes.
    trace_selection : {"round_robin", "random"}, default "round_robin"
        How ``reset`` picks the next trace (``options={"trace_index": i}`` overrides both).
    delay_noise : bool, default False
        Training-time variant: multiply each delay by U(0.9, 1.1).
    random_start : bool, default False
        Training-time variant: start each trace at a random point.
    seed : int, optional
        Seed of the environment's generator (noise, start points, random trace choice).

    Attributes
    ----------
    feature_names : tuple of str
        Names of the observation's entries (see :mod:`adapters.pensieve.observation`).
    n_actions : int
        Number of bitrate levels (6).

    Example
    -------
    >>> env = PensieveEnv(load_trace_set("hsdpa"), load_video())  # doctest: +SKIP
    >>> obs, info = env.reset()  # doctest: +SKIP
    >>> obs, reward, terminated, truncated, info = env.step(3)  # doctest: +SKIP
    """

    feature_names = FEATURE_NAMES
    n_actions = N_LEVELS

    def __init__(
        self,
        traces: Sequence[Trace],
        video: Video,
        *,
        trace_selection: str = "round_robin",
        delay_noise: bool = False,
        random_start: bool = False,
        seed: int | None = None,
    ):
        if trace_selection not in TRACE_SELECTIONS:
            raise ValueError(f"trace_selection must be one of {TRACE_SELECTIONS}, got {trace_selection!r}")
        self.trace_selection = trace_selection
        self._rng = np.random.default_rng(seed)
        self.simulator = ABRSimulator(
            traces, video, delay_noise=delay_noise, random_start=random_start, rng=self._rng
        )
        self._next_round_robin = 0
        self._history: ObservationHistory | None = None
        self._last_level = DEFAULT_LEVEL
        self._done = True

    @property
    def traces(self) -> list[Trace]:
        return self.simulator.traces

    @property
    def actor_state(self) -> np.ndarray:
        """The actor's 6x8 state, maintained by the state update itself (not rebuilt from obs)."""
        self._require_started()
        return self._history.state.copy()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start a video on the next trace and download its chunk 0 at the default level.

        Parameters
        ----------
        seed : int, optional
            Reseed the environment's generator (and restart the round robin at trace 0).
        options : dict, optional
            ``{"trace_index": i}`` plays ``traces[i]``.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self.simulator.rng = self._rng
            self._next_round_robin = 0
        options = options or {}
        if "trace_index" in options:
            trace_index = int(options["trace_index"])
        elif self.trace_selection == "random":
            trace_index = int(self._rng.integers(len(self.traces)))
        else:
            trace_index = self._next_round_robin
            self._next_round_robin = (self._next_round_robin + 1) % len(self.traces)
        self.simulator.start_trace(trace_index)
        self._history = ObservationHistory()
        self._last_level = DEFAULT_LEVEL
        self._done = False
        obs, _, _, info = self._download(DEFAULT_LEVEL)
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Download the next chunk at bitrate level ``action`` (0..5)."""
        self._require_started()
        if self._done:
            raise RuntimeError("the video has ended; call reset() before step()")
        obs, reward, terminated, info = self._download(action)
        return obs, reward, terminated, False, info

    def _download(self, level: int) -> tuple[np.ndarray, float, bool, dict]:
        outcome: ChunkOutcome = self.simulator.download_chunk(level)
        reward = linear_qoe_reward(outcome.level, self._last_level, outcome.rebuffer_s)
        self._last_level = outcome.level
        self._done = outcome.end_of_video
        obs = self._history.push(outcome)
        info = {
            "trace_index": outcome.trace_index,
            "trace_name": self.traces[outcome.trace_index].name,
            "chunk_index": outcome.chunk_index,
            "outcome": outcome,
            "reward": reward,
        }
        return obs, reward, outcome.end_of_video, info

    def _require_started(self) -> None:
        if self._history is None:
            raise RuntimeError("call reset() before using the environment")
