"""LinnOS's own training-data format, on a fixture written in that format (data/mldrive_fixture.csv)."""
from pathlib import Path

import numpy as np
import pytest

from adapters.linnos.features import RAW_FEATURE_NAMES, digit_encode
from adapters.linnos.training_data import (
    TrainingDataFormatError, is_training_data, load_training_data, write_training_data,
)

FIXTURE = Path(__file__).parent / "data" / "mldrive_fixture.csv"


def test_fixture_decodes_to_raw_features_most_recent_first():
    reads = load_training_data(FIXTURE)
    assert list(reads.columns) == ["latency_us", *RAW_FEATURE_NAMES] and len(reads) == 3  # blank line skipped
    first = reads.iloc[0]
    # The file lists the history oldest first: queue lengths 5, 12, 7, 130, then 64 now.
    assert [first[f"pending_prev{k}"] for k in (4, 3, 2, 1)] == [5, 12, 7, 130] and first["pending_now"] == 64
    assert [first[f"latency_prev{k}"] for k in (4, 3, 2, 1)] == [180, 95, 2750, 9999]
    assert first["latency_us"] == 3120
    second = reads.iloc[1]
    assert second["pending_prev1"] == 999 and second["pending_now"] == 3 and second["latency_prev1"] == 41
    assert second["latency_us"] == 77
    assert (reads.iloc[2] == 0).all() and (reads.dtypes == np.int64).all()


def test_decoded_features_encode_back_to_the_files_digits():
    reads = load_training_data(FIXTURE)
    file_digits = np.array([[int(v) for v in line.split(",")[:31]]
                            for line in FIXTURE.read_text().splitlines() if line])
    ours = digit_encode(reads[RAW_FEATURE_NAMES])  # pending_now, prev1..4, latencies prev1..4
    pending = [file_digits[:, 3 * k: 3 * k + 3] for k in range(5)]  # prev4, prev3, prev2, prev1, now
    latency = [file_digits[:, 15 + 4 * k: 19 + 4 * k] for k in range(4)]  # prev4 .. prev1
    expected = np.hstack([pending[4], pending[3], pending[2], pending[1], pending[0],
                          latency[3], latency[2], latency[1], latency[0]])
    np.testing.assert_array_equal(ours, expected)


def test_format_is_detected():
    assert is_training_data(FIXTURE)


@pytest.mark.parametrize("content, message", [
    ("", "empty file"),
    ("0,0,1\n", "3 fields, expected 32"),
    (",".join(["0"] * 30 + ["12", "5"]) + "\n", "field 31 is '12'"),
    (",".join(["0"] * 31 + ["-5"]) + "\n", "latency '-5'"),
    ("1.5,120,1,4096,0,0.2,4096\n", "7 fields"),  # a FlashNet trace line
])
def test_malformed_files_are_refused_with_the_line(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert not is_training_data(path)
    with pytest.raises(TrainingDataFormatError, match=message):
        load_training_data(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="not found"):
        load_training_data("no/such/mldrive.csv")


def test_writer_is_the_loaders_inverse(tmp_path):
    reads = load_training_data(FIXTURE)
    out = tmp_path / "mldrive0.csv"
    write_training_data(reads, out)
    assert out.read_text().splitlines() == [line for line in FIXTURE.read_text().splitlines() if line]


def test_writer_saturates_like_linnos(tmp_path):
    reads = load_training_data(FIXTURE).iloc[:1].copy()
    reads["pending_now"], reads["latency_prev2"] = 1500, 25000
    out = tmp_path / "saturated.csv"
    write_training_data(reads, out)
    back = load_training_data(out)
    assert back.loc[0, "pending_now"] == 999 and back.loc[0, "latency_prev2"] == 9999
    with pytest.raises(ValueError, match="lack columns"):
        write_training_data(reads.drop(columns="pending_now"), out)
