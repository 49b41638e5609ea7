"""Hostile model files: each attack from issue 17 ends in ModelFileError naming the problem, before any
model is built (so no segfault, hang or unbounded allocation can follow)."""
import json
import struct
import zipfile

import numpy as np
import pytest

import primo
from primo import ModelFileError, PrDTRegressor
from primo.validation import FileLimits, validate_tree_state
from tests.primo.model_files import (
    clara_table,
    fit_models,
    load_member,
    member_of,
    npy_bytes,
    read_parts,
    write_parts,
)


@pytest.fixture(scope="module")
def saved(data_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return {name: model.save(folder / f"{name}.primo") for name, model in fit_models(data_dir).items()}


def _tampered(tmp_path, source, edit):
    """A copy of ``source`` after ``edit(document, members)`` changed its parts."""
    document, members = read_parts(source)
    edit(document, members)
    target = tmp_path / "tampered.primo"
    write_parts(target, document, members)
    return target


def _edit_nodes(change):
    def edit(document, members):
        name = member_of(document, "state", "tree_", "nodes")
        nodes = load_member(members, name)
        change(nodes)
        members[name] = npy_bytes(nodes)
    return edit


def _first_split(nodes):
    return int(np.flatnonzero(nodes["left_child"] != -1)[0])


@pytest.mark.parametrize("change, message", [
    (lambda n: n.__setitem__("left_child", np.where(n["left_child"] > 0, 50_000_000, n["left_child"])),
     "outside"),
    (lambda n: n["feature"].__setitem__(_first_split(n), 10_000_000), "splits on feature 10000000"),
    (lambda n: n["left_child"].__setitem__(n["left_child"].argmax(), n["left_child"].argmax()), "child of"),
    (lambda n: n["right_child"].__setitem__(0, n["left_child"][0]), "child of 2 nodes"),
    (lambda n: n["threshold"].__setitem__(0, np.nan), "threshold nan"),
    (lambda n: n["left_child"].__setitem__(0, -1), "exactly one child"),
])
def test_broken_tree_structure_is_refused(saved, tmp_path, change, message):
    path = _tampered(tmp_path, saved["prdt_classifier"], _edit_nodes(change))
    with pytest.raises(ModelFileError, match=message):
        primo.load(path)


def test_cycle_cut_off_from_the_root_is_refused():
    # Seven nodes where every node but the root has exactly one parent, yet 3 and 4 are each other's
    # child: the counts look right, only the walk from the root finds the cycle.
    X = np.arange(8.0).reshape(-1, 1)
    state = PrDTRegressor().fit(X, X[:, 0] ** 2)._get_state()
    nodes = state["tree_"]["nodes"]
    assert len(nodes) > 7
    state["tree_"]["nodes"] = nodes = nodes[:7].copy()
    state["tree_"]["values"] = state["tree_"]["values"][:7]
    state["tree_"]["node_count"] = 7
    nodes["left_child"] = [1, -1, -1, 4, 3, -1, -1]
    nodes["right_child"] = [2, -1, -1, 5, 6, -1, -1]
    with pytest.raises(ModelFileError, match="4 nodes are not reachable from the root"):
        validate_tree_state(state, classifier=False)


def test_float64_nodes_and_wrong_value_shapes_are_refused(saved, tmp_path):
    def float_nodes(document, members):
        members[member_of(document, "state", "tree_", "nodes")] = npy_bytes(np.zeros(7))
    with pytest.raises(ModelFileError, match="state.tree_.nodes: dtype float64 is not allowed"):
        primo.load(_tampered(tmp_path, saved["prdt_classifier"], float_nodes))

    def short_values(document, members):
        name = member_of(document, "state", "tree_", "values")
        members[name] = npy_bytes(load_member(members, name)[:2])
    with pytest.raises(ModelFileError, match="state.tree_.values: shape"):
        primo.load(_tampered(tmp_path, saved["prdt_classifier"], short_values))


def test_npy_header_declaring_a_trillion_elements_is_refused(saved, tmp_path):
    def huge(document, members):
        name = member_of(document, "state", "tree_", "values")
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }".ljust(117) + "\n"
        members[name] = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(1000)
    with pytest.raises(ModelFileError, match="declares 1000000000000 elements"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], huge))


def test_object_arrays_are_refused(saved, tmp_path):
    def pickled(document, members):
        name = member_of(document, "state", "tree_", "values")
        header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }".ljust(117) + "\n"
        members[name] = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\x80\x04N."
    with pytest.raises(ModelFileError, match="object arrays are not allowed"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], pickled))


def test_deeply_nested_json_is_refused_without_recursion_error(saved, tmp_path):
    document, members = read_parts(saved["prdt_regressor"])
    text = json.dumps(document).replace('"metadata": {', '"metadata": {"deep": ' + "[" * 100_000 + "]" * 100_000 + ", ")
    path = tmp_path / "deep.primo"
    write_parts(path, None, members, json_text=text.encode())
    with pytest.raises(ModelFileError, match="nested more than 64 levels deep"):
        primo.load(path)


