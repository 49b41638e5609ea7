"""fresh_tables.py's choice of tables and output files (its fit → export path is not run here: minutes a table)."""
import json

import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def scripts():
    return import_scripts("fresh_tables", "sampled_tables")


def _fake_run(calls):
    def run_table(name, loaded=None, record=None):
        calls.append((name, loaded))
        rows = [{"table": name, "model": model, "fit_s": 0.0, "status": "fitted", "problems": [], "ok": True}
                for model in ("auto", "prdt")]
        for row in rows:
            record(row)
        return rows
    return run_table


def test_a_draw_takes_the_sampled_tables_as_loaded_there_and_writes_its_own_files(scripts, monkeypatch, tmp_path):
    fresh, sampled = scripts
    json_path, txt_path = fresh.draw_paths(7)
    assert (json_path.name, txt_path.name) == ("fresh_tables_draw7.json", "fresh_tables_draw7.txt")
    assert json_path.parent == txt_path.parent == fresh.ROOT / "reports" / "benchmarks"
    calls = []
    monkeypatch.setattr(fresh, "run_table", _fake_run(calls))
    monkeypatch.setattr(fresh, "draw_paths", lambda number: (tmp_path / f"d{number}.json", tmp_path / f"d{number}.txt"))
    specs = sampled.draw(7)
    first, second = list(specs)[:2]
    assert fresh.main(["--draw", "7", "--tables", second]) == 0
    assert fresh.main(["--draw", "7", "--tables", first]) == 0  # a separate run merges into the same file
    assert [name for name, _ in calls] == [second, first]
    X, y, task = calls[1][1]
    table = sampled.load_table(specs[first])  # the rows sampled_tables loads, capped and with dates as days
    assert X.equals(table.X) and y.equals(table.y)
    assert task == ("regression" if specs[first].task == "regression" else "classification")
    rows = json.loads((tmp_path / "d7.json").read_text())
    assert [(r["table"], r["model"]) for r in rows] == [(first, "auto"), (first, "prdt"), (second, "auto"), (second, "prdt")]
    text = (tmp_path / "d7.txt").read_text().splitlines()
    assert len(text) == 5 and text[0].startswith(first) and text[-1] == "4 of 4 OK"
    assert fresh.main(["--draw", "7", "--too-slow", second, "auto: PrimoRegressor search"]) == 1
    rows = json.loads((tmp_path / "d7.json").read_text())
    assert rows[-1] == {"table": second, "model": "-", "status": "too slow", "ok": False,
                        "problems": ["auto: PrimoRegressor search"]}
    assert fresh.main(["--draw", "7", "--tables", second]) == 0  # a rerun replaces the table's rows
    assert len(json.loads((tmp_path / "d7.json").read_text())) == 4
    with pytest.raises(SystemExit):
        fresh.main(["--draw", "7", "--tables", "Cars93"])  # a hand-picked table is not in the draw


def test_without_a_draw_the_hand_picked_tables_run_and_no_file_is_written(scripts, monkeypatch, tmp_path):
    fresh, _ = scripts
    calls = []
    monkeypatch.setattr(fresh, "run_table", _fake_run(calls))
    monkeypatch.setattr(fresh, "draw_paths", lambda number: pytest.fail("a draw's paths used without --draw"))
    monkeypatch.chdir(tmp_path)
    assert fresh.main([]) == 0
    assert calls == [(name, None) for name in fresh.TABLES]
    assert not list(tmp_path.iterdir())
    with pytest.raises(SystemExit):
        fresh.main(["--tables", "OJ"])


def test_integer_c_refusing_predictions_beyond_int64_is_not_a_problem_but_other_refusals_are(scripts, monkeypatch, tmp_path):
    """Draw 7's physical constants (values to 1e49): fixed-point integers at a scale >= 1 cannot hold such a
    prediction, and integer mode refuses it with its documented error; every other path is still checked."""
    import numpy as np
    import pandas as pd

    from primo import PrDTRegressor

    fresh, _ = scripts
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": np.round(rng.normal(size=120), 2), "b": np.round(rng.normal(size=120), 2)})
    huge = PrDTRegressor(max_depth=2, random_state=0).fit(X, (X["a"] > 0) * 1e25 + 1.0)
    problems, integer = fresh.export_problems(huge, X, huge.predict(X), tmp_path)
    assert problems == [] and "overflow 64-bit integers even at score_scale 1" in integer["refused"]
    small = PrDTRegressor(max_depth=2, random_state=0).fit(X, X["a"])

    def refuse(*args, **kwargs):
        raise ValueError("scores up to 1e+25 overflow 64-bit integers even at score_scale 1")

    monkeypatch.setattr(fresh, "integer_c", refuse)
    problems, integer = fresh.export_problems(small, X, small.predict(X), tmp_path)
    assert problems == ["integer C raised ValueError: scores up to 1e+25 overflow 64-bit integers even at score_scale 1"]
    assert integer is None
