"""Fuzzing the model-file loader (issue 17, item 2).

2,100 seeded mutations of five saved models (PrDT/PrAM, classifier/regressor, a multiclass PrAM; text
column vocabularies and edit logs included): random bytes, truncations, bytes inside one member,
JSON values, JSON structure and array contents/shapes/dtypes. A worker process loads each one and,
when it loads, predicts on real Clara-MS rows; every case must end as a ModelFileError or as a model
that predicts. A crash, hang or any other exception fails the test and names the case, which
``mutated_file(source, kind, seed)`` rebuilds. A property-based test (hypothesis) does the same on
model documents in memory.
"""
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primo import ModelFileError
from primo.export import to_json
from primo.io import model_from_document
from tests.primo.fuzz_worker import model_rows
from tests.primo.model_files import MUTATION_KINDS, clara_table, fit_models

SEEDS_PER_KIND = 70  # × 6 kinds × 5 models = 2,100 cases
REPOSITORY = Path(__file__).resolve().parents[2]
FIRST_CASE_TIMEOUT = 120  # the worker imports primo, interpret and pandas first
CASE_TIMEOUT = 30


@pytest.fixture(scope="module")
def models(data_dir):
    return fit_models(data_dir)


def _run_worker(spec: dict) -> tuple[dict, str | None]:
    """Outcome per case, and what went wrong with the worker (None when it finished cleanly)."""
    worker = subprocess.Popen([sys.executable, "-m", "tests.primo.fuzz_worker"], cwd=REPOSITORY, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    worker.stdin.write(json.dumps(spec) + "\n")
    worker.stdin.close()
    lines: queue.Queue = queue.Queue()

    def read():
        for line in worker.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    outcomes, current, timeout = {}, None, FIRST_CASE_TIMEOUT
    while True:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            worker.kill()
            worker.wait()
            return outcomes, f"case {current} hung (no answer in {timeout} s)"
        if line is None:
            break
        message = json.loads(line)
        if "begin" in message:
            current, timeout = message["begin"], CASE_TIMEOUT
        else:
            outcomes[message["case"]] = message["outcome"]
            current = None
    code = worker.wait()
    if code != 0:
        return outcomes, f"worker died (exit {code}) during case {current}: {worker.stderr.read()[-2000:]}"
    return outcomes, None


def test_mutated_model_files_load_and_predict_or_are_refused(models, data_dir, tmp_path):
    sources = {name: str(model.save(tmp_path / f"{name}.primo")) for name, model in models.items()}
    cases = [[name, kind, seed] for name in sources for kind in MUTATION_KINDS for seed in range(SEEDS_PER_KIND)]
    assert len(cases) >= 2000
    spec = {"sources": sources, "cases": cases, "data_dir": str(data_dir), "scratch": str(tmp_path / "case.primo")}
    outcomes, failure = _run_worker(spec)
    assert failure is None, failure
    assert len(outcomes) == len(cases)
    broken = {case: outcome for case, outcome in outcomes.items() if outcome not in ("refused", "predicted")}
    assert not broken, f"{len(broken)} cases broke the contract, e.g. {dict(list(broken.items())[:10])}"
    # Both ends are exercised: many mutations are refused, and many still load and predict.
    counts = {kind: sum(outcomes[f"{n}/{kind}/{s}"] == "predicted" for n in sources for s in range(SEEDS_PER_KIND))
              for kind in MUTATION_KINDS}
    assert sum(o == "refused" for o in outcomes.values()) > 500, counts
    assert counts["json_value"] + counts["array"] > 50, counts


def test_a_crash_in_the_worker_names_the_case(tmp_path):
    """The harness itself: a worker that dies mid-case is reported with that case's name."""
    spec = {"sources": {"none": str(tmp_path / "missing.primo")}, "cases": [["none", "bytes", 0]],
            "data_dir": str(tmp_path), "scratch": str(tmp_path / "case.primo")}
    outcomes, failure = _run_worker(spec)
    assert outcomes == {} and "worker died" in failure and "FileNotFoundError" in failure


# --------------------------------------------------------------------------- property-based

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 70), max_value=2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
    | st.sampled_from([{"__float__": "nan"}, {"__tuple__": [0, 1]}, {"__dict__": [[0, "a"]]}]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


def _paths(value, path=()):
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        found.append(path + (key,))
        found += _paths(child, path + (key,))
    return found


@pytest.fixture(scope="module")
def documents(models):
    """Each model's document with arrays inlined (what ``to_json`` publishes), and its paths."""
    out = []
    for name, model in models.items():
        document = json.loads(to_json(model))
        out.append((name, document, _paths(document)))
    return out


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edited_document_builds_a_predicting_model_or_is_refused(documents, data_dir, data):
    name, original, paths = data.draw(st.sampled_from(documents), label="model")
    document = json.loads(json.dumps(original))
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(paths) - 1), _JSON_VALUES), min_size=1, max_size=3))
    for index, value in edits:
        node, path = document, paths[index]
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this path
    try:
        model = model_from_document(document)
    except ModelFileError:
        return
    rows = model_rows(model, clara_table(data_dir, n_rows=20)[0])
    assert len(model.predict(rows)) == len(rows)


def test_documents_round_trip_unchanged(documents, models, data_dir):
    """The property test starts from valid documents: unedited, each one rebuilds its model exactly."""
    rows = clara_table(data_dir, n_rows=60)[0]
    for name, document, _ in documents:
        np.testing.assert_array_equal(model_from_document(document).predict(rows), models[name].predict(rows))
