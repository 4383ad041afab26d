"""method.json: schema, the derived dependency class, and where an entry point may live."""

from __future__ import annotations

import json
import re

import pytest
from conftest import METHODS

from pytest_mteval.methods.loader import find_method
from pytest_mteval.methods.manifest import (
    Dependency,
    ManifestError,
    derive_dependency_class,
    load_manifest,
)

BASE = {
    "name": "m",
    "method_id": "m",
    "class": "pipeline",
    "entry_point": "m:M",
    "supported_pairs": ["eng>crk"],
}
FST = {
    "id": "giellalt-lang-crk-fst",
    "kind": "software",
    "license": "AGPL-3.0-or-later",
    "access": "mirrored",
    "source": "https://github.com/giellalt/lang-crk",
    "pin": "sha256:3f1a",
    "redistributable": True,
    "transferable": True,
}
LLM = {
    "id": "llm-inference",
    "kind": "model",
    "license": "proprietary",
    "access": "gateway",
    "source": "openrouter:google/gemini-2.5-flash",
    "substitutable": True,
    "redistributable": False,
    "transferable": False,
}
DICT_API = {
    "id": "crk-dictionary-api",
    "kind": "service",
    "license": "none",
    "access": "external-api",
    "source": "https://itwewina.altlab.app/",
    "substitutable": False,
    "redistributable": False,
    "transferable": False,
}
BUNDLED_OPEN = {**FST, "access": "bundled", "pin": None}
BUNDLED_NO_RIGHTS = {
    **BUNDLED_OPEN,
    "license": "none",
    "redistributable": False,
    "transferable": False,
}


@pytest.mark.parametrize(
    ("deps", "expected"),
    [
        ([], "S"),
        ([BUNDLED_OPEN], "S"),
        ([FST], "O"),
        ([FST, LLM], "A1"),
        ([FST, LLM, DICT_API], "A2"),  # the spec's own example manifest
        ([{**LLM, "substitutable": False}], "A2"),
        ([LLM, BUNDLED_NO_RIGHTS], "X"),
    ],
)
def test_dependency_class_is_the_most_restrictive(deps, expected):
    assert derive_dependency_class([Dependency.model_validate(d) for d in deps]) == expected


def write_manifest(tmp_path, **changes):
    path = tmp_path / "method.json"
    path.write_text(json.dumps({**BASE, **changes}), encoding="utf-8")
    return path


def test_declared_class_must_match_the_derived_one(tmp_path):
    path = write_manifest(tmp_path, dependency_class="S", dependencies=[LLM])
    with pytest.raises(ManifestError, match=r"dependency_class is 'S' but .* make it 'A1'"):
        load_manifest(path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"class": "magic"}, "field 'class'"),
        ({"dependencies": [{**FST, "pin": None}]}, "'pin' is required"),
        ({"dependencies": [{**LLM, "substitutable": None}]}, "'substitutable' is required"),
        ({"entry_point": "no-colon"}, "field 'entry_point'"),
    ],
)
def test_invalid_manifests_name_the_field(tmp_path, changes, message):
    path = write_manifest(tmp_path, **{"dependency_class": "S", "dependencies": [], **changes})
    with pytest.raises(ManifestError, match=message) as info:
        load_manifest(path)
    assert str(info.value).startswith(str(path))


def test_entry_point_outside_the_folder_is_refused(tmp_path):
    (tmp_path / "elsewhere.py").write_text("class M:\n    async def translate(self, e, c): ...\n")
    folder = tmp_path / "method"
    folder.mkdir()
    write_manifest(folder, entry_point="elsewhere:M", dependency_class="S", dependencies=[])
    with pytest.raises(ManifestError, match="is not a module inside"):
        find_method(str(folder), tmp_path, {})


def test_unknown_method_name_lists_the_registered_ones(tmp_path):
    with pytest.raises(Exception, match=r"registered: echo"):
        find_method("nope", tmp_path, {"echo": lambda config: None})  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize("folder", sorted(p.parent.name for p in METHODS.glob("*/method.json")))
def test_shipped_manifests_validate(folder):
    manifest = load_manifest(METHODS / folder / "method.json")
    assert manifest.method_id


@pytest.mark.parametrize(
    ("pairs", "source", "target", "supported"),
    [
        (["eng>crk"], "en", "crk", True),
        (["en>crk"], "eng", "crk", True),
        (["en>crk"], "en-CA", "crk", True),
        (["eng>crk"], "fr", "crk", False),
        (["*>fr"], "de", "fr", True),
        (["*"], "xx", "yy", True),
    ],
)
def test_supported_pairs_compare_iso639_3_and_bcp47(tmp_path, pairs, source, target, supported):
    path = write_manifest(tmp_path, supported_pairs=pairs, dependency_class="S", dependencies=[])
    assert load_manifest(path).supports(source, target) is supported


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"runtime": "ruby"}, "field 'runtime': 'ruby' is not python or node"),
        ({"runtime": []}, "field 'runtime': a command is a list of non-empty strings"),
        ({"runtime": ["./run", ""]}, "field 'runtime': a command is a list of non-empty strings"),
        ({"runtime": "node"}, "field 'entry_point': a node entry point is a .js"),
        ({"runtime": "node", "entry_point": "../up.js"}, "field 'entry_point': a node entry"),
        ({"runtime": "node", "entry_point": "/abs.js"}, "field 'entry_point': a node entry"),
        ({"entry_points": {"node": "m:M"}}, "field 'entry_points.node': a node entry point"),
        ({"entry_points": {"python": "n:N"}}, "field 'entry_points.python': python is the runtime"),
        ({"entry_points": {"ruby": "x.rb"}}, "'entry_points.ruby.[key]': Input should be 'python'"),
    ],
)
def test_runtimes_and_their_entry_points_are_checked(tmp_path, changes, message):
    path = write_manifest(tmp_path, **{"dependency_class": "S", "dependencies": [], **changes})
    with pytest.raises(ManifestError, match=re.escape(message)):
        load_manifest(path)


@pytest.mark.parametrize(
    ("changes", "runtimes"),
    [
        ({}, {"python": "m:M", "node": None}),
        ({"runtime": "node", "entry_point": "lib/translate.mjs", "entry_points": {"python": "m:M"}},
         {"python": "m:M", "node": "lib/translate.mjs"}),
        ({"runtime": ["./runner", "--x"], "entry_point": "anything"},
         {"command": "anything", "python": None}),
    ],
)  # fmt: skip
def test_each_runtime_names_its_entry_point(tmp_path, changes, runtimes):
    path = write_manifest(tmp_path, **{"dependency_class": "S", "dependencies": [], **changes})
    manifest = load_manifest(path)
    assert {runtime: manifest.entry_for(runtime) for runtime in runtimes} == runtimes


def test_a_node_entry_point_must_be_a_file_of_the_folder(tmp_path):
    (tmp_path / "m.py").write_text("class M:\n    async def translate(self, e, c): return []\n")
    write_manifest(tmp_path, dependency_class="S", dependencies=[], entry_points={"node": "t.js"})
    with pytest.raises(ManifestError, match=r"entry point 't\.js' \(node\): t\.js is not a"):
        find_method(str(tmp_path), tmp_path, {}, load=False, runtime="node")
    (tmp_path / "t.js").write_text("module.exports = async (s) => s;\n")
    source = find_method(str(tmp_path), tmp_path, {}, load=False, runtime="node")
    assert (source.runtime, source.entry_point, source.cache_name) == ("node", "t.js", "m@node")
