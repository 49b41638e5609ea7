"""Real-data teachers for the distill tests: MLPs trained on Clara-MS (regression) and Clara-AI (classification)."""
import numpy as np
import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from tests.primo.helpers import clara_ms


@pytest.fixture(autouse=True, scope="module")
def single_threaded_blas():
    # scikit-optimize's Gaussian process works on tiny matrices; on this shared 2-core machine
    # multi-threaded BLAS makes each search step ~3x slower, so the tests run single-threaded.
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="session")
def ms_data(data_dir):
    """Clara-MS: 680 training / 198 test NFs, 10 features, target = best core count."""
    return clara_ms(data_dir)


@pytest.fixture(scope="session")
def ms_teacher(ms_data):
    X, y, _, _ = ms_data
    network = make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(64, 32), max_iter=300, random_state=0))
    return TransformedTargetRegressor(network, transformer=StandardScaler()).fit(X, y)


@pytest.fixture(scope="session")
def ai_data(data_dir):
    """Clara-AI: 8,313 training / 5,036 test loops, 102 binary opcode features, 1 = CRC-style loop (rare)."""
    train = np.load(data_dir / "clara" / "ai_train.npz")
    test = np.load(data_dir / "clara" / "ai_test.npz")
    return train["X"], train["y"], test["X"], test["y"]


@pytest.fixture(scope="session")
def ai_teacher(ai_data):
    X, y, _, _ = ai_data
    return MLPClassifier(hidden_layer_sizes=(32,), max_iter=300, random_state=0).fit(X, y)