@pytest.mark.timeout(120)  # a hang guard: a raw-text bracket scan once took hours on this file
def test_strings_full_of_escaped_quotes_load(saved, tmp_path):
    document, members = read_parts(saved["prdt_regressor"])
    document["metadata"]["note"] = '"' * 2_000_000  # JSON text: 2 million \" escapes
    path = tmp_path / "quotes.primo"
    write_parts(path, document, members)
    assert primo.load(path).metadata_["note"] == '"' * 2_000_000


def test_zip_bomb_is_refused_by_declared_and_by_real_size(saved, tmp_path):
    document, members = read_parts(saved["prdt_regressor"])
    bomb = tmp_path / "bomb.primo"
    padded = json.dumps(document).encode() + b" " * (64 << 20)  # 64 MiB of spaces deflate to ~64 KB
    write_parts(bomb, None, members, json_text=padded)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(ModelFileError, match="primo.json' declares .* above the limit"):
        primo.load(bomb)

    # The same archive with a lying central directory (declares 1,000 bytes): the stream is capped.
    raw = bytearray(bomb.read_bytes())
    with zipfile.ZipFile(bomb) as archive:
        info = archive.getinfo("primo.json")
    central = raw.find(b"PK\x01\x02")
    assert raw[central + 46:central + 46 + len("primo.json")] == b"primo.json"
    raw[central + 24:central + 28] = struct.pack("<I", 1000)  # uncompressed size
    liar = tmp_path / "liar.primo"
    liar.write_bytes(bytes(raw))
    assert info.file_size > 1000
    with pytest.raises(ModelFileError):
        primo.load(liar)


def test_limits_are_configurable(saved):
    with pytest.raises(ModelFileError, match="above the limit of 100"):
        primo.load(saved["prdt_regressor"], limits=FileLimits(max_member_bytes=100))
    with pytest.raises(ModelFileError, match="nested more than 2 levels deep"):
        primo.load(saved["prdt_regressor"], limits=FileLimits(max_json_depth=2))
    assert primo.load(saved["prdt_regressor"], limits=FileLimits(max_json_depth=20)).n_features_in_ == 5


def _edit_fitted(change):
    def edit(document, members):
        change(document["state"]["ebm_"]["fitted"], document, members)
    return edit


def test_pram_score_table_cut_short_is_refused(saved, tmp_path):
    def cut(fitted, document, members):
        name = f"arrays/{fitted['term_scores_'][1]['__array__']}.npy"
        members[name] = npy_bytes(load_member(members, name)[:3])
    with pytest.raises(ModelFileError, match=r"term_scores_\[1\]: shape \(3,\)"):
        primo.load(_tampered(tmp_path, saved["pram_regressor"], _edit_fitted(cut)))


def test_pram_term_on_a_missing_feature_is_refused(saved, tmp_path):
    def feature_57(fitted, document, members):
        fitted["term_features_"][0] = {"__tuple__": [57]}
    with pytest.raises(ModelFileError, match=r"term_features_\[0\]: 57 is outside \[0, 4\]"):
        primo.load(_tampered(tmp_path, saved["pram_classifier"], _edit_fitted(feature_57)))


def test_pram_pair_with_a_flat_table_and_unsorted_cuts_are_refused(saved, tmp_path):
    def flatten_pair(fitted, document, members):
        pair = next(i for i, t in enumerate(fitted["term_features_"]) if len(t["__tuple__"]) == 2)
        name = f"arrays/{fitted['term_scores_'][pair]['__array__']}.npy"
        members[name] = npy_bytes(load_member(members, name).ravel())
    with pytest.raises(ModelFileError, match="term_scores_.*shape"):
        primo.load(_tampered(tmp_path, saved["pram_classifier"], _edit_fitted(flatten_pair)))

    def unsorted(fitted, document, members):
        name = f"arrays/{fitted['bins_'][0][0]['__array__']}.npy"
        members[name] = npy_bytes(load_member(members, name)[::-1].copy())
    with pytest.raises(ModelFileError, match=r"bins_\[0\]\[0\]: cut points must be strictly increasing"):
        primo.load(_tampered(tmp_path, saved["pram_regressor"], _edit_fitted(unsorted)))


def test_multiclass_scores_need_a_class_axis(saved, tmp_path):
    def drop_axis(fitted, document, members):
        name = f"arrays/{fitted['term_scores_'][0]['__array__']}.npy"
        members[name] = npy_bytes(load_member(members, name)[:, 0].copy())
    with pytest.raises(ModelFileError, match=r"term_scores_\[0\]: shape"):
        primo.load(_tampered(tmp_path, saved["pram_multiclass"], _edit_fitted(drop_axis)))


