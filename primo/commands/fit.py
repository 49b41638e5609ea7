"""``primo fit``: fit a PrDT, a PrAM or the best of both on a table, with Bayesian search."""
from __future__ import annotations

_FAMILIES = {
    ("classification", "prdt"): "PrDTClassifier",
    ("classification", "pram"): "PrAMClassifier",
    ("regression", "prdt"): "PrDTRegressor",
    ("regression", "pram"): "PrAMRegressor",
}


def infer_task(y) -> str:
    """Classification for text, boolean or few-valued integer targets (a pandas Series); regression otherwise.

    Example
    -------
    >>> import pandas as pd
    >>> infer_task(pd.Series([0, 1, 1])), infer_task(pd.Series([0.5, 1.25, 3.0]))
    ('classification', 'regression')
    """
    import numpy as np
    import pandas as pd

    if not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y):
        return "classification"
    values = y.dropna().to_numpy()
    if np.all(np.mod(values, 1) == 0) and len(np.unique(values)) <= 20:
        return "classification"
    return "regression"


def register(subparsers) -> None:
    parser = subparsers.add_parser("fit", help="fit a model on a CSV/Parquet table", description=__doc__)
    parser.add_argument("data", help="training table (.csv, .tsv or .txt: UTF-8, separator sniffed; or .parquet)")
    parser.add_argument("--target", required=True, help="name of the target column")
    parser.add_argument("--drop", nargs="+", default=[], metavar="COLUMN",
                        help="columns to leave out of the features (identifiers, free text, dates written as text); "
                             "primo predict ignores them in its tables")
    parser.add_argument("--task", choices=["auto", "classification", "regression"], default="auto")
    parser.add_argument("--model", choices=["auto", "prdt", "pram"], default="auto",
                        help="model family; auto searches both and keeps the best meeting the requirements")
    parser.add_argument("--trials", type=int, default=10,
                        help="PrAM trials, as PrimoRegressor's n_trials (PrDT scores its whole pruning path; "
                             "0: no search)")
    parser.add_argument("--scoring", default=None,
                        help="validation loss: log_loss (classifiers' default), error, f1, mae (regressors' default), "
                             "rmse, mape, wmape, r2 or a scikit-learn scorer")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="keep the smallest model whose objective is within this fraction of the trivial "
                             "predictor's loss of the best (default: within one paired standard error and no "
                             "worse on half the folds; 0: the best)")
    parser.add_argument("--lam", type=float, default=0.0, help="complexity weight λ in the paper's S = P + λ·C^γ")
    parser.add_argument("--gamma", type=float, default=1.0, help="complexity exponent γ")
    parser.add_argument("--cv", type=int, default=None,
                        help="k-fold validation (default: 5 folds up to 10,000 rows, else a 25%% hold-out)")
    parser.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                        help="seconds for the fit's search and refit: PrAM boosting still running then is stopped "
                             "(reading the file and saving the model are extra)")
    parser.add_argument("--max-latency-us", type=float, default=None, help="auto: single-row latency limit")
    parser.add_argument("--min-score", type=float, default=None, help="auto: minimum validation score")
    parser.add_argument("--max-complexity", type=float, default=None, help="auto: complexity limit")
    parser.add_argument("--max-size", type=float, default=None,
                        help="auto: limit on the readable size (PrDT leaves, PrAM shape-function pieces)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="parallel trials per batch (default: 1, or every worker of --cluster)")
    parser.add_argument("--cluster", metavar="ADDRESS", default=None,
                        help="run the trials on a cluster: a Dask scheduler address (tcp://host:8786), "
                             "or 'local' to start one on this machine; see --backend")
    parser.add_argument("--backend", choices=["dask", "ray"], default="dask",
                        help="cluster engine for --cluster (ray: address passed to ray.init, e.g. auto)")
    parser.add_argument("--search-sample", type=float, default=None, metavar="N",
                        help="search on a stratified sample (rows if >= 1, else a fraction), then fit the best on all rows")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="output model file")
    parser.set_defaults(func=run)


