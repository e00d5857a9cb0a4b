r"""The soundness sweep of issue 36: every certificate checker against the exact optimum, and
the schedule validator against a reference validator, on many more random cases than the
trust tier runs.

Runs the property tests of ``tests/graphs/test_lower_bound_soundness.py`` (every registered
lower-bound route: random tiny DAGs, M, adversarial certificates; every accepted certificate
must be at most the exact optimum Q(G, M)) and ``tests/graphs/test_game_differential.py``
(random move sequences, legal and not: ``attnio.graphs.game.replay`` and a reference written
from the rules must agree), with ``--examples`` examples per route, ``--validator-examples``
move sequences, DAGs of up to ``--vertices`` vertices and the hypothesis seed ``--seed``:

.. code-block:: console

    $ python3 benchmarks/checker_soundness.py                       # 400 per route, seed 0
    $ python3 benchmarks/checker_soundness.py --examples 2000 --vertices 10 --seed 7

Prints, per route: the examples, the honest certificates accepted, the forgeries accepted
and rejected, the rejected forgeries whose value was above Q (each a chance to catch a
checker that lost a side condition), and the largest accepted value over Q (≤ 1 when sound);
then the validator's legal and illegal sequences and the rules they broke. Exit status 1 on
any violation (the property test raises: its falsifying example is printed).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=400, help="examples per route")
    parser.add_argument("--validator-examples", type=int, default=4000,
                        help="move sequences of the validator's differential test")
    parser.add_argument("--vertices", type=int, default=10, help="most vertices of a DAG")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed")
    args = parser.parse_args(argv)
    os.environ.update(ATTNIO_SOUNDNESS_EXAMPLES=str(args.examples),
                      ATTNIO_SOUNDNESS_VERTICES=str(args.vertices),
                      ATTNIO_SOUNDNESS_SEED=str(args.seed),
                      ATTNIO_VALIDATOR_EXAMPLES=str(args.validator_examples))
    tests = ROOT / "tests" / "graphs"
    sound = _load(tests / "test_lower_bound_soundness.py", "attnio_checker_soundness")
    game = _load(tests / "test_game_differential.py", "attnio_validator_differential")
    print(f"checker soundness: {args.examples} examples per route, DAGs of <= {args.vertices} "
          f"vertices, seed {args.seed} ({time.strftime('%Y-%m-%d')})")
    columns = ("examples", "honest accepted", "forgeries accepted", "forgeries rejected",
               "rejected, above Q", "violations")
    print(f"{'route':20s} " + " ".join(f"{c:>18s}" for c in columns) + f" {'max value/Q':>12s}"
          f" {'CPU s':>7s}")
    failed = 0
    for route in sound.ROUTES:
        started = time.process_time()
        try:
            sound.test_every_accepted_certificate_is_at_most_the_exact_optimum(route=route)
        except AssertionError as exc:          # a violation: hypothesis printed the example
            failed += 1
            print(f"{route}: VIOLATION {exc}", file=sys.stderr)
        stats = sound.STATS[route]
        print(f"{route:20s} " + " ".join(f"{stats[c]:18d}" for c in columns)
              + f" {float(sound.WORST[route]):12.3f} {time.process_time() - started:7.1f}",
              flush=True)
    started = time.process_time()
    disagree = False
    try:
        game.test_validator_agrees_with_the_reference_on_random_move_sequences()
    except AssertionError as exc:
        failed += 1
        disagree = True
        print(f"validator: DISAGREEMENT {exc}", file=sys.stderr)
    seen = game.SEEN
    rules = ", ".join(f"{rule} {seen[rule]}" for rule in game.RULES)
    print(f"\nvalidator vs reference: {args.validator_examples} sequences, {seen['legal']} legal, "
          f"{seen['illegal']} illegal (rules broken: {rules}); "
          f"{'DISAGREE' if disagree else 'agree'} "
          f"({time.process_time() - started:.1f} CPU s)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
