"""Method cards read from the method's folder and checked against its method.json; licences
that withhold redistribution refused; the leaderboard's method-interface columns (issue 42,
items 4 and 5). Sessions are real pytest runs of the shipped methods."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPORA, METHODS
from leaderboard_cards import load
from official_cards import card_of
from test_leaderboard import tables

from pytest_mteval.cards import runcard
from pytest_mteval.cards.publish import PublishError, publish
from pytest_mteval.cli.main import main
from pytest_mteval.methods.card_checks import contradiction
from pytest_mteval.methods.licences import allows_redistribution
from pytest_mteval.methods.manifest import ManifestError, load_manifest

pytest_plugins = ["pytester"]

CRK = CORPORA / "eng-crk-morphodict-vocab.json"
LOOKUP = METHODS / "lookup"
REPLAY = METHODS / "replay"


def session(pytester: pytest.Pytester, method: Path, *args: str) -> pytest.RunResult:
    """A real session of ``method`` on three entries of the eng→crk corpus."""
    (pytester.path / "card.json").unlink(missing_ok=True)
    return pytester.runpytest(
        f"--mteval-corpus={CRK}", f"--mteval-method={method}", "--mteval-entry=1-3",
        f"--mteval-run-card={pytester.path / 'card.json'}", "--mteval-no-cache", *args,
    )  # fmt: skip


def copied(folder: Path, source: Path, card: dict[str, Any] | None, **manifest: Any) -> Path:
    """A copy of a shipped method folder, its method.json changed and its card replaced."""
    shutil.copytree(source, folder)
    path = folder / "method.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **manifest}), encoding="utf-8")
    (folder / "method_card.json").unlink(missing_ok=True)
    if card is not None:
        (folder / "method_card.json").write_text(json.dumps(card), encoding="utf-8")
    return folder


# --- item 4: the card the method ships is read, and checked --------------------------------


def test_the_shipped_lookup_card_is_read_and_embedded(pytester):
    result = session(pytester, LOOKUP)
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()
    card = load(pytester.path / "card.json")
    shipped = json.loads((LOOKUP / "method_card.json").read_text(encoding="utf-8"))
    assert {key: card["method_card"][key] for key in shipped} == shipped
    runcard.verify(card, pytester.path / "card.json")


LOOKUP_CARD = json.loads((LOOKUP / "method_card.json").read_text(encoding="utf-8"))
#: Each field a card shares with method.json, stated otherwise than lookup's method.json.
CONTRADICTIONS = [
    ("class", "pipeline", "'custom-plugin'"),
    ("dependency_class", "A1", "'S'"),
    ("method_id", "lookup-v2", "'lookup'"),
    ("runtime", "rust", "['python', 'node']"),
    ("supported_pairs", ["en>fr"], "['en>crk']"),
    ("open_source", False, "'license Apache-2.0'"),
]


@pytest.mark.parametrize(("field", "claim", "manifest_says"), CONTRADICTIONS)
def test_a_card_contradicting_method_json_stops_the_run_in_one_line(
    pytester, field, claim, manifest_says
):
    folder = copied(pytester.path / "lookup", LOOKUP, {**LOOKUP_CARD, field: claim})
    result = session(pytester, folder)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    shown = claim[0] if isinstance(claim, list) else claim  # the first pair not supported
    assert lines == [
        f"ERROR: {folder / 'method_card.json'}: field {field!r} is {shown!r} but "
        f"{folder / 'method.json'} says {manifest_says}: a method card describes its method, "
        "it cannot contradict it"
    ]
    assert not (pytester.path / "card.json").exists()


def test_a_given_card_is_checked_too_the_issue_s_pipeline_a1_claim(pytester):
    """The issue's attack: a class S custom plugin given a card saying pipeline, A1."""
    forged = pytester.path / "forged.json"
    forged.write_text(json.dumps({**LOOKUP_CARD, "class": "pipeline", "dependency_class": "A1"}))
    result = session(pytester, LOOKUP, f"--mteval-method-card={forged}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{forged}: field 'class' is 'pipeline' but " in result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_card_naming_another_model_than_the_run_is_refused(pytester):
    folder = copied(pytester.path / "lookup", LOOKUP, {**LOOKUP_CARD, "model": "openai/gpt-5.5"})
    result = session(pytester, folder, "--mteval-model=anthropic/claude-haiku-4.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"{folder / 'method_card.json'}: field 'model' is 'openai/gpt-5.5' but the run's "
        "--mteval-model is 'anthropic/claude-haiku-4.5'"
    ) in result.stderr.str()


@pytest.mark.parametrize(("field", "claim", "_"), CONTRADICTIONS)
def test_each_shared_field_is_compared(field, claim, _):
    manifest = load_manifest(LOOKUP / "method.json").model_dump(by_alias=True)
    assert contradiction(LOOKUP_CARD, manifest) is None
    found = contradiction({**LOOKUP_CARD, field: claim}, manifest)
    assert found is not None
    assert found.field == field


def issued_contradicting_card(root: Path) -> Path:
    """A real card whose method card says "pipeline" for the custom-plugin replay, sealed as
    a harness that did not check method cards would have sealed it."""
    folder = copied(root / "replay", REPLAY, None)
    path = card_of("gpt55", "issued", method=folder)
    card = load(path)
    card["method_card"] = {**LOOKUP_CARD, "method_id": "replay", "class": "pipeline"}
    forged = root / "issued.json"
    forged.write_text(json.dumps(runcard.seal(card)), encoding="utf-8")
    runcard.verify(load(forged), forged)
    return forged


def test_publish_refuses_an_issued_card_whose_method_card_contradicts_it(tmp_path):
    card = load(issued_contradicting_card(tmp_path))
    with pytest.raises(PublishError) as info:
        publish(card, "http://127.0.0.1:9/never-reached", retries=0)
    assert str(info.value) == (
        f"run card {card['run_id']}: method_card: field 'class' is 'pipeline' but its "
        "method.manifest says 'custom-plugin': a method card describes its method, it cannot "
        "contradict it; not published"
    )


def test_the_board_shows_the_audited_class_of_an_issued_contradicting_card(tmp_path, capsys):
    path = issued_contradicting_card(tmp_path)
    assert main(["leaderboard", str(path)]) == 0
    (rows,) = tables(capsys.readouterr().out).values()
    assert rows[0]["Class"] == "custom-plugin"


# --- item 5: a licence that withholds redistribution cannot be declared redistributable ---------

BUNDLED = {
    "id": "engine-weights", "kind": "model", "access": "bundled", "source": "weights.bin",
    "redistributable": True, "transferable": True,
}  # fmt: skip


@pytest.mark.parametrize(
    "licence", ["proprietary", "none", "CC-BY-NC-ND-4.0", "CC-BY-NC-4.0", "MIT AND proprietary"]
)
def test_a_non_redistributable_licence_declared_redistributable_is_refused(tmp_path, licence):
    path = tmp_path / "method.json"
    manifest = json.loads((REPLAY / "method.json").read_text(encoding="utf-8"))
    manifest["dependencies"] = [{**BUNDLED, "license": licence}]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: field 'dependencies.0': dependency 'engine-weights': ")
    assert f"license {licence!r} does not allow redistribution" in message
    assert message.endswith("yet it is declared redistributable: true and transferable: true")


def test_the_effective_class_follows_the_licence(tmp_path):
    """Declared honestly (not redistributable), the same dependency makes the method X."""
    path = tmp_path / "method.json"
    manifest = json.loads((REPLAY / "method.json").read_text(encoding="utf-8"))
    dependency = {**BUNDLED, "license": "proprietary", "redistributable": False}
    manifest["dependencies"] = [{**dependency, "transferable": False}]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ManifestError, match=r"dependency_class is 'S' but .* make it 'X'"):
        load_manifest(path)
    path.write_text(json.dumps({**manifest, "dependency_class": "X"}), encoding="utf-8")
    assert load_manifest(path).dependency_class == "X"


