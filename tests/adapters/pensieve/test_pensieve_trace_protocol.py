"""A user's own trace directories, the train / validation / test split, and pathological traces."""
import numpy as np
import pytest

from adapters.pensieve.casestudy import FULL, Settings, _load_split, pathological_traces, split_trace_sets
from adapters.pensieve.casestudy_docs import KEPT_MARKER, _kept_section
from adapters.pensieve.student import DistillationEnvFactory
from adapters.pensieve.traces import (
    Trace, TraceFormatError, detect_trace_format, load_mahimahi_trace, load_trace_dir, split_traces,
)


def _write_traces(directory, names, mbps=2.0, separator=" "):
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / name).write_text("".join(f"{t:.1f}{separator}{mbps}\n" for t in np.arange(0, 300, 5.0)))
    return directory


def _trace(name, mbps=1.0):
    return Trace(name, np.arange(0.0, 20.0, 1.0), np.full(20, mbps))


def test_split_is_seeded_disjoint_and_complete():
    traces = [_trace(f"t{i}") for i in range(20)]
    kept, held = split_traces(traces, 0.25, seed=3)
    assert len(held) == 5 and len(kept) == 15
    assert {t.name for t in kept} | {t.name for t in held} == {t.name for t in traces}
    assert [t.name for t in held] == [t.name for t in split_traces(traces[::-1], 0.25, seed=3)[1][::-1]]
    assert {t.name for t in held} != {t.name for t in split_traces(traces, 0.25, seed=4)[1]}
    assert split_traces(traces, 0.0)[1] == []
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        split_traces(traces, 1.0)
    with pytest.raises(ValueError, match="unique"):
        split_traces([_trace("a"), _trace("a")], 0.5)


def test_user_directories_tab_or_space(tmp_path):
    train = _write_traces(tmp_path / "mine", [f"bus_{i}" for i in range(10)], separator="\t")
    test = _write_traces(tmp_path / "other", [f"lte_{i}" for i in range(6)])
    assert [t.name for t in load_trace_dir(train)][:2] == ["bus_0", "bus_1"]
    split, published = _load_split(tmp_path, train, test, FULL)
    assert published == {"train": None, "test": None}  # no paper figures for a user's traces
    assert (split.train_label, split.test_label) == ("mine", "other")
    assert len(split.rollout) == 8 and len(split.validation) == 2
    assert len(split.test) == 4 and len(split.test_validation) == 2 and split.test_validation[0].name.startswith("lte")
    # Without test traces, part of the training traces is held out as the test set.
    split, _ = _load_split(tmp_path, train, None, FULL)
    assert len(split.test) == 3 and split.test_label == "mine (held out)" and not split.test_validation
    assert not {t.name for t in split.test} & {t.name for t in split.train}


def test_validation_mix_takes_test_traces_out_of_the_test_set():
    train, test = [_trace(f"h{i}") for i in range(10)], [_trace(f"f{i}") for i in range(10)]
    split = split_trace_sets(train, test, Settings(test_validation_fraction=0.3))
    assert len(split.test_validation) == 3 and len(split.test) == 7
    assert {t.name for t in split.selection} == {t.name for t in split.validation + split.test_validation}
    assert not {t.name for t in split.test} & {t.name for t in split.selection}


