"""benchmarks/paired_auto.py: the paired comparison of two runs of automatic selection."""
import json

from tests.benchmarks_suite.scripts import import_scripts


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _fold(table, fold, loss, fit_s, pieces, task="regression"):
    return {"table": table, "fold": fold, "task": task, "mae": loss, "fit_s": fit_s, "size": {"pieces": pieces}}


def test_compare_pairs_folds_and_keeps_cut_and_refused_tables_out_of_the_loss(tmp_path):
    (paired,) = import_scripts("paired_auto")
    base, variant = tmp_path / "base.jsonl", tmp_path / "variant.jsonl"
    refused = {"task": "regression", "crash": {"type": "InputError", "message": "column 'date' holds dates"}}
    _write(base, [_fold("a", f, 10.0, 100.0, 50) for f in range(3)]
           + [{"table": "b", "fold": 0, "cut_at_s": 600.0}]
           + [{"table": "c", "fold": f, **refused} for f in range(3)])
    _write(variant, [_fold("a", f, 11.0, 50.0, 20) for f in range(3)]
           + [_fold("b", f, 3.0, 60.0, 9) for f in range(3)]
           + [{"table": "c", "fold": f, **refused} for f in range(3)])
    lines = paired.compare(base, variant)
    text = "\n".join(lines)
    assert "| a | mae 10 → 11 | +10.0% | 100 → 50 | 50→20, 50→20, 50→20 |" in lines
    assert "| b | cut at 600 s → 3 |" in text and "| c | both failed: column 'date'" in text
    # One table compared on loss; fit-time ratios 0.5 (a) and at most 60/600 (b, cut).
    assert "Tables compared on loss: 1; relative change of mean loss: median +10.00%" in text
    assert "median 0.30 over 2 tables" in text
