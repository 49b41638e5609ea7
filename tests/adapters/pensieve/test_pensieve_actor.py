"""Parsing the TensorFlow.js actor and running it with numpy."""
import json
import shutil

import numpy as np
import pytest

from adapters.pensieve.actor import ACTOR_TENSORS, PensieveActor, WeightsFormatError, read_tfjs_weights


def test_manifest_tensors_and_shapes(data_dir):
    weights = read_tfjs_weights(data_dir / "pensieve" / "pensieve_actor_tfjs")
    assert len(weights) == 29
    for name, shape in ACTOR_TENSORS.items():
        assert weights[name].shape == shape and weights[name].dtype == np.float32
    # The slice feeding FullyConnected_2 starts at row 4, last column (the "sic" of the README).
    assert weights["actor/strided_slice_5/stack"].tolist() == [0, 4, -1]


def test_parameter_count(actor):
    assert actor.n_parameters == 111622


def test_probabilities_batch_and_single(actor, rng=np.random.default_rng(0)):
    states = rng.uniform(0, 1, size=(7, 6, 8))
    p = actor.action_probabilities(states)
    assert p.shape == (7, 6) and p.dtype == np.float32
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    # BLAS may round a batch and a single row differently in the last float32 bits.
    np.testing.assert_allclose(actor.action_probabilities(states[3]), p[3], rtol=1e-4, atol=1e-9)
    assert not np.allclose(p[0], p[1])  # depends on the input


def test_reads_row4_last_column_not_row5(actor):
    state = np.random.default_rng(1).uniform(0, 1, size=(6, 8))
    base = actor.action_probabilities(state)
    row5_changed = state.copy()
    row5_changed[5] += 0.5
    np.testing.assert_array_equal(actor.action_probabilities(row5_changed), base)
    col7_changed = state.copy()
    col7_changed[4, 7] += 0.5
    assert not np.array_equal(actor.action_probabilities(col7_changed), base)
    # Only the last column of rows 0 and 1 is read.
    history_changed = state.copy()
    history_changed[:2, :7] += 0.5
    np.testing.assert_array_equal(actor.action_probabilities(history_changed), base)


def test_bad_state_shape(actor):
    with pytest.raises(ValueError, match="shape"):
        actor.action_probabilities(np.zeros((5, 8)))
    with pytest.raises(ValueError, match="NaN"):
        actor.action_probabilities(np.full((6, 8), np.nan))


def _copy_export(data_dir, tmp_path):
    target = tmp_path / "export"
    shutil.copytree(data_dir / "pensieve" / "pensieve_actor_tfjs", target)
    for p in target.iterdir():
        p.chmod(0o644)
    return target


def test_truncated_shard_is_rejected(data_dir, tmp_path):
    export = _copy_export(data_dir, tmp_path)
    shard = export / "group1-shard1of1"
    shard.write_bytes(shard.read_bytes()[:-4])
    with pytest.raises(WeightsFormatError, match="end before tensor"):
        read_tfjs_weights(export)


def test_unsupported_dtype_and_missing_tensor(data_dir, tmp_path):
    export = _copy_export(data_dir, tmp_path)
    manifest_path = export / "weights_manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest[0]["weights"][2]["dtype"] = "float16"
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(WeightsFormatError, match="float16"):
        read_tfjs_weights(export)
    weights = read_tfjs_weights(data_dir / "pensieve" / "pensieve_actor_tfjs")
    del weights["actor/FullyConnected_3/W"]
    with pytest.raises(WeightsFormatError, match="FullyConnected_3/W"):
        PensieveActor(weights)
