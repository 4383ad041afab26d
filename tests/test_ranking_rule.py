"""One rule for what is ranked (reports/board_rules.py), read alike by `mteval leaderboard`,
`mteval matrix` and `mteval runs` (issue 42, item 1): on real session cards, an oracle, a
degenerate stub, a run where every entry errored, a method its audit contradicts and a card
given twice are each listed under "Not ranked" with the reason; the honest method alone ranks."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from pathlib import Path

import pytest
from leaderboard_cards import load, replay_session
from methods_for_tests import write_probe
from ranking_cards import (
    all_errored_card,
    audit_contradicted_card,
    example_sweep,
    example_sweep_cards,
    honest_card,
    repeated_stub_card,
)
from replayed_runs import REPLAY, SNA_CORPUS
from test_leaderboard import tables

from pytest_mteval.cards.card_model import Flag
from pytest_mteval.cards.foreign_view import read_verified
from pytest_mteval.cli.main import main
from pytest_mteval.reports.board_rules import (
    DEGENERATE_FLAGS,
    ranking_reasons,
    why_not_ranked,
)
from pytest_mteval.scoring import guards

pytest_plugins = ["pytester"]


def cli(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    return code, capsys.readouterr().out


def reason_of(path: Path) -> str | None:
    return why_not_ranked(read_verified(path)[0])


def runs_tables(out: str) -> dict[str, list[dict[str, str]]]:
    """``mteval runs``'s two tables ("Ranked", "Not ranked") as {column: cell} rows."""
    found: dict[str, list[dict[str, str]]] = {}
    lines = out.splitlines()
    for number, line in enumerate(lines):
        if line.startswith(("Ranked", "Not ranked")):
            header = lines[number + 1]
            starts = [m.start() for m in re.finditer(r"(?<=  )\S|^\S", header)]
            names = [header[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
            rows = []
            for row in lines[number + 2 :]:
                if not row.strip():
                    break
                cells = [row[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
                rows.append(dict(zip(names, cells, strict=True)))
            found[line.split(" (")[0].rstrip(":")] = rows
    return found


def matrix_tables(out: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The matrix's ranked rows and its "Not ranked" rows, as {column: cell}."""
    ranked: list[dict[str, str]] = []
    apart: list[dict[str, str]] = []
    target, header = ranked, None
    for line in out.splitlines():
        if line.startswith("Not ranked"):
            target, header = apart, None
        elif line.startswith("| "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if header is None:
                header = cells
            elif set(line) - set("|-"):
                target.append(dict(zip(header, cells, strict=True)))
    return ranked, [row for row in apart if row.get("rank") != "---"]


# --- each card alone: the rule's reasons ---------------------------------------------------


def test_the_honest_method_is_ranked():
    assert reason_of(honest_card()) is None


def test_a_stub_repeating_one_sentence_is_not_ranked():
    card = load(repeated_stub_card())
    assert "repeated_output" in {flag["code"] for flag in card["flags"]}
    reason = reason_of(repeated_stub_card())
    assert reason is not None
    assert reason.startswith("degenerate output (repeated_output): ")


def test_a_run_where_every_entry_errored_is_not_ranked():
    card = load(all_errored_card())
    assert all(row["error"] for row in card["results"])
    total = len(card["results"])
    assert reason_of(all_errored_card()) == (
        f"every entry errored ({total} of {total}): nothing was translated"
    )


def test_a_method_its_audit_contradicts_is_not_ranked():
    reason = reason_of(audit_contradicted_card())
    assert reason is not None
    assert reason.startswith("contradicted by its audit (method_audit_contradiction): ")
    assert "introspection" in reason


def test_the_example_sweep_oracle_is_not_ranked():
    reasons = {path.parent.name: reason_of(path) for path in example_sweep_cards()}
    assert set(reasons) == {"identity_b25", "identity_b100", "dictionary_b25", "dictionary_b100"}
    for label in ("dictionary_b25", "dictionary_b100"):
        assert str(reasons[label]).startswith("oracle (oracle_method): ")
    for label in ("identity_b25", "identity_b100"):
        assert str(reasons[label]).startswith("degenerate output (source_copied): ")


def test_wrong_language_output_counts_as_degenerate():
    """The language check (another part of issue 42) raises ``wrong_language``; the rule
    treats that code like the guards' degenerate outputs."""
    honest = read_verified(honest_card())[0]
    flag = Flag(code="wrong_language", message="47 of 47 entries are Spanish, not Shona")
    flagged = dataclasses.replace(honest, flags=(*honest.flags, flag))
    assert why_not_ranked(flagged) == (
        "degenerate output (wrong_language): 47 of 47 entries are Spanish, not Shona"
    )


def test_the_degenerate_codes_are_the_ones_the_guards_raise():
    """Each degenerate run the guards can flag raises a code the rule knows by name."""

    def record(i: int, predicted: str | None, error: str | None = None) -> dict[str, object]:
        return {"entry_id": f"e{i}", "source": f"source {i}", "expected": f"reference {i}",
                "variants": [], "predicted": predicted, "error": error}  # fmt: skip

    runs = {
        "repeated_output": [record(i, "same") for i in range(10)],
        "source_copied": [record(i, f"source {i}") for i in range(10)],
        "empty_output": [record(i, "") for i in range(10)],
        "many_errors": [record(i, None, "down") for i in range(10)],
    }
    for code, records in runs.items():
        raised = [flag["code"] for flag in guards.run_flags(records)]  # type: ignore[arg-type]
        assert raised == [code]
        assert code in DEGENERATE_FLAGS


def test_a_card_given_twice_is_listed_once(tmp_path, capsys):
    first = tmp_path / "a.json"
    shutil.copy(honest_card(), first)
    shutil.copy(honest_card(), tmp_path / "b.json")
    view = read_verified(first)[0]
    assert ranking_reasons([("a", view), ("b", view)]) == [
        None,
        "duplicate: the same run as a, listed once",
    ]
    code, out = cli(capsys, "leaderboard", str(tmp_path))
    assert code == 0
    boards = tables(out)
    ranked = [rows for title, rows in boards.items() if title != "Not ranked"]
    assert [len(rows) for rows in ranked] == [1]
    assert [row["Why not ranked"] for row in boards["Not ranked"]] == [
        f"duplicate: the same run as {first}, listed once"
    ]


def test_the_matrix_shows_flags_and_what_the_cache_served(pytester, small_corpus, capsys):
    """Two runs of one configuration: the second's texts all come from the cache."""
    probe = write_probe(pytester.path)
    cards = [pytester.path / "first.json", pytester.path / "second.json"]
    for card in cards:
        pytester.runpytest(
            f"--mteval-corpus={small_corpus}", f"--mteval-method={probe}",
            f"--mteval-run-card={card}", "--mteval-sandbox=none",
        )  # fmt: skip
    hits = [json.loads(c.read_text(encoding="utf-8"))["cache"]["cache_hits"] for c in cards]
    assert hits == [0, 6]
    code, out = cli(capsys, "matrix", *map(str, cards))
    assert code == 0
    ranked, apart = matrix_tables(out)
    rows = {row["run"]: row for row in [*ranked, *apart]}
    assert rows["first"]["cache"] == "none"
    assert rows["second"]["cache"] == "all cached"
    flags = [f["code"] for f in json.loads(cards[0].read_text(encoding="utf-8"))["flags"]]
    for row in rows.values():
        assert row["flags"].split(" x")[0] == (flags[0] if flags else "-")


# --- the Done-when folder, through the three commands --------------------------------------


@pytest.fixture(scope="module")
def done_when(tmp_path_factory):
    """Cards of the example sweep, a degenerate stub, an all-errored run, an audit-contradicted
    method, an honest method and a copy of it, in one folder."""
    folder = tmp_path_factory.mktemp("done-when")
    for path in example_sweep_cards():
        shutil.copy(path, folder / f"sweep-{path.parent.name}.json")
    named = {
        "stub": repeated_stub_card(),
        "errored": all_errored_card(),
        "audited": audit_contradicted_card(),
        "honest": honest_card(),
        "honest-copy": honest_card(),
    }
    for name, path in named.items():
        shutil.copy(path, folder / f"{name}.json")
    return folder


#: The reason each card of the Done-when folder is not ranked starts with (the honest method
#: or its copy ranks; the other is a duplicate).
EXPECTED = {
    "sweep-dictionary_b25": "oracle (oracle_method)",
    "sweep-dictionary_b100": "oracle (oracle_method)",
    "sweep-identity_b25": "degenerate output (source_copied)",
    "sweep-identity_b100": "degenerate output (source_copied)",
    "stub": "degenerate output (repeated_output)",
    "errored": "every entry errored",
    "audited": "contradicted by its audit",
}


def test_the_leaderboard_ranks_the_honest_method_alone(done_when, capsys):
    code, out = cli(capsys, "leaderboard", str(done_when))
    assert code == 0
    boards = tables(out)
    ranked = {title: rows for title, rows in boards.items() if title != "Not ranked"}
    assert [len(rows) for rows in ranked.values()] == [1]
    honest = load(honest_card())
    assert next(iter(ranked.values()))[0]["Model"] == honest["model_slug"]
    reasons = [row["Why not ranked"] for row in boards["Not ranked"]]
    assert len(reasons) == len(EXPECTED) + 1
    for start in EXPECTED.values():
        assert sum(1 for r in reasons if r.startswith(start)) == list(EXPECTED.values()).count(
            start
        )
    assert sum(1 for r in reasons if r.startswith("duplicate: the same run as ")) == 1


def test_the_leaderboard_page_ranks_the_honest_method_alone(done_when, tmp_path, capsys):
    page = tmp_path / "leaderboard.html"
    code, _ = cli(capsys, "leaderboard", str(done_when), "--html", str(page))
    assert code == 0
    text = page.read_text(encoding="utf-8")
    ranked = re.findall(r'<tr class="card-row" data-run-id="([^"]+)"', text)
    assert ranked == [load(honest_card())["run_id"]]
    section = text.split('<section class="board not-ranked"><h2>Not ranked</h2>')[1]
    section = html.unescape(section.split("</section>")[0])
    rows = re.findall(r"<tr>(.*?)</tr>", section, flags=re.S)[1:]  # the header first
    reasons = [re.findall(r"<td>(.*?)</td>", row, flags=re.S)[-1] for row in rows]
    assert len(reasons) == len(EXPECTED) + 1
    for start in set(EXPECTED.values()):
        found = sum(1 for r in reasons if r.startswith(start))
        assert found == list(EXPECTED.values()).count(start), (start, reasons)


def test_mteval_runs_ranks_the_honest_method_alone(done_when, capsys):
    code, out = cli(capsys, "runs", str(done_when))
    assert code == 0
    found = runs_tables(out)
    honest = load(honest_card())
    assert [row["run"] for row in found["Ranked"]] == [honest["run_id"][:8]]
    assert [row["rank"] for row in found["Ranked"]] == ["1"]
    by_run = {}
    for name in EXPECTED:
        by_run[load(done_when / f"{name}.json")["run_id"][:8]] = EXPECTED[name]
    apart = found["Not ranked"]
    assert len(apart) == len(EXPECTED) + 1
    for row in apart:
        expected = by_run.get(row["run"], "duplicate: the same run as ")
        assert row["why not ranked"].startswith(expected), row
        assert row["rank"] == "–"


def test_mteval_matrix_ranks_the_honest_method_alone(done_when, capsys):
    code, out = cli(capsys, "matrix", str(done_when))
    assert code == 0
    ranked, apart = matrix_tables(out)
    assert [(row["rank"], row["run"]) for row in ranked] in (
        [("1", "honest")],
        [("1", "honest-copy")],
    )
    reasons = {row["run"]: row["why not ranked"] for row in apart}
    assert len(reasons) == len(EXPECTED) + 1
    for name, start in EXPECTED.items():  # a bare card's label is its file's stem
        assert reasons[name].startswith(start)
    duplicate = ({"honest", "honest-copy"} - {ranked[0]["run"]}).pop()
    assert reasons[duplicate].startswith("duplicate: the same run as ")
    flags = {row["run"]: row["flags"] for row in apart}
    assert flags["stub"].startswith("repeated_output x")
    assert flags["sweep-dictionary_b25"] == "oracle_method"


def test_the_example_sweep_matrix_and_runs_list_the_oracle_apart(capsys):
    out_folder = example_sweep()
    code, out = cli(capsys, "matrix", str(out_folder))
    assert code == 0
    ranked, apart = matrix_tables(out)
    assert ranked == []
    assert "No run is ranked" in out
    reasons = {row["run"]: row["why not ranked"] for row in apart}
    assert reasons["dictionary_b25"].startswith("oracle (oracle_method)")
    assert reasons["dictionary_b100"].startswith("oracle (oracle_method)")
    assert {row["cache"] for row in apart} == {"off"}  # shipped local methods are not cached
    runs_dir = out_folder.parents[1] / "runs"
    code, out = cli(capsys, "runs", "--dir", str(runs_dir))
    assert code == 0
    found = runs_tables(out)
    assert "Ranked" not in found
    methods = {row["method"]: row["why not ranked"] for row in found["Not ranked"]}
    assert methods["dictionary"].startswith("oracle (oracle_method)")
    assert methods["identity"].startswith("degenerate output (source_copied)")


def test_mteval_runs_ranks_no_card_that_does_not_verify(tmp_path, capsys):
    """A card edited after it was sealed (its composite raised) ranks nowhere, even when the
    index that lists it was written before the edit."""
    honest = tmp_path / "honest.json"
    shutil.copy(honest_card(), honest)
    edited = tmp_path / "edited.json"
    card = load(audit_contradicted_card())
    card["scores"]["composite"] = 0.99
    edited.write_text(json.dumps(card), encoding="utf-8")
    capsys.readouterr()
    code = main(["runs", str(honest), str(edited)])
    out, err = capsys.readouterr()
    assert code == 1  # a card named that does not verify is refused, on stderr
    assert err.startswith(f"REFUSED {edited}: ")
    found = runs_tables(out)
    assert [row["run"] for row in found["Ranked"]] == [load(honest)["run_id"][:8]]
    assert "Not ranked" not in found
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    rows = [
        {"run_id": load(p)["run_id"], "timestamp": load(p)["timestamp"], "path": str(p),
         "method": "replay", "model": load(p)["model_slug"], "corpus": "tatoeba-eng-sna-dev",
         "composite": load(p)["scores"]["composite"], "complete": True}
        for p in (honest, edited)
    ]  # fmt: skip
    (runs_dir / "index.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    code, out = cli(capsys, "runs", "--dir", str(runs_dir))
    assert code == 0
    found = runs_tables(out)
    assert [row["run"] for row in found["Ranked"]] == [load(honest)["run_id"][:8]]
    (apart,) = found["Not ranked"]
    assert apart["run"] == card["run_id"][:8]
    assert apart["why not ranked"].startswith("the card does not verify: ")


def test_a_degenerate_naive_baseline_is_no_bar(tmp_path, capsys):
    """§6.3's best naive baseline is chosen among ranked runs only: the stub that repeats one
    sentence, declared raw-llm, is passed over for the honest raw-llm run."""
    naive = tmp_path / "naive-replay"
    shutil.copytree(REPLAY, naive)
    manifest = json.loads((naive / "method.json").read_text(encoding="utf-8"))
    (naive / "method.json").write_text(json.dumps({**manifest, "class": "raw-llm"}), "utf-8")
    entries = json.loads(SNA_CORPUS.read_text(encoding="utf-8"))["entries"]
    same = tmp_path / "same.jsonl"
    same.write_text(
        "".join(json.dumps({"id": e["id"], "predicted": entries[0]["reference"]}) + "\n"
                for e in entries),
        encoding="utf-8",
    )  # fmt: skip
    folder = tmp_path / "cards"
    folder.mkdir()
    replay_session("gpt55", folder / "engineered.json")
    stub = replay_session("gpt55", folder / "stub.json", method=naive,
                          extra=(f"--mteval-method-arg=predictions={same}",))  # fmt: skip
    assert "repeated_output" in {f["code"] for f in load(stub)["flags"]}
    assert load(stub)["method"]["manifest"]["class"] == "raw-llm"
    code, out = cli(capsys, "matrix", str(folder), "--method", "engineered")
    assert code == 0
    assert "no ranked naive baseline (method class raw-llm) among the other runs" in out
    replay_session("haiku", folder / "haiku.json", method=naive)
    code, out = cli(capsys, "matrix", str(folder), "--method", "engineered")
    assert re.search(r"^engineered (beats|does not beat) the best baseline haiku: ", out, re.M)
    code, out = cli(capsys, "matrix", str(folder), "--method", "stub")
    assert "stub itself is not ranked: degenerate output (repeated_output)" in out
