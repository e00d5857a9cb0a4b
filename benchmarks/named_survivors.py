r"""The survivors issue 36 named, replayed as one-line mutants against the trust tier.

Issue 36's red team found mutants of the trusted core that ``pytest -m trust`` did not kill,
each a wrong answer a user would see. This script applies each of them, one at a time, to a
scratch copy of the checkout and runs the trust tier there (``-x``: it stops at the first
failure); a mutant is *killed* when the tier fails. With ``--only FILE`` the tier is replaced
by some test files — e.g. the soundness property alone::

    $ python3 benchmarks/named_survivors.py                    # each mutant vs the trust tier
    $ python3 benchmarks/named_survivors.py --only tests/graphs/test_lower_bound_soundness.py

It prints, per mutant, killed or SURVIVED and the first failing test, then the count; exit
status 1 when one survives. The unmutated copy is run first: it must pass (else every mutant
would look killed).

Not part of CI's timed path (one trust tier per mutant: about 10 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutant:
    """``old`` (which must occur exactly once in ``path``) replaced by ``new``."""

    name: str
    path: str
    old: str
    new: str


#: The survivors of issue 36 outside smt/ (the bridge's and the kernel's are smt/'s own).
MUTANTS = (
    Mutant("check_covering_lp: unit weights left out of the loads",
           "graphs/lower_bounds/covering.py",
           "        load[v] = load.get(v, Fraction(0)) + weight\n        objective += weight\n",
           "        objective += weight\n"),
    Mutant("check_covering_lp: unit weights allowed on unneeded inputs",
           "graphs/lower_bounds/covering.py",
           "compulsory = set(need) | set(outs)",
           "compulsory = set(need) | set(outs) | set(inputs)"),
    Mutant("check_subdag: output writes not required to lie outside H",
           "graphs/lower_bounds/subdag.py",
           "any(o not in outs or o in Hset for o in writes)",
           "any(o not in outs for o in writes)"),
    Mutant("check_compulsory: an input with any successor counted as needed",
           "graphs/lower_bounds/counting.py",
           "if not any(s in computed for s in G.successors(x)):",
           "if not any(True for s in G.successors(x)):"),
    Mutant("CertifiedRoute.certified: 'not refuted' taken for 'proved'",
           "graphs/lower_bounds/combined.py",
           'return self.record.applies and self.verdict.verdict == "proved"',
           'return self.record.applies and self.verdict.verdict != "refuted"'),
    Mutant("replay: the red limit checked only after a compute",
           "graphs/game.py",
           "        if len(red) > M:\n",
           '        if kind == "compute" and len(red) > M:\n'),
    Mutant("replay: a write accepted after its red pebble was deleted",
           "graphs/game.py",
           '        elif kind == "write":\n            if v not in red:\n',
           '        elif kind == "write":\n            if v not in red and v not in computed:\n'),
    Mutant("mask.below_algorithms: the forward pass only",
           "proofs/mask_bounds.py",
           '        for pass_ in ("forward", "backward"):\n'
           "            routes: dict[str, list[GapBound]] = {}",
           '        for pass_ in ("forward",):\n'
           "            routes: dict[str, list[GapBound]] = {}"),
    Mutant("algorithm_counts._le: the square root of M on the wrong side",
           "proofs/algorithm_counts.py",
           "return excess * excess * M <= constant * constant * s * s",
           "return excess * excess <= constant * constant * s * s * M"),
    Mutant("Envelope.check: one extra word tolerated",
           "proofs/algorithm_counts.py",
           "if not _le(io, self.constant, r, s, M):",
           "if not _le(io - 1, self.constant, r, s, M):"),
    Mutant("Comparison.check: one extra word tolerated",
           "proofs/algorithm_counts.py",
           "            if a > b:\n",
           "            if a > b + 1:\n"),
)


def copy_checkout(dest: Path) -> None:
    """The tracked and untracked-but-not-ignored files, symlinks kept (the rooms' links into
    ``attnio/`` are relative, so they point into the copy)."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                            "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if not src.exists() and not src.is_symlink():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)


def run_tier(scratch: Path, only: list[str] | None) -> tuple[bool, str]:
    """``(passed, first failing test)`` of the trust tier (or of ``only``) in ``scratch``."""
    args = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
            "-o", "addopts=--import-mode=importlib", "-m", "trust", *(only or ["tests"])]
    env = {**os.environ, "PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(args, cwd=scratch, env=env, capture_output=True, text=True)
    failed = re.findall(r"^FAILED (\S+)", done.stdout, re.M)
    return done.returncode == 0, failed[0] if failed else done.stdout.strip()[-200:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", metavar="TEST_FILE", nargs="+",
                        help="run these test files (their trust tests) instead of the whole "
                             "tier")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="attnio-survivors-"))
    try:
        copy_checkout(scratch)
        ok, detail = run_tier(scratch, args.only)
        if not ok:
            print(f"the unmutated copy fails: {detail}", file=sys.stderr)
            return 2
        killed = 0
        for mutant in MUTANTS:
            path = scratch / mutant.path
            original = path.read_text(encoding="utf-8")
            if original.count(mutant.old) != 1:
                print(f"{mutant.name}: the line to mutate is not found exactly once",
                      file=sys.stderr)
                return 2
            path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
            try:
                ok, detail = run_tier(scratch, args.only)
            finally:
                path.write_text(original, encoding="utf-8")
            killed += not ok
            print(f"{'killed  ' if not ok else 'SURVIVED'}  {mutant.name}"
                  + (f"\n          by {detail}" if not ok else ""), flush=True)
        print(f"\n{killed} of {len(MUTANTS)} killed ({time.strftime('%Y-%m-%d')}"
              + (f", {' '.join(args.only)} only" if args.only else ", pytest -m trust") + ")")
        return 0 if killed == len(MUTANTS) else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
