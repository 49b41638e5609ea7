"""``primo report MODEL --data FILE --target COL --out FILE``."""
from primo.cli import main


def test_report_command_writes_html_and_markdown(prdt_regressor, data_dir, tmp_path, capsys):
    model_path = prdt_regressor.save(tmp_path / "model.primo")
    test_csv = data_dir / "clara" / "ms_test.csv"
    out = tmp_path / "report.html"
    assert main(["report", str(model_path), "--data", str(test_csv), "--target", "cores", "--out", str(out),
                 "--local-rows", "1", "--no-latency", "--title", "Clara tree"]) == 0
    html = out.read_text()
    assert "<title>Clara tree</title>" in html and "this model (PrDT)" in html and html.count('class="card"') == 1
    assert "wrote" in capsys.readouterr().out
    markdown = tmp_path / "report.md"
    assert main(["report", str(model_path), "--out", str(markdown)]) == 0
    assert markdown.read_text().startswith("# PrDTRegressor interpretation report")


def test_report_command_names_a_missing_target(prdt_regressor, data_dir, tmp_path, capsys):
    model_path = prdt_regressor.save(tmp_path / "model.primo")
    code = main(["report", str(model_path), "--data", str(data_dir / "clara" / "ms_test.csv"), "--target", "speed",
                 "--out", str(tmp_path / "r.html")])
    assert code == 2 and "'speed' not in the data" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()
