"""Small conversions shared by the explanation modules."""
from __future__ import annotations

import numpy as np


def plain(value):
    """NumPy scalars to Python ones (templates, JSON and Markdown print them cleanly)."""
    return value.item() if isinstance(value, np.generic) else value