def test_a_proprietary_dependency_declared_redistributable_stops_the_session(pytester):
    folder = copied(
        pytester.path / "lookup", LOOKUP, LOOKUP_CARD,
        dependencies=[{**BUNDLED, "license": "proprietary", "source": "eng-crk.tsv"}],
    )  # fmt: skip
    result = session(pytester, folder)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    lines = [line for line in result.stderr.lines if line.strip()]
    assert len(lines) == 1
    assert "license 'proprietary' does not allow redistribution" in lines[0]


@pytest.mark.parametrize(
    ("licence", "verdict"),
    [
        ("Apache-2.0", True),
        ("AGPL-3.0-or-later", True),
        ("CC-BY-SA-4.0", True),
        ("GPL-2.0-only WITH Classpath-exception-2.0", True),
        ("MIT OR proprietary", True),
        ("(MIT OR CC0-1.0) AND CC-BY-NC-SA-4.0", False),
        ("LicenseRef-Acme-Proprietary", False),
        ("UNLICENSED", False),
        ("Frobnicate-1.0", None),  # well formed, not known here: left to review
    ],
)
def test_licence_verdicts(licence, verdict):
    assert allows_redistribution(licence) is verdict


@pytest.mark.parametrize("licence", ["Apache 2", "MIT OR", "(MIT", "MIT/BSD", ""])
def test_a_licence_that_is_no_spdx_expression_is_refused(tmp_path, licence):
    path = tmp_path / "method.json"
    manifest = json.loads((REPLAY / "method.json").read_text(encoding="utf-8"))
    dependency = {**BUNDLED, "license": licence}
    manifest["dependencies"] = [dependency]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ManifestError, match="is not an SPDX identifier or expression"):
        load_manifest(path)


