"""time_budget.py's own logic: its summary and its pairing of two runs (the fits themselves take the budgets)."""
import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def time_budget():
    script, = import_scripts("time_budget")
    return script


def _entry(table, budget, seconds, test_loss=1.0, error=None, kept="pram"):
    return {"table": table, "rows": 100, "budget": budget, "seconds": seconds, "ratio": seconds / budget,
            "error": error, "kept": kept, "scoring": "mae", "test_loss": test_loss, "pram_cut": 0, "pram_trials": 3}


def test_summary_counts_held_out_fits_within_the_budget_and_names_crashes(time_budget):
    entries = [_entry("a", 10, 9), _entry("b", 10, 12), _entry("colon", 10, 50), _entry("c", 10, 1, error="boom")]
    line, = time_budget.summary(entries)
    # colon is the development table; a crashed fit is named, never counted as within the budget
    assert line.startswith("budget 10 s, 2 held-out tables: 1 within 1.1x") and "max 1.200 (b" in line
    assert "crashed: ['c']" in line


def test_compare_pairs_tables_and_reports_the_test_loss_change(time_budget):
    base = [_entry("a", 10, 20, 1.0), _entry("b", 10, 5, 2.0), _entry("c", 10, 5, 1.0)]
    variant = [_entry("a", 10, 10, 1.1), _entry("b", 10, 5, 2.0), _entry("c", 10, 5, 0.5, error="boom")]
    lines = time_budget.compare(base, variant)
    assert lines[0].startswith("budget 10 s, 2 held-out tables: within 1.1x 1 -> 2")
    assert "worse by over 2% on 1, better by over 2% on 0" in lines[0]
    assert any(line.split()[0] == "a" and "(+10.0%)" in line for line in lines[1:])
    assert lines[-1] == "  crashed (base or variant): ['c']"
