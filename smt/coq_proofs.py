r"""The tactic strategy of the Coq kernel: a proof script for each printed theorem.

:mod:`attnio.smt.coq` prints a statement as a Coq theorem; this module writes the proof that
``coqc`` then checks. sympy plans it — it finds the substitutions, the case splits and the
factors to cancel — but sympy is not trusted: every step it proposes is a Coq sentence that
Coq checks (an identity is proved by ``field``, a sign by ``lra`` / ``nra``), so a wrong plan
is a rejected proof, never a wrong theorem.

Strategies (:data:`STRATEGIES`, tried in this order by :func:`proof_scripts`)
----------------------------------------------------------------------------
``plan`` (:func:`planned_proof`), sentence by sentence:

1. **Integers as reals.** Each ``Z`` hypothesis (a domain ``(1 <= n)%Z``, a relation
   ``(d <= n)%Z``) is restated over ``R`` with ``IZR`` (``attnio_izr``); a strict one first
   becomes ``a + 1 <= b`` (integrality, by ``lia``).
2. **√M = s.** Each square root ``sqrt B`` becomes a variable ``s`` with ``0 <= s`` and
   ``s ^ 2 = B`` (the preamble's lemma ``attnio_sqrt``), ``0 < s`` when ``B > 0``; when
   ``B`` is a variable (``M``, ``IZR M``) it is replaced by ``s ^ 2`` everywhere — the change
   of variables of the SMT kernel, here a rewrite Coq checks.
3. **Cases.** Each ``Rmin`` / ``Rmax`` / ``Rabs`` is split on the comparison of its
   arguments (``Rle_dec`` / ``Rcase_abs``) and rewritten away in each case.
4. **Connectives.** ``/\`` and ``<->`` are split, ``->`` and ``~`` introduce their
   antecedent.
5. **Cancel positive factors.** For each relation ``a ⋈ b`` (hypothesis or goal) sympy writes
   ``b - a = p · r`` with ``p`` a product of factors the hypotheses make positive; Coq checks
   the identity (``field``) and ``0 < p`` (``attnio_pos``), and the relation becomes
   ``0 ⋈ r`` (lemmas ``attnio_le_by`` … ``attnio_ne_from``). What is left, mostly linear, is
   closed by ``lra`` or ``nra``.

``generic``: the same ideas as Ltac that needs no plan (``attnio_lift_Z``,
``attnio_realify``, ``attnio_sqrt_subst``, ``attnio_cases``, then ``lra`` / ``nra``).

``integer``: ``lia`` / ``nia`` on the statement as printed (a statement about integers alone).

A chain (:func:`attnio.smt.coq.coq_chain`) is proved lemma by lemma and its claim from the
lemmas and the composition (:func:`chain_glue`).

Examples
--------
>>> import sympy as sp
>>> from attnio.smt.coq_statements import coq_statement
>>> x = sp.Symbol("x", positive=True)
>>> st = coq_statement("amgm", sp.Ge(x + 1 / x, 2, evaluate=False))
>>> print(planned_proof(st), end="")
intros x h'1.
apply (attnio_ge_from (x + 1 / x) (2) (1 / x) ((x - 1) ^ 2)); [ attnio_pos | attnio_field | idtac ].
attnio_close.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import sympy as sp

from attnio.exceptions import TranslationError
from attnio.smt.coq import (
    INTEGER_DOMAINS,
    POSITIVE_DOMAINS,
    CoqContext,
    is_integer_polynomial,
    render_term,
    term,
    z_term,
)
from attnio.smt.coq_statements import CoqStatement, positive_in_domains

__all__ = ["STRATEGIES", "Certifier", "planned_proof", "generic_proof", "integer_proof", "proof_scripts",
           "chain_glue", "MAX_CASES"]

#: The strategies, in the order they are tried.
STRATEGIES = ("plan", "generic", "integer")
#: At most this many case-split branches per theorem (2 per Rmin / Rmax / Rabs).
MAX_CASES = 64

_REL = {sp.Le: "<=", sp.Lt: "<", sp.Ge: ">=", sp.Gt: ">", sp.Eq: "=", sp.Ne: "<>"}
_BY = {"<=": "attnio_le_by", "<": "attnio_lt_by", ">=": "attnio_ge_by", ">": "attnio_gt_by",
       "=": "attnio_eq_by"}
_FROM = {"<=": "attnio_le_from", "<": "attnio_lt_from", ">=": "attnio_ge_from",
         ">": "attnio_gt_from", "=": "attnio_eq_from", "<>": "attnio_ne_from"}
_RESIDUAL = {"<=": "0 <= {r}", "<": "0 < {r}", ">=": "0 <= {r}", ">": "0 < {r}",
             "=": "{r} = 0", "<>": "{r} <> 0"}


@dataclass
class _State:
    """What the plan knows at one point of the proof.

    ``hyps`` are ``(Coq name, sympy relation in the statement's own syntax)``; ``atoms``
    maps sub-terms to the Coq text they have become (``sqrt (IZR M)`` → ``s'1``, ``IZR M``
    → ``(s'1 ^ 2)``, a decided ``Rmin``), so that every term the plan prints is the term in
    Coq's context; ``subst`` maps them to their meaning for sympy's algebra (``M`` → ``s**2``).
    ``positive`` holds the sympy symbols the context makes positive.
    """

    hyps: list[tuple[str, sp.Basic]] = field(default_factory=list)
    atoms: dict[sp.Basic, str] = field(default_factory=dict)
    subst: list[tuple[sp.Basic, sp.Basic]] = field(default_factory=list)
    cases: list[tuple[sp.Basic, sp.Basic]] = field(default_factory=list)
    positive: set[sp.Symbol] = field(default_factory=set)
    nonnegative: set[sp.Symbol] = field(default_factory=set)
    roots: list[tuple[sp.Basic, sp.Symbol]] = field(default_factory=list)
    rewrites: list[str] = field(default_factory=list)
    facts: list[tuple[sp.Expr, str]] = field(default_factory=list)
    extra_names: dict[sp.Symbol, str] = field(default_factory=dict)


#: A certificate search: given facts ``(polynomial, kind)`` meaning ``polynomial ⋈ 0`` for
#: kind ``">="``, ``">"`` or ``"="`` (the last one the negated goal), the products to assert —
#: ``(indices of inequality facts, 1)`` or ``((index of an equality fact,), monomial)`` —
#: from which ``lra`` derives a contradiction; None when none is found. The search is not
#: trusted (``lra`` checks the combination): :func:`attnio.proofs.coq_kernel.lp_certificate`.
Certifier = Callable[[Sequence[tuple[sp.Expr, str]]], Sequence[tuple[tuple[int, ...], sp.Expr]]
                     | None]


class _Plan:
    """The ``plan`` strategy for one statement: the sentences of its proof, each of which Coq
    checks (the module docstring's steps 1–6)."""

    def __init__(self, st: CoqStatement, certify: Certifier | None = None) -> None:
        self.st = st
        self.counter = 0
        self.cases = 1
        self.certify = certify

    # ---------------------------------------------------------------- naming and printing
    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}'{self.counter}"

    def ctx(self, state: _State) -> CoqContext:
        names = dict(self.st.names)
        names.update(state.extra_names)
        domains = dict(self.st.domains)
        for sym in state.extra_names:
            domains[sym] = "positive" if sym in state.positive else "real"
        return CoqContext(names, domains, state.atoms)

    def show(self, e: sp.Basic, state: _State) -> str:
        """``e`` (the statement's syntax) as Coq sees it now, in ``R``."""
        return render_term(term(e, self.ctx(state)))

    def show_value(self, e: sp.Basic, state: _State) -> str:
        """A term of sympy's algebra (after ``subst``) in Coq, atoms only for sqrt symbols."""
        ctx = self.ctx(state)
        return render_term(term(e, CoqContext(ctx.names, ctx.domains, {})))

    def meaning(self, e: sp.Basic, state: _State) -> sp.Expr:
        """``e`` with every substitution applied, for sympy's algebra: first the decided
        cases (their keys and values are in the statement's own syntax, in the order they
        were decided), then the changes of variables, then the roots of compound terms."""
        out = e
        for _ in range(len(state.cases) + 1):
            before = out
            for key, value in state.cases:
                out = out.xreplace({key: value})
            if out == before:
                break
        for _ in range(4):
            before = out
            out = out.xreplace(dict(state.subst))
            for base, s in state.roots:
                out = out.replace(
                    lambda x, b=base: isinstance(x, sp.Pow) and x.exp.is_Rational
                    and x.exp.q == 2 and sp.simplify(x.base - b) == 0,
                    lambda x, s=s: s ** int(2 * x.exp))
            if out == before:
                break
        return out

    # ---------------------------------------------------------------- the plan
    def run(self) -> list[str]:
        st = self.st
        state = _State()
        lines: list[str] = []
        names = [name for name, _ in st.binders]
        hyp_names = [self.fresh("h") for _ in st.hypotheses]
        lines.append("intros " + " ".join(names + hyp_names) + ".")
        for (role, _), source, h in zip(st.hypotheses, st.sources, hyp_names):
            if role == "domain":
                lines += self.domain(h, source, state)
            elif role in ("hypothesis", "antecedent"):
                lines += self.hypothesis(h, source, state)
        lines += self.roots(state)
        lines += self.cases_then(state, st.goal)
        return lines

    def domain(self, h: str, sym: sp.Symbol, state: _State) -> list[str]:
        dom = self.st.domains[sym]
        if dom in POSITIVE_DOMAINS:
            state.positive.add(sym)
        if dom in POSITIVE_DOMAINS or dom in ("nonnegative", "nonnegative-integer"):
            state.nonnegative.add(sym)
        bound = {"positive": (sp.Gt, 0), "nonnegative": (sp.Ge, 0), "positive-integer": (sp.Ge, 1),
                 "nonnegative-integer": (sp.Ge, 0)}.get(dom)
        if bound is None:
            return []
        fact = bound[0](sym, bound[1], evaluate=False)
        state.facts.append((sym - bound[1], ">" if bound[0] is sp.Gt else ">="))
        if dom == "positive-integer":
            state.facts.append((sym, ">"))
        if dom in INTEGER_DOMAINS:
            r = h + "r"
            state.hyps.append((r, fact))
            return [f"assert ({r} : {self.relation_text(fact, state)}) by (attnio_izr {h})."]
        state.hyps.append((h, fact))
        return []

    def relation_text(self, rel: sp.Basic, state: _State) -> str:
        op = _REL[type(rel)]
        return f"{self.show(rel.lhs, state)} {op} {self.show(rel.rhs, state)}"

    def hypothesis(self, h: str, p: sp.Basic, state: _State) -> list[str]:
        """Record a hypothesis named ``h`` (already in Coq's context); a Z relation is
        restated over R, a conjunction taken apart."""
        if isinstance(p, sp.And):
            parts = sorted(p.args, key=sp.default_sort_key)
            names = [f"{h}_{i + 1}" for i in range(len(parts))]
            pattern = names[-1]
            for n in reversed(names[:-1]):
                pattern = f"[{n} {pattern}]"
            out = [f"destruct {h} as {pattern}."]
            for n, q in zip(names, parts):
                out += self.hypothesis(n, q, state)
            return out
        if not (type(p) in _REL and not p.has(sp.Piecewise)):
            return []
        if self.is_integer_relation(p):
            rel = p
            out = []
            if isinstance(p, (sp.Lt, sp.Gt)):
                small, big = (p.lhs, p.rhs) if isinstance(p, sp.Lt) else (p.rhs, p.lhs)
                hz = h + "z"
                out.append(f"assert ({hz} : ({self.z_text(small + 1)} <= "
                           f"{self.z_text(big)})%Z) by lia.")
                rel, h = sp.Le(small + 1, big, evaluate=False), hz
            if isinstance(rel, sp.Ne):
                return out
            r = h + "r"
            out.append(f"assert ({r} : {self.relation_text(rel, state)}) by (attnio_izr {h}).")
            state.hyps.append((r, rel))
            return out
        state.hyps.append((h, p))
        return []

    def is_integer_relation(self, p: sp.Basic) -> bool:
        ctx = CoqContext(self.st.names, self.st.domains)
        return (is_integer_polynomial(p.lhs, ctx) and is_integer_polynomial(p.rhs, ctx)
                and bool(p.lhs.free_symbols | p.rhs.free_symbols))

    def z_text(self, e: sp.Basic) -> str:
        return render_term(z_term(e, CoqContext(self.st.names, self.st.domains)), "Z")

    # ---------------------------------------------------------------- √B = s
    def roots(self, state: _State) -> list[str]:
        bases: list[sp.Basic] = []
        for e in [self.st.goal, *(p for _, p in state.hyps)]:
            for node in sp.preorder_traversal(e):
                if (isinstance(node, sp.Pow) and node.exp.is_Rational and node.exp.q == 2
                        and node.base not in bases):
                    bases.append(node.base)
        bases.sort(key=lambda b: (not isinstance(b, sp.Symbol), sp.count_ops(b), str(b)))
        out: list[str] = []
        for b in bases:
            if any(isinstance(n, sp.Pow) and n.exp.is_Rational and n.exp.q == 2
                   for n in sp.preorder_traversal(b)):
                continue    # a root under a root: left to the generic route
            if not self.nonnegative_base(b, state):
                continue
            s_name = self.fresh("s")
            positive = self.positive_base(b, state)
            s = sp.Symbol(f"attnio_root_{self.counter}", positive=True) if positive else \
                sp.Symbol(f"attnio_root_{self.counter}", nonnegative=True)
            text = self.show(b, state)
            h = "h" + s_name
            out.append(f"assert ({h} : 0 <= {text}) by (first [ assumption | lra | nra ]).")
            out.append(f"destruct (attnio_sqrt ({text}) {h}) as [{h}0 {h}1].")
            if positive:
                out.append(f"assert ({h}2 : 0 < sqrt ({text})) by "
                           f"(apply sqrt_lt_R0; first [ lra | nra ]).")
                state.positive.add(s)
            state.nonnegative.add(s)
            state.facts.append((s, ">" if positive else ">="))
            out.append(f"set ({s_name} := sqrt ({text})) in *. clearbody {s_name}.")
            state.extra_names[s] = s_name
            state.atoms[sp.Pow(b, sp.Rational(1, 2), evaluate=False)] = s_name
            state.atoms[sp.sqrt(b)] = s_name
            if isinstance(b, sp.Symbol):
                out.append(f"rewrite <- {h}1 in *.")
                state.rewrites.append(f"{h}1")
                state.atoms[b] = f"({s_name} ^ 2)"
                state.subst.append((b, s ** 2))
            else:
                state.roots.append((self.meaning(b, state), s))
                state.facts.append((s ** 2 - self.meaning(b, state), "="))
        return out

    def nonnegative_base(self, b: sp.Basic, state: _State) -> bool:
        if b.is_number:
            return bool(b.is_nonnegative)
        if b.free_symbols - set(self.st.domains):
            return False
        has_domains = all(sym in state.nonnegative for sym in b.free_symbols)
        return has_domains and positive_in_domains(b, self.st.domains, strict=False)

    def positive_base(self, b: sp.Basic, state: _State) -> bool:
        if b.is_number:
            return bool(b.is_positive)
        return (all(sym in state.positive for sym in b.free_symbols)
                and positive_in_domains(b, self.st.domains, strict=True))

    # ---------------------------------------------------------------- cases
    def split_node(self, goal: sp.Basic, state: _State) -> sp.Basic | None:
        for e in [goal, *(p for _, p in state.hyps)]:
            for node in sp.preorder_traversal(e):
                if isinstance(node, (sp.Min, sp.Max, sp.Abs)) and node not in state.atoms:
                    return node
        return None

    def cases_then(self, state: _State, goal: sp.Basic) -> list[str]:
        node = self.split_node(goal, state)
        if node is None:
            return self.goal(state, goal)
        self.cases *= 2
        if self.cases > MAX_CASES:
            raise TranslationError(f"more than {MAX_CASES} cases")
        c = self.fresh("c")
        if isinstance(node, sp.Abs):
            a = node.args[0]
            at = self.show(a, state)
            left, right = copy.deepcopy(state), copy.deepcopy(state)
            left.hyps.append((c, sp.Lt(a, 0, evaluate=False)))
            self.decide(left, node, -a)
            right.hyps.append((c, sp.Ge(a, 0, evaluate=False)))
            self.decide(right, node, a)
            return [f"destruct (Rcase_abs ({at})) as [{c}|{c}].",
                    "{ " + f"rewrite (Rabs_left ({at}) {c}) in *.",
                    *self.indent(self.cases_then(left, goal)), "}",
                    "{ " + f"rewrite (Rabs_right ({at}) {c}) in *.",
                    *self.indent(self.cases_then(right, goal)), "}"]
        args = sorted(node.args, key=sp.default_sort_key)
        a = args[0] if len(args) == 2 else type(node)(*args[:-1], evaluate=False)
        b = args[-1]
        at, bt = self.show(a, state), self.show(b, state)
        le, gt = copy.deepcopy(state), copy.deepcopy(state)
        le.hyps.append((c, sp.Le(a, b, evaluate=False)))
        gt.hyps.append((c, sp.Lt(b, a, evaluate=False)))
        if isinstance(node, sp.Min):
            self.decide(le, node, a)
            self.decide(gt, node, b)
            first = f"rewrite (Rmin_left ({at}) ({bt}) {c}) in *."
            second = f"rewrite (Rmin_right ({at}) ({bt}) (Rlt_le _ _ {c})) in *."
        else:
            self.decide(le, node, b)
            self.decide(gt, node, a)
            first = f"rewrite (Rmax_right ({at}) ({bt}) {c}) in *."
            second = f"rewrite (Rmax_left ({at}) ({bt}) (Rlt_le _ _ {c})) in *."
        return [f"destruct (Rle_dec ({at}) ({bt})) as [{c}|{c}].",
                "{ " + first, *self.indent(self.cases_then(le, goal)), "}",
                "{ " + f"apply Rnot_le_lt in {c}. " + second,
                *self.indent(self.cases_then(gt, goal)), "}"]

    def decide(self, state: _State, node: sp.Basic, value: sp.Basic) -> None:
        state.atoms[node] = f"({self.show(value, state)})"
        state.cases.append((node, value))

    @staticmethod
    def indent(lines: list[str]) -> list[str]:
        return ["  " + line for line in lines]

    # ---------------------------------------------------------------- goals
    def goal(self, state: _State, goal: sp.Basic) -> list[str]:
        if isinstance(goal, sp.And):
            parts = sorted(goal.args, key=sp.default_sort_key)
            out: list[str] = []
            for i, part in enumerate(parts[:-1]):
                rest = parts[i + 1:]
                out += ["split.", "{", *self.indent(self.goal(copy.deepcopy(state), part)), "}"]
                if len(rest) == 1:
                    out += self.goal(state, rest[0])
                    return out
            return out
        if isinstance(goal, sp.Equivalent) and len(goal.args) == 2:
            a, b = sorted(goal.args, key=sp.default_sort_key)
            out = ["split."]
            for hyp, concl in ((a, b), (b, a)):
                sub = copy.deepcopy(state)
                e = self.fresh("e")
                lines = [f"intro {e}."] + self.hypothesis(e, hyp, sub) + self.goal(sub, concl)
                out += ["{", *self.indent(lines), "}"]
            return out
        if isinstance(goal, sp.Implies):
            a, b = goal.args
            e = self.fresh("e")
            return [f"intro {e}."] + self.hypothesis(e, a, state) + self.goal(state, b)
        if isinstance(goal, sp.Not):
            e = self.fresh("e")
            return [f"intro {e}."] + self.hypothesis(e, goal.args[0], state) + \
                self.reduce_all(state) + ["attnio_close."]
        if type(goal) in _REL and not goal.has(sp.Piecewise):
            if self.is_integer_relation(goal):
                g = self.fresh("g")
                real = goal
                if isinstance(goal, sp.Ne):
                    return self.reduce_all(state) + ["attnio_close."]
                lines = [f"assert ({g} : {self.relation_text(real, state)}).",
                         "{", *self.indent(self.reduce_all(copy.deepcopy(state)) +
                                           self.relation_goal(state, real)), "}",
                         "first [ apply le_IZR | apply lt_IZR | apply eq_IZR | apply Z.le_ge; "
                         "apply le_IZR | apply Z.lt_gt; apply lt_IZR ]; "
                         "attnio_izr_goal; " +
                         "".join(f"try rewrite <- {r}; " for r in state.rewrites) +
                         "first [ lra | nra ]."]
                return lines
            return self.reduce_all(state) + self.relation_goal(state, goal)
        return self.reduce_all(state) + ["attnio_close."]

    def reduce_all(self, state: _State) -> list[str]:
        out: list[str] = []
        for name, rel in list(state.hyps):
            out += self.reduce_hypothesis(name, rel, state)
        return out

    # ---------------------------------------------------------------- cancel factors
    def factors(self, delta: sp.Expr, state: _State) -> tuple[sp.Expr, sp.Expr] | None:
        """``(p, r)`` with ``delta = p * r`` and ``p`` a product of factors the context makes
        positive; None when nothing can be cancelled (or sympy cannot factor)."""
        try:
            num, den = sp.fraction(sp.cancel(sp.together(delta)))
            if num == 0:
                return sp.Integer(1), sp.Integer(0)
            c_num, fs = sp.factor_list(num)
            c_den, gs = sp.factor_list(den)
        except (sp.PolynomialError, TypeError, ValueError, NotImplementedError):
            return None
        positive = self.positive_symbols(state)
        if any(not _known_positive(g, positive) for g, _ in gs):
            return None
        coeff = sp.Rational(c_num) / sp.Rational(c_den) if (
            isinstance(c_num, sp.Rational) and isinstance(c_den, sp.Rational)) else None
        if coeff is None:
            return None
        p: sp.Expr = abs(coeff)
        r: sp.Expr = sp.Integer(1) if coeff > 0 else sp.Integer(-1)
        for f, k in fs:
            if _known_positive(f, positive):
                p = p * f ** k
            else:
                r = r * f ** k
        for g, k in gs:
            p = p / g ** k
        if den == 1 and p == 1:
            return None
        return p, r

    def positive_symbols(self, state: _State) -> set[sp.Symbol]:
        """The symbols the context makes positive: by their domain, as a root of a positive
        term, or by a hypothesis ``x >= c`` / ``x > c`` with a constant ``c`` above (or at)
        0 (``lra`` proves ``0 < x`` from it)."""
        out = set(state.positive)
        for _, rel in state.hyps:
            op = _REL.get(type(rel))
            if op is None:
                continue
            small, big = (rel.lhs, rel.rhs) if op in ("<", "<=") else (rel.rhs, rel.lhs)
            if op in ("=", "<>"):
                continue
            if isinstance(big, sp.Symbol) and small.is_number and (
                    small > 0 or (small == 0 and op in ("<", ">"))):
                out.add(big)
        return out

    def reduce_hypothesis(self, name: str, rel: sp.Basic, state: _State) -> list[str]:
        """``0 ⋈ r`` from a hypothesis ``a ⋈ b`` with ``b - a = p · r``, ``p`` positive; the
        fact (``r``, or ``b - a`` when nothing cancels) is recorded for the certificate."""
        op = _REL.get(type(rel))
        if op is None or op == "<>":
            return []
        lhs, rhs = self.meaning(rel.lhs, state), self.meaning(rel.rhs, state)
        delta = lhs - rhs if op in (">=", ">") else rhs - lhs
        kind = {"<=": ">=", ">=": ">=", "<": ">", ">": ">", "=": "="}[op]
        found = self.factors(delta, state)
        if found is None or found[1].is_number:
            state.facts.append((sp.expand(delta), kind))
            return []
        p, r = found
        state.facts.append((r, kind))
        a, b = self.show(rel.lhs, state), self.show(rel.rhs, state)
        pt, rt = self.show_value(p, state), self.show_value(r, state)
        new = self.fresh("r")
        text = _RESIDUAL[op].format(r=rt)
        return [f"assert ({new} : {text}) by (apply ({_BY[op]} ({a}) ({b}) ({pt}) ({rt})); "
                f"[ attnio_pos | attnio_field | first [ exact {name} | lra ] ])."]

    def relation_goal(self, state: _State, goal: sp.Basic) -> list[str]:
        """The goal ``a ⋈ b`` as ``0 ⋈ r`` (``b - a = p · r``, ``p`` positive, or ``p = 1``
        when nothing cancels and ``b - a`` is a polynomial), then closed (:meth:`close`)."""
        op = _REL[type(goal)]
        lhs, rhs = self.meaning(goal.lhs, state), self.meaning(goal.rhs, state)
        delta = lhs - rhs if op in (">=", ">") else rhs - lhs
        found = self.factors(delta, state)
        if found is None:
            together = sp.cancel(sp.together(delta))
            if op == "=" and together == 0:
                return ["attnio_field."]
            if not _is_polynomial(together):
                return ["attnio_close."]
            found = (sp.Integer(1), sp.expand(together))
        p, r = found
        if r == 0:
            return ["attnio_field."] if op == "=" else ["attnio_close."]
        a, b = self.show(goal.lhs, state), self.show(goal.rhs, state)
        pt, rt = self.show_value(p, state), self.show_value(r, state)
        if op == "=":
            return [f"apply ({_FROM[op]} ({a}) ({b}) ({pt}) ({rt})); "
                    "[ attnio_field | idtac ].", "attnio_close."]
        return [f"apply ({_FROM[op]} ({a}) ({b}) ({pt}) ({rt})); "
                "[ attnio_pos | attnio_field | idtac ]."] + self.close(state, r, op)

    def close(self, state: _State, r: sp.Expr, op: str) -> list[str]:
        """Close ``0 <= r`` / ``0 < r``: ``lra``; else a Positivstellensatz certificate of
        the certifier (products of the facts and the negated goal whose nonnegative
        combination ``lra`` finds contradictory), each product proved factor by factor;
        else ``nra``."""
        if self.certify is None or op in ("=", "<>"):
            return ["attnio_close."]
        strict = op in ("<", ">")
        negation = (-r, ">=") if strict else (-r, ">")
        known = [fact for fact in dict.fromkeys((sp.expand(self.meaning(f, state)), k)
                                                for f, k in state.facts) if fact != negation]
        facts = _relevant([*known, negation])     # the negated goal last
        if not all(_is_polynomial(f) for f, _ in facts):
            return ["attnio_close."]
        products = self.certify(facts)
        if not products or all(len(ix) == 1 and m == 1 and facts[ix[0]][1] != "="
                               for ix, m in products):
            return ["attnio_close."]    # no product needed: lra combines the facts
        ng = self.fresh("ng")
        steps = [f"apply {'Rnot_le_lt' if strict else 'Rnot_lt_le'}", f"intro {ng}"]
        for indices, multiplier in products:
            steps.append("(" + self.product(facts, indices, multiplier, state) + ")")
        return ["first [ lra | (" + "; ".join(steps + ["lra"]) + ") | nra ]."]

    def product(self, facts: list[tuple[sp.Expr, str]], indices: tuple[int, ...],
                multiplier: sp.Expr, state: _State) -> str:
        """``assert (p : 0 <= f1 * f2 ...)`` proved from each factor's fact (``lra``); an
        equality fact times a monomial ``= 0``."""
        name = self.fresh("p")
        if indices and facts[indices[0]][1] == "=":
            (i,) = indices
            e = self.show_value(facts[i][0], state)
            m = self.show_value(multiplier, state)
            return (f"assert ({name} : ({e}) * ({m}) = 0) by "
                    f"(apply (attnio_eq0_mul ({e}) ({m})); lra)")
        leaves = [(f"({self.show_value(facts[i][0], state)})", "lra") for i in indices]
        if multiplier != 1:
            leaves.insert(0, (f"({self.show_value(multiplier, state)}) ^ 2",
                              "apply pow2_ge_0"))
        strict = multiplier == 1 and bool(indices) and all(facts[i][1] == ">" for i in indices)
        body, proof = leaves[0]
        for text, leaf in leaves[1:]:
            lemma = "Rmult_lt_0_compat" if strict else "Rmult_le_pos"
            body, proof = f"({body}) * {text}", f"apply {lemma}; [ {proof} | {leaf} ]"
        return f"assert ({name} : 0 {'<' if strict else '<='} {body}) by ({proof})"


def planned_proof(st: CoqStatement, certify: Certifier | None = None) -> str:
    """The ``plan`` strategy's proof script of ``st`` (the text between ``Proof.`` and
    ``Qed.``).

    Raises
    ------
    TranslationError
        More than :data:`MAX_CASES` case-split branches.
    """
    return "\n".join(_Plan(st, certify).run()) + "\n"


def generic_proof(st: CoqStatement) -> str:
    """The ``generic`` strategy: Ltac of the preamble, no plan."""
    return ("intros.\n"
            "attnio_lift_Z. attnio_realify. attnio_sqrt_subst. attnio_cases.\n"
            "all: repeat match goal with\n"
            "  | |- _ /\\ _ => split | |- _ <-> _ => split\n"
            "  | |- _ -> _ => intro | |- ~ _ => intro end.\n"
            "all: first [ lra | nra ].\n")


def integer_proof(st: CoqStatement) -> str:
    """The ``integer`` strategy: ``lia`` or ``nia`` on the statement as printed."""
    return "intros.\nfirst [ lia | nia ].\n"


def proof_scripts(st: CoqStatement, certify: Certifier | None = None
                  ) -> Iterator[tuple[str, str]]:
    """``(strategy, proof text)`` for each strategy that applies to ``st``, in order; a
    plan that cannot be written (too many cases) is skipped."""
    only_integers = all(kind == "Z" for _, kind in st.binders) and st.binders
    if only_integers and all(p[0] == "rel" and p[4] == "Z"
                             for p in (st.conclusion, *(h for _, h in st.hypotheses))):
        yield "integer", integer_proof(st)
    try:
        plan = planned_proof(st, certify)
    except Exception:   # noqa: BLE001 - a plan that cannot be written is no proof: next strategy
        plan = None
    if plan is not None:
        yield "plan", plan
    yield "generic", generic_proof(st)


def chain_glue(claim: CoqStatement, steps: Sequence[CoqStatement],
               composition: CoqStatement) -> str:
    """The proof of a chain's claim from its step lemmas and its composition: each link
    ``F_i`` of the composition is step ``i`` applied in the claim's context."""
    def applied(st: CoqStatement) -> str:
        return " ".join([st.name, *(name for name, _ in st.binders)])

    lines = ["intros.", f"apply ({applied(composition)})."]
    for st in steps:
        lines.append("{ " + f"intros. apply ({applied(st)}); assumption." + " }")
    return "\n".join(lines) + "\n"


def _is_polynomial(e: sp.Expr) -> bool:
    """True for a polynomial in its free symbols (no division by a symbol, no root, no
    function)."""
    try:
        return sp.Poly(e, *sorted(e.free_symbols, key=str)).as_expr() is not None \
            if e.free_symbols else bool(e.is_Rational)
    except (sp.PolynomialError, sp.GeneratorsNeeded):
        return False


def _relevant(facts: list[tuple[sp.Expr, str]]) -> list[tuple[sp.Expr, str]]:
    """The facts connected to the last one (the negated goal) through shared symbols: a fact
    about other variables cannot help, and it would crowd the certificate search (a chain's
    lemmas bind every variable of the chain)."""
    symbols = set(facts[-1][0].free_symbols)
    kept = {len(facts) - 1}
    grew = True
    while grew:
        grew = False
        for i, (f, _) in enumerate(facts):
            if i not in kept and f.free_symbols & symbols:
                kept.add(i)
                symbols |= f.free_symbols
                grew = True
    return [fact for i, fact in enumerate(facts) if i in kept]


def _known_positive(f: sp.Expr, positive: set[sp.Symbol]) -> bool:
    """A factor the context makes positive: a positive number, or a polynomial with positive
    coefficients in symbols of ``positive`` only (``attnio_pos`` proves it: each monomial is
    a product of positive variables)."""
    symbols = f.free_symbols
    if not symbols:
        return bool(f.is_positive)
    if not symbols <= positive:
        return False
    try:
        poly = sp.Poly(f, *sorted(symbols, key=str))
    except sp.PolynomialError:
        return False
    return all(c.is_positive for c in poly.coeffs())
