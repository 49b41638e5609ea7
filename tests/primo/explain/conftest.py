"""The explanation tests' Clara-MS PrAM (the other shared models are in tests/primo/conftest.py)."""
import pytest

from primo import PrAMRegressor


@pytest.fixture(scope="session")
def pram_regressor(clara):
    X, y, _, _ = clara
    return PrAMRegressor(max_bins=32, interactions=2, max_rounds=300, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)
