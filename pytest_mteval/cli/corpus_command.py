"""The ``mteval corpus`` command group: import, lint, stats and rotate (the corpus tools of
``corpus_tools/``), encrypt and decrypt (``corpus_crypto_commands.py``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import cast

from pytest_mteval.cli.command import Command
from pytest_mteval.cli.corpus_crypto_commands import DECRYPT, ENCRYPT
from pytest_mteval.corpus import CorpusError
from pytest_mteval.corpus_tools.entries import ENTRY_FIELDS
from pytest_mteval.corpus_tools.envelope import DEFAULTABLE
from pytest_mteval.corpus_tools.importer import ImportOptions, import_corpus, write_document
from pytest_mteval.corpus_tools.lint import run_lint
from pytest_mteval.corpus_tools.rotate import run_rotate
from pytest_mteval.corpus_tools.rows import DEFAULT_MAX_BYTES
from pytest_mteval.corpus_tools.stats import run_stats

#: Envelope fields settable from the command line, as (option, dataset field, metavar).
_ENVELOPE_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("id", "id", "NAME"),
    ("version", "version", "X.Y.Z"),
    ("language-pair", "language_pair", "LABEL"),
    ("source-language", "source_language", "BCP47"),
    ("target-language", "target_language", "BCP47"),
    ("created", "created", "YYYY-MM-DD"),
    ("license", "license", "SPDX-ID"),
    ("attribution", "attribution", "TEXT"),
    ("consent", "consent", "WHERE"),
    ("language-resources", "language_resources", "PATH"),
    ("glossary", "glossary", "PATH"),
)


def _lint_arguments(lint: argparse.ArgumentParser) -> None:
    lint.add_argument("corpus", type=Path, help="the corpus JSON")
    lint.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    lint.add_argument("--all", action="store_true", help="list every finding, not 10 per kind")
    lint.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")


def _lint(args: argparse.Namespace) -> int:
    return run_lint(args.corpus, args.format, args.all, args.strict)


def _stats_arguments(stats: argparse.ArgumentParser) -> None:
    stats.add_argument("corpus", type=Path, help="the corpus JSON")
    stats.add_argument("--format", choices=["text", "json"], default="text", help="output format")


def _stats(args: argparse.Namespace) -> int:
    return run_stats(args.corpus, args.format)


def _rotate_arguments(rotate: argparse.ArgumentParser) -> None:
    rotate.add_argument("corpus", type=Path, help="the corpus JSON")
    rotate.add_argument("--seed", type=int, required=True, help="seed of the draw")
    rotate.add_argument(
        "--move", type=int, required=True, metavar="K", help="entries moved each way"
    )
    rotate.add_argument("-o", "--output", type=Path, required=True, help="the new version's file")
    rotate.add_argument("--new-version", help="version of the result (default: last number + 1)")


def _rotate(args: argparse.Namespace) -> int:
    return run_rotate(args.corpus, args.seed, args.move, args.output, args.new_version)


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="+",
        type=Path,
        metavar="INPUT",
        help="a .csv/.tsv sheet with a header, a harness .json, or SOURCE.txt REFERENCE.txt",
    )
    parser.add_argument("-o", "--output", type=Path, required=True, help="corpus JSON to write")
    parser.add_argument(
        "--format",
        choices=["csv", "tsv", "parallel", "harness"],
        help="input format (default: told from the file names)",
    )
    parser.add_argument("--source-column", metavar="HEADER", help="header of the source column")
    parser.add_argument(
        "--reference-column", metavar="HEADER", help="header of the reference column"
    )
    parser.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="FIELD=HEADER",
        help=f"map a column to an entry field ({', '.join(ENTRY_FIELDS)}); repeat variants=",
    )
    parser.add_argument("--variants-separator", default="|", help="between variants in a cell")
    parser.add_argument("--encoding", default="utf-8", help="of the input (default utf-8)")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_BYTES,
        help=f"refuse larger inputs (default {DEFAULT_MAX_BYTES:,})",
    )
    parser.add_argument(
        "--envelope", type=Path, metavar="FILE.toml", help="[dataset] fields, [defaults], [columns]"
    )
    for option, name, metavar in _ENVELOPE_OPTIONS:
        parser.add_argument(
            f"--{option}",
            dest=f"env_{name}",
            metavar=metavar,
            help=f"dataset.{name}"
            + (", relative to the output file" if metavar == "PATH" else " (spec §2.1)"),
        )
    for name in DEFAULTABLE:
        parser.add_argument(
            f"--{name}",
            dest=f"default_{name}",
            metavar=name.upper(),
            help=f"{name} of rows that leave it empty",
        )
    parser.add_argument(
        "--allow-short-rows",
        action="store_true",
        help="a row with fewer cells than the header ends in empty cells",
    )
    parser.add_argument("--strict", action="store_true", help="write nothing if any row is skipped")
    parser.add_argument("--force", action="store_true", help="overwrite the output file")


def _columns(args: argparse.Namespace) -> dict[str, tuple[str, ...]]:
    columns: dict[str, list[str]] = {}
    for pair in args.column:
        name, sep, header = pair.partition("=")
        if not sep or name.strip() not in ENTRY_FIELDS or not header:
            raise CorpusError(
                f"--column expects FIELD=HEADER with FIELD one of {', '.join(ENTRY_FIELDS)}, "
                f"got {pair!r}"
            )
        columns.setdefault(name.strip(), []).append(header)
    if args.source_column:
        columns["source"] = [args.source_column]
    if args.reference_column:
        columns["reference"] = [args.reference_column]
    return {k: tuple(v) for k, v in columns.items()}


def run_import(args: argparse.Namespace) -> int:
    output = cast(Path, args.output)
    try:
        if any(output.resolve() == Path(i).resolve() for i in args.inputs):
            raise CorpusError(f"{output}: is an input; write the corpus to another file")
        if output.exists() and not args.force:
            raise CorpusError(f"{output}: exists; pass --force to overwrite it")
        if len(args.inputs) > 2:
            raise CorpusError("give one input file, or two line-aligned text files")
        options = ImportOptions(
            inputs=tuple(args.inputs),
            format=args.format,
            columns=_columns(args),
            envelope={
                name: getattr(args, f"env_{name}")
                for _, name, _ in _ENVELOPE_OPTIONS
                if getattr(args, f"env_{name}") is not None
            },
            envelope_file=args.envelope,
            defaults={
                n: getattr(args, f"default_{n}")
                for n in DEFAULTABLE
                if getattr(args, f"default_{n}")
            },
            variants_separator=args.variants_separator,
            encoding=args.encoding,
            max_bytes=args.max_bytes,
            allow_short_rows=args.allow_short_rows,
        )
        result = import_corpus(options)
    except CorpusError as exc:
        print(f"mteval corpus import: {exc}")
        return 2
    for skipped in result.skipped:
        print(skipped.line())
    if result.metadata_columns:
        print(
            "columns kept in entries' metadata: "
            + ", ".join(repr(c) for c in result.metadata_columns)
            + " (map one to an entry field with --column FIELD=HEADER)"
        )
    imported = len(result.document["entries"])
    if result.skipped and args.strict:
        print(
            f"mteval corpus import: {len(result.skipped)} rows skipped (--strict): nothing written"
        )
        return 1
    try:
        digest = write_document(result.document, output)
    except OSError as exc:
        print(f"mteval corpus import: {output}: cannot write: {exc.strerror or exc}")
        return 2
    print(
        f"{output}: {imported} entries from {result.rows} rows, {len(result.skipped)} skipped; "
        f"sha256 {digest}. Next: mteval corpus lint {output}"
    )
    return 0


CORPUS = Command(
    "corpus",
    help="import, lint, describe and rotate corpora (spec §2, §11)",
    description="Build and check corpora for a new language (spec §2, §11).",
    subcommands=(
        Command(
            "import",
            help="a CSV/TSV sheet, two aligned text files or a harness corpus -> the spec's JSON",
            add_arguments=_import_arguments,
            run=run_import,
            description="Columns named like entry fields (source, reference, segment, "
            "difficulty, ...) are read as such; map others with --source-column, "
            "--reference-column or --column FIELD=HEADER. Rows that cannot be entries are "
            "listed with the reason.",
        ),
        Command(
            "lint",
            help="check the §11.1 minimums, the §2 schema and the content; exit 0/1/2",
            add_arguments=_lint_arguments,
            run=_lint,
            description="Exit 0: ready; 1: problems (each named); 2: not readable as a corpus.",
        ),
        Command(
            "stats",
            help="distributions, sizes and lengths of a corpus",
            add_arguments=_stats_arguments,
            run=_stats,
        ),
        Command(
            "rotate",
            help="move K seeded entries between development and gold_standard (spec §9.3.2)",
            add_arguments=_rotate_arguments,
            run=_rotate,
        ),
        ENCRYPT,
        DECRYPT,
    ),
)
