"""A synthetic housing table with every column kind Primo must accept (shared by the any-table tests)."""
import numpy as np
import pandas as pd

CITIES = ["Paris", "Lyon", "Nice", "Lille", "Brest"]


def housing(n=400, seed=0):
    """``city`` (pandas ``str``), ``kind`` (``category``), ``garden`` (bool), ``dist_center_km`` (15% NaN)
    and ``rooms`` (int); ``price`` depends on all of them, with a real effect of missing distances."""
    rng = np.random.default_rng(seed)
    city = rng.choice(CITIES, n)
    kind = rng.choice(["flat", "house", "loft"], n)
    garden = rng.random(n) < 0.4
    dist = rng.uniform(0, 30, n)
    dist[rng.random(n) < 0.15] = np.nan
    rooms = rng.integers(1, 6, n)
    price = (np.select([city == "Paris", city == "Nice"], [500.0, 350.0], 200.0)
             + np.where(kind == "house", 60.0, 0.0) + np.where(garden, 50.0, 0.0)
             - np.nan_to_num(dist, nan=40.0) * 3 + 20 * rooms + rng.normal(0, 10, n))
    X = pd.DataFrame({
        "city": pd.Series(city, dtype="str"),
        "kind": pd.Categorical(kind),
        "garden": garden,
        "dist_center_km": dist,
        "rooms": rooms,
    })
    return X, pd.Series(price, name="price")


def housing_with_unseen(n=200, seed=1):
    """Rows of :func:`housing` a model fitted on it has not seen: a new city ("Oslo"), missing cities
    (None, in an object column) and missing kinds."""
    X, _ = housing(n=n, seed=seed)
    X["city"] = X["city"].astype(object)
    X.loc[::7, "city"] = "Oslo"  # never seen at fit time
    X.loc[3::11, "city"] = None
    X.loc[5::13, "kind"] = np.nan
    return X
