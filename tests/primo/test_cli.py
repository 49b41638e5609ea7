"""The ``primo`` command end to end on real data: fit, predict, info, errors."""
import subprocess
import sys

import pandas as pd
import pytest

import primo
from primo.cli import main


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
    assert search["method"] == "pruning path" and search["rule"] == "one standard error"
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


def test_cli_errors_are_one_line_and_exit_2(clara_csv, tmp_path, capsys):
    train, _ = clara_csv
    assert main(["fit", str(train), "--target", "nope", "--out", str(tmp_path / "m.primo")]) == 2
    assert "target column 'nope' not in the data" in capsys.readouterr().err
    bogus = tmp_path / "bogus.primo"
    bogus.write_text("not a model")
    assert main(["info", str(bogus)]) == 2
    assert "not a Primo model" in capsys.readouterr().err
    assert main(["fit", str(tmp_path / "missing.csv"), "--target", "y", "--out", str(tmp_path / "m.primo")]) == 2


def test_console_script_is_installed():
    result = subprocess.run([sys.executable, "-m", "primo.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("primo ")
