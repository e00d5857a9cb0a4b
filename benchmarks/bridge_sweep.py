r"""The bridge and the referee against random statements, many more than the test tiers run,
and with sympy's assumption cache poisoned on purpose.

Draws statements from the strategy of ``tests/smt/test_bridge_soundness.py`` (square and
higher roots, integer symbols, ``Piecewise``, ``floor``, ``Abs``, the exp/log fragment) and,
for each:

1. with ``--poison`` (the default), first asks sympy a few random assumption queries
   (``is_prime``, ``is_composite``, ``is_transcendental`` …) about every sub-term at the
   sample points. sympy caches their answers on the terms, and some cache states make later
   queries raise (``TypeError: Invalid comparison of non-real log(log(r))``,
   ``PrecisionExhausted``): the slow tier's sweep failed in CI on one, depending on what ran
   before it;
2. runs the test's property (:func:`check_against_the_referee`: a Proved holds at every
   sample point, a Refuted's point is exactly false there);
3. evaluates the statement exactly at every sample point (the referee must answer, never
   raise);

steps 2 and 3 under a ``SIGALRM`` of ``--seconds`` (a hang is reported with its statement,
not waited for; the poisoning, sympy's time alone, has an alarm of its own). Prints the verdicts, the referee's answers, and every crash, violation or
hang with its statement and the last attnio frame; exit status 1 on any.

.. code-block:: console

    $ python3 benchmarks/bridge_sweep.py                          # 300 examples, seed 0
    $ python3 benchmarks/bridge_sweep.py --examples 1500 --seed 13

Found on 2026-12-07 (seeds 5, 7, 11, 13; each now a test): the referee's ``TypeError`` and
``PrecisionExhausted`` from assumption queries, a hang in evalf of ``exp(exp(exp(16)))``,
and an ``OverflowError`` in the obvious points of ``log(n - 1) >= exp(exp(2))``.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import random
import signal
import sys
import time
import traceback
from pathlib import Path

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

ROOT = Path(__file__).resolve().parent.parent

#: Seconds for the poisoning of one example (sympy's time, not the code under test's).
POISON_SECONDS = 10

#: Assumption queries asked of every sub-term before the property runs (``--poison``).
POISON_FACTS = ("is_prime", "is_composite", "is_transcendental", "is_irrational",
                "is_complex", "is_imaginary", "is_even", "is_odd", "is_algebraic",
                "is_rational", "is_integer", "is_zero", "is_positive", "is_finite")


class _Hang(BaseException):
    """One example ran past ``--seconds`` (a BaseException: no ``except Exception`` in the
    code under test may swallow it)."""


def _poison(bridge, statement: sp.Basic, doms: dict, rng: random.Random) -> None:
    """Ask a few random assumption queries of every sub-term at the first sample points."""
    for point in list(bridge._points(doms))[:6]:
        try:
            at_point = statement.xreplace(point)
        except Exception:   # noqa: BLE001 - sympy refusing a substitution is not the subject
            continue
        for sub in sp.preorder_traversal(at_point):
            for fact in rng.sample(POISON_FACTS, 4):
                try:
                    getattr(sub, fact)
                except Exception:   # noqa: BLE001 - sympy raising here is the point
                    pass


def _last_attnio_frame(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/attnio/" in f.filename
              or f.filename.startswith(str(ROOT))]
    if not frames:
        return "(no attnio frame)"
    f = frames[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0, help="hypothesis and poisoning seed")
    parser.add_argument("--seconds", type=int, default=120,
                        help="per example; past it the example is reported as a hang")
    parser.add_argument("--no-poison", dest="poison", action="store_false",
                        help="leave sympy's assumption cache alone")
    args = parser.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    bridge = importlib.import_module("tests.smt.test_bridge_soundness")
    from attnio.smt.exact_eval import evaluate

    rng = random.Random(args.seed)
    verdicts: collections.Counter[str] = collections.Counter()
    answers: collections.Counter[str] = collections.Counter()
    problems: list[tuple[str, str, str]] = []
    poison_timeouts = [0]

    def on_alarm(_signum, _frame):  # noqa: ANN001, ANN202
        raise _Hang()

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    prove_statement = bridge.prove_statement

    def counted(*a, **k):  # noqa: ANN002, ANN003, ANN202 - the property's own call, counted
        verdict = prove_statement(*a, **k)
        verdicts[verdict.verdict] += 1
        return verdict

    bridge.prove_statement = counted

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @hypothesis_seed(args.seed)
    @given(bridge.statements())
    def sweep(case) -> None:  # noqa: ANN001
        statement, doms = case
        if statement in (sp.true, sp.false):
            return
        if args.poison:
            # sympy's own queries can take minutes on a tower such as exp(exp(exp(16))): the
            # poisoning has its own short alarm, and running out of it is not a finding
            signal.alarm(POISON_SECONDS)
            try:
                _poison(bridge, statement, doms, rng)
            except _Hang:
                poison_timeouts[0] += 1
            finally:
                signal.alarm(0)
        signal.alarm(args.seconds)
        try:
            bridge.check_against_the_referee(statement, doms)
            for point in bridge._points(doms):
                answers[evaluate(statement, point)] += 1
        except _Hang:
            problems.append(("hang", str(statement), f"past {args.seconds} s"))
        except AssertionError as exc:
            problems.append(("violation", str(statement), str(exc)[:300]))
        except Exception as exc:   # noqa: BLE001 - every crash is reported, none is fatal here
            problems.append((type(exc).__name__, str(statement), _last_attnio_frame(exc)))
        finally:
            signal.alarm(0)

    started = time.monotonic()
    try:
        sweep()
    finally:
        bridge.prove_statement = prove_statement
        signal.signal(signal.SIGALRM, previous_handler)
    print(f"bridge sweep: {args.examples} examples, seed {args.seed}, "
          f"{'poisoned' if args.poison else 'clean'} assumption cache, "
          f"{time.monotonic() - started:.0f} s ({time.strftime('%Y-%m-%d')})")
    print("verdicts (prove_statement, 3 s each):", dict(sorted(verdicts.items())))
    print("referee answers at the sample points:", dict(sorted(answers.items())))
    if args.poison:
        print(f"poisoning cut short by its {POISON_SECONDS} s alarm: {poison_timeouts[0]} "
              "examples (sympy's own queries; not a finding)")
    print(f"crashes, violations and hangs: {len(problems)}")
    for kind, statement, where in problems:
        print(f"  {kind}: {statement}\n    {where}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
