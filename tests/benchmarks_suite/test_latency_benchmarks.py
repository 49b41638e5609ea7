"""The latency benchmarks' timing harness (benchmarks/export_latency.py, also used by model_latency.py).

A sample pays for what ran just before it, so the contenders run in a fresh random order in every
repeat: no contender may always follow the same neighbour.
"""
import pytest

from tests.benchmarks_suite.scripts import import_scripts


@pytest.fixture(scope="module")
def export_latency():
    return import_scripts("export_latency")[0]


def test_every_contender_is_sampled_each_repeat_behind_changing_neighbours(export_latency):
    runs = []

    def contender(name):
        def sample():
            runs.append(name)
            return float(len(name))
        return sample

    names = ["a", "bb", "ccc", "dddd", "eeeee"]
    groups = {"one": {n: contender(n) for n in names[:2]}, "two": {n: contender(n) for n in names[2:]},
              "notes": {"kept": "as is"}}
    results = export_latency.interleaved_medians(groups, repeats=9)
    timed = runs[len(names):]  # after one warm-up call each
    assert len(timed) == 9 * len(names)
    repeats = [timed[i:i + len(names)] for i in range(0, len(timed), len(names))]
    assert all(sorted(r) == sorted(names) for r in repeats)
    assert len({tuple(r) for r in repeats}) > 1  # the order changes between repeats
    before_a = {r[r.index("a") - 1] for r in repeats if r.index("a") > 0}
    assert len(before_a) > 1  # "a" does not always run behind the same contender
    assert results["one"]["bb"]["median"] == 2.0 and len(results["two"]["eeeee"]["samples"]) == 9
    assert results["notes"] == {"kept": "as is"}


def test_run_conditions_name_the_load_and_cpu(export_latency):
    import os
    import time

    conditions = export_latency.run_conditions(os.getloadavg(), time.process_time())
    assert len(conditions["load_average_start"]) == len(conditions["load_average_end"]) == 3
    assert conditions["cpu_seconds"] >= 0
    assert export_latency.conditions_line(conditions).startswith("Load average (1/5/15 min) ")
