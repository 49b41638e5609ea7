"""``primo export``: write a model as ONNX, C (float or integer-only), JavaScript, Lua or JSON.

The format comes from ``--format`` or, when omitted, from the suffix of ``--out``
(.onnx, .h/.c, .js/.mjs, .lua, .json). With ``--integer --check-data TABLE`` the C header states how many
predictions on that table differ from the float model. With ``--verify TABLE`` the written file is run where
it will run (gcc, node, lua5.1, onnxruntime; JSON is read back) on that table's rows and every prediction is
compared with the model's: exit status 1 when any differs, 2 when the runtime is missing. An integer-mode
header is run on the rows scaled as it says, and its regression outputs may differ by fixed-point rounding.
"""
from __future__ import annotations

from pathlib import Path

_SUFFIXES = {".onnx": "onnx", ".h": "c", ".c": "c", ".js": "js", ".mjs": "js", ".lua": "lua", ".json": "json"}


def register(subparsers) -> None:
    parser = subparsers.add_parser("export", help="export a model for embedding (ONNX, C, JavaScript, Lua, JSON)",
                                   description=__doc__)
    parser.add_argument("model", help="Primo model file")
    parser.add_argument("--format", choices=["onnx", "c", "js", "lua", "json"], default=None,
                        help="output format (default: from the --out suffix)")
    parser.add_argument("--out", required=True, help="output file")
    parser.add_argument("--name", default=None, help="C prefix / ONNX graph name (default: from --out)")
    parser.add_argument("--integer", action="store_true", help="C only: integer-only code (no floating point)")
    parser.add_argument("--scale", default="auto",
                        help="integer mode: feature scale, 'auto' (default), one int, or comma-separated ints")
    parser.add_argument("--score-scale", type=int, default=None, help="integer mode: fixed-point scale of scores (default: 10^6, or the "
                             "largest smaller power of ten under which the scores cannot overflow)")
    parser.add_argument("--check-data", default=None,
                        help="integer mode: CSV/Parquet table with the model's features to count mismatches on")
    parser.add_argument("--ml-opset", type=int, choices=[3, 5], default=None,
                        help="ONNX only, a PrDT: ai.onnx.ml opset; the default 5 runs in onnxruntime >= 1.21, 3 in >= 1.15 "
                             "(one lookup more a row); a PrAM's graph uses no ai.onnx.ml operator and runs in >= 1.15")
    parser.add_argument("--verify", default=None, metavar="TABLE",
                        help="run the written file in its runtime on this CSV/Parquet table and compare every "
                             "prediction with the model's")
    parser.set_defaults(func=run)


def run(args) -> int:
    import primo
    from primo.export import export_model, integer_c
    from primo.io import atomic_write_bytes
    from primo.tabular import model_inputs, read_table

    out = Path(args.out)
    fmt = args.format or _SUFFIXES.get(out.suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the format from {out.name!r}; pass --format onnx|c|js|lua|json")
    integer_options = args.scale != "auto" or args.score_scale is not None or args.check_data is not None
    if (args.integer or integer_options) and fmt != "c":
        raise ValueError("--integer, --scale, --score-scale and --check-data apply to --format c only")
    if integer_options and not args.integer:
        raise ValueError("--scale, --score-scale and --check-data need --integer")
    if args.ml_opset is not None and fmt != "onnx":
        raise ValueError("--ml-opset applies to --format onnx only")
    model = primo.load(args.model)
    name = (args.name or out.stem) if fmt in ("c", "onnx") else None
    integer = None
    if args.integer:
        header = integer_c(model, name=name, feature_scales=_parse_scale(args.scale),
                           check_data=None if args.check_data is None else model_inputs(model, read_table(args.check_data)),
                           **({"score_scale": args.score_scale} if args.score_scale is not None else {}))
        path, integer = atomic_write_bytes(out, header.source.encode()), header.quantized
    else:
        options = {"name": name} if name else {}
        if args.ml_opset is not None:
            options["ml_opset"] = args.ml_opset
        path = export_model(model, fmt, out, **options)
    print(f"wrote {path} ({fmt}{', integer mode' if args.integer else ''}, {path.stat().st_size} bytes)")
    if args.integer and header.report is not None:
        print(f"integer mode, scales {header.report.feature_scales}: {header.report.summary()}")
    if args.verify is not None:
        return _verify(model, fmt, path, args.verify, name, integer)
    return 0


def _verify(model, fmt: str, path: Path, table: str, name: str | None, integer) -> int:
    import sys

    from primo.export.runtimes import ExportRuntimeError, verify_export
    from primo.tabular import model_inputs, read_table

    X = model_inputs(model, read_table(table))
    try:
        check = verify_export(model, fmt, path, X, name=name, integer=integer)
    except ExportRuntimeError as error:
        print(f"primo export: cannot verify {path.name}: {error}", file=sys.stderr)
        return 2
    print(f"verified {path.name} with {check.runtime} on {len(X)} rows of {table}: {check.summary()}")
    return 0 if check.ok else 1


def _parse_scale(text: str):
    if text == "auto":
        return "auto"
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"--scale must be 'auto', an integer or comma-separated integers, got {text!r}") from None
    return values[0] if len(values) == 1 else values
