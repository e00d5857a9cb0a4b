"""Mutation survivors of seed 61 (issue 36), tested by RULE: smt/statements.py (the parser's
messages and sandbox, ``statement_text``, ``detail_suffix``, ``drop_domain_facts``),
smt/term_limits.py (the result check of evaluating functions, the bit estimate, the shortened
terms of the messages), smt/sympy_to_z3.py (``log(a, b)``, ``E``), smt/explog.py (the recipe's
reason, the twin's message), smt/explog_terms.py (the factoring threshold) and
smt/coq_statements.py (the chain's composition is built without definedness).

Every test is fast, deterministic, and states the rule it checks against a hand-computed value
or an independent evaluation (exact fractions, z3 on the translator's own side conditions).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp
import z3

from attnio.exceptions import InvalidInputError, TranslationError
from attnio.results import Proved, Refuted
from attnio.smt import explog
from attnio.smt.coq_statements import coq_chain, coq_statement
from attnio.smt.explog import LOG, check_axiom
from attnio.smt.kernel import prove_statement
from attnio.smt.statements import (
    detail_suffix,
    drop_domain_facts,
    parse_statement,
    statement_text,
)
from attnio.smt.sympy_to_z3 import Translator
from attnio.smt.term_limits import MAX_CONSTANT_BITS, _bits, validate_power

pytestmark = pytest.mark.trust


def _refusal(text: str, domains: dict[str, str]) -> str:
    with pytest.raises(InvalidInputError) as info:
        parse_statement(text, domains)
    return str(info.value)


# ==============================================================================================
# smt/statements.py
# ==============================================================================================
def test_detail_suffix_is_empty_without_notes_and_a_parenthesis_with_them() -> None:
    """A verdict's detail gets `` (note; note)`` only when there are notes or substitutions:
    with none it gets nothing, never an empty `` ()`` (seen at the end of a plain proof)."""
    assert detail_suffix([], []) == ""
    assert detail_suffix(["b"], ["a"]) == " (a; b)"
    verdict = prove_statement("x**2 >= 0", {"x": "real"}, second_solver=False)
    assert isinstance(verdict, Proved)
    assert not verdict.detail.endswith("()") and "()" not in verdict.detail


def test_drop_domain_facts_of_only_domain_facts_is_true() -> None:
    """A definedness condition made only of facts the declared domains prove (``M > 0`` for
    a positive M, ``exp(x) > 0``) is dropped whole: what is left is ``True``, and the kernel
    proves a statement whose only condition it was (``log(M) <= M``)."""
    m = sp.Symbol("M", positive=True)
    x = sp.Symbol("x", real=True)
    assert drop_domain_facts(sp.Gt(m, 0), {m: "positive"}) is sp.true
    both = sp.And(sp.Gt(m, 0), sp.Gt(sp.exp(x), 0), evaluate=False)
    assert drop_domain_facts(both, {m: "positive", x: "real"}) is sp.true
    # a condition the domain does not prove is kept (the twin)
    r = sp.Symbol("r", real=True)
    assert drop_domain_facts(sp.Gt(r, 0), {r: "real"}) == sp.Gt(r, 0)
    assert isinstance(prove_statement("log(M) <= M", {"M": "positive"}, second_solver=False),
                      Proved)


def test_parse_statement_evaluates_without_python_builtins(monkeypatch) -> None:
    """Second line of defence of the parser: the namespace the user's text is evaluated in
    (``parse_expr``'s ``global_dict``) offers no Python builtins — ``open``, ``__import__``,
    ``eval`` are unknown names there even if a word slipped past the word filter."""
    import sympy.parsing.sympy_parser as parser

    seen: list[dict] = []
    real = parser.parse_expr

    def spy(text, *args, **kwargs):
        seen.append(kwargs["global_dict"])
        return real(text, *args, **kwargs)

    monkeypatch.setattr(parser, "parse_expr", spy)
    statement, _ = parse_statement("x + 1 > x", {"x": "real"})
    assert isinstance(statement, sp.StrictGreaterThan) and len(seen) == 1
    for name in ("open", "__import__", "eval"):
        with pytest.raises(NameError):
            eval(name, seen[0])     # noqa: S307 - the very namespace parse_statement used


def test_constant_statement_message_quotes_at_most_40_characters() -> None:
    """A statement that is a constant is refused quoting the statement shortened to at most
    40 characters (39 and ``…`` when cut), whitespace collapsed."""
    text = "(" * 20 + "true" + ")" * 20            # 44 characters, the constant true
    message = _refusal(text, {})
    quoted = message.split("'")[1]
    assert quoted == text[:39] + "…" and len(quoted) == 40
    assert "is the constant true" in message
    short = "(" * 18 + "true" + ")" * 18            # exactly 40: quoted whole
    assert f"'{short}' is the constant true" in _refusal(short, {})


def test_refused_characters_message_names_the_characters_or_the_double_underscore() -> None:
    """Text with characters outside arithmetic and logic is refused naming those characters
    (sorted); text whose only fault is ``__`` is refused naming ``__``."""
    message = _refusal("x$ > 0 # y", {"x": "real"})
    assert message.endswith("logic: '#$'")
    message = _refusal("x__y > 0", {})
    assert message.endswith("logic: '__'")
    assert "X" not in message.split(":")[-1]


def test_caret_message_names_the_statement_argument_and_the_power_spelling() -> None:
    """``^`` is refused with a message naming the STATEMENT argument (as the CLI usage does)
    and the spellings to use: ``**`` for a power, ``Xor(a, b)`` for exclusive-or."""
    message = _refusal("2^3 >= 8", {})
    assert message.startswith("STATEMENT uses '^'")
    assert "write powers as ** (2**3)" in message and "Xor(a, b)" in message


def test_statement_text_keeps_relations_sympy_could_decide() -> None:
    """``statement_text`` reads a statement back with its relations as written: sympy's sign
    rules never decide them (``x > 0`` for a positive x stays ``x > 0``, not ``True``;
    ``2 > 1`` stays ``2 > 1``)."""
    statement, _ = parse_statement("x > 0", {"x": "positive"})
    assert statement_text(statement) == "x > 0"
    two = sp.Gt(sp.Integer(2), sp.Integer(1), evaluate=False)
    assert statement_text(two) == "2 > 1"
    x = sp.Symbol("x", positive=True)
    both = sp.And(sp.Gt(x, 0, evaluate=False), sp.Lt(x, 3, evaluate=False), evaluate=False)
    assert statement_text(both) == "And(x > 0, x < 3)"


# ==============================================================================================
# smt/term_limits.py
# ==============================================================================================
def test_evaluating_function_result_is_checked_against_the_root_cap() -> None:
    """The result of a function that evaluates its arguments is checked too, not only the
    arguments: ``root(x**(1/10), 11)`` is ``x**(1/110)``, a root of index 110 > 100 —
    refused, naming the index; ``root(x**(1/10), 10)`` (index 100) is accepted."""
    message = _refusal("root(x**(1/10), 11) > 0", {"x": "positive"})
    assert "root index 110" in message and "(MAX_ROOT_INDEX)" in message
    statement, _ = parse_statement("root(x**(1/10), 10) > 0", {"x": "positive"})
    assert statement.lhs.exp == sp.Rational(1, 100)


def _true_bits(value: Fraction) -> int:
    return abs(value.numerator).bit_length() + value.denominator.bit_length()


def test_bits_is_an_upper_estimate_of_sums_of_rationals() -> None:
    """``_bits`` bounds the size of a constant's exact value from above (numerator plus
    denominator bits): ``1/3 + 1/5 = 8/15`` has 4 + 4 = 8 bits, its estimate is at least 8;
    the same for seeded random sums and products of small rationals."""
    third_fifth = sp.Add(sp.Rational(1, 3), sp.Rational(1, 5), evaluate=False)
    assert _bits(third_fifth) >= _true_bits(Fraction(8, 15)) == 8
    rng = random.Random(61)
    for _ in range(300):
        parts = [Fraction(rng.randint(-40, 40), rng.randint(1, 40)) for _ in range(rng.randint(2, 4))]
        terms = [sp.Rational(p.numerator, p.denominator) for p in parts]
        total, product = sum(parts, Fraction(0)), Fraction(1)
        for p in parts:
            product *= p
        assert _bits(sp.Add(*terms, evaluate=False)) >= _true_bits(total), parts
        assert _bits(sp.Mul(*terms, evaluate=False)) >= _true_bits(product), parts


def test_constant_power_cap_at_the_documented_estimate() -> None:
    """A constant power ``b**p`` is accepted when its estimate ``bits(b)·(p + 1)`` is at most
    MAX_CONSTANT_BITS. The documented estimate: ``pi`` (a constant symbol, no arguments) is
    2 bits, a sum is its parts' bits + 1 each, + 2. So ``(pi + N)**1000`` with N of 93 bits
    is (2+1 + 93+1 + 2)·1001 = 99099 bits: accepted; with N of 94 bits 100100: refused,
    the message giving that size."""
    assert MAX_CONSTANT_BITS == 100_000
    assert _bits(sp.pi) == 2
    accepted = 2 ** 92                 # 93 bits
    parse_statement(f"(pi + {accepted})**1000 > 0", {})
    message = _refusal(f"(pi + {2 ** 93})**1000 > 0", {})
    assert "has about 100100 bits" in message


def test_constant_power_message_names_size_cap_and_constant() -> None:
    """A constant power too large is refused with its estimated size, the cap and the name
    of the cap a user can look up: ``(2**120)**1000`` is about 121 · 1001 = 121121 bits."""
    message = _refusal(f"{2 ** 120}**1000 > 0", {})
    assert "has about 121121 bits" in message
    assert message.endswith(f"at most {MAX_CONSTANT_BITS} (MAX_CONSTANT_BITS)")


def test_non_decimal_number_message_lists_what_is_not_accepted() -> None:
    """A number that is not a plain decimal is refused saying which forms are accepted and
    which are not (hexadecimal, underscores, complex numbers)."""
    message = _refusal("0x1F > 0", {})
    assert message.endswith("hexadecimal, underscores and complex numbers (1j) are not accepted")
    assert "(12, 0.5, 1.5e-3)" in message


def test_message_terms_are_shown_whole_up_to_40_characters_then_cut_to_40() -> None:
    """A term in a cap's message is shown whole when it has at most 40 characters, else as
    its first 39 and ``…`` (40 in all)."""
    n40 = sp.Symbol("v" + "".join(str(i % 10) for i in range(39)), real=True)      # 40 chars
    with pytest.raises(InvalidInputError) as info:
        validate_power(n40, sp.Integer(2000))
    assert f"of {n40.name}**(2000)" in str(info.value)
    n41 = sp.Symbol("w" + "".join(str(i % 10) for i in range(40)), real=True)      # 41 chars
    with pytest.raises(InvalidInputError) as info:
        validate_power(n41, sp.Integer(2000))
    assert f"of {n41.name[:39]}…**(2000)" in str(info.value)


# ==============================================================================================
# smt/sympy_to_z3.py
# ==============================================================================================
def test_log_with_a_base_is_log_over_log_of_the_base() -> None:
    """``log(a, b)`` is translated as ``log(a)/log(b)``: with the translator's own side
    conditions (certified bounds of log 2), ``log(x, 2)·log(2) = log(x)`` is valid; a kernel
    proof uses it (``log10(x) < log(x)`` for ``x > 1``)."""
    x = sp.Symbol("x", positive=True)
    t = Translator({x: "positive"})
    base2 = t.expr(sp.log(x, 2, evaluate=False))
    log2, logx = t.expr(sp.log(sp.Integer(2), evaluate=False)), t.expr(sp.log(x))
    s = z3.Solver()
    s.add(*t.side_conditions, base2 * log2 != logx)
    assert s.check() == z3.unsat
    assert isinstance(prove_statement("Implies(x > 1, log10(x) < log(x))", {"x": "real"},
                                      second_solver=False), Proved)


def test_e_is_exp_of_one() -> None:
    """The constant ``E`` is the term ``exp(1)`` (with its certified bounds: 2.71 < E < 2.72
    follows from the translator's side conditions)."""
    t = Translator({})
    e = t.expr(sp.E)
    assert z3.eq(e, t.expr(sp.exp(sp.Integer(1), evaluate=False)))
    s = z3.Solver()
    s.add(*t.side_conditions, z3.Or(e <= z3.RealVal("2.71"), e >= z3.RealVal("2.72")))
    assert s.check() == z3.unsat


# ==============================================================================================
# smt/explog.py
# ==============================================================================================
def test_recipe_reason_names_the_declared_variable() -> None:
    """A calculus recipe's reason writes the derivative in the statement's own variable
    (``exp(x)' = exp(_x)``: x as a dummy), never an anonymous ``Dummy``."""
    verdict = check_axiom(explog.AXIOMS_BY_ID["explog.exp_sign"])
    assert isinstance(verdict, Proved)
    assert verdict.detail.startswith("exp(x)' = exp(_x) > 0 on Reals")
    assert "Dummy" not in verdict.detail


def test_refuted_twin_message_says_false_at_this_point() -> None:
    """A false twin the grid refutes is Refuted with the reason a user reads: false at this
    point, by exact evaluation."""
    verdict = check_axiom(explog.AXIOMS_BY_ID["explog.exp_sign"], twin=True)
    assert isinstance(verdict, Refuted)
    assert verdict.detail == "false at this point (exact evaluation)"


# ==============================================================================================
# smt/explog_terms.py
# ==============================================================================================
def test_constant_logs_split_into_primes_only_below_the_threshold() -> None:
    """The logarithm of an integer constant is split (``log(m·p) = log m + log p``) only for
    integers below 10**12: ``log(10**12 - 2)`` gets ``log 2`` and ``log(499999999999)``,
    ``log(10**12)`` itself is not split (no ``log 2``, no ``log(5·10**11)``)."""
    below = Translator({})
    below.expr(sp.log(sp.Integer(10 ** 12 - 2), evaluate=False))
    assert ("log", sp.Integer(2)) in below._transcendental
    assert ("log", sp.Integer(499999999999)) in below._transcendental
    at = Translator({})
    at.expr(sp.log(sp.Integer(10 ** 12), evaluate=False))
    logs = [arg for kind, arg in at._transcendental if kind == "log"]
    assert logs == [sp.Integer(10 ** 12)]
    # the split is true of the real log: log(10**12 - 2) = log 2 + log(499999999999)
    s = z3.Solver()
    s.add(*below.side_conditions,
          LOG(z3.RealVal(10 ** 12 - 2)) != LOG(z3.RealVal(2)) + LOG(z3.RealVal(499999999999)))
    assert s.check() == z3.unsat


# ==============================================================================================
# smt/coq_statements.py
# ==============================================================================================
def test_chain_composition_is_built_without_definedness() -> None:
    """The composition ``F_1 ∧ … ∧ F_k ⇒ G`` is stated without definedness (only the links):
    built as ``coq_statement(..., defined=False)``. A chain with no step whose conclusion is
    outside the Coq fragment therefore fails where that goal is translated, with the same
    error as ``coq_statement(G, defined=False)`` — not in a definedness rule."""
    x = sp.Symbol("x", real=True)
    goal = sp.Gt(sp.sinh(x), 0, evaluate=False)
    with pytest.raises(TranslationError) as reference:
        coq_statement("c_composition", goal, [], None, defined=False, bind_all=True)
    with pytest.raises(TranslationError) as info:
        coq_chain("c", [sp.Gt(x, 0)], [], goal)
    assert str(info.value) == str(reference.value)
    assert "definedness" not in str(info.value)
