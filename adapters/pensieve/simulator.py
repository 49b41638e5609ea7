"""Trace-driven chunk-level ABR simulator with the semantics of Pensieve's evaluation environment.

The arithmetic follows the original term by term (same constants, same order of floating-point
operations) so that runs reproduce Pensieve's logs to the last printed digit:

- a trace is played from point 1 with the clock at ``time[0]``; downloading walks the trace, each
  step offering ``bandwidth * 1e6 / 8 * (time[next] - clock) * 0.95`` bytes; the last, partial step
  advances the clock by just the fraction needed; the end of a trace wraps to point 1, clock 0;
- delay = download time (ms) + 80 ms RTT; rebuffer = max(delay - buffer, 0);
  buffer = max(buffer - delay, 0) + 4000 ms; above 60 s of buffer the player sleeps in 500 ms
  steps while the trace clock keeps running;
- after 48 chunks the video ends, the buffer empties and the next trace of the list starts.

Training-time variants (off by default) multiply every delay by U(0.9, 1.1) and start a trace at a
random point.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from adapters.pensieve.traces import Trace
from adapters.pensieve.video import BITRATES_KBPS, CHUNK_DURATION_MS, N_CHUNKS, N_LEVELS, Video

PACKET_PAYLOAD_PORTION = 0.95
LINK_RTT_MS = 80.0
BUFFER_THRESHOLD_MS = 60000.0
DRAIN_SLEEP_MS = 500.0
REBUFFER_PENALTY = 4.3  # linear QoE: 1 s of stall costs as much as 4.3 Mbps of bitrate
SMOOTH_PENALTY = 1.0
DELAY_NOISE_RANGE = (0.9, 1.1)


@dataclass(frozen=True)
class ChunkOutcome:
    """What the player observes after downloading one chunk.

    ``delay_ms`` includes the 80 ms RTT; ``sleep_ms`` is the pause the player took to keep the
    buffer under 60 s (the logs' time column accumulates delay + sleep).
    """

    level: int
    delay_ms: float
    sleep_ms: float
    buffer_s: float
    rebuffer_s: float
    chunk_bytes: int
    next_chunk_bytes: np.ndarray
    chunks_left: int
    end_of_video: bool
    trace_index: int

    @property
    def bitrate_kbps(self) -> int:
        return BITRATES_KBPS[self.level]

    @property
    def chunk_index(self) -> int:
        """Index (0..47) of the chunk this outcome is about."""
        return N_CHUNKS - 1 - self.chunks_left


def linear_qoe_reward(level: int, previous_level: int, rebuffer_s: float) -> float:
    """Pensieve's linear QoE of one chunk: Mbps - 4.3 * stall s - |Mbps change|.

    Example
    -------
    >>> round(linear_qoe_reward(4, 3, 0.0), 10)
    1.85
    """
    bitrate, previous = BITRATES_KBPS[level], BITRATES_KBPS[previous_level]
    return (
        bitrate / 1000.0
        - REBUFFER_PENALTY * rebuffer_s
        - SMOOTH_PENALTY * abs(bitrate - previous) / 1000.0
    )


class ABRSimulator:
    """Plays a video over a list of traces, one trace per video, back to back.

    Parameters
    ----------
    traces : sequence of Trace
        Traces in playing order; after the last one the first starts again.
    video : Video
        Chunk sizes.
    delay_noise : bool, default False
        Training-time variant: multiply each delay (RTT included) by U(0.9, 1.1).
    random_start : bool, default False
        Training-time variant: start each trace at a random point instead of point 1.
    rng : numpy.random.Generator, optional
        Source of the noise and start points (only used by the variants).

    Example
    -------
    >>> sim = ABRSimulator(load_trace_set("hsdpa"), load_video())  # doctest: +SKIP
    >>> outcome = sim.download_chunk(1)  # doctest: +SKIP
    >>> outcome.buffer_s  # doctest: +SKIP
    4.0
    """

    def __init__(
        self,
        traces: Sequence[Trace],
        video: Video,
        *,
        delay_noise: bool = False,
        random_start: bool = False,
        rng: np.random.Generator | None = None,
    ):
        if len(traces) == 0:
            raise ValueError("ABRSimulator needs at least one trace")
        self.traces = list(traces)
        self.video = video
        self.delay_noise = delay_noise
        self.random_start = random_start
        self.rng = rng if rng is not None else np.random.default_rng()
        self.start_trace(0)

    def start_trace(self, trace_index: int) -> None:
        """Begin a new video on ``traces[trace_index]`` with an empty buffer."""
        if not 0 <= trace_index < len(self.traces):
            raise IndexError(f"trace index {trace_index} out of range for {len(self.traces)} traces")
        self.trace_index = trace_index
        trace = self.traces[trace_index]
        self._times = trace.times_s
        self._bandwidth = trace.bandwidth_mbps
        self._point = int(self.rng.integers(1, len(trace))) if self.random_start else 1
        self._clock_s = self._times[self._point - 1]
        self._buffer_ms = 0.0
        self._chunk_counter = 0

    @property
    def trace(self) -> Trace:
        return self.traces[self.trace_index]

    @property
    def clock_s(self) -> float:
        """Position in the current trace (s). It advances by download times and sleeps only: the
        RTT is added to the delay but not spent on the trace, as in the original."""
        return float(self._clock_s)

    @property
    def chunk_index(self) -> int:
        """Index of the next chunk to download (0..47)."""
        return self._chunk_counter

    def download_chunk(self, level: int) -> ChunkOutcome:
        """Download the next chunk at ``level`` (0..5) and advance the player.

        Raises
        ------
        ValueError
            If ``level`` is not one of the 6 bitrate levels.
        """
        if not (isinstance(level, (int, np.integer)) and 0 <= level < N_LEVELS):
            raise ValueError(f"bitrate level must be an integer in [0, {N_LEVELS - 1}], got {level!r}")
        level = int(level)
        trace_index = self.trace_index
        chunk_bytes = int(self.video.chunk_bytes[level, self._chunk_counter])

        delay_ms = self._download_seconds(chunk_bytes) * 1000.0 + LINK_RTT_MS
        if self.delay_noise:
            delay_ms *= self.rng.uniform(*DELAY_NOISE_RANGE)

        rebuffer_ms = max(delay_ms - self._buffer_ms, 0.0)
        self._buffer_ms = max(self._buffer_ms - delay_ms, 0.0) + CHUNK_DURATION_MS
        sleep_ms = 0.0
        if self._buffer_ms > BUFFER_THRESHOLD_MS:
            sleep_ms = math.ceil((self._buffer_ms - BUFFER_THRESHOLD_MS) / DRAIN_SLEEP_MS) * DRAIN_SLEEP_MS
            self._buffer_ms -= sleep_ms
            self._sleep(sleep_ms)
        buffer_s = self._buffer_ms / 1000.0

        self._chunk_counter += 1
        chunks_left = N_CHUNKS - self._chunk_counter
        end_of_video = self._chunk_counter >= N_CHUNKS
        if end_of_video:
            # The next video starts on the next trace; what the player sees as "next sizes"
            # are those of chunk 0, as in the original.
            self.start_trace((trace_index + 1) % len(self.traces))
        return ChunkOutcome(
            level=level,
            delay_ms=delay_ms,
            sleep_ms=sleep_ms,
            buffer_s=buffer_s,
            rebuffer_s=rebuffer_ms / 1000.0,
            chunk_bytes=chunk_bytes,
            next_chunk_bytes=self.video.next_sizes(self._chunk_counter).copy(),
            chunks_left=chunks_left,
            end_of_video=end_of_video,
            trace_index=trace_index,
        )

    def _advance_point(self) -> None:
        self._clock_s = self._times[self._point]
        self._point += 1
        if self._point >= len(self._times):
            self._point = 1
            self._clock_s = 0.0

    def _download_seconds(self, chunk_bytes: int) -> float:
        sent = 0.0
        elapsed_s = 0.0
        while True:
            throughput = self._bandwidth[self._point] * 1e6 / 8.0  # bytes/s
            duration = self._times[self._point] - self._clock_s
            payload = throughput * duration * PACKET_PAYLOAD_PORTION
            if sent + payload > chunk_bytes:
                fraction_s = (chunk_bytes - sent) / throughput / PACKET_PAYLOAD_PORTION
                elapsed_s += fraction_s
                self._clock_s += fraction_s
                return float(elapsed_s)
            sent += payload
            elapsed_s += duration
            self._advance_point()

    def _sleep(self, sleep_ms: float) -> None:
        remaining_ms = sleep_ms
        while True:
            duration = self._times[self._point] - self._clock_s
            if duration > remaining_ms / 1000.0:
                self._clock_s += remaining_ms / 1000.0
                return
            remaining_ms -= duration * 1000.0
            self._advance_point()
