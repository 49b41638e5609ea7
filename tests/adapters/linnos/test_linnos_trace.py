"""Trace loading, validation and the pending (in-flight) count."""
import numpy as np
import pytest

from adapters.linnos.trace import TRACE_COLUMNS, TraceFormatError, list_traces, load_trace, pending_counts


def brute_force_pending(submit, latency):
    """O(n^2) reference: I/Os earlier in (submit, position) order that have not completed before."""
    order = sorted(range(len(submit)), key=lambda i: (submit[i], i))
    rank = {i: r for r, i in enumerate(order)}
    return np.array([
        sum(1 for j in range(len(submit)) if rank[j] < rank[i] and submit[j] + latency[j] >= submit[i])
        for i in range(len(submit))
    ])


def test_pending_counts_hand_example():
    # I/O 0 runs 0-25, I/O 1 10-15, I/O 2 20-120, I/O 3 30-31.
    assert pending_counts(np.array([0, 10, 20, 30]), np.array([25, 5, 100, 1])).tolist() == [0, 1, 1, 1]


def test_pending_counts_ties_and_unsorted_input():
    submit = np.array([50, 0, 0, 10])
    latency = np.array([5, 10, 0, 40])
    # sorted order: idx1 (0-10), idx2 (0-0), idx3 (10-50), idx0 (50-55)
    # idx2 at 0: idx1 pending -> 1; idx3 at 10: idx1 ends at 10 (not before) -> pending, idx2 done -> 1;
    # idx0 at 50: idx3 ends at 50 -> pending -> 1.
    assert pending_counts(submit, latency).tolist() == [1, 0, 1, 1]


def test_pending_counts_matches_brute_force():
    rng = np.random.default_rng(1)
    submit = rng.integers(0, 200, 300)
    latency = rng.integers(0, 60, 300)
    np.testing.assert_array_equal(pending_counts(submit, latency), brute_force_pending(submit, latency))


def test_pending_counts_rejects_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        pending_counts(np.array([0, 1]), np.array([1]))
    with pytest.raises(ValueError, match="non-negative"):
        pending_counts(np.array([0, 1]), np.array([1, -1]))


def write(tmp_path, text, name="t.trace"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_load_trace_sorts_and_derives_columns(tmp_path):
    path = write(tmp_path, "0.000,100,1,4096,0,0.050,4096\n0.000,30,0,4096,8192,0.010,4096\n")
    trace = load_trace(path)
    assert list(trace.columns) == list(TRACE_COLUMNS) + ["submit_us", "pending"]
    assert trace["submit_us"].tolist() == [10, 50]
    assert trace["io_type"].tolist() == [0, 1]
    assert trace["pending"].tolist() == [0, 0]  # the write (10-40 us) is done before 50 us


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("0.0,100,1,4096,0,0.05\n", "expected 7 columns"),
        ("ts,lat,io,size,off,sub,size2\n0.0,100,1,4096,0,0.05,4096\n", "line 1 .*non-numeric"),
        ("0.0,100,1,4096,0,0.05,4096\n0.0,100,2,4096,0,0.06,4096\n", "line 2: io_type"),
        ("0.0,-3,1,4096,0,0.05,4096\n", "line 1: latency_us"),
        ("0.0,100,1,4096,0,,4096\n", "missing or non-numeric"),
    ],
)
def test_load_trace_rejects_bad_files(tmp_path, text, message):
    with pytest.raises(TraceFormatError, match=message):
        load_trace(write(tmp_path, text))


def test_load_trace_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="trace file not found"):
        load_trace(tmp_path / "nope.trace")


def test_real_trace_loads(data_dir):
    paths = list_traces(data_dir)
    assert len(paths) == 4
    trace = load_trace(paths[2])
    assert len(trace) == 50_000
    assert trace["submit_us"].is_monotonic_increasing
    assert set(trace["io_type"].unique()) == {0, 1}
    # The replayer keeps at most ~64 I/Os in flight.
    assert trace["pending"].min() == 0 and 30 < trace["pending"].max() < 100
    # Spot-check the fast method against brute force on a prefix.
    head = trace.iloc[:400]
    np.testing.assert_array_equal(
        pending_counts(head["submit_us"].to_numpy(), head["latency_us"].to_numpy()),
        brute_force_pending(head["submit_us"].tolist(), head["latency_us"].tolist()),
    )
