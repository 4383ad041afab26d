"""Mutation testing of the judging core with mutmut: kill rate per module, and the survivors.

Not run by CI: a full pass takes long on a small machine. The modules and the fast test
selection are configured once, in ``[tool.mutmut]`` of pyproject.toml; this script runs mutmut
over some or all of them and summarizes its results (docs/testing.md says how to read them).

    python benchmarks/mutation.py composite gate    # mutate these modules, then report
    python benchmarks/mutation.py --report          # report what mutmut has recorded so far
    python benchmarks/mutation.py                   # every configured module (slow)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: mutmut's result line: "    pytest_mteval.gate.x__judge__mutmut_3: survived"
RESULT = re.compile(r"^\s*(?P<name>\S+__mutmut_\d+): (?P<status>.+)$")
#: Statuses that mean the tests noticed the mutant.
NOTICED = {"killed", "timeout", "caught by type check", "segfault"}


def configured_modules() -> list[str]:
    """Dotted module names of the files listed in [tool.mutmut] only_mutate."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    files = config["tool"]["mutmut"]["only_mutate"]
    return [f.removesuffix(".py").replace("/", ".") for f in files]


def module_of(mutant: str) -> str:
    """``pytest_mteval.gate.x__judge__mutmut_3`` -> ``pytest_mteval.cards.gate``."""
    return re.split(r"\.x[_ǁ]", mutant, maxsplit=1)[0]


def results() -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    found = {}
    for line in done.stdout.splitlines():
        match = RESULT.match(line)
        if match:
            found[match["name"]] = match["status"].strip()
    return found


def report(modules: list[str]) -> int:
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[str] = []
    for name, status in sorted(results().items()):
        module = module_of(name)
        if module not in modules:
            continue
        by_module[module][status] += 1
        if status == "survived":
            survivors.append(name)
    width = max(len(m) for m in [*modules, "module"]) + 2
    print(f"{'module':<{width}}{'mutants':>8}{'killed':>8}{'survived':>9}{'other':>7}{'rate':>8}")
    for module in modules:
        counts = by_module.get(module)
        if not counts or counts["not checked"] == sum(counts.values()):
            print(f"{module:<{width}}{'(not run)':>10}")
            continue
        checked = sum(n for status, n in counts.items() if status != "not checked")
        noticed = sum(counts[s] for s in NOTICED)
        other = checked - noticed - counts["survived"]
        rate = f"{noticed / checked:.1%}" if checked else "-"
        survived = counts["survived"]
        print(f"{module:<{width}}{checked:>8}{noticed:>8}{survived:>9}{other:>7}{rate:>8}")
    if survivors:
        print("\nsurvivors (see each with: mutmut show NAME):")
        print("\n".join(f"  {name}" for name in survivors))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="short names: gate composite ... (default: all)")
    parser.add_argument("--report", action="store_true", help="only summarize recorded results")
    parser.add_argument("--max-children", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    args = parser.parse_args(argv)
    every = configured_modules()
    chosen = [m for m in every if not args.modules or m.rsplit(".", 1)[1] in args.modules]
    unknown = set(args.modules) - {m.rsplit(".", 1)[1] for m in every}
    if unknown:
        parser.error(f"not in [tool.mutmut] only_mutate: {', '.join(sorted(unknown))}")
    if not args.report:
        patterns = [f"{module}.*" for module in chosen] if args.modules else []
        command = [sys.executable, "-m", "mutmut", "run", "--max-children"]
        subprocess.run([*command, str(args.max_children), *patterns], cwd=REPO, check=False)
    return report(chosen)


if __name__ == "__main__":
    raise SystemExit(main())
