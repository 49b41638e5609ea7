"""The ``primo`` command end to end on real data: fit, predict, info, errors; start-up and warnings."""
import logging
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import primo
from primo.cli import main
from primo.search.choice import ONE_STANDARD_ERROR_RULE


@pytest.fixture()
def clara_csv(data_dir):
    return data_dir / "clara" / "ms_train.csv", data_dir / "clara" / "ms_test.csv"


def test_fit_predict_info(clara_csv, tmp_path, capsys):
    train, test = clara_csv
    model_path = tmp_path / "ms.primo"
    assert main(["fit", str(train), "--target", "cores", "--model", "prdt", "--trials", "5", "--out", str(model_path)]) == 0
    model = primo.load(model_path)
    assert type(model).__name__ == "PrDTRegressor"  # integer target with > 20 values: regression
    search = model.metadata_["search"]
    assert search["method"] == "pruning path" and search["rule"] == ONE_STANDARD_ERROR_RULE
    assert len(search["trials"]) > 5  # every distinct subtree of the pruning path, not a trial budget

    out = tmp_path / "pred.csv"
    assert main(["predict", str(model_path), str(test), "--out", str(out)]) == 0
    predictions = pd.read_csv(out)["prediction"]
    expected = model.predict(pd.read_csv(test).drop(columns="cores"))
    assert (predictions.to_numpy() == expected).all()

    capsys.readouterr()
    assert main(["info", str(model_path)]) == 0
    info = capsys.readouterr().out
    assert "PrDTRegressor" in info and f"search: pruning path, {len(search['trials'])} trials" in info and "edits: 0" in info



def test_predict_writes_a_column_per_output_of_a_multi_output_tree(clara_csv, tmp_path):
    """A tree fitted on several targets predicts one column per output (and per output and class)."""
    from primo import PrDTClassifier, PrDTRegressor

    train, test = clara_csv
    frame, rows = pd.read_csv(train), pd.read_csv(test)
    X = frame.drop(columns="cores")
    cores = frame["cores"].to_numpy()
    regressor = PrDTRegressor(random_state=0, max_depth=4).fit(X, np.c_[cores, 2 * cores])
    classifier = PrDTClassifier(random_state=0, max_depth=4).fit(X, np.c_[cores > np.median(cores), cores > np.quantile(cores, 0.75)].astype(int))
    for name, model, proba in (("reg", regressor, []), ("cls", classifier, ["--proba"])):
        model.save(tmp_path / f"{name}.primo")
        out = tmp_path / f"{name}.csv"
        assert main(["predict", str(tmp_path / f"{name}.primo"), str(test), "--out", str(out), *proba]) == 0
        written = pd.read_csv(out)
        expected = model.predict(rows.drop(columns="cores"))
        assert list(written.columns[:2]) == ["prediction_0", "prediction_1"]
        assert (written[["prediction_0", "prediction_1"]].to_numpy() == expected).all()
    probabilities = classifier.predict_proba(rows.drop(columns="cores"))
    assert set(written.columns[2:]) == {"proba_0_0", "proba_0_1", "proba_1_0", "proba_1_1"}
    assert (written["proba_1_1"].to_numpy() == probabilities[1][:, 1]).all()

def test_cli_errors_are_one_line_and_exit_2(clara_csv, tmp_path, capsys):
    train, _ = clara_csv
    assert main(["fit", str(train), "--target", "nope", "--out", str(tmp_path / "m.primo")]) == 2
    # a KeyError's message as written, not its repr in quotes
    assert capsys.readouterr().err.startswith("primo fit: error: target column 'nope' not in the data (columns: ")
    bogus = tmp_path / "bogus.primo"
    bogus.write_text("not a model")
    assert main(["info", str(bogus)]) == 2
    assert "not a Primo model" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "missing.csv"), "--target", "y", "--out", str(tmp_path / "m.primo")]) == 2


