"""Independent evaluators the trust tier reads the newest trusted modules against (issue 36):
shared by tests/test_redteam_survivors.py and tests/test_newest_rules.py.

* :func:`instances_hold_at` — are the bridge's exp/log axiom instances true of the REAL exp and
  log at a point (sympy's evalf at 30 digits, boxed in z3)?
* :func:`recorded_axiom_instances` — a spy: which (axiom id, terms) the bridge adds for a term.
* :class:`CoqText` — a reader of printed Coq text (Coq's precedences and total functions),
  written apart from the printer; :func:`coq_theorem_holds_at` and
  :func:`coq_text_violations` compare a printed theorem with the referee at grid points.
"""

from __future__ import annotations

import itertools
import re

import sympy as sp
import z3

from attnio.smt.coq import render_statement
from attnio.smt.coq_statements import coq_statement
from attnio.smt.exact_eval import sign_of
from attnio.smt.statements import parse_statement
from attnio.smt.sympy_to_z3 import Translator


def instances_hold_at(term: sp.Expr, point: dict) -> z3.CheckSatResult:
    """Are the bridge's exp/log axiom instances for ``term`` true of the REAL exp and log at
    ``point``? Every symbol is fixed at its value and every exp/log application is boxed
    within 10⁻²⁵ (relative) of its true value (30 digits); ``sat`` when the instances admit
    those values — the real functions' (independent evaluator: sympy's evalf)."""
    t = Translator({s: "real" for s in term.free_symbols})
    t.expr(term)
    solver = z3.Solver()
    solver.add(*t.side_conditions)
    for sym, value in point.items():
        solver.add(t.var(sym) == z3.RealVal(str(sp.Rational(value))))
    eps = sp.Rational(1, 10 ** 25)
    for (kind, arg), app in t._transcendental.items():
        if kind not in ("exp", "log"):
            continue
        value = arg.subs(point)
        if kind == "log" and not value > 0:
            continue                    # log is meaningful (and constrained) only there
        true = sp.Rational(str((sp.exp if kind == "exp" else sp.log)(value).evalf(30)))
        slack = eps * (1 + abs(true))
        solver.add(app >= z3.RealVal(str(true - slack)), app <= z3.RealVal(str(true + slack)))
    return solver.check()




_COQ_TOKEN = re.compile(r"\s*(%Z|/\\|\\/|<->|->|<>|<=|>=|[()<>=~+\-*/^]|[A-Za-z_][\w']*|\d+)")
_COQ_FUNCTIONS = {"IZR": 1, "sqrt": 1, "exp": 1, "ln": 1, "sin": 1, "cos": 1, "tan": 1,
                  "Rabs": 1, "Int_part": 1, "Rmin": 2, "Rmax": 2, "Rpower": 2}


class CoqText:
    """An independent reader of the printed Coq text (not the printer's trees): Coq's
    precedences (``->`` 99 right, ``<->`` 95, ``\\/`` 85 and ``/\\`` 80 right, ``~`` 75,
    relations 70, ``+ -`` 50 left, ``* /`` 40 left, unary ``-`` 35, ``^`` 30 right,
    application 10), ``( ... )%Z`` read in ``Z`` (``/`` is ``Z.div``, floor), and the
    standard library's total functions: ``x / 0 = 0``, ``sqrt`` of a negative is 0,
    ``ln x = 0`` for x ≤ 0, ``Rpower x y = exp (y * ln x)``, ``Int_part`` the floor."""

    def __init__(self, text: str, at: dict[str, sp.Expr]) -> None:
        self.tokens, pos, text = [], 0, text.rstrip().rstrip(".")
        while pos < len(text.rstrip()):
            m = _COQ_TOKEN.match(text, pos)
            assert m, f"cannot read {text[pos:]!r}"
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i, self.at = 0, at

    def _peek(self, k: int = 0) -> str | None:
        return self.tokens[self.i + k] if self.i + k < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> str:
        tok = self.tokens[self.i]
        assert expected is None or tok == expected, (tok, expected, self.tokens)
        self.i += 1
        return tok

    def truth(self) -> bool:
        value = self._imp()
        assert self.i == len(self.tokens), self.tokens[self.i:]
        return value

    # propositions (evaluated eagerly: every branch is read, so the text is read whole)
    def _imp(self) -> bool:
        a = self._iff()
        if self._peek() == "->":
            self._take()
            b = self._imp()
            return (not a) or b
        return a

    def _iff(self) -> bool:
        a = self._or()
        if self._peek() == "<->":
            self._take()
            return a == self._or()
        return a

    def _or(self) -> bool:
        a = self._and()
        if self._peek() == "\\/":
            self._take()
            return self._or() or a
        return a

    def _and(self) -> bool:
        a = self._not()
        if self._peek() == "/\\":
            self._take()
            return self._and() and a
        return a

    def _not(self) -> bool:
        if self._peek() == "~":
            self._take()
            return not self._not()
        return self._atom_prop()

    def _closing(self) -> int:
        depth = 0
        for j in range(self.i, len(self.tokens)):
            depth += {"(": 1, ")": -1}.get(self.tokens[j], 0)
            if depth == 0:
                return j
        raise AssertionError("unbalanced parentheses")

    def _atom_prop(self) -> bool:
        if self._peek() in ("True", "False"):
            return self._take() == "True"
        if self._peek() == "(":
            close = self._closing()
            after = self.tokens[close + 1] if close + 1 < len(self.tokens) else None
            if after == "%Z":
                self._take("(")
                a, op, b = self._sum("Z"), self._take(), self._sum("Z")
                self._take(")")
                self._take("%Z")
                return _compare(a, op, b)
            start = self.i
            try:                                   # a parenthesised proposition ...
                self._take("(")
                value = self._imp()
                self._take(")")
                if self._peek() not in ("+", "-", "*", "/", "^", "<", "<=", ">", ">=", "=",
                                        "<>"):
                    return value
            except (AssertionError, IndexError, KeyError):  # not a proposition
                pass
            self.i = start                         # ... or a term in parentheses
        a, op, b = self._sum("R"), self._take(), self._sum("R")
        return _compare(a, op, b)

    # terms
    def _sum(self, scope: str) -> sp.Expr:
        value = self._product(scope)
        while self._peek() in ("+", "-"):
            op, right = self._take(), self._product(scope)
            value = value + right if op == "+" else value - right
        return value

    def _product(self, scope: str) -> sp.Expr:
        value = self._unary(scope)
        while self._peek() in ("*", "/"):
            op, right = self._take(), self._unary(scope)
            if op == "*":
                value = value * right
            elif right == 0:
                value = sp.Integer(0)
            else:
                value = sp.floor(value / right) if scope == "Z" else value / right
        return value

    def _unary(self, scope: str) -> sp.Expr:
        if self._peek() == "-":
            self._take()
            return -self._unary(scope)
        return self._power(scope)

    def _power(self, scope: str) -> sp.Expr:
        base = self._application(scope)
        if self._peek() == "^":
            self._take()
            return base ** self._power(scope)
        return base

    def _application(self, scope: str) -> sp.Expr:
        name = self._peek()
        if name not in _COQ_FUNCTIONS:
            return self._atom(scope)
        self._take()
        args = [self._atom("Z" if name == "IZR" else scope)
                for _ in range(_COQ_FUNCTIONS[name])]
        a = args[0]
        if name in ("IZR",):
            return a
        if name == "sqrt":
            return sp.Integer(0) if _sign(a) < 0 else sp.sqrt(a)
        if name == "ln":
            return sp.Integer(0) if _sign(a) <= 0 else sp.log(a)
        if name == "Rpower":
            return sp.exp(args[1] * (sp.Integer(0) if _sign(a) <= 0 else sp.log(a)))
        if name == "Int_part":
            return sp.floor(a)
        if name == "Rabs":
            return -a if _sign(a) < 0 else a
        if name in ("Rmin", "Rmax"):
            low = a if _sign(a - args[1]) <= 0 else args[1]
            return low if name == "Rmin" else a + args[1] - low
        if name == "tan":
            return sp.Integer(0) if _sign(sp.cos(a)) == 0 else sp.sin(a) / sp.cos(a)
        return {"exp": sp.exp, "sin": sp.sin, "cos": sp.cos}[name](a)

    def _atom(self, scope: str) -> sp.Expr:
        tok = self._take()
        if tok == "(":
            value = self._sum(scope)
            self._take(")")
            return value
        if tok.isdigit():
            return sp.Integer(tok)
        if tok == "PI":
            return sp.pi
        return self.at[tok]