def test_unknown_attributes_and_parameters_are_refused(saved, tmp_path):
    def extra_attribute(document, members):
        document["state"]["predict"] = 1  # would shadow the method
    with pytest.raises(ModelFileError, match=r"state: unknown entries \['predict'\]"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], extra_attribute))

    def bad_param(document, members):
        document["params"]["ccp_alpha"] = "lots"
    with pytest.raises(ModelFileError, match="ccp_alpha"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], bad_param))


def test_category_vocabulary_must_fit_the_tree(saved, tmp_path):
    def duplicate(document, members):
        document["state"]["categories_"] = {"__dict__": [[4, ["small state", "small state"]]]}
    with pytest.raises(ModelFileError, match=r"categories_\[4\]: names are not unique"):
        primo.load(_tampered(tmp_path, saved["prdt_classifier"], duplicate))

    def out_of_range(document, members):
        document["state"]["categories_"] = {"__dict__": [[9, ["a"]]]}
    with pytest.raises(ModelFileError, match=r"categories_\[9\]: 9 is outside"):
        primo.load(_tampered(tmp_path, saved["prdt_classifier"], out_of_range))


def test_broken_edit_log_is_refused(saved, tmp_path):
    def bad_log(document, members):
        document["metadata"]["edits"] = [{"operation": "set_threshold", "summary": "x", "arguments": [1]}]
    with pytest.raises(ModelFileError, match=r"metadata.edits\[0\].arguments: missing or not an object"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], bad_log))


def test_special_objects_are_checked(saved, tmp_path):
    def bad_float(document, members):
        document["metadata"]["x"] = {"__float__": "1e999"}
    with pytest.raises(ModelFileError, match="special floats"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], bad_float))

    def unknown_special(document, members):
        document["metadata"]["x"] = {"__class__": "os.system"}
    with pytest.raises(ModelFileError, match="unknown special object"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], unknown_special))

    def lying_shape(document, members):
        document["state"]["feature_names_in_"]["shape"] = [10 ** 12]
    with pytest.raises(ModelFileError, match="does not hold its 5 items"):
        primo.load(_tampered(tmp_path, saved["prdt_regressor"], lying_shape))


def test_valid_files_still_load_and_predict_identically(saved, data_dir):
    X, _ = clara_table(data_dir)
    models = fit_models(data_dir)
    for name, path in saved.items():
        loaded = primo.load(path)
        np.testing.assert_array_equal(loaded.predict(X), models[name].predict(X))
        assert loaded.metadata_.get("edits") == models[name].metadata_.get("edits")


def test_replayed_edit_logs_are_checked_before_any_edit(data_dir):
    from primo.adjust import replay

    model = fit_models(data_dir)["prdt_regressor"]
    good = model.metadata_["edits"][0]
    before = model.tree_.value.copy()
    hostile = [
        ([good, {"operation": "set_threshold", "summary": "", "arguments": {"node": 0, "threshold": 1.0,
                                                                             "inplace": False}}], "may not set"),
        ([good, {"operation": "set_threshold", "summary": "", "arguments": {"node": 0, "x=1;": 1}}],
         "argument names must be strings that are identifiers"),
        ([good, {"operation": "set_threshold", "summary": "", "arguments": {"node": 0, "colour": 1}}],
         r"unknown arguments \['colour'\]"),
        ([good, {"operation": "set_threshold", "summary": "", "arguments": "node=0"}], "not an object"),
        ([good, "set_threshold"], "expected an edit record"),
    ]
    for edits, message in hostile:
        with pytest.raises(ValueError, match=message):
            replay(model, edits, inplace=True)
        np.testing.assert_array_equal(model.tree_.value, before)  # the valid first edit was not applied


def test_undo_of_a_hostile_record_leaves_the_model_untouched(data_dir):
    from primo.adjust import undo

    model = fit_models(data_dir)["prdt_regressor"]
    record = model.metadata_["edits"][-1]
    assert record["operation"] == "set_threshold"
    record["before"] = float("nan")  # as a tampered file could hold it
    before = model.tree_.threshold.copy()
    with pytest.raises(ModelFileError, match="has threshold nan"):
        undo(model, inplace=True)
    np.testing.assert_array_equal(model.tree_.threshold, before)
    assert model.metadata_["edits"][-1] is record

    record["before"] = float(before[0]) - 1.0  # a sound record still undoes in place
    undo(model, inplace=True)
    assert model.tree_.threshold[0] == before[0] - 1.0 and len(model.metadata_["edits"]) == 1


def test_huge_zip_directory_is_refused_before_it_is_parsed(saved, tmp_path):
    # 30,000 empty entries: zipfile would build 30,000 objects; the directory size gives it away first.
    path = tmp_path / "many.primo"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("primo.json", b"{}")
        for number in range(30_000):
            archive.writestr(f"x/{number}", b"")
    with pytest.raises(ModelFileError, match="ZIP directory declares .* above the 1024000 that 1000 members need"):
        primo.load(path, limits=FileLimits(max_members=1000))
    with pytest.raises(ModelFileError, match="30001 members, above the limit of 10000"):
        primo.load(path)
