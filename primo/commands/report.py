"""``primo report``: an interpretation report of a saved model (self-contained HTML, or Markdown).

The data file gives the evaluation rows: metrics against the target column, measured latency,
and the rows explained one by one.
"""
from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("report", help="write an HTML (or Markdown) interpretation report of a model",
                                   description=__doc__)
    parser.add_argument("model", help="Primo model file")
    parser.add_argument("--data", default=None, help="evaluation table (.csv/.tsv/.parquet) with the model's feature columns")
    parser.add_argument("--target", default=None, help="target column of --data (for metrics)")
    parser.add_argument("--out", required=True, help="output file: .html (self-contained) or .md")
    parser.add_argument("--title", default=None, help="report title")
    parser.add_argument("--local-rows", type=int, default=3,
                        help="rows explained one by one, spread over the predictions (default 3; 0: none)")
    parser.add_argument("--tree-depth", type=int, default=4, help="PrDT diagram depth before subtrees collapse")
    parser.add_argument("--no-latency", action="store_true", help="do not time predictions")
    parser.set_defaults(func=run)


def run(args) -> int:
    import primo
    from primo.report import build
    from primo.tabular import model_inputs, read_table, split_target

    model = primo.load(args.model)
    X = y = None
    if args.data is not None:
        table = read_table(args.data)
        X, y = split_target(table, args.target) if args.target else (table, None)
        X = model_inputs(model, X)
    elif args.target is not None:
        raise ValueError("--target needs --data")
    report = build(model, X, y, title=args.title, local_rows=args.local_rows or None, tree_depth=args.tree_depth,
                   measure_latency=not args.no_latency)
    path = report.save(args.out)
    print(f"wrote {path} ({path.stat().st_size / 1e3:.0f} kB)")
    return 0
