"""Bayesian search of Lucid's knobs on the NASA iPSC trace: tuned on one month, checked on the next."""
import math
from pathlib import Path

import pytest

from adapters.scheduler.casestudy import QUICK
from adapters.scheduler.knob_search import DEFAULTS, SPACE, search_knobs

MODELS = Path(__file__).resolve().parents[3] / "reports" / "scheduler" / "models"


def test_search_starts_from_the_defaults_and_never_ends_worse_on_the_tuning_month(data_dir):
    result = search_knobs(data_dir, MODELS, n_calls=3, settings=QUICK, seed=0)
    trials = result["trials"]
    assert len(trials) == 3 and {k: trials[0][k] for k in DEFAULTS} == DEFAULTS
    assert result["tune_jobs"] > 1000 and result["eval_jobs"] > 1000
    assert result["tune_jct_h"]["best"] == min(t["avg_jct_h"] for t in trials) <= result["tune_jct_h"]["defaults"]
    for dimension in SPACE:
        assert dimension.low <= result["best"][dimension.name] <= dimension.high
    assert all(math.isfinite(v) and v > 0 for v in result["eval_jct_h"].values())


def test_a_trace_shorter_than_three_months_is_rejected(data_dir):
    with pytest.raises(ValueError, match="three calendar months"):
        search_knobs(data_dir, MODELS, n_calls=2, settings=QUICK, max_jobs=3000)
