"""Clara loaders: shapes and dtypes on the real files; clear errors on missing or ill-formed files."""
import json
import shutil

import numpy as np
import pytest

from adapters.clara.data import (
    CP_LSTM_WEIGHT_SHAPES,
    MS_FEATURES,
    ClaraDataError,
    check_cp_tokens,
    load_ai,
    load_ai_click_loops,
    load_cp,
    load_cp_lstm_weights,
    load_ms,
)


def test_ms_splits_have_the_published_sizes_and_columns(data_dir):
    sizes = {"train": 680, "test": 198, "real_nfs": 4}
    for split, n in sizes.items():
        ms = load_ms(split, data_dir)
        assert ms.X.shape == (n, 10)
        assert tuple(ms.X.columns) == MS_FEATURES
        assert ms.y.name == "cores" and len(ms.y) == n
        assert ms.y.between(28, 60).all()
    real = load_ms("real_nfs", data_dir)
    assert list(real.X.index) == ["MazuNAT", "DNSProxy", "UDPCount", "WebGen"]
    assert real.y["MazuNAT"] == 39


def test_ai_splits_are_binary_with_rare_positives(data_dir):
    train, test = load_ai("train", data_dir), load_ai("test", data_dir)
    assert train.X.shape == (8313, 102) and train.X.dtype == np.uint8
    assert int(train.y.sum()) == 39
    assert test.X.shape == (5036, 102) and int(test.y.sum()) == 36


def test_click_loops_pair_names_opcodes_and_vectors(data_dir):
    loops = load_ai_click_loops(data_dir)
    assert loops.X.shape == (756, 102) and loops.X.dtype == np.uint8
    assert len(loops.names) == len(loops.opcodes) == 756
    assert loops.names[0].startswith("./adaptivered.cc.ll-loop-7")
    assert loops.opcodes[0][:2] == ("landingpad", "getelementptr")


def test_cp_splits_are_right_padded_tokens_with_scaled_counts(data_dir):
    synthetic, real = load_cp("synthetic", data_dir), load_cp("real_nfs", data_dir)
    assert synthetic.X.shape == (2911, 70) and synthetic.X.dtype == np.int16
    assert synthetic.groups is None
    # y is instruction count / 60: whole numbers once rescaled.
    np.testing.assert_allclose(synthetic.instruction_counts, np.round(synthetic.instruction_counts))
    assert real.X.shape == (89, 70) and real.y.shape == (89,)
    assert len(real.group_names) == 8 and real.group_names[0] == "aggcounter"
    assert set(np.unique(real.groups)) == set(range(8))


def test_lstm_weights_have_the_documented_shapes(data_dir):
    weights = load_cp_lstm_weights(data_dir)
    assert {k: v.shape for k, v in weights.items()} == CP_LSTM_WEIGHT_SHAPES
    assert all(v.dtype == np.float64 for v in weights.values())


@pytest.fixture
def fake_dir(tmp_path):
    (tmp_path / "clara").mkdir()
    return tmp_path


def test_missing_file_names_the_path(fake_dir):
    with pytest.raises(FileNotFoundError, match="ms_train.csv"):
        load_ms("train", fake_dir)


def test_unknown_split_is_rejected(data_dir):
    with pytest.raises(ValueError, match="unknown Clara-MS split"):
        load_ms("validation", data_dir)
    with pytest.raises(ValueError, match="unknown Clara-CP split"):
        load_cp("train", data_dir)


def test_ms_csv_without_a_column_is_rejected(fake_dir, data_dir):
    frame = load_ms("test", data_dir)
    frame.X.drop(columns="R_ec").assign(cores=frame.y).to_csv(fake_dir / "clara" / "ms_test.csv", index=False)
    with pytest.raises(ClaraDataError, match="R_ec"):
        load_ms("test", fake_dir)


def test_ms_csv_with_text_values_is_rejected(fake_dir, data_dir):
    shutil.copy(data_dir / "clara" / "ms_test.csv", fake_dir / "clara" / "ms_test.csv")
    path = fake_dir / "clara" / "ms_test.csv"
    lines = path.read_text().splitlines()
    lines[1] = "oops," + lines[1].split(",", 1)[1]
    path.write_text("\n".join(lines))
    with pytest.raises(ClaraDataError, match="R_state"):
        load_ms("test", fake_dir)


def test_npz_without_an_array_is_rejected(fake_dir):
    np.savez(fake_dir / "clara" / "cp_real_nfs.npz", X=np.zeros((2, 70), np.int16), y=np.zeros(2))
    with pytest.raises(ClaraDataError, match="nf"):
        load_cp("real_nfs", fake_dir)


def test_file_that_is_not_npz_is_rejected(fake_dir):
    (fake_dir / "clara" / "ai_train.npz").write_text("not an archive")
    with pytest.raises(ClaraDataError, match="ai_train.npz"):
        load_ai("train", fake_dir)


def test_ai_with_non_binary_values_is_rejected(fake_dir):
    np.savez(fake_dir / "clara" / "ai_test.npz", X=np.full((3, 102), 2, np.uint8), y=np.zeros(3, np.uint8))
    with pytest.raises(ClaraDataError, match="0/1"):
        load_ai("test", fake_dir)


def test_click_loops_with_a_short_vector_name_the_line(fake_dir):
    good = {"loop": "a", "opcodes": ["load"], "vector": [0] * 102}
    bad = {"loop": "b", "opcodes": ["load"], "vector": [0] * 101}
    (fake_dir / "clara" / "ai_click_loops.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ClaraDataError, match=r":2: vector has 101"):
        load_ai_click_loops(fake_dir)


def test_lstm_weights_with_a_wrong_shape_are_rejected(fake_dir, data_dir):
    weights = load_cp_lstm_weights(data_dir)
    weights["lstm_kernel"] = weights["lstm_kernel"][:, :128]
    np.savez(fake_dir / "clara" / "cp_clara_lstm_weights.npz", **weights)
    with pytest.raises(ClaraDataError, match="lstm_kernel"):
        load_cp_lstm_weights(fake_dir)


def test_token_checks_reject_bad_ids_shapes_and_padding():
    row = np.zeros((1, 70), dtype=int)
    row[0, :3] = [5, 7, 5]
    assert check_cp_tokens(row).dtype == np.int64
    with pytest.raises(ClaraDataError, match="shape"):
        check_cp_tokens(row[:, :69])
    with pytest.raises(ClaraDataError, match=r"\[0, 125\)"):
        check_cp_tokens(np.where(row == 7, 125, row))
    with pytest.raises(ClaraDataError, match="right-padded"):
        check_cp_tokens(np.roll(row, 1, axis=1))
    with pytest.raises(ClaraDataError, match="integers"):
        check_cp_tokens(row + 0.5)
