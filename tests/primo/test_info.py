"""``primo info`` speaks plainly: the selection table itself with its latency legend, metadata as
labelled facts (never ``list (2 items)`` or a raw dict)."""
import pytest

from primo import PrDTRegressor, PrimoRegressor
from primo.cli import main
from primo.selection import LATENCY_ROWS


@pytest.fixture()
def selected_file(clara, tmp_path):
    """A PrDT saved with selection and other metadata in the shape primo.selection writes them."""
    X, y, _, _ = clara
    model = PrDTRegressor(ccp_alpha=0.5, random_state=0).fit(X, y)
    common = {"loss_se": 0.1, "score": 2.6, "complexity": 100.0, "log_loss": float("nan"), "ece": float("nan"),
              "within_noise": True, "satisfies": True}
    model.metadata_ = {
        "selection": [
            {**common, "family": "prdt", "model": "PrDTRegressor", "loss": 2.6, "relative_loss": 0.37, "size": 16.0,
             "latency_us": 0.48, "latency_p90_us": 0.66, "selected": True, "reason": "selected: the smallest model"},
            {**common, "family": "pram", "model": "PrAMRegressor", "loss": 2.5, "relative_loss": 0.36, "size": 1002.0,
             "latency_us": 5.38, "latency_p90_us": 5.57, "selected": False, "reason": "within noise, but larger"}],
        "training": {"validation": "5-fold CV", "seeds": list(range(142)), "timing": {"search_s": 5.04}},
        "note": "fit for the info test",
    }
    path = tmp_path / "selected.primo"
    model.save(path)
    return path


def test_info_shows_the_selection_table_and_what_its_latency_is(selected_file, capsys):
    assert main(["info", str(selected_file)]) == 0
    out = capsys.readouterr().out
    assert "list (2 items)" not in out and "dict (" not in out and "{" not in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("selection: prdt selected"))
    columns = lines[header + 1].split()
    assert columns[:3] == ["family", "model", "size"] and "latency" in columns and columns[-1] == "reason"
    prdt, pram = lines[header + 2], lines[header + 3]
    assert prdt.lstrip().startswith("*  prdt") and "0.48 (p90 0.66)" in prdt and "selected: the smallest model" in prdt
    assert pram.lstrip().startswith("pram") and "5.38 (p90 5.57)" in pram
    legend = lines[header + 4]
    assert legend.strip().startswith(f"latency µs: median over {LATENCY_ROWS} training rows")
    assert "compiled pure-Python predictor" in legend and "90th percentile" in legend


def test_info_gives_other_metadata_as_labelled_facts(selected_file, capsys):
    main(["info", str(selected_file)])
    out = capsys.readouterr().out
    assert "training:\n  validation: 5-fold CV\n  seeds: 142 values: 0 to 141 (consecutive integers)\n" \
           "  timing › search s: 5.04\n" in out
    assert "note: fit for the info test" in out


@pytest.mark.slow
def test_info_on_a_real_selection(clara, tmp_path, capsys):
    X, y, _, _ = clara
    auto = PrimoRegressor(n_trials=3, cv=2, family_params={"pram": {"max_rounds": 100, "interactions": 0}},
                          n_jobs=1, random_state=0, progress=False).fit(X, y)
    auto.save(tmp_path / "auto.primo")
    assert main(["info", str(tmp_path / "auto.primo")]) == 0
    out = capsys.readouterr().out
    for family in ("prdt", "pram"):
        row = next(line for line in out.splitlines() if line.lstrip(" *").startswith(family + " "))
        median = auto.selection_report_.set_index("family").loc[family, "latency_us"]
        assert f"{median:.3g}" in row and "(p90 " in row
    assert "latency µs: median over" in out
