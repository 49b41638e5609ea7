"""``primo predict``: predictions of a saved model on a table."""
from __future__ import annotations

import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser("predict", help="predict with a saved model", description=__doc__)
    parser.add_argument("model", help="Primo model file")
    parser.add_argument("data", help="table with the model's feature columns (extra columns are ignored)")
    parser.add_argument("--proba", action="store_true", help="also write class probabilities")
    parser.add_argument("--out", default=None, help="output .csv/.parquet (default: CSV on stdout)")
    parser.set_defaults(func=run)


def run(args) -> int:
    import pandas as pd

    import primo
    from primo.tabular import model_inputs, read_table, write_table

    model = primo.load(args.model)
    X = model_inputs(model, read_table(args.data))
    result = pd.DataFrame({"prediction": model.predict(X)})
    if args.proba:
        if not hasattr(model, "predict_proba"):
            raise ValueError(f"{type(model).__name__} is a regressor: --proba needs a classifier")
        for label, column in zip(model.classes_, model.predict_proba(X).T):
            result[f"proba_{label}"] = column
    if args.out:
        write_table(result, args.out)
    else:
        result.to_csv(sys.stdout, index=False)
    return 0
