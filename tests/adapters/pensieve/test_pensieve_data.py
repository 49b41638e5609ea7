"""Trace and video loading on the real data."""
import numpy as np
import pytest

from adapters.pensieve.traces import TraceFormatError, load_trace, load_trace_set
from adapters.pensieve.video import N_CHUNKS, load_video


def test_hsdpa_traces_load(data_dir):
    traces = load_trace_set("hsdpa", data_dir)
    assert len(traces) == 142
    bus = next(t for t in traces if t.name == "norway_bus_1")
    assert bus.times_s[0] == 0.0 and bus.times_s[1] == 0.549999952316
    assert bus.bandwidth_mbps[0] == 4.03768755221
    assert all(np.all(np.diff(t.times_s) >= 0) for t in traces)


def test_fcc_traces_load_space_separated(data_dir):
    traces = load_trace_set("fcc", data_dir)
    assert len(traces) == 125
    assert all(len(t.times_s) == len(t.bandwidth_mbps) >= 2 for t in traces)
    # FCC points are 5 s apart.
    assert np.median(np.diff(traces[0].times_s)) == 5.0


def test_wrong_delimiter_is_a_clear_error(data_dir):
    path = data_dir / "pensieve" / "traces" / "fcc" / "apple_10"
    with pytest.raises(TraceFormatError, match="expected two numbers"):
        load_trace(path, delimiter="\t")


def test_malformed_trace_files(tmp_path):
    one_point = tmp_path / "one"
    one_point.write_text("0.0\t1.0\n")
    with pytest.raises(TraceFormatError, match="at least two points"):
        load_trace(one_point)
    backwards = tmp_path / "backwards"
    backwards.write_text("1.0 1.0\n0.5 1.0\n")
    with pytest.raises(TraceFormatError, match="non-decreasing"):
        load_trace(backwards)


def test_unknown_trace_set(data_dir):
    with pytest.raises(ValueError, match="unknown trace set"):
        load_trace_set("youtube", data_dir)


def test_video_sizes(data_dir):
    video = load_video(data_dir)
    assert video.chunk_bytes.shape == (6, N_CHUNKS + 1)
    assert video.chunk_bytes[0, :3].tolist() == [181801, 155580, 139857]
    # Higher levels are bigger on average.
    assert np.all(np.diff(video.chunk_bytes.mean(axis=1)) > 0)
    assert video.next_sizes(0).tolist() == video.chunk_bytes[:, 0].tolist()


def test_video_missing_directory(tmp_path):
    (tmp_path / "pensieve" / "video_sizes").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="video_size_0"):
        load_video(tmp_path)
