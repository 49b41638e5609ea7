"""``primo casestudy linnos --quick`` end to end on the real traces, and the cross-trace pieces."""
import json
import subprocess

import numpy as np
import pandas as pd
import pytest

import primo
from adapters.linnos.casestudy import check_traces, main, run
from adapters.linnos.features import RAW_FEATURE_NAMES
from adapters.linnos.study import Settings, TraceModels, generalization, load_reads, simulate
from adapters.linnos.trace import list_traces
from adapters.linnos.training_data import write_training_data
from tests.adapters.linnos.helpers import Constant


@pytest.fixture(scope="module")
def quick_run(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("linnos")
    assert main(["--quick", "--data-dir", str(data_dir), "--out", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_quick_run_measures_every_model_in_both_modes(quick_run):
    _, results = quick_run
    assert set(results["modes"]) == {"completed", "submitted"}
    main_mode = results["modes"]["completed"]
    assert len(main_mode["traces"]) == 2
    trace = main_mode["traces"][0]
    assert set(trace["models"]) == {"LinnOS", "Primo-E", "Primo-P", "Primo-D (hard)", "Primo-D (soft)"}
    assert set(results["modes"]["submitted"]["traces"][0]["models"]) == {"LinnOS", "Primo-E", "Primo-P"}
    assert trace["n_train"] + trace["n_test"] == trace["n_reads"] == 4000
    for name, cost in trace["inference_ns"].items():
        assert cost["c_matches_python"], name
        assert 0 < cost["median_ns"] < 1e6
    # the network is ~8,000 multiply-adds, a small tree a few comparisons
    assert trace["inference_ns"]["LinnOS"]["median_ns"] > 10 * trace["inference_ns"]["Primo-E"]["median_ns"]
    assert trace["quantization"]["Primo-E"]["answers_changed"] == 0
    assert trace["models"]["LinnOS"]["parameters"] == 31 * 256 + 256 + 256 + 1
    assert {"clean", "noisy"} <= set(trace["robustness"]["Primo-P"])
    assert trace["train_10pct"]["n_train"] == pytest.approx(0.1 * trace["n_train"], abs=1)
    # Two traces: only the time-shifted array (the "traces" layout needs 3 distinct traces).
    assert results["settings"]["layouts"] == ["shifted"] and set(main_mode["simulation"]) == {"shifted"}
    arrays = main_mode["simulation"]["shifted"]
    for policies in arrays.values():
        assert {"Base", "LinnOS", "Primo-E", "Primo-P", "Oracle"} <= set(policies)
        assert policies["Base"]["mean_vs_base"] == 1.0
    f1 = np.asarray(main_mode["generalization"]["models"]["Primo-E"]["f1_slow"])
    assert f1.shape == (2, 2) and np.all((0 <= f1) & (f1 <= 1))


def test_quick_run_writes_readme_reports_models_and_headers(quick_run, tmp_path):
    out, results = quick_run
    readme = (out / "README.md").read_text()
    assert "Quick smoke run" in readme
    for section in ("Classification on the test reads", "layout `traces`", "Inference cost", "Training time",
                    "Quantization", "Robustness", "Less training data", "Generalization across workloads",
                    "`submitted` history", "−26.2%"):
        assert section in readme, section
    reports = sorted(out.glob("primo_*.html"))
    assert len(reports) == 4
    assert "<svg" in reports[0].read_text()
    trace = results["modes"]["completed"]["traces"][0]
    short = trace["trace"].replace("tencent.cut.per_50k.", "").replace(".trace", "")
    model = primo.load(out / "models" / f"{short}_primo_e.primo")
    assert model.n_leaves_ == trace["models"]["Primo-E"]["leaves"]
    header = out / "c" / f"{short}_primo_e.h"
    program = tmp_path / "use.c"
    program.write_text(f'#include "{header}"\nint main(void) {{ int64_t x[9] = {{0}}; '
                       "return linnos_primo_e_predict(x) > 1; }\n")
    subprocess.run(["gcc", "-O2", "-mgeneral-regs-only", "-c", str(program), "-o", str(tmp_path / "use.o")],
                   check=True)


def device(k, n=400):
    rng = np.random.default_rng(k)
    reads = pd.DataFrame(0, index=range(n), columns=RAW_FEATURE_NAMES)
    reads.insert(0, "latency_us", rng.integers(100, 5000, n))
    reads.insert(0, "submit_us", np.arange(n) * 50)
    never, always = Constant(0), Constant(1)
    return TraceModels(f"d{k}", reads, 2500.0, {"Never": never, "Always": always}, {"Never": 1.0, "Always": 0.5},
                       {"Never": never, "Always": always})


def test_simulation_and_generalization_on_constant_predictors():
    devices = [device(k) for k in range(3)]
    out = simulate(devices)
    first = out["traces"]["d0"]
    assert first["devices"] == ["d0+0us", "d1+0us", "d2+0us"]
    assert first["Never"]["mean_us"] == pytest.approx(devices[0].test["latency_us"].mean() + 1.0)
    assert first["Always"]["mean_us"] == pytest.approx(devices[2].test["latency_us"].mean() + 2 * 0.5)
    gen = generalization(devices)
    slow = [float((d.test["latency_us"] > 2500).mean()) for d in devices]
    never = np.asarray(gen["models"]["Never"]["false_submit_rate"])
    always = np.asarray(gen["models"]["Always"]["false_revoke_rate"])
    for i in range(3):  # a constant model errs the same on every target, whichever trace trained it
        np.testing.assert_allclose(never[i], slow)
        np.testing.assert_allclose(always[i], 1 - np.asarray(slow))


def test_one_trace_one_history_runs_the_shifted_array(data_dir, tmp_path):
    trace = list_traces(data_dir)[0]
    tiny = Settings(epochs=2, n_trials=3, max_reads=2000, noise_seeds=1, c_passes=1)
    results = run(None, tmp_path, tiny, histories=["submitted"], traces=[trace])
    assert results["settings"]["main_history"] == "submitted" and list(results["modes"]) == ["submitted"]
    mode = results["modes"]["submitted"]
    assert set(mode["simulation"]) == {"shifted"}
    array = mode["simulation"]["shifted"][trace.name]
    assert len(array["devices"]) == 3 and len({d.split("+")[0] for d in array["devices"]}) == 1
    claims = results["claims"]["submitted"]
    assert claims and all(c["difference"]["n"] == 1 and c["verdict"] == "within noise" for c in claims)
    readme = (tmp_path / "README.md").read_text()
    assert f"--traces {trace.name}" in readme and "--history submitted" in readme
    assert "Not run: it needs at least 3 distinct traces" in readme and "one unit gives no interval" in readme


def test_trace_files_are_checked(tmp_path, data_dir):
    trace = list_traces(data_dir)[0]
    with pytest.raises(ValueError, match="given twice"):
        check_traces([trace, trace.parent / "." / trace.name])  # the same file, spelled differently
    with pytest.raises(FileNotFoundError, match="not found"):
        check_traces([tmp_path / "missing.trace"])
    with pytest.raises(ValueError, match="no trace files"):
        check_traces([])


def test_history_modes_are_checked(tmp_path):
    with pytest.raises(ValueError, match="history modes"):
        run(None, tmp_path, histories=["future"])


def test_linnos_training_data_is_studied_without_arrays(data_dir, tmp_path):
    reads = load_reads(list_traces(data_dir)[1], "completed").iloc[:2000]
    digits = tmp_path / "mldrive0.csv"
    write_training_data(reads, digits)
    tiny = Settings(epochs=2, n_trials=3, noise_seeds=1, c_passes=1)
    results = run(None, tmp_path / "out", tiny, traces=[digits])  # both histories asked: 'submitted' is left out
    assert list(results["modes"]) == ["completed"] and results["settings"]["untimed_inputs"] == ["mldrive0.csv"]
    mode = results["modes"]["completed"]
    assert mode["simulation"] == {} and mode["traces"][0]["format"] == "linnos-training-data"
    assert mode["traces"][0]["n_reads"] == 2000
    statements = [c["statement"] for c in results["claims"]["completed"]]
    assert statements and not any("latency" in s for s in statements)
    readme = (tmp_path / "out" / "README.md").read_text()
    assert "no submit times" in readme and "Not run: LinnOS training data" in readme
    assert "What moved in this report" not in readme  # that section is about the committed report only
    with pytest.raises(ValueError, match="'completed' history only"):
        run(None, tmp_path / "out2", tiny, histories=["submitted"], traces=[digits])
