"""A sweep of 8 combinations run whole on one machine, as 2 shards on two "machines" (folders,
as CI artifacts arrive), and on a Dask LocalCluster of 2 worker processes, one of them killed
mid-run: each gives the same fingerprints and scores. A card that does not verify, or is not
signed by a given key, is listed apart."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from pytest_mteval.cards.signing import generate_key_pair, load_private_key, sign
from pytest_mteval.cli.main import main
from pytest_mteval.sweep.dask_runs import task_key
from pytest_mteval.sweep.merge import gather
from pytest_mteval.sweep.plan import SweepError, load_plan
from pytest_mteval.sweep.shards import Shard, parse_shard, shard_combinations

#: Two methods that call nothing, on six entries of the shipped Plains Cree vocabulary.
SWEEP = """\
[sweep]
corpus = "shipped:eng-crk-morphodict-vocab"
method = ["identity", "dictionary"]
output = "{output}"

[axes]
batch_size = [2, 3]
condition = ["a", "b"]
"""
ENTRIES = "--mteval-entry=1-6"


def _sweep_file(folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "sweep.toml"
    path.write_text(SWEEP.format(output=folder / "out"), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same sweep run whole, and as shard 1/2 and shard 2/2 in two other folders."""
    root = tmp_path_factory.mktemp("shards")
    folders = {"single": root / "single", "ci-1": root / "ci-1", "ci-2": root / "ci-2"}
    paths = {name: _sweep_file(folder) for name, folder in folders.items()}
    assert main(["sweep", str(paths["single"]), "--", ENTRIES]) == 0
    assert main(["sweep", str(paths["ci-1"]), "--shard", "1/2", ENTRIES]) == 0
    assert main(["sweep", str(paths["ci-2"]), "--shard=2/2", ENTRIES]) == 0
    return {name: folder / "out" for name, folder in folders.items()} | {"file": paths["single"]}


#: Scores that measure time (latency, entries per minute), which no two runs share.
TIMING = re.compile(r"latency|per_minute|seconds")


def _untimed(value: Any) -> Any:
    """Scores less timing, the one thing two runs of a configuration may differ in."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not TIMING.search(k)}
    return value


def _measured(card_path: Path) -> tuple[str, dict[str, Any]]:
    card = json.loads(card_path.read_text(encoding="utf-8"))
    return card["fingerprint"], _untimed(card["scores"])


def test_the_merged_shards_equal_the_single_machine_sweep(runs):
    single = gather([runs["single"]])
    merged = gather([runs["ci-1"], runs["ci-2"]])
    assert not single.rejected
    assert not merged.rejected
    assert not merged.missing
    assert len(single.rows) == 8
    whole = {row.label: _measured(row.path) for row in single.rows}
    sharded = {row.label: _measured(row.path) for row in merged.rows}
    assert sharded == whole
    assert len({fingerprint for fingerprint, _ in whole.values()}) == 8
    # the runs really differ: the dictionary scores above identity on this corpus
    chrf = {label: scores["chrf_plus_plus"] for label, (_, scores) in whole.items()}
    assert min(v for k, v in chrf.items() if "dictionary" in k) > max(
        v for k, v in chrf.items() if "identity" in k
    )


def test_each_shard_ran_its_share_and_no_other(runs):
    plan = load_plan(runs["file"], runs["file"].parent)
    shares = [shard_combinations(plan.combinations, Shard(k, 2)) for k in (1, 2)]
    assert [len(share) for share in shares] == [4, 4]
    for k, share in enumerate(shares, start=1):
        index = json.loads((runs[f"ci-{k}"] / f"sweep.shard-{k}-of-2.json").read_text())
        assert [run["label"] for run in index["runs"]] == [c.label for c in share]
        assert index["shard"] == f"{k}/2"
        assert sorted(index["planned_labels"]) == sorted(c.label for c in plan.combinations)
        ran = {p.name for p in (runs[f"ci-{k}"] / "cards").iterdir() if any(p.iterdir())}
        assert ran == {c.label for c in share}
    # one shard alone names the other's combinations as missing
    alone = gather([runs["ci-1"]])
    assert sorted(alone.missing) == sorted(c.label for c in shares[1])


def test_the_assignment_does_not_depend_on_where_the_file_is(runs, tmp_path):
    moved = tmp_path / "elsewhere" / "sweep.toml"
    moved.parent.mkdir()
    shutil.copy(runs["file"], moved)
    here = load_plan(runs["file"], runs["file"].parent).combinations
    there = load_plan(moved, moved.parent).combinations
    for k in (1, 2, 3):
        assert [c.label for c in shard_combinations(here, Shard(k, 3))] == [
            c.label for c in shard_combinations(there, Shard(k, 3))
        ]


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_shares_partition_the_sweep_evenly(tmp_path, count):
    path = _sweep_file(tmp_path / "plan")
    combinations = load_plan(path, path.parent).combinations
    shares = [shard_combinations(combinations, Shard(k, count)) for k in range(1, count + 1)]
    labels = [c.label for share in shares for c in share]
    assert sorted(labels) == sorted(c.label for c in combinations)  # each once, none left out
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


@pytest.mark.parametrize("spec", ["3/2", "0/2", "1/0", "x", "1-2", "", "2/2/2"])
def test_a_bad_shard_spec_is_a_one_line_error(runs, spec, capsys):
    assert main(["sweep", str(runs["file"]), "--shard", spec]) == 4
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--shard" in err
    assert repr(spec) in err
    with pytest.raises(SweepError):
        parse_shard(spec)


def test_more_shards_than_combinations_is_refused(runs):
    from pytest_mteval.sweep.shards import sharded

    plan = load_plan(runs["file"], runs["file"].parent)
    with pytest.raises(SweepError, match="shard 9/9 has no combination"):
        sharded(plan, Shard(9, 9))


def _copies(runs: dict[str, Path], tmp_path: Path) -> tuple[Path, Path]:
    one, two = tmp_path / "artifact-1", tmp_path / "artifact-2"
    shutil.copytree(runs["ci-1"], one)
    shutil.copytree(runs["ci-2"], two)
    return one, two


def _cards(folder: Path) -> list[Path]:
    return sorted(folder.glob("cards/*/*.json"))


def test_an_edited_card_is_listed_apart_with_its_reason(runs, tmp_path, capsys):
    one, two = _copies(runs, tmp_path)
    edited = _cards(two)[0]
    card = json.loads(edited.read_text(encoding="utf-8"))
    card["scores"]["chrf_plus_plus"] = 99.0
    edited.write_text(json.dumps(card), encoding="utf-8")
    assert main(["matrix", str(one), str(two)]) == 1
    out = capsys.readouterr().out
    assert "Not verified, left out of the matrix: 1" in out
    line = next(x for x in out.splitlines() if x.startswith(f"- {edited}"))
    assert "run_card_hash does not match" in line
    assert "99.00" not in out
    merged = gather([one, two])
    assert len(merged.rows) == 7
    assert not merged.missing


def test_a_card_swapped_for_another_combinations_is_listed_apart(runs, tmp_path):
    one, two = _copies(runs, tmp_path)
    first, second = _cards(two)[:2]
    shutil.copy(first, second)  # a whole, verifying card, but of another combination
    merged = gather([one, two])
    assert [r.where for r in merged.rejected] == [str(second)]
    assert "its shard planned for" in merged.rejected[0].reason
    assert len(merged.rows) == 7


def test_with_public_keys_only_cards_they_signed_are_shown(runs, tmp_path, capsys):
    one, two = _copies(runs, tmp_path)
    (tmp_path / "keys").mkdir()
    trusted = generate_key_pair(tmp_path / "keys" / "trusted")
    other = generate_key_pair(tmp_path / "keys" / "other")
    key = load_private_key(tmp_path / "keys" / "trusted")
    for path in _cards(one):
        card = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(sign(card, key)), encoding="utf-8")
    assert main(["matrix", str(one), str(two), "--public-key", str(trusted)]) == 1
    out = capsys.readouterr().out
    assert "Not verified, left out of the matrix: 4" in out
    assert out.count(": not signed (public keys were given)") == 4
    merged = gather([one, two])
    assert len(merged.rows) == 8  # without keys, the hash alone is checked
    assert main(["matrix", str(one), "--public-key", str(other)]) == 2  # none verifies
    refused = capsys.readouterr().err.strip().splitlines()
    assert len(refused) == 4
    assert all("none of the given public keys" in line for line in refused)
    assert main(["matrix", str(one), "--public-key", str(trusted)]) == 0


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    """Dask's own local cluster: two worker processes on 127.0.0.1, one thread each."""
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as local:
        yield local