def _sign(value: sp.Expr) -> int:
    s = sign_of(value)
    assert s is not None, f"cannot decide the sign of {value}"
    return s


def _compare(a: sp.Expr, op: str, b: sp.Expr) -> bool:
    s = _sign(a - b)
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "=": s == 0, "<>": s != 0}[op]


def coq_theorem_holds_at(text: str, at: dict[str, sp.Expr]) -> bool:
    """The printed theorem (``Theorem t : forall (...), H1 -> ... -> G.``) at a point."""
    body = text.split(":", 1)[1].strip()
    if body.startswith("forall"):
        body = body.split(",", 1)[1]
    return CoqText(body, at).truth()


COQ_REALS = [sp.Rational(v) for v in ("-2", "-1", "-1/2", "0", "1/4", "1/2", "1", "3/2", "2",
                                       "3")]
COQ_INTEGERS = [sp.Integer(v) for v in range(-2, 5)]


def coq_text_violations(text: str, domains: dict[str, str]) -> list[str]:
    """Points of a grid where the printed theorem, read back by :class:`CoqText`, disagrees
    with the referee (:func:`attnio.smt.exact_eval.evaluate`): it must hold exactly where the
    statement is not false (outside the declared domains, undefined, or true)."""
    from attnio.smt.exact_eval import evaluate, in_domain

    statement, declared = parse_statement(text, domains)
    st = coq_statement("t", statement, (), declared)
    printed = render_statement(st)
    # the symbols the theorem binds (one the parsed statement lost, as in x - x, is not)
    symbols = sorted((s for s in declared if s in st.names), key=lambda s: s.name)
    grids = [COQ_INTEGERS if "integer" in declared[s] else COQ_REALS for s in symbols]
    found = []
    for values in itertools.product(*grids):
        point = dict(zip(symbols, values))
        inside = all(in_domain(v, declared[s]) for s, v in point.items())
        truth = evaluate(statement, point) if inside else "outside"
        if truth == "unknown":
            continue
        if coq_theorem_holds_at(printed, {st.names[s]: v for s, v in point.items()}) != (
                truth != "false"):
            found.append(f"{point}: referee {truth}; {printed!r}")
    return found


def recorded_axiom_instances(monkeypatch, term: sp.Expr, doms: dict) -> tuple[list, object]:
    """The (axiom id, terms) of every instance the bridge adds for ``term``, and the
    translator (``explog.axiom_instances`` spied through ``monkeypatch``)."""
    from attnio.smt import explog

    seen: list[tuple[str, tuple]] = []
    real = explog.axiom_instances

    def record(axiom_id: str, *terms: object) -> z3.BoolRef:
        seen.append((axiom_id, terms))
        return real(axiom_id, *terms)

    monkeypatch.setattr(explog, "axiom_instances", record)
    t = Translator(doms)
    t.expr(term)
    return seen, t
