"""``primo adjust``: post-process a saved model with prior knowledge.

Sub-commands:

* ``monotone MODEL --feature F [--feature G] [--direction D] --out NEW`` — monotone constraints
  (PrAM: PAV of the shape function; PrDT: refit with ``--train FILE --target COL``);
* ``counterfactual MODEL --data FILE --row N --desired VALUE [--k 5] [--immutable F]`` — the
  smallest changes of the row that make the prediction VALUE (a class, a number or ``LOW:HIGH``),
  within the ranges of the data (or of ``--reference FILE``); ``--method nearest``: the nearest
  rows of the data whose prediction is VALUE;
* ``history MODEL`` — the edit log; ``undo MODEL --out NEW`` — remove the last edit.
"""
from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("adjust", help="monotone constraints, counterfactuals, edit log", description=__doc__)
    commands = parser.add_subparsers(dest="adjust_command", metavar="ACTION", required=True)

    monotone = commands.add_parser("monotone", help="make a model monotone in some features")
    monotone.add_argument("model", help="Primo model file")
    monotone.add_argument("--feature", action="append", required=True, help="feature to constrain (repeatable)")
    monotone.add_argument("--direction", default="increasing", choices=("increasing", "decreasing", "auto"))
    monotone.add_argument("--no-pairs", action="store_true", help="PrAM: leave pair terms unedited")
    monotone.add_argument("--train", help="PrDT: training table to refit on (.csv/.tsv/.parquet)")
    monotone.add_argument("--data", help="table to report the change on (predictions, and metrics with --target)")
    monotone.add_argument("--target", help="target column of --train/--data")
    monotone.add_argument("--out", required=True, help="where to write the adjusted model")
    monotone.set_defaults(func=run_monotone)

    counterfactual = commands.add_parser("counterfactual", help="smallest changes (or nearest rows) with the desired prediction")
    counterfactual.add_argument("model", help="Primo model file")
    counterfactual.add_argument("--data", required=True, help="table holding the row to explain")
    counterfactual.add_argument("--row", type=int, required=True, help="position (0-based) of the row in --data")
    counterfactual.add_argument("--desired", required=True, help="desired class, value, or LOW:HIGH range (empty = open)")
    counterfactual.add_argument("--k", type=int, default=5, help="number of counterfactuals (default 5)")
    counterfactual.add_argument("--reference", help="table to draw counterfactuals from (default: --data without the row)")
    counterfactual.add_argument("--target", help="target column: match its labels instead of the predictions (nearest)")
    counterfactual.add_argument("--method", choices=("structural", "nearest"), default="structural",
                                help="smallest changes of the row, searched over the model (default), or nearest rows")
    counterfactual.add_argument("--immutable", action="append", metavar="FEATURE",
                                help="feature the structural method may not change (repeatable)")
    counterfactual.set_defaults(func=run_counterfactual)

    history = commands.add_parser("history", help="print the edit log of a model")
    history.add_argument("model", help="Primo model file")
    history.set_defaults(func=run_history)

    undo = commands.add_parser("undo", help="remove the last edit of a model")
    undo.add_argument("model", help="Primo model file")
    undo.add_argument("--train", help="training table (needed to undo a PrDT monotone refit)")
    undo.add_argument("--target", help="target column of --train")
    undo.add_argument("--out", required=True, help="where to write the model without its last edit")
    undo.set_defaults(func=run_undo)


def _training(model, path, target):
    from primo.tabular import model_inputs, read_table, split_target

    if path is None:
        return None, None
    if target is None:
        raise ValueError("--train needs --target")
    X, y = split_target(read_table(path), target)
    return model_inputs(model, X), y


def run_monotone(args) -> int:
    import primo
    from primo.adjust import compare_models, monotonize
    from primo.tabular import model_inputs, read_table, split_target

    model = primo.load(args.model)
    X_train, y_train = _training(model, args.train, args.target)
    adjusted = monotonize(model, args.feature, direction=args.direction, pairs=not args.no_pairs,
                          X_train=X_train, y_train=y_train)
    for record in adjusted.metadata_["edits"][len(model.metadata_.get("edits", [])):]:
        print(f"{record['operation']}: {record['summary']}")
    if args.data:
        table = read_table(args.data)
        y = None
        if args.target and args.target in table.columns:
            table, y = split_target(table, args.target)
        print(compare_models(model, adjusted, model_inputs(model, table), y).summary())
    adjusted.save(args.out)
    print(f"wrote {args.out}")
    return 0


def _desired(model, text: str):
    if hasattr(model, "classes_"):
        for label in model.classes_:
            if str(label) == text:
                return label
        raise ValueError(f"--desired {text!r} is not one of the classes {[str(c) for c in model.classes_]}")
    if ":" in text:
        low, high = text.split(":", 1)
        return (float(low) if low.strip() else None, float(high) if high.strip() else None)
    return float(text)


def run_counterfactual(args) -> int:
    import pandas as pd

    import primo
    from primo.adjust import counterfactuals
    from primo.tabular import model_inputs, read_table, split_target

    model = primo.load(args.model)
    table = read_table(args.data)
    if not 0 <= args.row < len(table):
        raise ValueError(f"--row {args.row} is out of range: {args.data} has {len(table)} rows")
    reference = read_table(args.reference) if args.reference else table.drop(index=table.index[args.row])
    if args.method == "structural" and args.target:
        raise ValueError("--target matches existing rows' labels: use it with --method nearest")
    reference_y = None
    if args.target:
        reference, reference_y = split_target(reference, args.target)
    options = ({"immutable": args.immutable} if args.method == "structural" else {"reference_y": reference_y})
    result = counterfactuals(model, model_inputs(model, table.iloc[[args.row]]), _desired(model, args.desired),
                             model_inputs(model, reference), k=args.k, method=args.method, **options)
    print(result.summary())
    with pd.option_context("display.width", 160, "display.max_columns", 30):
        print("\ncounterfactuals:")
        print(result.neighbors.to_string())
        print("\ndifferences (counterfactual - row):")
        print(result.differences.to_string())
        if result.term_deltas is not None:
            print("\nterm contribution changes (counterfactual - row), largest first:")
            print(result.term_deltas.iloc[:, :12].to_string())
    return 0


def run_history(args) -> int:
    import primo
    from primo.adjust import format_edits

    print(format_edits(primo.load(args.model)))
    return 0


def run_undo(args) -> int:
    import primo
    from primo.adjust import edits_of, undo

    model = primo.load(args.model)
    X_train, y_train = _training(model, args.train, args.target)
    last = edits_of(model)[-1] if edits_of(model) else None
    previous = undo(model, X_train=X_train, y_train=y_train)
    previous.save(args.out)
    print(f"undid {last['operation']}: {last['summary']}\nwrote {args.out}")
    return 0
