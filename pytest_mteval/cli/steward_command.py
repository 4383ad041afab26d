"""``mteval steward authorise``: a steward's signed consent to one method's code running,
until a date, on one secret corpus with its sources sent to one endpoint and model (spec §8.6).
The code hash is the run's: the folder, a command's interpreter and the files of path args."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from pytest_mteval.cards.signing import load_private_key
from pytest_mteval.cards.steward import (
    authorise,
    parse_expiry,
    run_provider,
    steward_fingerprint,
)
from pytest_mteval.cli.command import Command
from pytest_mteval.cli.shared_options import add_shared_options
from pytest_mteval.errors import MtevalError
from pytest_mteval.methods.loader import load_folder
from pytest_mteval.methods.manifest import load_manifest
from pytest_mteval.methods.named_methods import shipped_methods
from pytest_mteval.run.code_inputs import bind_code
from pytest_mteval.run.secret_corpus import open_corpus


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True, help="the corpus (encrypted or in the clear)")
    keys = parser.add_mutually_exclusive_group()
    add_shared_options("steward authorise", keys.add_argument, "corpus-key-file", "corpus-key-env")
    parser.add_argument("--method", required=True, help="method folder or shipped method name")
    parser.add_argument("--model", required=True, help="the model the run may use")
    parser.add_argument(
        "--base-url", default=None, help="the endpoint the sources go to (default: the method's)"
    )
    parser.add_argument(
        "--method-arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a method arg of the run; path args' files join the code hash (repeatable)",
    )
    parser.add_argument("--key", required=True, help="the steward's private key (mteval keygen)")
    parser.add_argument("--expires", required=True, help="YYYY-MM-DD (end of day, UTC)")
    parser.add_argument("-o", "--output", required=True, help="where to write it (new file)")


def _method_folder(name: str) -> Path:
    folder = Path(name)
    if (folder / "method.json").is_file():
        return folder
    shipped = shipped_methods().get(name)
    if shipped is None:
        raise MtevalError(f"{name}: not a method folder (no method.json) nor a shipped method")
    return shipped


def _method_args(given: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise MtevalError(f"--method-arg {item!r}: expected NAME=VALUE")
        found[name] = value
    return found


def run_authorise(args: argparse.Namespace) -> int:
    try:
        corpus_path = Path(args.corpus)
        key_file = Path(args.corpus_key_file) if args.corpus_key_file else None
        corpus = open_corpus(corpus_path, key_file, args.corpus_key_env)
        folder = _method_folder(args.method)
        method_args = _method_args(args.method_arg)
        if args.base_url:
            method_args["base_url"] = args.base_url
        source = bind_code(load_folder(folder, load=False), method_args)
        manifest = load_manifest(folder / "method.json")
        code = str((source.code or {}).get("sha256"))
        provider = run_provider(source, method_args, args.model)
        key = load_private_key(Path(args.key))
        dataset = corpus.dataset
        named = {"id": dataset.id, "version": dataset.version, "sha256": corpus.sha256}
        now = datetime.now(UTC)
        expires = parse_expiry(args.expires)
        document = authorise(named, manifest.method_id, code, provider, expires, key, now)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        with Path(args.output).open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        print(f"mteval steward authorise: {args.output}: exists; never overwritten")
        return 1
    except (MtevalError, OSError) as exc:
        print(f"mteval steward authorise: {exc}")
        return 1
    print(
        f"authorised {manifest.method_id} (code {code[:12]}) on {dataset.id} "
        f"{dataset.version} (sha256 {corpus.sha256[:12]}) through {provider['base_url']} "
        f"model {provider['model']} until {document['expires']}, "
        f"signed by steward key {steward_fingerprint(key)[:16]}…: {args.output}"
    )
    return 0


STEWARD = Command(
    "steward",
    help="record a corpus steward's decisions",
    subcommands=(
        Command(
            "authorise",
            help="sign a file allowing an A1 method's run on a secret corpus",
            add_arguments=_arguments,
            run=run_authorise,
            description=__doc__,
        ),
    ),
)