# --- item 4: the leaderboard's method-interface columns, from real cards ------------------------

REPLAY_CARD = {
    "method_id": "replay",
    "name": "Recorded LLM output",
    "class": "custom-plugin",
    "description": "Replays a recorded run of an LLM.",
    "tools_used": ["recorded predictions", "entry-id matcher"],
    "open_source": True,
    "dependency_class": "S",
}


def method_card_cards(root: Path) -> tuple[Path, Path]:
    """Two real replay sessions: an open method with a card, a proprietary one with a card
    that says so, each with its own condition and temperature."""
    open_method = copied(root / "open" / "replay", REPLAY, REPLAY_CARD)
    closed_card = {**REPLAY_CARD, "method_id": "replay-closed", "name": "Closed replay",
                   "open_source": False, "tools_used": ["vendor engine"]}  # fmt: skip
    closed = copied(
        root / "closed" / "replay", REPLAY, closed_card, method_id="replay-closed",
        license="proprietary",
    )  # fmt: skip
    first = card_of(
        "gpt55", "open", method=open_method,
        extra=("--mteval-condition=prompt-v3", "--mteval-temperature=0.3"),
    )  # fmt: skip
    second = card_of("haiku", "closed", method=closed, extra=("--mteval-temperature=0.7",))
    return first, second


def test_the_leaderboard_shows_the_method_interface_columns(tmp_path, capsys):
    first, second = method_card_cards(tmp_path)
    assert main(["leaderboard", str(first), str(second)]) == 0
    (rows,) = tables(capsys.readouterr().out).values()
    by_method = {row["Method"].split(" `")[0]: row for row in rows}
    opened, closed = by_method["Recorded LLM output"], by_method["Closed replay"]
    for row, path in ((opened, first), (closed, second)):
        card = load(path)
        assert row["Tools used"] == ", ".join(card["method_card"]["tools_used"])
        assert row["Temperature"] == f"{card['temperature']:g}"
        assert row["Prompt version"] == card["condition"]  # replay has no system prompt
    assert (opened["Temperature"], closed["Temperature"]) == ("0.3", "0.7")
    assert (opened["Prompt version"], closed["Prompt version"]) == ("prompt-v3", "baseline")
    assert opened["Open source"] == "yes (Apache-2.0)"  # from method.json's licence
    assert closed["Open source"] == "no (proprietary)"


def test_without_a_card_the_columns_come_from_the_run(tmp_path, capsys):
    """The shipped replay has no card: tools from the run's tools_enabled (none)."""
    path = card_of("deepseek", "nocard", extra=("--mteval-temperature=0.2",))
    assert load(path)["method_card"] is None
    assert main(["leaderboard", str(path)]) == 0
    (rows,) = tables(capsys.readouterr().out).values()
    assert rows[0]["Tools used"] == "–"
    assert rows[0]["Temperature"] == "0.2"
    assert rows[0]["Open source"] == "yes (Apache-2.0)"
