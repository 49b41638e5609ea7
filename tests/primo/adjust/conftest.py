"""The adjust tests' Clara-MS PrAM with pair terms (the other shared models are in tests/primo/conftest.py)."""
import pytest

from primo import PrAMRegressor


@pytest.fixture(scope="session")
def pram_ms(clara):
    """Clara-MS PrAM with pair terms (so monotonize must handle pairs)."""
    X, y, _, _ = clara
    return PrAMRegressor(max_bins=32, interactions=4, max_rounds=300, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)
