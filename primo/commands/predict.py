"""``primo predict``: predictions of a saved model on a table.

The model file's own tables predict (:mod:`primo.export.saved`): the same checks and predictions as the
model :func:`primo.load` builds, without importing scikit-learn or interpret (a second and a half of
start-up). A file only the estimator can answer for (e.g. a tree with several outputs) is loaded in full.
A model with several outputs writes one column per output (``prediction_0``, ``prediction_1``, …; with
``--proba``, ``proba_<output>_<class>``).
"""
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
    from primo.export.saved import NeedsEstimator, read_predictor
    from primo.tabular import read_table, write_table

    table = None
    try:
        model = read_predictor(args.model)
        table = read_table(args.data)
        result = predictions(model, table, proba=args.proba)
    except NeedsEstimator:  # raised reading the model or predicting: the table is read at most once
        import primo

        model = primo.load(args.model)
        result = predictions(model, read_table(args.data) if table is None else table, proba=args.proba)
    if args.out:
        write_table(result, args.out)
    else:
        result.to_csv(sys.stdout, index=False)
    return 0


def predictions(model, table, *, proba: bool):
    """A DataFrame of ``model``'s predictions on ``table`` (and class probabilities when ``proba``).

    Example
    -------
    >>> predictions(primo.load("model.primo"), pd.read_csv("rows.csv"), proba=False)  # doctest: +SKIP
       prediction
    0         3.0
    """
    import numpy as np
    import pandas as pd

    from primo.tabular import model_inputs

    X = model_inputs(model, table)
    predicted = model.predict(X)
    if predicted.ndim == 1:
        result = pd.DataFrame({"prediction": predicted})
    else:  # a model with several outputs: one column per output
        result = pd.DataFrame({f"prediction_{k}": column for k, column in enumerate(predicted.T)})
    if proba:
        if not hasattr(model, "predict_proba"):
            raise ValueError(f"{type(model).__name__} is a regressor: --proba needs a classifier")
        probabilities = model.predict_proba(X)
        if predicted.ndim == 1:
            outputs = [("", model.classes_, probabilities)]
        else:  # scikit-learn's layout: a list of class arrays and a list of probability tables
            outputs = [(f"{k}_", classes, output) for k, (classes, output) in
                       enumerate(zip(model.classes_, probabilities))]
        for prefix, classes, output in outputs:
            for label, column in zip(classes, np.asarray(output).T):
                result[f"proba_{prefix}{label}"] = column
    return result
