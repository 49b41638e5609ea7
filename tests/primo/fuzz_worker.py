"""Subprocess side of the model-file fuzz test (``python -m tests.primo.fuzz_worker`` < spec).

Reads one JSON spec line — ``{"sources": {model: path}, "cases": [[model, kind, seed], ...],
"data_dir": ..., "scratch": path}`` — then, per case, writes ``{"begin": id}``, rebuilds the mutated
file, loads it and, when it loads, predicts on real Clara-MS rows, and writes ``{"case": id,
"outcome": ...}``. Outcomes: ``refused`` (ModelFileError), ``predicted``, or ``error ...`` (a broken
contract). A crash or hang shows as a ``begin`` without its outcome; the parent test names that case.
"""
import json
import resource
import sys
import warnings
from pathlib import Path

import numpy as np

#: Address-space cap: a file that makes the loader allocate without bound fails with MemoryError here
#: (reported as a broken contract) instead of taking the machine down.
MEMORY_LIMIT = 6 << 30


def model_rows(model, rows):
    """``rows`` as this model takes them: its column names, and text only in columns it holds a
    vocabulary for (elsewhere NaN: a file may drop a vocabulary, and the contract covers numbers and NaN)."""
    names = getattr(model, "feature_names_in_", None)
    X = rows.set_axis([str(n) for n in names], axis=1) if names is not None and len(names) == rows.shape[1] else rows
    if hasattr(model, "ebm_"):
        categorical = {j for j, kind in enumerate(model.ebm_.feature_types_in_) if kind != "continuous"}
    else:
        categorical = set(getattr(model, "categories_", {}))
    for j in range(X.shape[1]):
        if X.iloc[:, j].dtype.kind not in "biuf" and j not in categorical:
            X = X.copy()
            X.iloc[:, j] = np.nan
            X = X.astype({X.columns[j]: float})
    return X


def _predict(model, rows):
    X = model_rows(model, rows)
    predicted = model.predict(X)
    if len(predicted) != len(rows):
        raise AssertionError(f"predict returned {len(predicted)} rows for {len(rows)}")
    if hasattr(model, "predict_proba"):
        model.predict_proba(X)


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    warnings.simplefilter("ignore")
    import primo
    from tests.primo.model_files import clara_table, mutated_file

    spec = json.loads(sys.stdin.readline())
    sources = {name: Path(path).read_bytes() for name, path in spec["sources"].items()}
    rows = clara_table(Path(spec["data_dir"]), n_rows=60)[0]
    scratch = Path(spec["scratch"])
    for name, kind, seed in spec["cases"]:
        case = f"{name}/{kind}/{seed}"
        print(json.dumps({"begin": case}), flush=True)
        scratch.write_bytes(mutated_file(sources[name], kind, seed))
        try:
            model = primo.load(scratch)
        except primo.ModelFileError:
            outcome = "refused"
        except Exception as exc:  # noqa: BLE001 - any other exception breaks the loading contract
            outcome = f"error at load: {type(exc).__name__}: {str(exc)[:300]}"
        else:
            try:
                _predict(model, rows)
                outcome = "predicted"
            except Exception as exc:  # noqa: BLE001 - a loaded model must predict
                outcome = f"error at predict: {type(exc).__name__}: {str(exc)[:300]}"
        print(json.dumps({"case": case, "outcome": outcome}), flush=True)


if __name__ == "__main__":
    main()
