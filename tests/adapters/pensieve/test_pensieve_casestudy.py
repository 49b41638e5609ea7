"""Smoke run of ``primo casestudy pensieve --quick``: every output is written and consistent."""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import primo
from primo.cli import main as primo_main

from adapters.pensieve.casestudy import features_by_level
from adapters.pensieve.casestudy_docs import METIS, PRIMO, RL
from adapters.pensieve.evaluation import evaluate_policy
from adapters.pensieve.student import STUDENT_FEATURES, StudentPolicy
from adapters.pensieve.teacher import ActorTeacher
from adapters.pensieve.traces import load_trace_set

OUTPUTS = ("results.json", "README.md", "report.html", "timeline.svg", "qoe_cdf.svg", "pensieve_tree.primo",
           "pensieve_tree.mjs", "pensieve_tree.h", "pensieve_tree.txt")


@pytest.fixture(scope="module")
def quick_run(data_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("pensieve")
    # Through the `primo` command: also checks the entry-point registration.
    assert primo_main(["casestudy", "pensieve", "--quick", "--data-dir", str(data_dir), "--out", str(out)]) == 0
    return out, json.loads((out / "results.json").read_text())


def test_every_output_is_written(quick_run):
    out, results = quick_run
    for name in OUTPUTS:
        assert (out / name).stat().st_size > 0, name
    for name in ("timeline.svg", "qoe_cdf.svg"):
        assert ET.parse(out / name).getroot().tag.endswith("svg")
    assert results["traces"] == {"hsdpa": 10, "fcc": 10} and results["settings"]["n_iterations"] == 2


def test_qoe_matches_an_independent_evaluation(quick_run, hsdpa, video, actor, data_dir):
    out, results = quick_run
    rl = evaluate_policy(ActorTeacher(actor), hsdpa[:10], video)
    assert results["qoe"]["hsdpa"][RL]["per_trace"] == pytest.approx(rl.qoe_per_trace)
    assert results["qoe"]["hsdpa"][RL]["published"] == 0.934
    tree = primo.load(out / "pensieve_tree.primo")
    assert tuple(tree.feature_names_) == STUDENT_FEATURES
    fcc = load_trace_set("fcc", data_dir)[:10]
    ours = evaluate_policy(StudentPolicy(tree), fcc, video)
    assert results["qoe"]["fcc"][PRIMO]["mean_qoe"] == pytest.approx(ours.mean_qoe)
    for trace_set in results["qoe"].values():
        for entry in trace_set.values():
            values = list(entry["per_trace"].values())
            assert entry["mean_qoe"] == pytest.approx(np.mean(values)) and len(values) == 10
    assert results["tree"]["features_by_level"] == features_by_level(tree)
    assert results["tree"]["n_leaves"] == tree.n_leaves_ and results["size"]["primo_nodes"] == tree.tree_.node_count


def test_size_latency_and_export_checks(quick_run):
    _, results = quick_run
    size, latency = results["size"], results["latency"]
    assert size["actor_parameters"] == 111_622
    assert size["actor_over_primo"] == pytest.approx(111_622 / size["primo_nodes"])
    assert latency["export_checks"] == {"c_mismatches": 0, "c_metis_mismatches": 0, "js_mismatches": 0,
                                        "js_rule_mismatches": 0}
    us = latency["us_per_decision"]
    assert all(value > 0 for value in us.values()) and len(us) == 9
    # The generated straight-line tree is far cheaper than the actor's forward pass.
    assert us[f"{PRIMO}, Python fast path (compile_python)"] < us["Pensieve actor, numpy (6x8 state -> argmax)"] / 5
    distillation = results["distillation"]
    assert len(distillation["iterations"]) == 2 and distillation["wall_seconds"] > 0
    assert results["golden_primo_tree"]["traces"] == ["norway_bus_1"]


def test_readme_and_report(quick_run):
    out, results = quick_run
    readme = (out / "README.md").read_text()
    for label in (PRIMO, RL, METIS, "robustMPC", "BB", "BOLA"):
        assert f"| {label} |" in readme
    assert "## The paper's claims and this run" in readme and "![bitrate timeline](timeline.svg)" in readme
    assert f"| {PRIMO} | {results['qoe']['hsdpa'][PRIMO]['mean_qoe']:.3f} |" in readme
    html = (out / "report.html").read_text()
    assert html.count('<section id="casestudy">') == 1 and html.index('id="casestudy"') < html.index('id="card"')
    assert '<a href="#casestudy">' in html and "<?xml" not in html
    assert 'data-figure="timeline"' in html and 'data-figure="qoe-cdf"' in html
    assert "&lt;/header&gt;" not in html  # the section is markup, not escaped text
