"""Baseline policies and the evaluation harness (BB/MPC exactness is in test_pensieve_golden)."""
import numpy as np
import pytest

from adapters.pensieve.baselines import BolaPolicy, BufferBasedPolicy, RateBasedPolicy, RobustMPCPolicy
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.evaluation import evaluate_policy, pensieve_logs, play_traces, play_video
from adapters.pensieve.golden import golden_qoe
from adapters.pensieve.observation import FEATURE_INDEX, N_FEATURES, THROUGHPUT_LAGS
from adapters.pensieve.teacher import ActorTeacher


def _obs(buffer_s=0.0, throughputs=(), last_kbps=750, chunks_left=40):
    obs = np.zeros(N_FEATURES)
    obs[FEATURE_INDEX["buffer_s"]] = buffer_s
    obs[THROUGHPUT_LAGS[: len(throughputs)]] = throughputs  # newest first
    obs[FEATURE_INDEX["last_bitrate_kbps"]] = last_kbps
    obs[FEATURE_INDEX["chunks_left"]] = chunks_left
    return obs


def test_buffer_based_thresholds():
    policy = BufferBasedPolicy()
    assert [policy.act(_obs(b)) for b in (0.0, 4.99, 5.0, 7.0, 9.0, 14.99, 15.0, 40.0)] == [0, 0, 0, 1, 2, 4, 5, 5]


def test_rate_based_uses_harmonic_mean_of_last_five():
    policy = RateBasedPolicy()
    # Harmonic mean of (0.2, 0.2, 0.2, 0.2, 0.2) MB/s = 1600 kbps -> 1200 kbps (level 2);
    # the 6th, much larger throughput is outside the window.
    assert policy.act(_obs(throughputs=(0.2,) * 5 + (50.0,))) == 2
    # One slow chunk pulls the harmonic mean down: 5 / (4/1 + 1/0.05) = 0.208 MB/s -> 1667 kbps.
    assert policy.act(_obs(throughputs=(1.0, 1.0, 0.05, 1.0, 1.0))) == 2
    assert policy.act(_obs(throughputs=(0.01,))) == 0
    with pytest.raises(ValueError, match="no throughput"):
        policy.act(_obs())


def test_bola_rises_with_buffer():
    policy = BolaPolicy()
    levels = [policy.level_for_buffer(b) for b in np.linspace(0, 60, 61)]
    assert levels[0] == 0 and levels[-1] == 5
    assert np.all(np.diff(levels) >= 0) and len(set(levels)) == 6
    assert policy.V == pytest.approx(14 / (np.log(4300 / 300) + 5))


def test_mpc_prefers_high_bitrate_on_a_fast_stable_link(video):
    policy = RobustMPCPolicy(video)
    assert policy.act(_obs(buffer_s=20.0, throughputs=(5.0,) * 5, last_kbps=4300)) == 5
    slow = RobustMPCPolicy(video)
    assert slow.act(_obs(buffer_s=0.5, throughputs=(0.04,) * 5, last_kbps=300)) == 0


def test_mpc_lookahead_offset_and_error_reset_change_decisions(hsdpa, video):
    def levels(**kwargs):
        runs = play_traces(RobustMPCPolicy(video, **kwargs), hsdpa[:4], video)
        return [o.level for run in runs for o in run.outcomes]

    faithful = levels()
    assert levels(lookahead_offset=0) != faithful
    assert levels(reset_errors_per_video=True) != faithful


def test_play_video_and_qoe_excludes_chunk_zero(hsdpa, video):
    env = PensieveEnv(hsdpa, video)
    run = play_video(env, BufferBasedPolicy(), trace_index=3)
    assert run.trace_name == hsdpa[3].name and len(run.outcomes) == len(run.rewards) == 48
    assert run.qoe == pytest.approx(np.mean(run.rewards[1:]))
    assert run.rewards[0] < run.qoe  # chunk 0 always stalls on an empty buffer
    log = pensieve_logs([run])[run.trace_name]
    assert golden_qoe(log) == run.qoe
    assert log[-1, 0] == pytest.approx(sum(o.delay_ms + o.sleep_ms for o in run.outcomes) / 1000.0)


def test_buffer_based_hsdpa_qoe_matches_published(hsdpa, video):
    # BB is deterministic and stateless, so the trace order does not matter; targets.md: 0.639.
    result = evaluate_policy(BufferBasedPolicy(), hsdpa, video)
    assert len(result.qoe_per_trace) == 142
    assert result.mean_qoe == pytest.approx(0.639, abs=5e-4)


@pytest.mark.slow
def test_hsdpa_policy_ranking(hsdpa, video, actor):
    qoe = {
        name: evaluate_policy(policy, hsdpa, video).mean_qoe
        for name, policy in {
            "rl": ActorTeacher(actor),
            "mpc": RobustMPCPolicy(video),
            "rb": RateBasedPolicy(),
            "bb": BufferBasedPolicy(),
        }.items()
    }
    assert qoe["rl"] > qoe["mpc"] > qoe["rb"] > qoe["bb"]
