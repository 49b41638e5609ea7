"""Generated CP blocks: valid token blocks built only from pieces of the training blocks."""
import numpy as np
import pytest

from adapters.clara.augment import augment_blocks, concatenate_blocks, crop_blocks
from adapters.clara.data import ClaraDataError, check_cp_tokens, load_cp


@pytest.fixture(scope="module")
def blocks(data_dir):
    return load_cp("synthetic", data_dir).X[:300].astype(np.int64)


def _rows(X):
    return [tuple(row[row != 0]) for row in X]


def _contains(sequence, piece):
    n = len(piece)
    return any(sequence[i:i + n] == piece for i in range(len(sequence) - n + 1))


def test_concatenations_are_two_training_blocks_back_to_back(blocks):
    generated = concatenate_blocks(blocks, 200, random_state=0)
    check_cp_tokens(generated)  # right-padded ids in range
    training = _rows(blocks)
    lengths = {len(b) for b in training}
    for row in _rows(generated):
        # Some split point gives a training block followed by another training block.
        assert any(row[:i] in training and row[i:] in training for i in range(min(lengths), len(row)))


def test_crops_are_shorter_pieces_ending_on_a_block_ending_token(blocks):
    generated = crop_blocks(blocks, 200, random_state=0)
    check_cp_tokens(generated)
    training = _rows(blocks)
    ends = {b[-1] for b in training}
    for row in _rows(generated):
        assert row and row[-1] in ends
        assert any(len(b) > len(row) and _contains(b, row) for b in training)


def test_augment_blocks_is_seeded_and_mixes_both_kinds(blocks):
    a = augment_blocks(blocks, 101, random_state=3)
    b = augment_blocks(blocks, 101, random_state=3)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (101, 70)
    lengths = (a != 0).sum(axis=1)
    # First half concatenations (longer than the median block), second half crops (shorter).
    assert np.median(lengths[:50]) > np.median((blocks != 0).sum(axis=1)) > np.median(lengths[50:])
    assert not np.array_equal(a, augment_blocks(blocks, 101, random_state=4))
    assert augment_blocks(blocks, 0).shape == (0, 70)


def test_bad_input_is_rejected(blocks):
    with pytest.raises(ValueError, match="method"):
        augment_blocks(blocks, 10, method="shuffle")
    with pytest.raises(ValueError, match="n_samples"):
        crop_blocks(blocks, -1)
    with pytest.raises(ClaraDataError, match="shape"):
        concatenate_blocks(blocks[:, :60], 5)
    single = np.zeros((1, 70), dtype=int)
    single[0, :2] = [5, 9]  # no inner block-ending token: nothing to crop at
    with pytest.raises(ValueError, match="crop"):
        crop_blocks(single, 1)
    full = np.ones((2, 70), dtype=int)
    with pytest.raises(ValueError, match="fit together"):
        concatenate_blocks(full, 1)
