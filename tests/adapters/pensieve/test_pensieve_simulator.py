"""Simulator semantics: hand-computed downloads, wrap-around, buffer cap, invariants on real traces."""
import math

import numpy as np
import pytest

from adapters.pensieve.baselines import BufferBasedPolicy
from adapters.pensieve.simulator import ABRSimulator, linear_qoe_reward
from adapters.pensieve.state import initial_state, update_state
from adapters.pensieve.traces import Trace
from adapters.pensieve.video import N_CHUNKS, Video


def _video(first_sizes=(475000, 475000)):
    sizes = np.full((6, N_CHUNKS + 1), 475000, dtype=np.int64)
    sizes[:, : len(first_sizes)] = first_sizes
    return Video(sizes)


def test_hand_computed_first_chunk():
    # 8 Mbps = 1e6 B/s, 95% payload -> 950,000 B/s: 475,000 B take 0.5 s, + 80 ms RTT.
    trace = Trace("flat", np.arange(0.0, 20.0), np.full(20, 8.0))
    sim = ABRSimulator([trace], _video())
    out = sim.download_chunk(1)
    assert out.delay_ms == pytest.approx(580.0)
    assert out.rebuffer_s == pytest.approx(0.58)  # empty buffer: the whole delay stalls
    assert out.buffer_s == 4.0
    assert out.chunks_left == N_CHUNKS - 1 and not out.end_of_video
    assert sim.clock_s == pytest.approx(0.5)  # the RTT is not spent on the trace
    second = sim.download_chunk(1)
    assert second.rebuffer_s == 0.0 and second.buffer_s == pytest.approx(4.0 - 0.58 + 4.0)


def test_wrap_around_restarts_at_point_one_with_clock_zero():
    # Interval ending at t=11 runs at 8 Mbps, the one ending at 12 at 16 Mbps. After the end the
    # trace restarts at point 1 with the clock at 0, so the first interval then lasts 11 s.
    trace = Trace("short", np.array([10.0, 11.0, 12.0]), np.array([99.0, 8.0, 16.0]))
    sim = ABRSimulator([trace], _video((950000 + 1900000 + 475000, 5 * 950000)))
    first = sim.download_chunk(0)
    assert first.delay_ms == pytest.approx(2580.0)
    assert sim.clock_s == pytest.approx(0.5)
    second = sim.download_chunk(0)
    assert second.delay_ms == pytest.approx(5080.0)  # 10.5 s of 8 Mbps were left in the interval


def test_buffer_cap_sleeps_in_500ms_steps_and_advances_the_trace():
    trace = Trace("fast", np.arange(0.0, 2000.0), np.full(2000, 800.0))
    sim = ABRSimulator([trace], _video())
    previous_buffer_ms, slept = 0.0, 0
    for _ in range(N_CHUNKS):
        clock_before = sim.clock_s
        out = sim.download_chunk(5)
        assert out.buffer_s <= 60.0
        unclamped = max(previous_buffer_ms - out.delay_ms, 0.0) + 4000.0
        if unclamped > 60000.0:
            slept += 1
            assert out.sleep_ms == math.ceil((unclamped - 60000.0) / 500.0) * 500.0
        else:
            assert out.sleep_ms == 0.0
        assert out.buffer_s * 1000.0 == pytest.approx(unclamped - out.sleep_ms)
        if not out.end_of_video:
            expected_advance = (out.delay_ms - 80.0) / 1000.0 + out.sleep_ms / 1000.0
            assert sim.clock_s - clock_before == pytest.approx(expected_advance)
        previous_buffer_ms = out.buffer_s * 1000.0
    assert slept > 20


def test_48_chunks_per_video_then_next_trace(hsdpa, video):
    sim = ABRSimulator(hsdpa[:2], video)
    outcomes = [sim.download_chunk(2) for _ in range(2 * N_CHUNKS + 1)]
    ends = [i for i, o in enumerate(outcomes) if o.end_of_video]
    assert ends == [N_CHUNKS - 1, 2 * N_CHUNKS - 1]
    assert [o.trace_index for o in outcomes[: N_CHUNKS]] == [0] * N_CHUNKS
    assert [o.trace_index for o in outcomes[N_CHUNKS: 2 * N_CHUNKS]] == [1] * N_CHUNKS
    assert outcomes[-1].trace_index == 0  # the list wraps around
    assert [o.chunk_index for o in outcomes[:N_CHUNKS]] == list(range(N_CHUNKS))
    # The last step reports chunk 0's sizes; the next video starts from an empty buffer.
    np.testing.assert_array_equal(outcomes[N_CHUNKS - 1].next_chunk_bytes, video.chunk_bytes[:, 0])
    assert outcomes[N_CHUNKS].buffer_s == 4.0
    assert outcomes[N_CHUNKS].rebuffer_s == pytest.approx(outcomes[N_CHUNKS].delay_ms / 1000.0)


def test_invariants_on_real_traces_with_buffer_based_policy(hsdpa, video):
    sim = ABRSimulator(hsdpa[::15], video)
    policy = BufferBasedPolicy()
    for _ in range(len(sim.traces)):
        previous_buffer_s, level, chunks = 0.0, 1, 0
        while True:
            out = sim.download_chunk(level)
            chunks += 1
            assert out.buffer_s >= 0.0 and out.rebuffer_s >= 0.0
            assert out.delay_ms > 80.0
            assert out.rebuffer_s == pytest.approx(max(out.delay_ms / 1000.0 - previous_buffer_s, 0.0), abs=1e-9)
            previous_buffer_s = out.buffer_s
            level = policy.level_for_buffer(out.buffer_s)
            if out.end_of_video:
                break
        assert chunks == N_CHUNKS


def test_delay_noise_and_random_start(hsdpa, video):
    plain = ABRSimulator(hsdpa[:20], video)
    noisy = ABRSimulator(hsdpa[:20], video, delay_noise=True, rng=np.random.default_rng(0))
    ratios = []
    for index in range(20):
        plain.start_trace(index)
        noisy.start_trace(index)
        ratios.append(noisy.download_chunk(1).delay_ms / plain.download_chunk(1).delay_ms)
    assert all(0.9 <= r <= 1.1 for r in ratios) and np.std(ratios) > 0.01
    starts = ABRSimulator(hsdpa[:1], video, random_start=True, rng=np.random.default_rng(0))
    clocks = set()
    for _ in range(5):
        starts.start_trace(0)
        clocks.add(starts.clock_s)
    assert len(clocks) > 1


def test_invalid_level(hsdpa, video):
    sim = ABRSimulator(hsdpa[:1], video)
    with pytest.raises(ValueError, match="bitrate level"):
        sim.download_chunk(6)


def test_linear_qoe_reward():
    assert linear_qoe_reward(1, 1, 0.8872836624630916) == -3.065319748591294  # a golden-log row
    assert linear_qoe_reward(4, 1, 0.0) == pytest.approx(2.85 - 2.1)


def test_state_update_rolls_with_wrap_around():
    state = update_state(initial_state(), 750, 4.0, 450283, 887.2836624630917, np.arange(1, 7) * 1e6, 47)
    assert state[0, -1] == 750 / 4300.0 and state[1, -1] == 0.4
    assert state[2, -1] == 450283 / 887.2836624630917 / 1000.0
    assert state[4, :6].tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] and state[5, -1] == 47 / 48
    state = update_state(state, 300, 5.0, 1, 100.0, np.arange(11, 17) * 1e6, 46)
    assert state[0, -2:].tolist() == [750 / 4300.0, 300 / 4300.0]
    assert state[4, 6:].tolist() == [0.0, 1.0]  # column 0 wrapped to column 7
