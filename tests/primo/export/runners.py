"""Edge-case rows for the export tests (the runtimes that run exports are :mod:`primo.export.runtimes`)."""
import numpy as np
import pandas as pd

from primo.export.tables import AdditiveTables, TreeTables


def edge_rows(tables, base: np.ndarray) -> np.ndarray:
    """Rows probing every split: values at, just below and just above each threshold or bin edge
    (in float64 and float32), NaN, far out of range, and unseen categories, on a few real rows."""
    specials: dict[int, list[float]] = {j: [np.nan, -1e30, 1e30] for j in range(tables.n_features)}
    if isinstance(tables, TreeTables):
        for node in np.flatnonzero(tables.left != -1):
            t = tables.threshold[node]
            if not np.isfinite(t):  # a missing-values-only split ("x <= inf")
                continue
            t32 = np.float32(t)
            specials[int(tables.feature[node])] += [t, np.nextafter(t, -np.inf), np.nextafter(t, np.inf), float(t32),
                                                    float(np.nextafter(t32, np.float32(np.inf))),
                                                    float(np.nextafter(t32, np.float32(-np.inf)))]
    else:
        for binning in tables.binnings:
            if binning.is_categorical:
                values = binning.categories
                specials[binning.feature] += [*values, -1.0, values.max() + 1, values.min() + 0.5, -np.inf, np.inf]
            else:
                for c in binning.cuts:
                    specials[binning.feature] += [c, np.nextafter(c, -np.inf)]
                specials[binning.feature] += [-np.inf, np.inf]
    rows = []
    for base_row in base:
        for j, values in specials.items():
            for v in values:
                row = base_row.copy()
                row[j] = v
                rows.append(row)
    return np.asarray(rows, dtype=np.float64)


def decoded_frame(tables: AdditiveTables, rows: np.ndarray) -> pd.DataFrame:
    """Encoded PrAM rows back as the DataFrame the Python model takes (codes → text, bad codes → unseen)."""
    frame = pd.DataFrame(rows, columns=tables.feature_names)
    for j, vocabulary in tables.vocabularies.items():
        def text(code):
            if code != code:
                return None
            if 0 <= code < len(vocabulary) and code == int(code):
                return vocabulary[int(code)]
            return "<unseen>"
        frame[tables.feature_names[j]] = pd.Series([text(v) for v in rows[:, j]], dtype=object)
    return frame