def run(args) -> int:
    import contextlib
    import logging

    import primo

    if args.search_sample is not None and args.model == "auto":
        raise ValueError("--search-sample needs --model prdt or --model pram")
    if args.cluster and args.backend == "dask":
        # Importing dask.distributed sets its loggers to INFO; follow the level of ``primo -v`` instead.
        with contextlib.suppress(ImportError):
            import distributed  # noqa: F401
        logging.getLogger("distributed").setLevel(logging.getLogger().level)
    cluster = (primo.parallel_backend(args.backend, address=args.cluster) if args.cluster
               else contextlib.nullcontext())
    with cluster:
        return _fit(args)


def _fit(args) -> int:
    import shlex

    from primo.errors import InputError
    from primo.tabular import read_table, split_target

    X, y = split_target(read_table(args.data), args.target, args.drop)
    task = infer_task(y) if args.task == "auto" else args.task
    try:
        chosen = _fit_model(args, X, y, task)
    except InputError as error:  # the fix the library suggests is Python; on the command line it is --drop
        if error.argument != "X" or error.column is None:
            raise
        raise type(error)(f"{error}; or fit without it: --drop {shlex.quote(error.column)}", argument=error.argument,
                          column=error.column) from error
    path = chosen.save(args.out)
    print(chosen)
    print(f"saved {type(chosen).__name__} ({task}) to {path}")
    return 0


def _fit_model(args, X, y, task: str):
    """The model ``primo fit`` saves: automatic selection's choice, or one family searched or fit as it is."""
    import primo
    from primo.search import PruningSearch
    from primo.selection import AUTO_CV_MAX_ROWS, pram_search

    cv = args.cv if args.cv is not None else (5 if len(y) <= AUTO_CV_MAX_ROWS else None)
    common = dict(scoring=args.scoring, tolerance=args.tolerance, lam=args.lam, gamma=args.gamma, cv=cv,
                  n_jobs=args.jobs, random_state=args.seed, progress=True)
    if args.model == "auto":
        cls = primo.PrimoClassifier if task == "classification" else primo.PrimoRegressor
        model = cls(n_trials=max(args.trials, 1), max_latency_us=args.max_latency_us, min_score=args.min_score,
                    max_complexity=args.max_complexity, max_size=args.max_size, time_budget_s=args.time_budget,
                    **{**common, "n_jobs": -1 if args.jobs is None else args.jobs}).fit(X, y)
        print(model.selection_report_.drop(columns="params").to_string(index=False))
        chosen = model.best_estimator_
    else:
        estimator = getattr(primo, _FAMILIES[(task, args.model)])(random_state=args.seed)
        if args.trials > 0:
            sample = args.search_sample
            sample = int(sample) if sample is not None and sample >= 1 else sample
            if args.model == "prdt":
                search = PruningSearch(estimator, search_sample_size=sample, **common).fit(X, y)
            else:
                # As automatic selection searches PrAM. Trials of the PrAM's own 8 bags and 50,000 rounds a fold took
                # 2,185 s on R's colon table with --trials 4 --time-budget 30, where auto took 157 s.
                search = pram_search(estimator, X, n_trials=args.trials, search_sample_size=sample,
                                     time_budget_s=args.time_budget, **common).fit(X, y)
            chosen = search.best_estimator_
            kept = search.trials_.loc[search.best_index_]
            print(f"kept trial {int(kept['trial'])} of {len(search.trials_)}: {search.best_params_} (validation "
                  f"{search.scoring_} {kept['loss']:.6g} ± {kept['loss_se']:.2g}, {kept['relative_loss']:.3g} of "
                  f"the trivial predictor's; size {kept['size']:g})")
        else:
            chosen = estimator.fit(X, y)
    return chosen
