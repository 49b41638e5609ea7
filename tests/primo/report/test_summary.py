"""Metadata summaries: long lists by count and range, nested options as labelled facts."""
import doctest

import numpy as np

from primo.report import summary
from primo.report.summary import facts, summarize


def test_the_module_examples_hold():
    assert doctest.testmod(summary).failed == 0


def test_lists_are_spelled_out_only_when_short():
    assert summarize([1, 2, 3]) == "1, 2, 3"
    assert summarize(np.arange(5, 105)) == "100 values: 5 to 104 (consecutive integers)"
    assert summarize([3.5] * 9 + [1.0]) == "10 values from 1 to 3.5, median 3.5 (2 distinct)"
    assert summarize([True, False] * 5).startswith("10 items: True, False")  # booleans are not numbers
    assert summarize([1.0, float("nan")] * 5).startswith("10 items: 1, –")  # NaN: listed, no range
    assert summarize([]) == "none"
    assert summarize([{"trial": 1, "loss": 0.2}, {"trial": 2, "loss": 0.1}]) == "2 records of trial, loss"


def test_long_text_is_cut_with_its_length():
    text = summarize("x" * 500)
    assert len(text) < 200 and text.endswith("(500 characters)")


def test_nested_mappings_flatten_to_labelled_facts():
    rows = facts({"options": {"eval_seeds": list(range(142)), "inner": {"max_steps": None}}, "empty": {}})
    assert rows == [("options › eval seeds", "142 values: 0 to 141 (consecutive integers)"),
                    ("options › inner › max steps", "None"), ("empty", "none")]