def _kill_a_worker_mid_run(
    client: Client, pids: dict[str, int], done: threading.Event
) -> tuple[set[str], int]:
    """Wait until a worker runs a combination and kill its process: the keys it had, its pid."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not done.is_set():
        for address, keys in client.processing().items():
            running = {str(k) for k in keys if str(k).startswith("mteval-run-")}
            if running and address in pids:
                time.sleep(1.0)  # its pytest session has started
                os.kill(pids[address], signal.SIGKILL)
                return running, pids[address]
        time.sleep(0.05)
    raise AssertionError("no combination was ever seen running on a worker")


def test_a_sweep_on_a_local_cluster_survives_a_killed_worker(runs, cluster, tmp_path):
    path = _sweep_file(tmp_path / "cluster")
    with Client(cluster) as client:
        pids = client.run(os.getpid)
        done = threading.Event()
        codes: list[int] = []

        def controller() -> None:
            codes.append(
                main(["sweep", str(path), "--dask-scheduler", cluster.scheduler_address, ENTRIES])
            )
            done.set()

        thread = threading.Thread(target=controller)
        thread.start()
        killed, killed_pid = _kill_a_worker_mid_run(client, pids, done)
        thread.join(timeout=900)
    assert codes == [0]
    out = tmp_path / "cluster" / "out"
    index = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    assert [run["status"] for run in index["runs"]] == ["passed"] * 8
    by_key = {task_key(r["label"], r["fingerprint"]): r for r in index["runs"]}
    for key in killed:  # retried elsewhere: another worker, or the one its nanny restarted
        assert int(by_key[key]["worker"].rsplit(":", 1)[1]) != killed_pid
    for run in index["runs"]:  # one card per combination, even for the one run twice
        assert len(list((out / "cards" / run["label"]).glob("*.json"))) == 1
    whole = {row.label: _measured(row.path) for row in gather([runs["single"]]).rows}
    clustered = gather([out])
    assert not clustered.rejected
    assert {row.label: _measured(row.path) for row in clustered.rows} == whole
