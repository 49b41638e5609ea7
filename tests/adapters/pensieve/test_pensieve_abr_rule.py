"""The tree as a JavaScript ABR rule (node) and a C header (gcc) decides exactly as in Python."""
import numpy as np
import pandas as pd
import pytest

from adapters.pensieve.abr_rule import abr_rule_c, abr_rule_js, metrics_from_observation
from adapters.pensieve.env import PensieveEnv
from adapters.pensieve.latency import c_decisions, js_decisions
from adapters.pensieve.metis import collect_teacher_rollouts
from adapters.pensieve.student import STUDENT_FEATURES, StudentPolicy, student_view
from adapters.pensieve.teacher import ActorTeacher
from primo import PrDTClassifier
from primo.models.latency import cpu_us_per_call


@pytest.fixture(scope="module")
def decisions(hsdpa, video, actor):
    """The actor's HSDPA decisions on a spread of traces and a tree fit on them (no search: fast)."""
    X, y = collect_teacher_rollouts(PensieveEnv(hsdpa[::12], video), ActorTeacher(actor))
    rows = pd.DataFrame(student_view(X), columns=list(STUDENT_FEATURES))
    tree = PrDTClassifier(ccp_alpha=2e-3, random_state=0).fit(rows, y)
    return X, tree, tree.predict(rows)


def test_js_rule_decides_like_the_tree(decisions):
    X, tree, expected = decisions
    assert len(set(expected)) >= 3  # a tree with real decisions, not a constant
    module = abr_rule_js(tree)
    assert "export function chooseQuality(metrics)" in module and "export function predict(x)" in module
    from_metrics = js_decisions(module, "chooseQuality", [metrics_from_observation(o) for o in X], repeats=1, passes=1)
    from_rows = js_decisions(module, "predict", student_view(X).tolist(), repeats=1, passes=1)
    np.testing.assert_array_equal(from_metrics[0], expected)
    np.testing.assert_array_equal(from_rows[0], expected)
    assert from_metrics[1] > 0


def test_js_rule_rejects_malformed_metrics(decisions):
    X, tree, _ = decisions
    metrics = metrics_from_observation(X[0])
    metrics["nextChunkSizesBytes"] = metrics["nextChunkSizesBytes"][:5]
    with pytest.raises(RuntimeError, match="TypeError: metrics.nextChunkSizesBytes must hold 6 sizes"):
        js_decisions(abr_rule_js(tree), "chooseQuality", [metrics], repeats=1, passes=1)
    del metrics["nextChunkSizesBytes"], metrics["bufferLevelS"]
    metrics["nextChunkSizesBytes"] = [1, 2, 3, 4, 5, 6]
    with pytest.raises(RuntimeError, match="metrics.bufferLevelS must be a finite number"):
        js_decisions(abr_rule_js(tree), "chooseQuality", [metrics], repeats=1, passes=1)


def test_c_header_decides_like_the_tree(decisions):
    X, tree, expected = decisions
    header = abr_rule_c(tree, name="abr")
    assert "static inline int abr_quality(const double *x)" in header
    assert header.rstrip().endswith("#endif /* ABR_H */")
    quality, ns = c_decisions(header, "abr_quality", student_view(X), repeats=1, passes=1)
    np.testing.assert_array_equal(quality, expected)


def test_rule_needs_a_tree_over_student_features(decisions):
    X, tree, _ = decisions
    other = PrDTClassifier(random_state=0).fit(X[:, :25], np.arange(len(X)) % 6)  # 25 other features
    with pytest.raises(ValueError, match="student features"):
        abr_rule_js(other)
    with pytest.raises(ValueError, match="student features"):
        abr_rule_c(other)


def test_student_policy_and_latency_helper(decisions):
    X, tree, expected = decisions
    policy = StudentPolicy(tree)
    assert [policy.act(o) for o in X[:100]] == expected[:100].tolist()
    assert 0 < cpu_us_per_call(policy.act, list(X[:50]), passes=1) < 1e4
    with pytest.raises(ValueError, match="no inputs"):
        cpu_us_per_call(policy.act, [])
