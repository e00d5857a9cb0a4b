r"""``attnio prove`` — check a researcher's own statement with the same kernel as ``verify``.

.. code-block:: console

    $ attnio prove "Implies(M >= d**2, (n**2*d**2 + n*d**3)/M <= (n**2*d + n*d**2)/sqrt(M))" \
          --var n:positive-integer --var d:positive-integer --var M:positive-integer
    proved: true at every point of the declared domains (...)

STATEMENT uses sympy syntax (``And``, ``Or``, ``Implies``, ``Min``, ``Max``, ``sqrt``,
``floor``, ``ceiling``, ``exp``, ``log`` — ``log(a, b)``, ``ln``, ``log2``, ``log10`` too —
``Piecewise``, ``Eq``, ``Rational``, ``True``, ...; powers are ``**`` — ``^`` is refused, it
means exclusive-or in sympy; an implication is ``Implies(A, B)`` — ``=>``, ``->``, ``⇒`` are
refused with that hint; decimals are exact,
``0.1`` is 1/10 and ``1e308*10`` is 10**309). Every free symbol must be declared once with
``--var NAME:DOMAIN``, DOMAIN one of :data:`~attnio.smt.kernel.DOMAINS`; an undeclared
symbol, or one declared twice (``--var n:positive --var 'n :real'``), is exit 2, naming it.

Exit 2 too, before any term is built, with one line naming the value and the cap
(:mod:`attnio.smt.term_limits`): an exponent whose numerator is above 1000
(``n**100000000``), a root index above 100 (``root(n, 10**9)``, ``n**(1/10**9)``), a constant
of more than 100,000 bits (``(10**500)**1000``), a number of more than 500 digits
(``1e1000``), a malformed number (``0x10``, ``1_000``, ``1e3e3``), ``Min()`` / ``Max()``
without arguments, and a statement that is a constant (``true``: no relation to prove).
Such terms cannot be decided within any time limit; refusing them keeps ``prove`` within its
``--time-limit`` and its memory small. The decision
is :func:`attnio.smt.kernel.prove_statement` — one code path with ``attnio verify`` — run in
a child process that ``--time-limit SECONDS`` (> 0, at most 3600, default 20) bounds as a whole
(sympy included); ``--timeout`` is its deprecated spelling (:mod:`attnio.flags`). Partial functions
follow :mod:`attnio.smt.definedness`: a statement undefined at some points (a square root
of a negative number) is decided where it is defined and the verdict says where; a vacuous
one (defined nowhere, or an antecedent that never holds) is undecided.

``--json`` prints ``{"command": "prove", "verdict": "proved"|"refuted"|"undecided",
"counterexample": {name: exact value as a string} or null, "detail": str, "where_defined":
condition or null, "solvers": {...}, "evidence": {...}, "explanation": str}`` plus
``attnio_version`` and ``versions`` (notes/json.md).

The first line says the verdict in words (:func:`explanation`; ``"explanation"`` in
``--json``); ``--verbose`` adds the formal account the kernel gives (``"detail"`` in
``--json``: "hypotheses ∧ defined ∧ ¬statement is unsat", the substitutions, the solvers'
encodings). A condition "where defined" is printed in the syntax STATEMENT uses, so it can be
pasted back into ``attnio prove``.

Exit codes: 0 proved; 1 refuted or undecided; 2 bad input.

Examples
--------
>>> from attnio.cli import main
>>> main(["prove", "n >= 1", "--var", "n:positive-integer"])
proved: true at every point of the declared domains (the solvers found no counterexample: the negation is unsatisfiable)
solvers: z3 proved, cvc5 proved; evidence: smt-forall
0
>>> main(["prove", "n >= 1", "--var", "n:positive-integer", "--verbose"])  # doctest: +ELLIPSIS
proved: true at every point of the declared domains (...)
detail: hypotheses ∧ defined ∧ ¬statement is unsat; no antecedent (integers relaxed to reals with their bounds: a proof there holds for every integer)
solvers: z3 proved, cvc5 proved; evidence: smt-forall
0
>>> main(["prove", "sqrt(x)**2 >= 0", "--var", "x:real"])  # doctest: +ELLIPSIS
proved where defined (x >= 0): true wherever the statement is defined; it is undefined e.g. at x = -1 ...
0
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from attnio.exceptions import InvalidInputError
from attnio.flags import add_time_limit_argument, parse_seconds
from attnio.output import json_document, print_json
from attnio.results import Refuted, Undecided, Verdict

__all__ = ["register", "run", "verdict_json", "explanation"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``prove`` subcommand."""
    parser = subparsers.add_parser(
        "prove",
        help="prove or refute your own statement for all values of its declared symbols",
        description="Decide STATEMENT (sympy syntax) for every value of its symbols in their "
                    "declared domains, with z3 and cvc5; a Refuted comes with a counterexample "
                    "checked by exact arithmetic.",
    )
    parser.add_argument("statement", metavar="STATEMENT",
                        help='e.g. "Implies(M >= d**2, d/sqrt(M) <= 1)"')
    parser.add_argument("--var", metavar="NAME:DOMAIN", action="append", default=[],
                        help="declare a symbol: DOMAIN is real, positive, nonnegative, integer, "
                             "positive-integer or nonnegative-integer (repeat per symbol)")
    parser.add_argument("--json", action="store_true", help="JSON verdict on stdout")
    parser.add_argument("--verbose", action="store_true",
                        help="also print the formal account of the verdict (how the solvers "
                             "were asked, the substitutions, the encodings)")
    add_time_limit_argument(parser, default=20.0, allow_zero=False, max_seconds=MAX_SECONDS,
                            deprecated=("prove", "--timeout"),
                            help="seconds for the whole call, parsing and sympy included "
                                 "(default 20, at most 3600): it runs in a child process killed "
                                 "at the limit; past it the answer is undecided")
    parser.add_argument("--coq", metavar="FILE.v",
                        help="also print the statement as a Coq theorem with its proof to "
                             "FILE.v (a new file) and check it with coqc; a line says whether "
                             "Coq re-checked it")
    parser.set_defaults(handler=run)
    return parser


