"""Small models fit once on real data (Clara-MS, a LinnOS trace), shared by the primo/ tests."""
import pytest

from primo import PrAMClassifier, PrDTClassifier, PrDTRegressor
from tests.primo.helpers import clara_ms, linnos_reads


@pytest.fixture(scope="session")
def clara(data_dir):
    return clara_ms(data_dir)


@pytest.fixture(scope="session")
def linnos(data_dir):
    return linnos_reads(data_dir, n=3000)


@pytest.fixture(scope="session")
def pram_classifier(linnos):
    X, y = linnos
    return PrAMClassifier(max_bins=32, interactions=1, max_rounds=200, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)


@pytest.fixture(scope="session")
def prdt_classifier(linnos):
    X, y = linnos
    return PrDTClassifier(ccp_alpha=0.002, random_state=0).fit(X, y)


@pytest.fixture(scope="session")
def prdt_regressor(clara):
    X, y, _, _ = clara
    return PrDTRegressor(ccp_alpha=0.5, random_state=0).fit(X, y)
