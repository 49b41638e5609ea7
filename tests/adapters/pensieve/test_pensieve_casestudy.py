"""Smoke run of ``primo casestudy pensieve --quick``: every output is written and consistent."""
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import primo
from primo.cli import main as primo_main

from primo.report.claims import Claim

from adapters.pensieve.casestudy import features_by_level
from adapters.pensieve.casestudy_docs import METIS, PRIMO, RL, SAMPLED
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
    assert results["traces"] == {"train": 10, "test": 7} and results["settings"]["n_iterations"] == 2
    roles = results["trace_roles"]
    assert len(roles["rollout"]) == 8 and len(roles["validation"]) == 2 and len(roles["test_validation"]) == 3
    # Selection never sees a test trace; rollouts never see a validation trace.
    assert not set(roles["test"]) & set(roles["rollout"] + roles["validation"] + roles["test_validation"])
    assert not set(roles["rollout"]) & set(roles["validation"])
    assert results["trace_sets"]["train"]["label"] == "HSDPA" and results["trace_sets"]["test"]["label"] == "FCC"


def test_qoe_matches_an_independent_evaluation(quick_run, hsdpa, video, actor, data_dir):
    out, results = quick_run
    train_names = set(results["qoe"]["train"][RL]["per_trace"])
    rl = evaluate_policy(ActorTeacher(actor), [t for t in hsdpa if t.name in train_names], video)
    assert results["qoe"]["train"][RL]["per_trace"] == pytest.approx(rl.qoe_per_trace)
    tree = primo.load(out / "pensieve_tree.primo")
    assert tuple(tree.feature_names_) == STUDENT_FEATURES
    test_names = results["trace_roles"]["test"]
    fcc = [t for t in load_trace_set("fcc", data_dir) if t.name in test_names]
    ours = evaluate_policy(StudentPolicy(tree), fcc, video)
    assert results["qoe"]["test"][PRIMO]["mean_qoe"] == pytest.approx(ours.mean_qoe)
    for set_name, trace_set in results["qoe"].items():
        for entry in trace_set.values():
            values = list(entry["per_trace"].values())
            assert entry["mean_qoe"] == pytest.approx(np.mean(values)) and len(values) == results["traces"][set_name]
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


def test_published_figures_sit_beside_the_sampled_actor(quick_run):
    _, results = quick_run
    train, test = results["qoe"]["train"], results["qoe"]["test"]
    # The paper's RL numbers come from the actor sampled with seed 42 (the original logs), not its argmax.
    assert train[SAMPLED]["published"] == 0.934 and test[SAMPLED]["published"] == 0.776
    assert train[RL]["published"] is None and test[RL]["published"] is None
    assert train[PRIMO]["published"] == 0.948 and test[PRIMO]["published"] == 0.955


def test_claims_are_paired_over_the_traces_they_name(quick_run):
    _, results = quick_run
    claims = [Claim.from_dict(c) for c in results["claims"]]
    assert [c.verdict for c in claims] == [c["verdict"] for c in results["claims"]]
    for claim in claims:
        set_name = "train" if "HSDPA" in claim.units else "test"
        other = next(label for label in (SAMPLED, RL, METIS) if f"vs {label} " in claim.measured)
        qoe = results["qoe"][set_name]
        differences = [qoe[PRIMO]["per_trace"][n] - qoe[other]["per_trace"][n] for n in qoe[PRIMO]["per_trace"]]
        assert claim.difference.n == len(differences) and claim.difference.mean == pytest.approx(np.mean(differences))
        assert claim.difference.median == pytest.approx(np.median(differences))
        assert claim.difference.low <= claim.difference.mean <= claim.difference.high
    sampled_claims = [c for c in claims if f"vs {SAMPLED} " in c.measured]
    assert all("seed 42" in c.paper_source for c in sampled_claims) and len(sampled_claims) == 2

def test_readme_and_report(quick_run):
    out, results = quick_run
    readme = (out / "README.md").read_text()
    for label in (PRIMO, RL, METIS, "robustMPC", "BB", "BOLA"):
        assert f"| {label} |" in readme
    assert "## The paper's claims and this run" in readme and "![bitrate timeline](timeline.svg)" in readme
    assert f"| {PRIMO} | {results['qoe']['train'][PRIMO]['mean_qoe']:.3f} |" in readme
    assert "paired difference a − b [95% interval]" in readme and results["command"] in readme
    html = (out / "report.html").read_text()
    assert html.count('<section id="casestudy">') == 1 and html.index('id="casestudy"') < html.index('id="card"')
    assert '<a href="#casestudy">' in html and "<?xml" not in html
    assert 'data-figure="timeline"' in html and 'data-figure="qoe-cdf"' in html
    assert "&lt;/header&gt;" not in html  # the section is markup, not escaped text