def test_console_script_is_installed():
    result = subprocess.run([sys.executable, "-m", "primo.cli", "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("primo ")


HEAVY_LIBRARIES = ("numpy", "pandas", "scipy", "sklearn", "interpret", "skopt")


def _loaded_after(code: str) -> list[str]:
    """Heavy libraries in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = code + f"\nimport sys\nprint('\\nloaded:', *(m for m in {HEAVY_LIBRARIES!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()[-1].split()[1:]


def test_import_primo_and_every_help_load_no_heavy_library():
    assert _loaded_after("import primo") == []
    every_help = ("from primo.cli import build_parser\n"
                  "parser = build_parser()\n"
                  "for command in [[], *[[name] for name in parser._subparsers._group_actions[0].choices]]:\n"
                  "    try:\n"
                  "        parser.parse_args([*command, '--help'])\n"
                  "    except SystemExit:\n"
                  "        pass\n")
    assert _loaded_after(every_help) == []


def test_every_public_subpackage_is_reachable_from_import_primo():
    names = dir(primo)
    for package in ("report", "export", "adjust", "distill", "explain", "search", "models", "io"):
        assert package in names
        assert getattr(primo, package).__name__ == f"primo.{package}"
    assert callable(primo.report.build) and callable(primo.export.export_model)
    for name in primo.__all__:
        assert getattr(primo, name) is not None
    from primo import PrDTRegressor  # the from-import form resolves lazily too
    assert PrDTRegressor is primo.models.PrDTRegressor
    with pytest.raises(AttributeError, match="no attribute 'repport'"):
        _ = primo.repport


def _noisy_command(args):
    """Stands in for a command: real interpret warnings, a search's counted ones, one of Primo's own."""
    import logging
    import warnings

    import numpy as np
    from interpret.glassbox import ExplainableBoostingClassifier

    X = np.random.default_rng(0).normal(size=(60, 2))
    X[::7, 0] = np.nan  # interpret: "Missing values detected"; three classes: "For multiclass ... pairs"
    ExplainableBoostingClassifier(max_rounds=5, outer_bags=1, n_jobs=1).fit(X, np.arange(60) % 3)
    logging.getLogger("primo.search.searchers").warning(
        "5 warnings from the libraries behind the search", extra={"warning_counts": {"UserWarning: skopt point": 5}})
    warnings.warn("prediction outside the training range")
    return 0


def test_third_party_warnings_are_summarised_once_and_shown_with_verbose(monkeypatch, capsys):
    import primo.commands.predict

    monkeypatch.setattr(primo.commands.predict, "run", _noisy_command)
    assert main(["predict", "model.primo", "data.csv"]) == 0
    err = capsys.readouterr().err
    assert "primo predict: warning: UserWarning: prediction outside the training range" in err
    assert ("primo predict: 5 warnings from the search's libraries, 2 from interpret suppressed; -v to show"
            in err)
    assert "Missing values detected" not in err and "skopt point" not in err and "warn(" not in err

    level_before = logging.getLogger("primo").level
    assert main(["-v", "predict", "model.primo", "data.csv"]) == 0
    assert logging.getLogger("primo").level == level_before  # -v lasts one command
    err = capsys.readouterr().err
    assert "primo predict: 2 warnings from interpret:" in err
    assert "1x UserWarning: Missing values detected" in err and "5x UserWarning: skopt point" in err
    assert "suppressed" not in err


def test_warning_source_names_the_installed_library():
    from primo.cli import warning_source

    assert warning_source("/venv/lib/python3.11/site-packages/skopt/optimizer/optimizer.py") == "skopt"
    assert warning_source("/usr/lib/python3/dist-packages/sklearn/base.py") == "sklearn"
    assert warning_source("/usr/lib/python3/dist-packages/six.py") == "six"
    assert warning_source(primo.__file__) == "primo"


def test_text_tables_as_spreadsheets_write_them(clara_csv, tmp_path, capsys):
    """';' with decimal commas (Excel in many locales), tabs, each also compressed (.gz, .xz, .bz2, as traces
    ship), and the errors for a repeated header name, text that is not UTF-8, a cut archive or an unknown
    format: the same model from every spelling of the same table."""
    train, _ = clara_csv
    table = pd.read_csv(train)
    spellings = {"comma.csv": dict(), "excel.csv": dict(sep=";", decimal=","), "tabs.tsv": dict(sep="\t"),
                 "trace.csv.gz": dict(), "excel.csv.xz": dict(sep=";", decimal=","), "tabs.tsv.bz2": dict(sep="\t")}
    predictions = {}
    for name, options in spellings.items():
        table.to_csv(tmp_path / name, index=False, **options)
        assert main(["fit", str(tmp_path / name), "--target", "cores", "--model", "prdt",
                     "--out", str(tmp_path / f"{name}.primo")]) == 0
        err = capsys.readouterr().err
        assert ("as numbers written with a decimal comma" in err) == name.startswith("excel.csv")
        predictions[name] = primo.load(tmp_path / f"{name}.primo").predict(table.drop(columns="cores"))
    for name in spellings:
        np.testing.assert_array_equal(predictions[name], predictions["comma.csv"])
    assert (tmp_path / "trace.csv.gz").read_bytes()[:2] == b"\x1f\x8b"  # written compressed, read compressed

    (tmp_path / "cut.csv.gz").write_bytes((tmp_path / "trace.csv.gz").read_bytes()[:200])
    assert main(["fit", str(tmp_path / "cut.csv.gz"), "--target", "cores", "--out", str(tmp_path / "m.primo")]) == 2
    assert "cut.csv.gz: cannot read table" in capsys.readouterr().err
    (tmp_path / "data.json.gz").write_bytes(b"")
    assert main(["fit", str(tmp_path / "data.json.gz"), "--target", "cores", "--out", str(tmp_path / "m.primo")]) == 2
    assert "unsupported data format '.json.gz'" in capsys.readouterr().err

    (tmp_path / "twice.csv").write_text("load,load,cores\n1,2,3\n4,5,6\n")
    assert main(["fit", str(tmp_path / "twice.csv"), "--target", "cores", "--out", str(tmp_path / "m.primo")]) == 2
    assert "names columns ['load'] more than once" in capsys.readouterr().err
    (tmp_path / "latin1.csv").write_bytes("city,cores\nZürich,3\nBern,4\n".encode("latin-1"))
    assert main(["fit", str(tmp_path / "latin1.csv"), "--target", "cores", "--out", str(tmp_path / "m.primo")]) == 2
    assert "not UTF-8 text (byte 0xfc" in capsys.readouterr().err
    assert not (tmp_path / "m.primo").exists()


def test_fit_drops_columns_and_names_drop_for_a_column_it_refuses(tmp_path, capsys):
    """A column the models refuse (dates written as text) is named with the command-line fix, ``--drop``; dropped
    columns are left out of the features, and ``primo predict`` ignores them in the table it is given."""
    rng = np.random.default_rng(0)
    n = 120
    table = pd.DataFrame({"day": pd.date_range("2026-01-01", periods=n).strftime("%Y-%m-%d"),
                          "load": rng.uniform(0, 1, n), "city": rng.choice(["Paris", "Lyon"], n)})
    table["latency"] = 3 * table["load"] + (table["city"] == "Lyon") + rng.normal(0, 0.1, n)
    data, model_path = tmp_path / "jobs.csv", tmp_path / "m.primo"
    table.to_csv(data, index=False)
    fit = ["fit", str(data), "--target", "latency", "--model", "prdt", "--trials", "0", "--out", str(model_path)]
    assert main(fit) == 2
    error = capsys.readouterr().err
    assert "column 'day' holds dates written as text" in error and error.rstrip().endswith("or fit without it: --drop day")
    assert main(fit[:2] + ["--target", "latency", "--drop", "nope", "--out", str(model_path)]) == 2
    assert "columns to drop ['nope'] not in the data" in capsys.readouterr().err
    assert main(fit + ["--drop", "day"]) == 0
    assert list(primo.load(model_path).feature_names_in_) == ["load", "city"]
    assert main(["predict", str(model_path), str(data), "--out", str(tmp_path / "p.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "p.csv")) == n


def test_row_names_under_an_empty_header_are_the_index_not_a_feature(tmp_path, capsys):
    """R's write.csv (and pandas' to_csv) write row names first, under an empty header: pandas names them
    'Unnamed: 0', which the model read as a feature (1..n: an index; labels: an identifier) and then required
    of every table it predicted on. They are left out: the model reads the named columns only, and predicts
    alike on the file and on the same rows written without row names."""
    rng = np.random.default_rng(0)
    n = 80
    load = np.round(rng.uniform(0, 1, n), 3)
    table = pd.DataFrame({"load": load, "latency": np.round(3 * load + rng.normal(0, 0.1, n), 3)},
                         index=[f"job {i % 40}" for i in range(n)])  # labels, some repeated
    with_names, without = tmp_path / "r.csv", tmp_path / "plain.csv"
    table.to_csv(with_names)
    table.to_csv(without, index=False)
    assert with_names.read_text().startswith(",load,latency\njob 0,")
    model_path = tmp_path / "m.primo"
    assert main(["fit", str(with_names), "--target", "latency", "--model", "prdt", "--out", str(model_path)]) == 0
    assert list(primo.load(model_path).feature_names_in_) == ["load"]
    for data in (with_names, without):
        assert main(["predict", str(model_path), str(data), "--out", str(tmp_path / f"{data.stem}.pred.csv")]) == 0
    assert (tmp_path / "r.pred.csv").read_bytes() == (tmp_path / "plain.pred.csv").read_bytes()
    assert main(["report", str(model_path), "--data", str(with_names), "--target", "latency",
                 "--out", str(tmp_path / "r.html")]) == 0


def test_none_is_a_category_unless_its_column_holds_numbers_or_booleans(tmp_path, capsys):
    """pandas reads the text None as missing, so MASS's survey.csv (exercise 'Freq', 'Some', 'None') was refused
    with 'target column 'Exer' has 24 missing values' and vcd's Arthritis lost half its outcomes. None is a
    category in a text column; among numbers or booleans (as str(None) writes a missing one) it is missing."""
    rng = np.random.default_rng(0)
    n = 90
    pulse = rng.integers(60, 100, n)
    exercise = np.where(pulse < 75, "Freq", np.where(pulse < 88, "Some", "None"))
    text = [f'"{i + 1}","{e}",{"None" if i % 9 == 0 else p},{"None" if i % 7 == 0 else ("TRUE", "FALSE")[i % 2]},NA'
            for i, (e, p) in enumerate(zip(exercise, pulse))]
    data = tmp_path / "survey.csv"
    data.write_text('"","Exer","Pulse","Smoker","Age"\n' + "\n".join(text) + "\n")
    from primo.tabular import read_table

    table = read_table(data)
    assert (table["Exer"] == "None").sum() == (exercise == "None").sum() and table["Exer"].notna().all()
    assert table["Pulse"].dtype == float and table["Pulse"].isna().sum() == 10
    assert table["Smoker"].isna().sum() == 13 and set(table["Smoker"].dropna()) == {True, False}
    model_path = tmp_path / "m.primo"
    assert main(["fit", str(data), "--target", "Exer", "--model", "prdt", "--out", str(model_path)]) == 0
    assert sorted(primo.load(model_path).classes_) == ["Freq", "None", "Some"]
    # Among numbers written with a decimal comma (a ';' file), None is missing too.
    data.write_text("a;b\n1,5;x\nNone;y\n2,25;z\n")
    with pytest.warns(UserWarning, match="decimal comma"):
        column = read_table(data)["a"]
    assert column.dtype == float and column.tolist()[::2] == [1.5, 2.25] and column.isna().sum() == 1


def test_a_target_with_missing_values_is_named_by_every_command_that_reads_it(tmp_path, capsys):
    """primo report said 'y has missing values (None or NaN) at rows [...]': y is the library's argument, not the
    user's column. fit, report and adjust read the target through split_target, which names the column."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"load": rng.uniform(0, 1, 60)})
    table["latency"] = 3 * table["load"]
    data, with_na, model_path = tmp_path / "ok.csv", tmp_path / "na.csv", tmp_path / "m.primo"
    table.to_csv(data, index=False)
    table.assign(latency=table["latency"].mask(table.index % 7 == 3)).to_csv(with_na, index=False)
    assert main(["fit", str(data), "--target", "latency", "--model", "prdt", "--out", str(model_path)]) == 0
    capsys.readouterr()
    for command in (["fit", str(with_na), "--target", "latency", "--out", str(tmp_path / "n.primo")],
                    ["report", str(model_path), "--data", str(with_na), "--target", "latency", "--out", str(tmp_path / "r.html")]):
        assert main(command) == 2
        assert capsys.readouterr().err.strip() == (f"primo {command[0]}: error: target column 'latency' has missing values "
                                                   "at rows [3, 10, 17, 24, 31, ...] (9 rows), counted from 0; drop those "
                                                   "rows or fill them in")


def test_a_column_is_typed_from_all_its_rows_not_chunk_by_chunk(tmp_path):
    """pandas reads a large CSV in chunks and typed each chunk apart: a column of 1s with one 'x' after 300,000
    rows became Python ints mixed with a string (so the category '1' of a smaller table was unseen), with a
    DtypeWarning telling a command-line user to 'set low_memory=False' (gap's hr1420.csv, 147,850 rows)."""
    import warnings

    from primo.tabular import read_table

    data = tmp_path / "big.csv"
    data.write_text("a,b\n" + "1,2\n" * 300_000 + "x,3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = read_table(data)
    assert pd.api.types.is_string_dtype(table["a"]) and table["a"].iloc[0] == "1" and table["a"].iloc[-1] == "x"


def test_fit_model_pram_searches_as_automatic_selection_does(tmp_path, capsys):
    """``--model pram --trials N`` searches as automatic selection's PrAM family does (one-bag cross-fitted trials,
    not the PrAM's 8 bags of 50,000 rounds per fold, and its 1,024-bin start), and refits with the PrAM's own."""
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    table["y"] = table["a"] ** 2 + table["b"] + rng.normal(scale=0.1, size=300)
    table.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "m.primo"
    assert main(["fit", str(tmp_path / "data.csv"), "--target", "y", "--model", "pram", "--trials", "2",
                 "--seed", "0", "--out", str(out)]) == 0
    model = primo.load(out)
    assert (model.outer_bags, model.max_rounds) == (8, 50_000)
    assert [trial["source"] for trial in model.metadata_["search"]["trials"]][:2] == ["estimator", "start"]