def test_bad_user_traces_are_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="trace directory not found"):
        load_trace_dir(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no trace files"):
        load_trace_dir(tmp_path / "empty")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x").write_text("0 1 2\n")
    with pytest.raises(TraceFormatError, match="x:1"):
        load_trace_dir(bad)
    same = _write_traces(tmp_path / "same", ["a", "b", "c"])
    with pytest.raises(ValueError, match="share names"):
        _load_split(tmp_path, same, same, FULL)


def test_pathological_traces_are_those_below_the_lowest_bitrate():
    # Point i is the rate over the interval ending at time[i]: 1 s at 0.1 Mbps, 2 s at 0.35 (point 0 unused).
    slow = Trace("slow", np.array([0.0, 1.0, 3.0]), np.array([5.0, 0.1, 0.35]))
    fast = _trace("fast", 0.35)
    assert pathological_traces([slow, fast]) == {"slow": pytest.approx(0.8 / 3)}
    assert pathological_traces([_trace("crawl", 0.2), fast]) == {"crawl": pytest.approx(0.2)}


def test_validation_traces_are_the_evaluation_episodes(video):
    train, validation = [_trace("a", 3.0), _trace("b", 3.0)], [_trace("v", 0.5)]
    factory = DistillationEnvFactory(train, video, validation_traces=validation, bandwidth_scale=(0.5, 2.0))
    assert factory.evaluation_seeds == [0]
    assert factory(0).reset(seed=0)[1]["trace_name"] == "v"
    # Training episodes play a (scaled) training trace, a pure function of the seed.
    env_a, env_b = factory(2**30 + 7), factory(2**30 + 7)
    obs_a, info = env_a.reset(seed=2**30 + 7)
    assert info["trace_name"] in {"a", "b"} and np.array_equal(obs_a, env_b.reset(seed=2**30 + 7)[0])
    with pytest.raises(ValueError, match="bandwidth_scale"):
        DistillationEnvFactory(train, video, bandwidth_scale=(2.0, 1.0))


def test_hand_written_readme_section_survives(tmp_path):
    readme = tmp_path / "README.md"
    assert _kept_section(readme) == ""
    readme.write_text(f"# generated\n\n{KEPT_MARKER}\n## What moved\n\nthe tree\n")
    assert _kept_section(readme) == f"\n{KEPT_MARKER}\n## What moved\n\nthe tree\n"


def test_mahimahi_traces_become_rates_per_window(tmp_path):
    # 2 packets in [0, 1) s, 1 in [1, 2) s, 3 in [2, 3) s: 1500 B x 8 per packet and second.
    path = tmp_path / "lte.down"
    path.write_text("0\n999\n1000\n2000\n2000\n2999\n")
    trace = load_mahimahi_trace(path)
    assert trace.times_s.tolist() == [0.0, 1.0, 2.0, 3.0]
    np.testing.assert_allclose(trace.bandwidth_mbps, [0.024, 0.024, 0.012, 0.036])
    assert detect_trace_format(path) == "mahimahi"
    cooked = _write_traces(tmp_path / "mixed", ["a"])
    (cooked / "b.down").write_text(path.read_text())
    loaded = load_trace_dir(cooked)
    assert [t.name for t in loaded] == ["a", "b.down"] and loaded[1].bandwidth_mbps.tolist() == trace.bandwidth_mbps.tolist()
    with pytest.raises(TraceFormatError, match="expected two numbers"):
        load_trace_dir(cooked, trace_format="cooked")
    with pytest.raises(ValueError, match="trace_format"):
        load_trace_dir(cooked, trace_format="pcap")


def test_bad_mahimahi_and_binary_files(tmp_path):
    backwards = tmp_path / "backwards"
    backwards.write_text("5\n3\n")
    with pytest.raises(TraceFormatError, match="non-decreasing"):
        load_mahimahi_trace(backwards)
    short = tmp_path / "short"
    short.write_text("1\n2\n")
    with pytest.raises(TraceFormatError, match="two 1 s windows"):
        load_mahimahi_trace(short)
    binary = tmp_path / "binary"
    binary.write_bytes(b"\x89PNG\x00\xff")
    with pytest.raises(TraceFormatError, match="not a text trace"):
        detect_trace_format(binary)
    three = tmp_path / "three"
    three.write_text("0 1 2\n")
    with pytest.raises(TraceFormatError, match="three:1"):
        detect_trace_format(three)


def test_command_line_passes_the_users_traces(monkeypatch, tmp_path):
    from adapters.pensieve import casestudy

    calls = []
    monkeypatch.setattr(casestudy, "run", lambda *args, **kwargs: calls.append((args, kwargs)))
    assert casestudy.main(["--traces", str(tmp_path / "a"), "--test-traces", str(tmp_path / "b"), "--trace-format",
                           "mahimahi", "--test-validation-fraction", "0", "--quick", "--out", str(tmp_path)]) == 0
    (data_dir, out), kwargs = calls[0]
    assert kwargs["traces_dir"] == str(tmp_path / "a") and kwargs["test_traces_dir"] == str(tmp_path / "b")
    assert kwargs["trace_format"] == "mahimahi" and out == str(tmp_path) and data_dir is None
    settings = kwargs["settings"]
    assert settings.test_validation_fraction == 0.0 and settings.n_iterations == casestudy.QUICK.n_iterations
    command = casestudy._command("../shared/data", tmp_path, settings, "a", "b", "mahimahi")
    assert command == (f"primo casestudy pensieve --data-dir ../shared/data --traces a --test-traces b --trace-format "
                       f"mahimahi --quick --test-validation-fraction 0.0 --out {tmp_path}")
