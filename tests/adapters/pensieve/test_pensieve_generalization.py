"""The generalization study's row: one tiny distillation scored against the actor on held-out traces."""
import numpy as np
import pytest

from adapters.pensieve.casestudy import Settings, split_trace_sets
from adapters.pensieve.evaluation import evaluate_policy
from adapters.pensieve.generalization import HEADER, VARIANTS, run_variant, table_row
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.traces import load_trace_set


def test_one_variant_row(hsdpa, video, actor, data_dir):
    split = split_trace_sets(hsdpa[:6], load_trace_set("fcc", data_dir)[:5], Settings(validation_fraction=0.34,
                                                                                       test_validation_fraction=0.4))
    actor_qoe = evaluate_policy(ActorTeacher(actor), split.test, video).qoe_per_trace
    slow = {split.test[0].name}  # pretend one test trace is below the lowest bitrate
    row = run_variant("margin-mix", 0, split, actor, video, actor_qoe, slow, n_iterations=1,
                      episodes_per_iteration=3, n_trials=2)
    assert row["all"]["n"] == len(split.test) == 3 and row["without_slow"]["n"] == 2
    assert row["better"] + row["worse"] <= 3 and row["median_actor"] == pytest.approx(np.median(list(actor_qoe.values())))
    assert row["all"]["low"] <= row["all"]["mean"] <= row["all"]["high"]
    assert len(table_row(row)) == len(HEADER) and VARIANTS["margin-mix"][2] == "mix"
