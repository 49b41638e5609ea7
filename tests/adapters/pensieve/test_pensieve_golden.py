"""The simulator and actor reproduce Pensieve's golden logs row for row (all 142 HSDPA traces)."""
import numpy as np
import pytest

from adapters.pensieve.baselines import BufferBasedPolicy, RobustMPCPolicy
from adapters.pensieve.evaluation import LOG_COLUMNS
from adapters.pensieve.golden import golden_qoe, load_golden_log, load_golden_logs, replay_golden
from adapters.pensieve.teacher import ActorTeacher


def _assert_identical(pairs):
    for name, (ours, golden) in pairs.items():
        mismatched = np.flatnonzero(~(ours == golden).all(axis=1))
        assert len(mismatched) == 0, (
            f"{name}: first differing row {mismatched[0]}: ours {ours[mismatched[0]]}, golden {golden[mismatched[0]]}"
        )


def test_golden_logs_order_and_format(data_dir):
    logs = load_golden_logs("rl", data_dir)
    assert len(logs) == 142 and all(log.shape == (48, len(LOG_COLUMNS)) for log in logs.values())
    starts = [log[0, 0] for log in logs.values()]
    assert starts == sorted(starts) and next(iter(logs)) == "norway_tram_25"
    assert {len(load_golden_logs(p, data_dir)) for p in ("bb", "mpc", "primo")} == {6}


def test_bad_golden_log(tmp_path):
    path = tmp_path / "log_sim_rl_x"
    path.write_text("1\t2\t3\n")
    with pytest.raises(ValueError, match="columns|rows"):
        load_golden_log(path)


def test_actor_reproduces_every_rl_log_row(actor, data_dir):
    # Legacy RandomState(42), one draw per chunk (also after the last chunk), traces in log order.
    pairs = replay_golden(ActorTeacher(actor, np.random.RandomState(42)), "rl", data_dir)
    assert len(pairs) == 142
    _assert_identical(pairs)
    assert np.mean([golden_qoe(ours) for ours, _ in pairs.values()]) == pytest.approx(0.934, abs=5e-4)


def test_buffer_based_reproduces_bb_logs(data_dir):
    _assert_identical(replay_golden(BufferBasedPolicy(), "bb", data_dir))


def test_robust_mpc_reproduces_mpc_logs(video, data_dir):
    _assert_identical(replay_golden(RobustMPCPolicy(video), "mpc", data_dir))
