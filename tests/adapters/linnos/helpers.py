"""Stand-ins shared by the LinnOS adapter tests."""
import numpy as np


class Constant:
    """A fast/slow model that always predicts ``value`` (0 = fast, 1 = slow)."""

    def __init__(self, value):
        self.value = value

    def predict(self, features):
        return np.full(len(features), self.value)
