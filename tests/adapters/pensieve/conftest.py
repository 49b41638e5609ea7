"""Real Pensieve data shared by the adapter tests: HSDPA traces, the video and the pretrained actor."""
import pytest

from adapters.pensieve.actor import load_actor
from adapters.pensieve.traces import load_trace_set
from adapters.pensieve.video import load_video


@pytest.fixture(scope="session")
def hsdpa(data_dir):
    return load_trace_set("hsdpa", data_dir)


@pytest.fixture(scope="session")
def video(data_dir):
    return load_video(data_dir)


@pytest.fixture(scope="session")
def actor(data_dir):
    return load_actor(data_dir)
