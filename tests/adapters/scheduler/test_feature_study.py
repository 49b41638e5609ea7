"""The workload inputs are chosen on the month before the held-out one, never on the held-out month."""
import json

import numpy as np
import pytest

from adapters.scheduler import casestudy, feature_study
from adapters.scheduler.primo_models import Budget

TINY = casestudy.Settings(Budget(n_trials=2, max_rounds=40, outer_bags=1), baselines=False, max_train_jobs=None,
                          duration_trials=2, loads=(0.8,), n_windows=2, window_jobs=50, max_jobs=None, report_rows=50)


def write_swf(path, *, requests: bool, n: int = 300, days: int = 95, seed: int = 0):
    """An SWF log over ``days`` days: each user has a typical duration, requested times round it up."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, days * 86400, n)).astype(int)
    user = rng.integers(1, 7, n)
    runtime = np.ceil(60 * user ** 2 * rng.lognormal(0, 0.5, n)).astype(int)
    request = np.ceil(runtime * 2 / 600) * 600 if requests else np.full(n, -1)
    lines = ["; UnixStartTime: 946684800", "; TimeZoneString: UTC"]
    for i in range(n):
        fields = [i + 1, submit[i], 0, runtime[i], 1 + i % 4, -1, -1, 1 + i % 4, int(request[i]), -1, 1, user[i],
                  -1, -1, -1, -1, -1, -1]
        lines.append(" ".join(map(str, fields)))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_inputs_are_compared_on_the_month_before_the_held_out_one(tmp_path):
    with_requests = write_swf(tmp_path / "requests.swf", requests=True)
    without = write_swf(tmp_path / "plain.swf", requests=False, seed=1)
    out = tmp_path / "feature_study.json"
    rows = feature_study.run([with_requests], variants=("helios", "both"), out=out, settings=TINY, min_train_jobs=50)
    # no request recorded: the sets that add one are skipped
    rows += feature_study.run([without], variants=("requested", "typical"), out=out, settings=TINY, min_train_jobs=50)
    assert [(r["trace"], r["variant"]) for r in rows] == [("requests", "helios"), ("requests", "both"),
                                                          ("plain", "typical")]
    assert {r["selection"] for r in rows} == {"rank"}  # chosen on rank correlation, as the case study does
    log = casestudy.load_log(with_requests)
    held_out = casestudy.last_month_start(log)
    for row in rows[:2]:
        # the validation month is the one before the held-out month, so no held-out job is read
        assert row["validation_start"] < str(held_out) and row["n_train"] + row["n_test"] < len(log)
        assert set(row["spearman"]) == {"primo", "qssf_primo", "rolling", "lightgbm"}
    assert rows[0]["requested"] == [] and rows[1]["requested"] == ["req_time"]
    assert json.loads(out.read_text())["rows"] == json.loads(json.dumps(rows))  # both runs' logs kept
    feature_study.run([with_requests], variants=("helios",), out=out, settings=TINY, min_train_jobs=50)  # one set rerun
    assert sorted((r["trace"], r["variant"]) for r in json.loads(out.read_text())["rows"]) == [
        ("plain", "typical"), ("requests", "both"), ("requests", "helios")]
    # the rule before (|log error|) beside it: both selections' rows are kept, each summarized on its own
    feature_study.run([with_requests], variants=("helios",), out=out, settings=TINY, min_train_jobs=50, selections=("mae",))
    kept = json.loads(out.read_text())["rows"]
    assert sorted((r["trace"], r["variant"], r["selection"]) for r in kept) == [
        ("plain", "typical", "rank"), ("requests", "both", "rank"), ("requests", "helios", "mae"),
        ("requests", "helios", "rank")]
    assert [s["inputs"] for s in feature_study.summarize(kept, "mae")] == ["helios"]
    with pytest.raises(ValueError, match="unknown input sets"):
        feature_study.run([without], variants=("everything",), out=out, settings=TINY)
    with pytest.raises(ValueError, match="unknown selections"):
        feature_study.run([without], variants=("typical",), out=out, settings=TINY, selections=("r2",))


def test_earlier_months_are_studied_apart_and_too_short_ones_skipped(tmp_path):
    path = write_swf(tmp_path / "requests.swf", requests=True)
    out = tmp_path / "feature_study.json"
    rows = feature_study.run([path], variants=("helios",), out=out, settings=TINY, months_back=(1, 2, 3),
                             min_train_jobs=50)
    # 95 days from January 1st: month 3 back leaves January's days before it, too few jobs to train on
    assert [r["months_back"] for r in rows] == [1, 2]
    assert rows[1]["validation_start"] < rows[0]["validation_start"]
    assert rows[1]["n_train"] + rows[1]["n_test"] <= rows[0]["n_train"]  # month 2 ends where month 1 starts
    # the input sets are still compared on month 1 only
    assert {s["logs"] for s in feature_study.summarize(rows)} == {1}
    assert feature_study.run([path], variants=("helios",), out=out, settings=TINY, months_back=(2,)) == []
    with pytest.raises(ValueError, match="months_back"):
        feature_study.validation_log(casestudy.load_log(path), 0)