def _domains(declarations: list[str]) -> dict[str, str]:
    """``{name: domain}`` of the ``--var`` options. Blanks around the name and the domain are
    ignored, so ``'n :real'`` declares ``n``; a name declared twice is an input error (the
    second declaration never silently replaces the first)."""
    out: dict[str, str] = {}
    given: dict[str, str] = {}
    for item in declarations:
        name, sep, domain = (part.strip() for part in item.partition(":"))
        if not sep or not name or not domain:
            raise InvalidInputError(f"--var {item[:60]!r} must be NAME:DOMAIN, e.g. n:positive-integer")
        if name in out:
            raise InvalidInputError(f"--var {item[:60]!r} declares {name[:60]} a second time "
                                    f"(first {given[name][:60]!r}): declare each symbol once")
        out[name], given[name] = domain, item
    return out


#: Largest ``--time-limit`` of ``prove`` (seconds): the decision runs in a child process.
MAX_SECONDS = 3600.0


#: How each kind of evidence proves, in words.
_HOW = {
    "smt-forall": "the solvers found no counterexample: the negation is unsatisfiable",
    "exact-arithmetic": "exact arithmetic",
    "sympy-canonical": "sympy reduces the difference of the two sides to 0",
}
_UNDEFINED_AT = re.compile(r"undefined e\.g\. at \{([^}]*)\}")


def explanation(verdict: Verdict) -> str:
    """The verdict in plain words (the first line ``attnio prove`` prints).

    >>> from attnio.results import Proved, Refuted, Undecided
    >>> explanation(Refuted({"x": "0"}, "counterexample checked by exact evaluation"))
    'false at the counterexample below (checked by exact arithmetic)'
    >>> explanation(Undecided("vacuous: the statement is defined at no point of the declared domains: a proof would show nothing"))
    'vacuous: the statement is defined at no point of the declared domains: a proof would show nothing'
    >>> explanation(Undecided("z3 could not decide the statement (relaxed encoding: timeout); no counterexample among the obvious points"))
    'nobody knows: z3 could not decide the statement; no counterexample among the obvious points'
    """
    if isinstance(verdict, Refuted):
        return "false at the counterexample below (checked by exact arithmetic)"
    if isinstance(verdict, Undecided):
        reason = verdict.reason
        if reason.startswith("vacuous"):
            return reason
        return "nobody knows: " + _without_parentheses(reason)
    how = _HOW.get(verdict.evidence.kind, verdict.evidence.kind) if verdict.evidence else ""
    where = getattr(verdict, "where_defined", None)
    if not where:
        return f"true at every point of the declared domains ({how})"
    found = _UNDEFINED_AT.search(verdict.detail)
    at = ""
    if found:
        at = "; it is undefined e.g. at " + ", ".join(
            part.replace("'", "").replace(": ", " = ") for part in found.group(1).split(", "))
    return f"true wherever the statement is defined{at} ({how})"


def _without_parentheses(text: str) -> str:
    """``text`` without its parenthesised asides (the formal notes of a reason)."""
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return " ".join("".join(out).split()).replace(" ;", ";")


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The ``attnio prove --json`` document of one verdict (see the module docstring)."""
    evidence = verdict.evidence
    counterexample = None
    if isinstance(verdict, Refuted):
        counterexample = {str(k): str(v) for k, v in verdict.counterexample.items()}
    return json_document("prove", verdict.verdict, {
        "counterexample": counterexample,
        "detail": verdict.detail,
        "where_defined": getattr(verdict, "where_defined", None),
        "solvers": dict(evidence.solvers) if evidence else {},
        "evidence": evidence.to_json() if evidence else None,
        "explanation": explanation(verdict),
    })


def run(args: argparse.Namespace) -> int:
    """Decide the statement; print the verdict; return 0 (proved), 1 or 2."""
    from attnio.proofs.coq_kernel import prove_file
    from attnio.smt.kernel import prove_statement

    domains = _domains(args.var)
    time_limit = parse_seconds("--time-limit", getattr(args, "time_limit", 20.0),
                               allow_zero=False, max_seconds=MAX_SECONDS)
    verdict = prove_statement(args.statement, domains, timeout=time_limit,
                              isolate=True)
    coq = prove_file(args.statement, domains, args.coq, timeout=time_limit) \
        if getattr(args, "coq", None) else None
    if args.json:
        print_json({**verdict_json(verdict), **({"coq": coq.to_json()} if coq else {})})
    else:
        where = getattr(verdict, "where_defined", None)
        print(f"{verdict.verdict}{f' where defined ({where})' if where else ''}: "
              f"{explanation(verdict)}")
        if getattr(args, "verbose", False):
            print(f"detail: {verdict.detail}")
        if coq is not None:
            print(coq.line())
        if isinstance(verdict, Refuted):
            shown = ", ".join(f"{k} = {v}" for k, v in verdict.counterexample.items())
            print(f"counterexample: {shown or '(none needed: no symbols)'}")
        if verdict.evidence is not None:
            solvers = ", ".join(f"{k} {v}" for k, v in verdict.evidence.solvers.items())
            print(f"solvers: {solvers or 'none'}; evidence: {verdict.evidence.kind}")
    return 0 if verdict.proved else 1
