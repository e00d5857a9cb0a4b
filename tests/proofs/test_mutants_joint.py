"""The joint routes' lemmas, cap and routes in the trust tier (issue 36, mutation survivors of
bounds/joint.py, proofs/joint_lemmas.py, proofs/joint_routes.py).

The z3 chains of proofs/joint_lemmas.py are proved by their claims only in the slow tier (z3 +
cvc5 over every step, composition and necessity). Here every chain is pinned WITHOUT a solver,
by an independent evaluator of z3 terms over exact Fractions (:func:`_compile`, written here
from z3's operator kinds) against references written from the module docstrings and
notes/gap.md ("The joint routes"):

* SHAPE — each premise, each step's conclusion and the chain's conclusion is, as a function,
  the reference formula: every comparison's two sides are evaluated at seeded random rational
  points (polynomial identity testing; ``≤``/``<``/``=`` and the And/Or/⇒ structure compared
  exactly, a comparison up to a positive constant factor). Premises as a multiset, steps by
  their names (the names a refutation prints), in order.
* SOUNDNESS — each step ``H ⇒ C`` holds at seeded random points whose square-root variables
  are the roots of their radicands (exact up to 2⁻¹⁰⁰): a step that lost a hypothesis, or
  whose conclusion no longer follows, fails at some point.
* THE CAP — the forward and backward chains conclude ``leaves ≤ Ψ_κ`` with the κ of
  :data:`attnio.bounds.joint.JOINT_CLASSES` and Ψ the formula :func:`psi_at_most` decides;
  the cell chain's right side is what :func:`joint_cell_bound` rounds up; the superadditive
  chain's four terms add up to Ψ(σ₁, …) + Ψ(σ₂, …) ≤ Ψ(σ₁ + σ₂, …).

Each checker here has a planted false twin (a mutated chain, a reference it must reject).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction
from math import isqrt
from types import SimpleNamespace
from typing import Callable

import pytest
import z3

from attnio.proofs import joint_lemmas as jl
from attnio.results import Refuted
from attnio.smt.chains import Chain, Step

pytestmark = pytest.mark.trust

F = Fraction
_ROOT_BITS = 100


# ==============================================================================================
# An evaluator of z3 terms over Fractions (independent of z3's own simplifier)
# ==============================================================================================
_K = z3  # the operator kinds: z3.Z3_OP_*


def _compile(e: z3.ExprRef, tol: Fraction = Fraction(0)) -> Callable[[dict], object]:  # noqa: B008
    """A closure evaluating the z3 term ``e`` at an assignment {name: Fraction}. Comparisons
    are lenient by ``tol`` (``a ≤ b`` holds when ``a ≤ b + tol``, ``a = b`` when
    ``|a − b| ≤ tol``): the square-root variables are 2⁻¹⁰⁰-close approximations."""
    if z3.is_rational_value(e):
        c = F(e.numerator_as_long(), e.denominator_as_long())
        return lambda v: c
    if z3.is_int_value(e):
        c = F(e.as_long())
        return lambda v: c
    if z3.is_true(e):
        return lambda v: True
    if z3.is_false(e):
        return lambda v: False
    kind = e.decl().kind()
    if kind == _K.Z3_OP_UNINTERPRETED and e.num_args() == 0:
        name = e.decl().name()
        return lambda v: v[name]
    kids = [_compile(c, tol) for c in e.children()]
    if kind == _K.Z3_OP_ADD:
        return lambda v: sum((k(v) for k in kids), F(0))
    if kind == _K.Z3_OP_SUB:
        return lambda v: kids[0](v) - sum((k(v) for k in kids[1:]), F(0))
    if kind == _K.Z3_OP_UMINUS:
        return lambda v: -kids[0](v)
    if kind == _K.Z3_OP_MUL:
        def mul(v: dict) -> Fraction:
            out = F(1)
            for k in kids:
                out *= k(v)
            return out
        return mul
    if kind == _K.Z3_OP_DIV:
        return lambda v: kids[0](v) / kids[1](v)
    if kind == _K.Z3_OP_POWER:
        def power(v: dict) -> Fraction:
            exp = kids[1](v)
            assert exp.denominator == 1
            return kids[0](v) ** int(exp)
        return power
    if kind == _K.Z3_OP_TO_REAL:
        return kids[0]
    if kind == _K.Z3_OP_ITE:
        return lambda v: kids[1](v) if kids[0](v) else kids[2](v)
    if kind == _K.Z3_OP_LE:
        return lambda v: kids[0](v) <= kids[1](v) + tol
    if kind == _K.Z3_OP_GE:
        return lambda v: kids[0](v) + tol >= kids[1](v)
    if kind == _K.Z3_OP_LT:
        return lambda v: kids[0](v) < kids[1](v) + tol
    if kind == _K.Z3_OP_GT:
        return lambda v: kids[0](v) + tol > kids[1](v)
    if kind == _K.Z3_OP_EQ:
        return lambda v: abs(kids[0](v) - kids[1](v)) <= tol
    if kind == _K.Z3_OP_AND:
        return lambda v: all(k(v) for k in kids)
    if kind == _K.Z3_OP_OR:
        return lambda v: any(k(v) for k in kids)
    if kind == _K.Z3_OP_NOT:
        return lambda v: not kids[0](v)
    if kind == _K.Z3_OP_IMPLIES:
        return lambda v: (not kids[0](v)) or kids[1](v)
    raise NotImplementedError(f"no evaluator for {e.decl()} in {e}")


# ---- the references: formulas over a namespace of Fractions ---------------------------------
# ("le" | "lt" | "eq", lhs(e), rhs(e)) or ("and" | "or" | "implies", *parts)

def LE(f, g):
    return ("le", f, g)


def LT(f, g):
    return ("lt", f, g)


def EQ(f, g):
    return ("eq", f, g)


def AND(*xs):
    return ("and", *xs)


def OR(*xs):
    return ("or", *xs)


def IMP(a, b):
    return ("implies", a, b)


def NN(name: str):
    """``name ≥ 0``."""
    return LE(lambda e: F(0), lambda e: getattr(e, name))


def _normal(op: str, values: list[Fraction]) -> tuple:
    """A comparison's signature: its operator and rhs − lhs at the points, up to a positive
    factor (and, for =, up to sign)."""
    first = next((x for x in values if x != 0), F(1))
    scale = abs(first) if op != "eq" else first
    return (op, tuple(x / scale for x in values))


def _z3_signature(e: z3.BoolRef, points: list[dict]) -> tuple:
    kind = e.decl().kind()
    ops = {_K.Z3_OP_AND: "and", _K.Z3_OP_OR: "or", _K.Z3_OP_IMPLIES: "implies"}
    if kind in ops:
        return (ops[kind], *(_z3_signature(c, points) for c in e.children()))
    cmp = {_K.Z3_OP_LE: ("le", 0, 1), _K.Z3_OP_GE: ("le", 1, 0), _K.Z3_OP_LT: ("lt", 0, 1),
           _K.Z3_OP_GT: ("lt", 1, 0), _K.Z3_OP_EQ: ("eq", 0, 1)}
    if kind not in cmp:
        raise NotImplementedError(str(e))
    op, i, j = cmp[kind]
    lo, hi = _compile(e.children()[i]), _compile(e.children()[j])
    return _normal(op, [hi(p) - lo(p) for p in points])


def _ref_signature(f: tuple, points: list[dict]) -> tuple:
    if f[0] in ("and", "or", "implies"):
        return (f[0], *(_ref_signature(x, points) for x in f[1:]))
    op, lo, hi = f
    spaces = [SimpleNamespace(**p) for p in points]
    return _normal(op, [F(hi(s)) - F(lo(s)) for s in spaces])


def _free_points(names: set[str], count: int, seed: int) -> list[dict]:
    """Random nonzero rationals for every variable (no domain: identity testing)."""
    rng = random.Random(seed)
    return [{x: F(rng.choice([-1, 1]) * rng.randint(1, 97), rng.randint(1, 13))
             for x in sorted(names)} for _ in range(count)]


def _names(chain: Chain) -> set[str]:
    return set(_vars((*chain.premises, *(s.conclusion for s in chain.steps), chain.conclusion)))


def shape_problems(chain: Chain, ref: dict, seed: int = 7, count: int = 6) -> list[str]:
    """Where ``chain`` differs from the reference ``{"premises": [...], "steps": [(name,
    formula), ...], "conclusion": formula}``: premises as a multiset, steps by name in order,
    the conclusion; each formula compared as a function at random points."""
    points = _free_points(_names(chain), count, seed)
    problems = []
    got = Counter(_z3_signature(p, points) for p in chain.premises)
    want = Counter(_ref_signature(p, points) for p in ref["premises"])
    if got != want:
        problems.append(f"premises differ: {sum((got - want).values())} not in the reference, "
                        f"{sum((want - got).values())} of the reference missing")
    names = [s.name for s in chain.steps]
    ref_names = [n for n, _ in ref["steps"]]
    if names != ref_names:
        problems.append(f"step names differ: {sorted(set(names) ^ set(ref_names))}")
    for step, (name, formula) in zip(chain.steps, ref["steps"]):
        if _z3_signature(step.conclusion, points) != _ref_signature(formula, points):
            problems.append(f"step {name!r}: conclusion differs")
    if _z3_signature(chain.conclusion, points) != _ref_signature(ref["conclusion"], points):
        problems.append("the conclusion differs")
    return problems


# ---- sampling: each step's H ⇒ C at points whose roots are exact ----------------------------
_HYP_TOL, _CONC_TOL = F(1, 2 ** 70), F(1, 2 ** 50)


def _sqrt(x: Fraction) -> Fraction:
    """√x to 2⁻¹⁰⁰ (x ≥ 0), exact when x is the square of a rational with a square
    denominator's root (p/q with p, q squares)."""
    p, q = x.numerator, x.denominator
    if isqrt(p) ** 2 == p and isqrt(q) ** 2 == q:
        return F(isqrt(p), isqrt(q))
    return F(isqrt(x.numerator * 2 ** (2 * _ROOT_BITS) // x.denominator), 2 ** _ROOT_BITS)


_POOL = [F(0), F(0), F(1), F(1), F(2), F(3), F(4), F(1, 2), F(9, 4), F(5), F(7, 3)]


def _sample_points(base: list[str], derive: list[tuple], count: int, seed: int,
                   positive: tuple[str, ...] = (), victims: list[str] | None = None
                   ) -> list[dict]:
    """Random points: each base variable ≥ 0 from a small pool (ties and zeros are common) or
    a random rational, ``positive`` ones (divisors, ≥ 1 in every chain's domain) in 1..6;
    then, in order, each ``(name, f, kind)`` of ``derive``: f's value, or its square root for
    ``kind == "root"``. At most points one or two variables, the VICTIMS, are off instead: a negative
    value, a divisor below 1, another variable's value, a root's negation or ± 1 — so that a
    step that lost a hypothesis meets the point where that hypothesis alone fails. The
    victims are drawn from ``victims`` (default: every variable)."""
    rng = random.Random(seed)
    names = victims or [*base, *(x for x, _, _ in derive)]
    out = []
    for _ in range(count):
        chosen = set(rng.sample(names, min(len(names), rng.choice([0, 1, 1, 1, 2, 2]))))
        v: dict = {}

        def off(x: str, honest: Fraction | None, v: dict = v) -> Fraction:
            roll = rng.random()
            if x in positive:
                return rng.choice([F(1, 2), F(1, 3), F(-1), F(-2)])
            if roll < 0.15:
                return -F(1, rng.randint(1, 4))
            if roll < 0.3:
                return -F(rng.randint(1, 40), rng.randint(1, 3))
            if roll < 0.55 and v:
                return rng.choice(list(v.values()))
            if honest is not None and roll < 0.8:
                return rng.choice([-honest, honest + 1, honest - 1, 3 * honest + 5])
            return F(rng.randint(0, 60))

        for x in base:
            if x in chosen:
                v[x] = off(x, None)
            elif x in positive:
                v[x] = F(rng.randint(1, 6))
            elif rng.random() < 0.3:
                v[x] = F(rng.randint(0, 40), rng.randint(1, 6))
            else:
                v[x] = rng.choice(_POOL)
        e = SimpleNamespace(**v, rng=rng)
        for x, f, kind in derive:
            value = F(f(e))
            if kind == "root":
                value = _sqrt(value) if value >= 0 else F(rng.randint(0, 9))
            v[x] = off(x, value) if x in chosen else value
            setattr(e, x, v[x])
        out.append(v)
    return out


def _vars(formulas) -> list[str]:
    out: set[str] = set()

    def walk(e: z3.ExprRef) -> None:
        if z3.is_const(e) and e.decl().kind() == _K.Z3_OP_UNINTERPRETED:
            out.add(e.decl().name())
        for c in e.children():
            walk(c)
    for f in formulas:
        walk(f)
    return sorted(out)


def step_problems(chain: Chain, plan: tuple, count: int = 40, seed: int = 36,
                  only: str | None = None) -> tuple[list[str], Counter]:
    """The steps whose hypotheses hold (lenient 2⁻⁷⁰) at some sampled point where their
    conclusion fails (beyond 2⁻⁵⁰): each step at its own ``count`` points of ``plan`` =
    (base, derive, positive), the victims among the step's own variables; with the number
    of points where each step's hypotheses hold (the sampling's power). ``only``: that step."""
    base, derive, positive = plan
    problems, hits = [], Counter()
    for i, step in enumerate(chain.steps):
        if only is not None and step.name != only:
            continue
        hyps = [_compile(h, _HYP_TOL) for h in step.hypotheses]
        concl = _compile(step.conclusion, _CONC_TOL)
        victims = _vars([*step.hypotheses, step.conclusion])
        for v in _sample_points(base, derive, count, seed + i, positive, victims):
            if all(h(v) for h in hyps):
                hits[step.name] += 1
                if not concl(v):
                    problems.append(f"step {step.name!r} fails at {v}")
                    break
    return problems, hits


# ==============================================================================================
# The references (module docstrings; notes/gap.md "The joint routes")
# ==============================================================================================
def mn(x, y):
    return x if x <= y else y


def psi(kappa, sig, u, z, w, r, rho, d, n, k):
    """Ψ_κ(σ, z, w, u) = κσ²/(4d) + uσ/n + min((σ/2)√z, (d−1)z) + min(√(uσw), kw), with
    r = √z and ρ = √(uσw) given."""
    return kappa * sig * sig / (4 * d) + u * sig / n + mn(sig * r / 2, (d - 1) * z) + mn(rho, k * w)


def forward_reference(*, free_rows: bool = True) -> dict:
    sig = lambda e: e.aQ + e.bK + e.bV  # noqa: E731
    signs = "aQ bK bV a b u z Z w QKf PVfr PVch QKp PVp".split()
    return {
        "premises": [*(NN(x) for x in signs),
                     LE(lambda e: 1, lambda e: e.d), LE(lambda e: 1, lambda e: e.n), NN("k"),
                     NN("y1"), EQ(lambda e: e.y1 ** 2, lambda e: e.aQ * e.bK * e.Z),
                     NN("y2"), EQ(lambda e: e.y2 ** 2, lambda e: e.u * e.bV * e.w),
                     NN("r"), EQ(lambda e: e.r ** 2, lambda e: e.z),
                     NN("rho"), EQ(lambda e: e.rho ** 2, lambda e: e.u * sig(e) * e.w),
                     LE(lambda e: e.a, lambda e: e.aQ), LE(lambda e: e.b, lambda e: e.bK),
                     LE(lambda e: e.Z, lambda e: e.z),
                     # full QK pairs ≤ ab/d; free PV ≤ a·bV/d (rows of Q); charged full PV ≤ u·bV/n
                     # (cleared of their denominators d, n ≥ 1)
                     LE(lambda e: e.d * e.QKf, lambda e: e.a * e.b),
                     LE(lambda e: e.d * e.PVfr, lambda e: (e.a if free_rows else e.aQ) * e.bV),
                     LE(lambda e: e.n * e.PVch, lambda e: e.u * e.bV),
                     LE(lambda e: e.QKp, lambda e: e.y1),
                     LE(lambda e: e.QKp, lambda e: (e.d - 1) * e.Z),
                     LE(lambda e: e.PVp, lambda e: e.y2), LE(lambda e: e.PVp, lambda e: e.k * e.w)],
        "steps": [
            ("a(b + bV) ≤ σ²/4", LE(lambda e: e.a * (e.b + e.bV), lambda e: sig(e) ** 2 / 4)),
            ("full pairs + free PV ≤ σ²/(4d)",
             LE(lambda e: e.QKf + e.PVfr, lambda e: sig(e) ** 2 / (4 * e.d))),
            ("charged full PV ≤ uσ/n", LE(lambda e: e.PVch, lambda e: e.u * sig(e) / e.n)),
            ("√(aQ bK Z) ≤ (σ/2)√z", LE(lambda e: e.y1, lambda e: sig(e) / 2 * e.r)),
            ("partial QK ≤ min((σ/2)√z, (d−1)z)",
             LE(lambda e: e.QKp, lambda e: mn(sig(e) / 2 * e.r, (e.d - 1) * e.z))),
            ("√(u bV w) ≤ √(uσw)", LE(lambda e: e.y2, lambda e: e.rho)),
            ("partial PV ≤ min(√(uσw), kw)", LE(lambda e: e.PVp, lambda e: mn(e.rho, e.k * e.w)))],
        "conclusion": LE(lambda e: e.QKf + e.PVfr + e.PVch + e.QKp + e.PVp,
                         lambda e: psi(1, sig(e), e.u, e.z, e.w, e.r, e.rho, e.d, e.n, e.k)),
    }


def backward_reference(computation: str, kappa: Fraction | None = None) -> dict:
    rc = computation == "recompute"
    kap = kappa if kappa is not None else (F(5, 4) if rc else F(1))
    sig = lambda e: e.aQ + e.bK + e.aO + e.bV  # noqa: E731
    G = lambda e, x: getattr(e, "grad" + x)  # noqa: E731
    signs = "aQ bK aO bV u z Zs Zp cV cQ cK w rowsum Gf Pp".split()
    # the gradient products share the charged face u: faces (aO, bK, aQ), carries (cV, cQ, cK)
    faces, carries = ("aO", "bK", "aQ"), ("cV", "cQ", "cK")
    grad = [NN("gradsu"), EQ(lambda e: G(e, "su") ** 2, lambda e: e.u)]
    for i, (x, c) in enumerate(zip(faces, carries), 1):
        grad += [NN(f"grade{i}"), EQ(lambda e, i=i: G(e, f"e{i}") ** 2,
                                     lambda e, x=x, c=c: getattr(e, x) * getattr(e, c))]
    grad += [NN("gradE12"), EQ(lambda e: G(e, "E12") ** 2,
                               lambda e: (e.aO + e.bK) * (e.cV + e.cQ)),
             NN("gradE"), EQ(lambda e: G(e, "E") ** 2,
                             lambda e: (e.aO + e.bK + e.aQ) * (e.cV + e.cQ + e.cK))]
    grad += [LE(lambda e, i=i: G(e, f"g{i}"), lambda e, i=i: G(e, "su") * G(e, f"e{i + 1}"))
             for i in range(3)]
    grad += [NN(x) for x in ("u", *faces, *carries)]
    gsum = lambda e: G(e, "g0") + G(e, "g1") + G(e, "g2")  # noqa: E731
    return {
        "premises": [
            *(NN(x) for x in signs),
            LE(lambda e: 1, lambda e: e.d), LE(lambda e: 1, lambda e: e.n), NN("k"),
            LE(lambda e: e.cV + e.cQ + e.cK, lambda e: e.w), LE(lambda e: e.Zs + e.Zp, lambda e: e.z),
            # rows: recompute — gap.joint_rows (5/16); given-scores — dO·Vᵀ's full pairs
            # (cleared of their denominators d, n ≥ 1)
            (LE(lambda e: e.d * e.rowsum, lambda e: F(5, 16) * sig(e) ** 2) if rc else
             LE(lambda e: e.d * e.rowsum, lambda e: e.aO * e.bV)),
            LE(lambda e: e.n * e.Gf, lambda e: e.u * (e.aO + e.bK + e.aQ)),
            NN("y1"), EQ(lambda e: e.y1 ** 2, lambda e: e.aQ * e.bK * e.Zs if rc else 0),
            NN("y2"), EQ(lambda e: e.y2 ** 2, lambda e: e.aO * e.bV * e.Zp),
            NN("r"), EQ(lambda e: e.r ** 2, lambda e: e.z),
            NN("SP"), EQ(lambda e: e.SP ** 2, lambda e: (e.aQ + e.aO) * (e.bK + e.bV) * (e.Zs + e.Zp)),
            LE(lambda e: e.Pp, lambda e: e.y1 + e.y2), LE(lambda e: e.Pp, lambda e: (e.d - 1) * (e.Zs + e.Zp)),
            *grad,
            *(LE(lambda e, i=i: G(e, f"g{i}"), lambda e, c=c: e.k * getattr(e, c))
              for i, c in enumerate(carries)),
            NN("rho"), EQ(lambda e: e.rho ** 2, lambda e: e.u * sig(e) * e.w)],
        "steps": [
            ("rows ≤ κσ²/(4d)", LE(lambda e: e.rowsum, lambda e: kap * sig(e) ** 2 / (4 * e.d))),
            ("charged full gradient pairs ≤ uσ/n", LE(lambda e: e.Gf, lambda e: e.u * sig(e) / e.n)),
            ("√(aQ bK Zs) + √(aO bV Zp) ≤ √((aQ+aO)(bK+bV)(Zs+Zp))",
             LE(lambda e: e.y1 + e.y2, lambda e: e.SP)),
            ("√((aQ+aO)(bK+bV)(Zs+Zp)) ≤ (σ/2)√z", LE(lambda e: e.SP, lambda e: sig(e) / 2 * e.r)),
            ("partial score pairs ≤ min((σ/2)√z, (d−1)z)",
             LE(lambda e: e.Pp, lambda e: mn(sig(e) / 2 * e.r, (e.d - 1) * e.z))),
            ("grad: √(x₁c₁) + √(x₂c₂) ≤ √((x₁+x₂)(c₁+c₂))",
             LE(lambda e: G(e, "e1") + G(e, "e2"), lambda e: G(e, "E12"))),
            ("grad: + √(x₃c₃) ≤ √((x₁+x₂+x₃)(c₁+c₂+c₃))",
             LE(lambda e: G(e, "E12") + G(e, "e3"), lambda e: G(e, "E"))),
            ("grad: the three ≤ √u·√((x₁+x₂+x₃)(c₁+c₂+c₃))",
             LE(gsum, lambda e: G(e, "su") * G(e, "E"))),
            ("√u·√((aO+bK+aQ)(cV+cQ+cK)) ≤ √(uσw)",
             LE(lambda e: G(e, "su") * G(e, "E"), lambda e: e.rho)),
            ("partial gradient pairs ≤ min(√(uσw), kw)", LE(gsum, lambda e: mn(e.rho, e.k * e.w)))],
        "conclusion": LE(lambda e: e.rowsum + e.Gf + e.Pp + gsum(e),
                         lambda e: psi(kap, sig(e), e.u, e.z, e.w, e.r, e.rho, e.d, e.n, e.k)),
    }


def rows_reference(coefficient: Fraction = Fraction(5, 16)) -> dict:  # noqa: B008
    goal = LE(lambda e: e.a * e.b + e.aO * e.bV + e.b * e.p + 2 * e.p * e.q,
              lambda e: coefficient * (e.a + e.aO + e.b + e.bV) ** 2)
    is_ = lambda x, y: EQ(lambda e: getattr(e, x), lambda e: getattr(e, y))  # noqa: E731
    cases = [(f"case p = {p}, q = {q}", IMP(AND(is_("p", p), is_("q", q)), goal))
             for p, q in itertools.product(("a", "aO"), ("b", "bV"))]
    return {
        "premises": [*(NN(x) for x in "a aO b bV p q".split()),
                     LE(lambda e: e.p, lambda e: e.a), LE(lambda e: e.p, lambda e: e.aO),
                     LE(lambda e: e.q, lambda e: e.b), LE(lambda e: e.q, lambda e: e.bV),
                     OR(is_("p", "a"), is_("p", "aO")), OR(is_("q", "b"), is_("q", "bV"))],
        "steps": [("p ∈ {a, aO} and q ∈ {b, bV}",
                   AND(OR(is_("p", "a"), is_("p", "aO")), OR(is_("q", "b"), is_("q", "bV")))),
                  *cases],
        "conclusion": goal,
    }


def cube_reference(factor: int = 27) -> dict:
    xyz = lambda e: e.X + e.Y + e.Z  # noqa: E731
    return {
        "premises": [*(NN(x) for x in "X Y Z T a b bV u".split()),
                     LE(xyz, lambda e: e.T), NN("y"), EQ(lambda e: e.y ** 2, lambda e: e.X * e.Y * e.Z),
                     NN("t"), EQ(lambda e: e.t ** 2, lambda e: e.T ** 3 / factor),
                     LE(lambda e: e.a + e.b + e.bV + e.u, lambda e: e.s)],
        "steps": [(f"{factor}XYZ ≤ (X+Y+Z)³", LE(lambda e: factor * e.X * e.Y * e.Z,
                                                   lambda e: xyz(e) ** 3)),
                  ("(X+Y+Z)³ ≤ T³", LE(lambda e: xyz(e) ** 3, lambda e: e.T ** 3)),
                  ("√(XYZ) ≤ √(T³/27)", LE(lambda e: e.y, lambda e: e.t)),
                  ("a(b+bV) + u·bV ≤ (a+u)(b+bV)",
                   LE(lambda e: e.a * (e.b + e.bV) + e.u * e.bV, lambda e: (e.a + e.u) * (e.b + e.bV))),
                  ("(a+u)(b+bV) ≤ s²/4", LE(lambda e: (e.a + e.u) * (e.b + e.bV), lambda e: e.s ** 2 / 4))],
        "conclusion": AND(LE(lambda e: e.y, lambda e: e.t),
                          LE(lambda e: e.a * (e.b + e.bV) + e.u * e.bV, lambda e: e.s ** 2 / 4)),
    }


def cell_reference(*, lower_w: bool = False) -> dict:
    return {
        "premises": [*(NN(x) for x in "sg z w u s0 z0 k".split()),
                     LE(lambda e: 1, lambda e: e.d), LE(lambda e: 1, lambda e: e.n), NN("kap"),
                     LE(lambda e: e.s0, lambda e: e.sg), LE(lambda e: e.sg, lambda e: e.s1),
                     LE(lambda e: e.z0, lambda e: e.z), LE(lambda e: e.z, lambda e: e.z1),
                     LE(lambda e: e.u, lambda e: e.z), LE(lambda e: e.sg + e.u, lambda e: e.S),
                     LE(lambda e: e.sg + e.z + e.w, lambda e: e.T),
                     # W = T − s0 − z0, U = min(z1, S − s0)
                     EQ(lambda e: e.Wc, lambda e: e.T - (e.s1 + e.z1 if lower_w else e.s0 + e.z0)),
                     LE(lambda e: e.U, lambda e: e.z1), LE(lambda e: e.U, lambda e: e.S - e.s0),
                     OR(EQ(lambda e: e.U, lambda e: e.z1), EQ(lambda e: e.U, lambda e: e.S - e.s0)),
                     NN("r"), EQ(lambda e: e.r ** 2, lambda e: e.z),
                     NN("R"), EQ(lambda e: e.R ** 2, lambda e: e.z1),
                     NN("rho"), EQ(lambda e: e.rho ** 2, lambda e: e.u * e.sg * e.w),
                     NN("P"), EQ(lambda e: e.P ** 2, lambda e: e.U * e.s1 * e.Wc)],
        "steps": [
            ("u ≤ U", LE(lambda e: e.u, lambda e: e.U)),
            ("w ≤ W", LE(lambda e: e.w, lambda e: e.Wc)),
            ("σ² ≤ s1²", LE(lambda e: e.sg ** 2, lambda e: e.s1 ** 2)),
            ("κσ²/(4d) ≤ κs1²/(4d)", LE(lambda e: e.kap * e.sg ** 2 / (4 * e.d),
                                         lambda e: e.kap * e.s1 ** 2 / (4 * e.d))),
            ("uσ ≤ U·s1", LE(lambda e: e.u * e.sg, lambda e: e.U * e.s1)),
            ("uσ/n ≤ U·s1/n", LE(lambda e: e.u * e.sg / e.n, lambda e: e.U * e.s1 / e.n)),
            ("(σ/2)√z ≤ (s1/2)√z1", LE(lambda e: e.sg * e.r / 2, lambda e: e.s1 * e.R / 2)),
            ("(d−1)z ≤ (d−1)z1", LE(lambda e: (e.d - 1) * e.z, lambda e: (e.d - 1) * e.z1)),
            ("uσw ≤ U·s1·W", LE(lambda e: e.u * e.sg * e.w, lambda e: e.U * e.s1 * e.Wc)),
            ("√(uσw) ≤ √(U·s1·W)", LE(lambda e: e.rho, lambda e: e.P)),
            ("kw ≤ kW", LE(lambda e: e.k * e.w, lambda e: e.k * e.Wc))],
        "conclusion": LE(lambda e: psi(e.kap, e.sg, e.u, e.z, e.w, e.r, e.rho, e.d, e.n, e.k),
                         lambda e: psi(e.kap, e.s1, e.U, e.z1, e.Wc, e.R, e.P, e.d, e.n, e.k)),
    }


def superadditive_reference() -> dict:
    S = lambda e: e.s1 + e.s2  # noqa: E731
    return {
        "premises": [*(NN(x) for x in "s1 s2 z1 z2 w1 w2 u1 u2 k kap".split()),
                     LE(lambda e: 1, lambda e: e.d), LE(lambda e: 1, lambda e: e.n),
                     NN("r1"), EQ(lambda e: e.r1 ** 2, lambda e: e.z1),
                     NN("r2"), EQ(lambda e: e.r2 ** 2, lambda e: e.z2),
                     NN("r"), EQ(lambda e: e.r ** 2, lambda e: e.z1 + e.z2),
                     NN("p1"), EQ(lambda e: e.p1 ** 2, lambda e: e.u1 * e.s1 * e.w1),
                     NN("p2"), EQ(lambda e: e.p2 ** 2, lambda e: e.u2 * e.s2 * e.w2),
                     NN("p"), EQ(lambda e: e.p ** 2, lambda e: (e.u1 + e.u2) * S(e) * (e.w1 + e.w2))],
        "steps": [
            ("s1² + s2² ≤ (s1+s2)²", LE(lambda e: e.s1 ** 2 + e.s2 ** 2, lambda e: S(e) ** 2)),
            ("κs1²/(4d) + κs2²/(4d) ≤ κ(s1+s2)²/(4d)", _sq_term()),
            ("u1s1 + u2s2 ≤ (u1+u2)(s1+s2)",
             LE(lambda e: e.u1 * e.s1 + e.u2 * e.s2, lambda e: (e.u1 + e.u2) * S(e))),
            ("u1s1/n + u2s2/n ≤ (u1+u2)(s1+s2)/n", _pairs_term()),
            ("√z1 ≤ √(z1+z2)", LE(lambda e: e.r1, lambda e: e.r)),
            ("√z2 ≤ √(z1+z2)", LE(lambda e: e.r2, lambda e: e.r)),
            ("s1√z1 + s2√z2 ≤ (s1+s2)√(z1+z2)",
             LE(lambda e: e.s1 * e.r1 + e.s2 * e.r2, lambda e: S(e) * e.r)),
            ("√(u1s1w1) + √(u2s2w2) ≤ √((u1+u2)(s1+s2)(w1+w2))",
             LE(lambda e: e.p1 + e.p2, lambda e: e.p))],
        "conclusion": AND(_sq_term(), _pairs_term(),
                          LE(lambda e: mn(e.s1 * e.r1 / 2, (e.d - 1) * e.z1)
                             + mn(e.s2 * e.r2 / 2, (e.d - 1) * e.z2),
                             lambda e: mn(S(e) * e.r / 2, (e.d - 1) * (e.z1 + e.z2))),
                          LE(lambda e: mn(e.p1, e.k * e.w1) + mn(e.p2, e.k * e.w2),
                             lambda e: mn(e.p, e.k * (e.w1 + e.w2)))),
    }


def _sq_term():
    return LE(lambda e: e.kap * e.s1 ** 2 / (4 * e.d) + e.kap * e.s2 ** 2 / (4 * e.d),
              lambda e: e.kap * (e.s1 + e.s2) ** 2 / (4 * e.d))


def _pairs_term():
    return LE(lambda e: e.u1 * e.s1 / e.n + e.u2 * e.s2 / e.n,
              lambda e: (e.u1 + e.u2) * (e.s1 + e.s2) / e.n)


# ---- the sampling plans: base variables and the root variables' radicands -------------------
def _fwd_sig(e):
    return e.aQ + e.bK + e.bV


def _bwd_sig(e):
    return e.aQ + e.bK + e.aO + e.bV


def _root(name: str, f: Callable) -> tuple:
    return (name, f, "root")


def _often(name: str, f: Callable) -> tuple:
    return (name, f, "often")


_FWD = [_often("a", lambda e: min(e.a, e.aQ)), _often("b", lambda e: min(e.b, e.bK)),
        _often("Z", lambda e: min(e.Z, e.z)),
        _root("y1", lambda e: e.aQ * e.bK * e.Z), _root("y2", lambda e: e.u * e.bV * e.w),
        _root("r", lambda e: e.z), _root("rho", lambda e: e.u * _fwd_sig(e) * e.w),
        _often("QKf", lambda e: min(e.QKf, e.a * e.b / e.d)),
        _often("PVfr", lambda e: min(e.PVfr, e.a * e.bV / e.d)),
        _often("PVch", lambda e: min(e.PVch, e.u * e.bV / e.n)),
        _often("QKp", lambda e: min(e.QKp, e.y1, (e.d - 1) * e.Z)),
        _often("PVp", lambda e: min(e.PVp, e.y2, e.k * e.w))]


def _bwd(rc: bool) -> list[tuple]:
    return [
        _often("w", lambda e: max(e.w, e.cV + e.cQ + e.cK)),
        _often("z", lambda e: max(e.z, e.Zs + e.Zp)),
        _often("rowsum", lambda e: min(e.rowsum, F(5, 16) * _bwd_sig(e) ** 2 / e.d if rc
                                       else e.aO * e.bV / e.d)),
        _often("Gf", lambda e: min(e.Gf, e.u * (e.aO + e.bK + e.aQ) / e.n)),
        _root("y1", lambda e: e.aQ * e.bK * e.Zs if rc else 0),
        _root("y2", lambda e: e.aO * e.bV * e.Zp), _root("r", lambda e: e.z),
        _root("SP", lambda e: (e.aQ + e.aO) * (e.bK + e.bV) * (e.Zs + e.Zp)),
        _root("rho", lambda e: e.u * _bwd_sig(e) * e.w),
        _root("gradsu", lambda e: e.u), _root("grade1", lambda e: e.aO * e.cV),
        _root("grade2", lambda e: e.bK * e.cQ), _root("grade3", lambda e: e.aQ * e.cK),
        _root("gradE12", lambda e: (e.aO + e.bK) * (e.cV + e.cQ)),
        _root("gradE", lambda e: (e.aO + e.bK + e.aQ) * (e.cV + e.cQ + e.cK)),
        _often("Pp", lambda e: min(e.Pp, e.y1 + e.y2, (e.d - 1) * (e.Zs + e.Zp))),
        *(_often(f"gradg{i}", lambda e, i=i, c=c: min(getattr(e, f"gradg{i}"),
                                                     e.gradsu * getattr(e, f"grade{i + 1}"),
                                                     e.k * getattr(e, c)))
          for i, c in enumerate(("cV", "cQ", "cK")))]


_CELL = [_often("s0", lambda e: min(e.s0, e.sg)), _often("s1", lambda e: max(e.s1, e.sg)),
         _often("z0", lambda e: min(e.z0, e.z)), _often("z1", lambda e: max(e.z1, e.z)),
         _often("u", lambda e: min(e.u, e.z)), _often("S", lambda e: max(e.S, e.sg + e.u)),
         _often("T", lambda e: max(e.T, e.sg + e.z + e.w)),
         _often("Wc", lambda e: e.T - e.s0 - e.z0), _often("U", lambda e: min(e.z1, e.S - e.s0)),
         _root("r", lambda e: e.z), _root("R", lambda e: e.z1),
         _root("rho", lambda e: e.u * e.sg * e.w), _root("P", lambda e: e.U * e.s1 * e.Wc)]

_BWD_BASE = "aQ bK aO bV u z Zs Zp d n k cV cQ cK w rowsum Gf Pp gradg0 gradg1 gradg2".split()

PLANS: dict[str, tuple[Callable[[], Chain], Callable[[], dict], list[str], list, tuple]] = {
    "forward": (jl.forward_chain, forward_reference,
                "aQ bK bV a b u z Z w d n k QKf PVfr PVch QKp PVp".split(), _FWD, ("d", "n")),
    "given-scores": (lambda: jl.backward_chain("given-scores"),
                     lambda: backward_reference("given-scores"), _BWD_BASE, _bwd(False),
                     ("d", "n")),
    "recompute": (lambda: jl.backward_chain("recompute"), lambda: backward_reference("recompute"),
                  _BWD_BASE, _bwd(True), ("d", "n")),
    "rows": (jl.rows_chain, rows_reference, "a aO b bV p q".split(),
             # p, q one of their two values, the smaller mostly
             [_often("p", lambda e: e.rng.choice([min(e.a, e.aO)] * 2 + [e.a, e.aO])),
              _often("q", lambda e: e.rng.choice([min(e.b, e.bV)] * 2 + [e.b, e.bV]))], ()),
    "cube": (jl.cube_chain, cube_reference, "X Y Z T a b bV u s".split(),
             [_often("T", lambda e: max(e.T, e.X + e.Y + e.Z)),
              _often("s", lambda e: max(e.s, e.a + e.b + e.bV + e.u)),
              _root("y", lambda e: e.X * e.Y * e.Z), _root("t", lambda e: e.T ** 3 / 27)], ()),
    "cell": (jl.cell_chain, cell_reference, "sg z w u s0 s1 z0 z1 S T U Wc d n k kap".split(),
             _CELL, ("d", "n")),
    "superadditive": (jl.superadditive_chain, superadditive_reference,
                      "s1 s2 z1 z2 w1 w2 u1 u2 d n k kap".split(),
                      [_root("r1", lambda e: e.z1), _root("r2", lambda e: e.z2),
                       _root("r", lambda e: e.z1 + e.z2),
                       _root("p1", lambda e: e.u1 * e.s1 * e.w1),
                       _root("p2", lambda e: e.u2 * e.s2 * e.w2),
                       _root("p", lambda e: (e.u1 + e.u2) * (e.s1 + e.s2) * (e.w1 + e.w2))],
                      ("d", "n")),
}

def _chain(name: str) -> Chain:
    """The chain, built afresh in each test: benchmarks/mutation.py forks each mutant's run
    from a process that ran the original, so a cached chain would hide the mutant."""
    return PLANS[name][0]()


# ==============================================================================================
# The chains: shape, soundness, the cap's formula
# ==============================================================================================
@pytest.mark.parametrize("name", list(PLANS))
def test_each_chain_is_its_reference_premise_by_premise_and_step_by_step(name: str) -> None:
    """Rule: every premise, every step's conclusion (under its name) and the conclusion of
    each joint chain is, as a function of its variables, the formula of the docstrings and
    notes/gap.md (comparisons up to a positive factor, at seeded random rational points)."""
    _, reference, *_ = PLANS[name]
    assert shape_problems(_chain(name), reference()) == []


@pytest.mark.parametrize("name", list(PLANS))
def test_each_step_follows_from_its_hypotheses_at_random_points(name: str) -> None:
    """Rule: each step H ⇒ C is valid: at every sampled point (square-root variables the roots
    of their radicands, one or two variables of the step off) where its hypotheses hold, its
    conclusion holds; and the sampling has power (every step's hypotheses hold at several
    points)."""
    chain = _chain(name)
    problems, hits = step_problems(chain, PLANS[name][2:], count=_COUNT[name])
    assert problems == []
    assert len(hits) == len(chain.steps) and min(hits.values()) >= 5, hits


#: Sampled points per step (the backward chains' points are the dearest).
_COUNT = {"forward": 60, "given-scores": 30, "recompute": 30, "rows": 200, "cube": 100,
          "cell": 60, "superadditive": 60}


@pytest.mark.parametrize("name", list(PLANS))
def test_twin__every_step_without_its_hypotheses_is_caught(name: str) -> None:
    """Planted twins: each step of each chain with its hypotheses dropped fails at a sampled
    point (no step is a tautology the sampler could not tell from its twin)."""
    chain = _chain(name)
    for step in chain.steps:
        bare = chain.replacing(step.name, Step(step.name, step.conclusion, ()))
        problems, _ = step_problems(bare, PLANS[name][2:], count=_COUNT[name], only=step.name)
        assert problems, step.name


def test_twin__shape_checker_rejects_planted_chains() -> None:
    """Planted twin the shape check must reject: the forward chain with free PV leaves from
    the entries of Q (a changed premise); accepted against the reference that says so."""
    assert any("premises differ" in p for p in shape_problems(jl.forward_chain(free_rows=False),
                                                               forward_reference()))
    assert shape_problems(jl.forward_chain(free_rows=False),
                          forward_reference(free_rows=False)) == []


def test_twin__shape_checker_rejects_planted_constants() -> None:
    """Planted twins: the recompute chain with κ = 1 (its rows step and its conclusion), the
    rows chain with 1/4, the cube chain with 32 (accepted against a reference with 32)."""
    probs = shape_problems(jl.backward_chain("recompute", kappa=F(1)),
                           backward_reference("recompute"))
    assert "the conclusion differs" in probs and "step 'rows ≤ κσ²/(4d)': conclusion differs" in probs
    assert "the conclusion differs" in shape_problems(jl.rows_chain(coefficient=F(1, 4)),
                                                      rows_reference())
    assert shape_problems(jl.cube_chain(factor=32), cube_reference()) != []
    assert shape_problems(jl.cube_chain(factor=32), cube_reference(32)) == []


def test_twin__shape_checker_rejects_planted_premises_and_steps() -> None:
    """Planted twins: the cell chain with w at its lower corner (a premise), a renamed step, a
    weakened step (σr·2 in place of σr/2)."""
    assert any("premises" in p for p in shape_problems(jl.cell_chain(lower_w=True),
                                                       cell_reference()))
    fwd = jl.forward_chain()
    old = fwd.step("√(u bV w) ≤ √(uσw)")
    renamed = fwd.replacing(old.name, Step("√(u bV w) ≤ √(uσW)", old.conclusion, old.hypotheses))
    assert any("step names" in p for p in shape_problems(renamed, forward_reference()))
    aQ, bK, bV, QKp, d, z, r = (z3.Real(x) for x in "aQ bK bV QKp d z r".split())
    sig = aQ + bK + bV
    weak = fwd.replacing("partial QK ≤ min((σ/2)√z, (d−1)z)", Step(
        "partial QK ≤ min((σ/2)√z, (d−1)z)",
        QKp <= z3.If(sig * r * 2 <= (d - 1) * z, sig * r * 2, (d - 1) * z), ()))
    assert shape_problems(weak, forward_reference()) == [
        "step 'partial QK ≤ min((σ/2)√z, (d−1)z)': conclusion differs"]


def test_twin__step_sampler_rejects_planted_steps() -> None:
    """Planted twins the sampler must reject: the cell chain's √(uσw) ≤ √(U·s1·W) without its
    radicand premises, the cube chain with the AM–GM constant 32."""
    cell = _chain("cell")
    step = cell.step("√(uσw) ≤ √(U·s1·W)")
    bare = cell.replacing(step.name, Step(step.name, step.conclusion, step.hypotheses[:1]))
    assert any(step.name in p for p in step_problems(bare, PLANS["cell"][2:], 60)[0])
    assert any("32XYZ" in p for p in step_problems(jl.cube_chain(factor=32), PLANS["cube"][2:],
                                                   100)[0])


# ---- the conclusions are the caps' formulas --------------------------------------------------
def _square_points(rng: random.Random, count: int):
    """Integer (d, n, k, S, T, σ, z) with z, uσw squares (u = min(z, S − σ), w = T − σ − z):
    Ψ exactly rational at each."""
    got = 0
    while got < count:
        d, nf, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 12)
        S = rng.randint(1, 30)
        T = S + rng.randint(0, 30)
        sigma = rng.randint(0, S)
        r = rng.randint(0, isqrt(T - sigma))
        z = r * r
        w, u = T - sigma - z, min(z, S - sigma)
        if u < 0 or isqrt(u * sigma * w) ** 2 != u * sigma * w:
            continue
        got += 1
        yield d, nf, k, S, T, sigma, z, r, w, u, isqrt(u * sigma * w)


@pytest.mark.parametrize("name,cls", [("forward", "forward"), ("recompute", "recompute"),
                                      ("given-scores", "given-scores")])
def test_each_face_chain_concludes_the_psi_its_cap_checks(name: str, cls: str) -> None:
    """Rule: the forward / backward chain's conclusion is ``leaves ≤ Ψ_κ(σ, z, w, u)`` with the
    κ of JOINT_CLASSES[class] and Ψ the function psi_at_most compares the cap with: at integer
    points where Ψ is rational, psi_at_most(⌈Ψ⌉) holds and psi_at_most(⌈Ψ⌉ − 1) does not."""
    from attnio.bounds.joint import JOINT_CLASSES
    from attnio.proofs.joint_routes import psi_at_most

    chain = _chain(name)
    rhs = _compile(chain.conclusion.children()[1])
    kappa = JOINT_CLASSES[cls][1]
    rng = random.Random(sum(map(ord, name)))
    zero = {x: F(0) for x in _names(chain)}
    for d, nf, k, S, T, sigma, z, r, w, u, rho in _square_points(rng, 40):
        v = dict(zero)
        # σ split over the chain's operands (Ψ depends on their sum only)
        ops = ["aQ", "bK", "bV"] if name == "forward" else ["aQ", "bK", "aO", "bV"]
        v.update({ops[0]: F(sigma)})
        v.update(d=F(d), n=F(nf), k=F(k), u=F(u), z=F(z), w=F(w), r=F(r), rho=F(rho))
        value = rhs(v)
        ceil = -(-value.numerator // value.denominator)
        assert psi_at_most(ceil, d, nf, k, kappa, S, T, sigma, z), (name, d, nf, k, S, T, sigma, z)
        assert not psi_at_most(ceil - 1, d, nf, k, kappa, S, T, sigma, z), (name, S, T, sigma, z)


def test_twin__psi_link_rejects_a_wrong_kappa() -> None:
    """Planted twin: the recompute chain with κ = 1 concludes a Ψ that psi_at_most(κ = 5/4)
    does not match at some point."""
    from attnio.proofs.joint_routes import psi_at_most
    rhs = _compile(jl.backward_chain("recompute", kappa=F(1)).conclusion.children()[1])
    rng = random.Random(5)
    mismatched = False
    zero = {x: F(0) for x in _names(_chain("recompute"))}
    for d, nf, k, S, T, sigma, z, r, w, u, rho in _square_points(rng, 40):
        v = dict(zero)
        v.update(aQ=F(sigma), d=F(d), n=F(nf), k=F(k), u=F(u), z=F(z), w=F(w), r=F(r),
                 rho=F(rho))
        value = rhs(v)
        ceil = -(-value.numerator // value.denominator)
        mismatched |= not (psi_at_most(ceil, d, nf, k, (5, 4), S, T, sigma, z)
                           and not psi_at_most(ceil - 1, d, nf, k, (5, 4), S, T, sigma, z))
    assert mismatched


def test_the_cell_chain_bounds_what_joint_cell_bound_rounds_up() -> None:
    """Rule: the cell chain's right side, at a cell's U = min(z1, S − s0), W = T − s0 − z0 and
    κ of a class, is what joint_cell_bound rounds up term by term: bound − 4 < rhs ≤ bound."""
    from attnio.bounds.joint import joint_cell_bound
    rhs = _compile(_chain("cell").conclusion.children()[1])
    rng = random.Random(17)
    checked = 0
    while checked < 60:
        d, nf, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 9)
        kappa = rng.choice([(1, 1), (5, 4)])
        S = rng.randint(1, 40)
        T = S + rng.randint(0, 40)
        s0 = rng.randint(0, S)
        s1 = rng.randint(s0, S)
        R = rng.randint(0, isqrt(T))
        z1 = R * R
        z0 = rng.randint(0, z1)
        if s0 + z0 > T:
            continue
        U, W = min(z1, S - s0), T - s0 - z0
        if isqrt(U * s1 * W) ** 2 != U * s1 * W:
            continue
        checked += 1
        v = {"kap": F(*kappa), "s1": F(s1), "U": F(U), "z1": F(z1), "Wc": F(W), "R": F(R),
             "P": F(isqrt(U * s1 * W)), "d": F(d), "n": F(nf), "k": F(k)}
        bound = joint_cell_bound(d, nf, k, kappa, S, T, s0, s1, z0, z1)
        assert bound - 4 < rhs(v) <= bound, (d, nf, k, kappa, S, T, s0, s1, z0, z1)


def test_the_superadditive_terms_add_up_to_psi() -> None:
    """Rule: the superadditive chain's four conjuncts are Ψ's four terms: their left sides add
    up to Ψ(σ1, z1, w1, u1) + Ψ(σ2, z2, w2, u2), their right sides to Ψ(σ1+σ2, …) (random
    points, roots exact by construction)."""
    conj = _chain("superadditive").conclusion.children()
    lhs = [_compile(c.children()[0]) for c in conj]
    rhs = [_compile(c.children()[1]) for c in conj]
    rng = random.Random(23)
    for _ in range(40):
        r1, r2 = F(rng.randint(0, 6), rng.randint(1, 3)), F(rng.randint(0, 6), rng.randint(1, 3))
        q1, q2 = F(rng.randint(0, 5)), F(rng.randint(0, 5))   # p_i = q_i·… : u_i s_i w_i squares
        s1, s2 = F(rng.randint(0, 9)), F(rng.randint(0, 9))
        v = {"s1": s1, "s2": s2, "z1": r1 * r1, "z2": r2 * r2, "r1": r1, "r2": r2,
             "r": _sqrt(r1 * r1 + r2 * r2), "u1": q1, "u2": q2, "w1": q1 * s1, "w2": q2 * s2,
             "p1": q1 * s1 * q1, "p2": q2 * s2 * q2, "d": F(rng.randint(1, 9)),
             "n": F(rng.randint(1, 9)), "k": F(rng.randint(0, 9)), "kap": rng.choice([F(1), F(5, 4)])}
        v["p"] = _sqrt((q1 + q2) * (s1 + s2) * (q1 * s1 + q2 * s2))
        one = lambda i, v=v: psi(v["kap"], v[f"s{i}"], v[f"u{i}"], v[f"z{i}"], v[f"w{i}"],  # noqa: E731
                            v[f"r{i}"], v[f"p{i}"], v["d"], v["n"], v["k"])
        both = psi(v["kap"], s1 + s2, q1 + q2, v["z1"] + v["z2"], v["w1"] + v["w2"], v["r"],
                   v["p"], v["d"], v["n"], v["k"])
        assert sum(f(v) for f in lhs) == one(1) + one(2)
        assert sum(f(v) for f in rhs) == both


# ==============================================================================================
# bounds/joint.py — the cap, its cells, its search, its interval bound
# ==============================================================================================
def test_joint_cap_names_the_unknown_class_and_the_known_ones() -> None:
    """Rule: an unknown computation class is refused with a message naming it and every class
    of JOINT_CLASSES; a known one is accepted (twin)."""
    from attnio.bounds.joint import JOINT_CLASSES, joint_cap
    from attnio.exceptions import InvalidInputError
    with pytest.raises(InvalidInputError) as err:
        joint_cap("backwards", 8, 4)
    message = str(err.value)
    assert "'backwards'" in message and all(c in message for c in JOINT_CLASSES)
    assert joint_cap("recompute", 8, 4).computation == "recompute"


def test_joint_cell_bound_is_zero_on_an_empty_cell_and_the_extremes_elsewhere() -> None:
    """Rule (joint_cell_bound's docstring): 0 when the cell holds no feasible point
    (s0 > S or s0 + z0 > T); otherwise Ψ's terms at σ = s1, z = z1, w = T − s0 − z0,
    u = min(z1, S − s0), each rounded up (an exact reference: ⌈√·⌉ by isqrt)."""
    from attnio.bounds.joint import joint_cell_bound

    def ceil_div(a: int, b: int) -> int:
        return -(-a // b)

    def ceil_sqrt(x: int) -> int:
        r = isqrt(x)
        return r + (r * r != x)

    rng = random.Random(3636)
    empty = 0
    for _ in range(300):
        d, nf, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 9)
        kappa = rng.choice([(1, 1), (5, 4)])
        S = rng.randint(1, 30)
        T = S + rng.randint(0, 30)
        s0 = rng.randint(0, S + 3)
        s1 = s0 + rng.randint(0, 5)
        z0 = rng.randint(0, T + 3)
        z1 = z0 + rng.randint(0, 5)
        got = joint_cell_bound(d, nf, k, kappa, S, T, s0, s1, z0, z1)
        if s0 > S or s0 + z0 > T:
            empty += 1
            assert got == 0, (S, T, s0, z0)
            continue
        w, u = T - s0 - z0, min(z1, S - s0)
        want = (ceil_div(kappa[0] * s1 * s1, 4 * d * kappa[1]) + ceil_div(u * s1, nf)
                + min(ceil_div(ceil_sqrt(s1 * s1 * z1), 2), (d - 1) * z1)
                + min(ceil_sqrt(u * s1 * w), k * w))
        assert got == want, (d, nf, k, kappa, S, T, s0, s1, z0, z1)
    assert empty >= 10


def _search_replay_problem(search, d: int, M: int, L: int, nf: int, k: int, kappa) -> str | None:
    """Replays joint_search's rule on its certificate: cells visited in order (the initial
    grid, then each split's children), the best value of Ψ at each visited cell's point
    (σ = s0, z = min(z1, T − s0)) where its bound is nonzero; each split is of the open cell
    with the largest bound (ties: the smallest cell), made only while that bound exceeds
    best + best // JOINT_GAP + 2, fewer than JOINT_EVALS bounds were evaluated and the cell is
    not a point; the search stops as soon as one of these fails; cap = max(1, best, the top
    open bound)."""
    import heapq

    from attnio.bounds.joint import JOINT_EVALS, JOINT_GAP, joint_cell_bound, joint_point_value
    S, T = M + L, 2 * M + L
    state = {"best": 0, "evals": 0}
    open_: list = []           # a heap of (−bound, cell): the top is the largest bound
    leaves: list = []          # cells never split, in the order the search records them

    def visit(cell) -> None:
        state["evals"] += 1
        ub = joint_cell_bound(d, nf, k, kappa, S, T, *cell)
        if ub:
            state["best"] = max(state["best"], joint_point_value(
                d, nf, k, kappa, S, T, cell[0], min(cell[3], T - cell[0])))
        if ub > state["best"]:
            heapq.heappush(open_, (-ub, cell))
        else:
            leaves.append(cell)

    def must_stop() -> bool:
        ub, cell = open_[0]
        best = state["best"]
        return (-ub <= best + best // JOINT_GAP + 2 or state["evals"] >= JOINT_EVALS
                or (cell[1] - cell[0] <= 1 and cell[3] - cell[2] <= 1))

    for cell in search.initial:
        visit(cell)
    for parent, children in search.splits:
        if not open_ or must_stop():
            return f"split of {parent} after the search should have stopped"
        if parent != open_[0][1]:
            return f"split of {parent}, not of the open cell with the largest bound"
        heapq.heappop(open_)
        for child in children:
            visit(child)
    if open_ and not must_stop():
        return "the search stopped while its top cell was still worth splitting"
    if search.best != state["best"]:
        return f"best {search.best} != replayed {state['best']}"
    if search.cap != max(1, state["best"], -open_[0][0] if open_ else 0):
        return "the cap is not max(1, best, the top open bound)"
    # the leaves: the cells whose bound was at most the best value when visited, in visit
    # order, then the open cells (heap order); the cap is at least every leaf's bound
    if list(search.leaves) != leaves + [cell for _, cell in open_]:
        return "the leaves are not the cells at most best when visited, then the open cells"
    for cell in search.leaves:
        if joint_cell_bound(d, nf, k, kappa, S, T, *cell) > search.cap:
            return f"the leaf {cell} has a bound above the cap {search.cap}"
    return None


_SEARCHES = [(16, 100, 200, 4096, 4095, (1, 1)), (64, 1024, 2048, 4096, 4095, (5, 4)),
             (4, 6, 10, 8, 7, (1, 1)), (64, 11216, 22432, 63, 255, (1, 1)),
             (1, 3, 9, 2, 1, (5, 4)), (256, 4, 64, 63, 255, (1, 1)),
             # sizes whose top cell lands within 2 of best + best/600 (the stopping margin)
             (2, 566, 2264, 63, 255, (1, 1)), (16, 534, 1068, 4096, 255, (5, 4)),
             (2, 143, 2288, 63, 8, (1, 1)),
             # tiny sizes: bounds of 1 and 0 (the best value starts at 0)
             (1, 1, 4, 1, 2, (1, 1)), (3, 1, 2, 1, 2, (5, 4)), (4, 4, 4, 5, 1, (1, 1)),
             (2, 1, 1, 2, 0, (5, 4))]


def test_joint_search_follows_its_best_first_rule() -> None:
    """Rule: joint_search's certificate replays (:func:`_search_replay_problem`): best-first
    splits, the stopping test best + best/600 + 2, the best value and the cap; one search
    stops on the gap and one on the evaluation budget."""
    from attnio.bounds.joint import JOINT_EVALS, joint_search
    reasons = set()
    rng = random.Random(3638)      # small sizes: best // 600 = 0, the "+ 2" decides
    small = [(rng.randint(1, 9), rng.randint(1, 12), rng.randint(1, 40), rng.randint(1, 9),
              rng.randint(0, 9), rng.choice([(1, 1), (5, 4)])) for _ in range(30)]
    for args in _SEARCHES + small:
        search = joint_search(*args)
        assert _search_replay_problem(search, *args) is None, args
        evals = len(search.initial) + sum(len(c) for _, c in search.splits)
        reasons.add(evals >= JOINT_EVALS)
    assert reasons == {True, False}


def test_twin__search_replay_rejects_a_planted_certificate() -> None:
    """Planted twins: one split too many (the search should have stopped), a split dropped
    (it stopped too soon), a cap one above its rule."""
    import dataclasses

    from attnio.bounds.joint import joint_search
    args = (16, 100, 200, 4096, 4095, (1, 1))
    honest = joint_search(*args)
    assert len(honest.splits) >= 2
    fewer = dataclasses.replace(honest, splits=honest.splits[:-1])
    assert "still worth splitting" in _search_replay_problem(fewer, *args)
    assert "cap" in _search_replay_problem(dataclasses.replace(honest, cap=honest.cap + 1), *args)
    # a leaf list out of its order, and a cap below a leaf's bound (the search's leaves as
    # they are, the cap lowered to the best value: the open cells' bounds exceed it)
    rotated = dataclasses.replace(honest, leaves=honest.leaves[1:] + honest.leaves[:1])
    assert "leaves" in _search_replay_problem(rotated, *args)
    assert honest.cap > honest.best
    assert _search_replay_problem(dataclasses.replace(honest, cap=honest.best), *args) is not None
    parent, children = honest.splits[-1]
    child = max((c for c in children if c[1] - c[0] > 1), default=children[0])
    s0, s1, z0, z1 = child
    sm, zm = (s0 + s1) // 2, (z0 + z1) // 2
    more = dataclasses.replace(honest, splits=honest.splits + (
        (child, tuple((a, b, c, e) for a, b in ((s0, sm), (sm, s1)) for c, e in ((z0, zm), (zm, z1)))),))
    assert _search_replay_problem(more, *args) is not None


def test_the_interval_cap_of_one_M_is_its_initial_grid_bound() -> None:
    """Rule: joint_interval_cap over [M, M] is the largest joint_cell_bound of the search's
    initial cells at M (the docstring's argument with a = b); over [a, b] it is at least that
    at both ends and at most the interval's extreme bound computed from the grids at a and b
    (its docstring's formula)."""
    from attnio.bounds.joint import (
        JOINT_GRID,
        extreme_bound,
        joint_cell_bound,
        joint_interval_cap,
        joint_search,
    )
    rng = random.Random(3637)
    # (d, a, t, n_full, k, κ) with k = 0: the largest cell bound on the line s0 + z0 = T
    fixed = [(18, 1, 3, 13, 0, (5, 4)), (7, 5, 6, 9, 0, (1, 1))]
    for i in range(16):
        d, nf, k = rng.randint(1, 64), rng.randint(1, 64), rng.randint(0, 64)
        kappa = rng.choice([(1, 1), (5, 4)])
        a, t = rng.randint(1, 300), rng.randint(1, 6)
        b = a + rng.randint(0, 30)
        if i < len(fixed):
            d, a, t, nf, k, kappa = fixed[i]
            b = a
        for M in (a, b):
            S, T = (1 + t) * M, (2 + t) * M
            grid = max(joint_cell_bound(d, nf, k, kappa, S, T, *c)
                       for c in joint_search(d, M, t * M, nf, k, kappa).initial)
            assert joint_interval_cap(d, M, M, t, nf, k, kappa) == grid, (d, M, t)
        Sa, Ta, Sb, Tb = (1 + t) * a, (2 + t) * a, (1 + t) * b, (2 + t) * b
        want = max(extreme_bound(d, nf, k, kappa, Sb * (i + 1) // JOINT_GRID,
                                 Tb * (j + 1) // JOINT_GRID,
                                 Tb - Sa * i // JOINT_GRID - Ta * j // JOINT_GRID,
                                 min(Tb * (j + 1) // JOINT_GRID, Sb - Sa * i // JOINT_GRID))
                   for i in range(JOINT_GRID) for j in range(JOINT_GRID)
                   if Sa * i // JOINT_GRID + Ta * j // JOINT_GRID <= Tb)
        assert joint_interval_cap(d, a, b, t, nf, k, kappa) == want, (d, a, b, t)


# ==============================================================================================
# proofs/joint_routes.py — the cap's check, the routes' check, the claims
# ==============================================================================================
def _ctx():
    from attnio.proofs.registry import CheckContext
    return CheckContext()


_SMALL = [("forward", 8, 7, (1, 1))]


def test_the_cap_check_counts_every_certificate_and_integer_point() -> None:
    """Rule: gap.joint_cap's check runs one certificate per (class, size, L = t·M of
    SEGMENT_MULTIPLES) and compares every integer point σ ≤ S, z ≤ T − σ (S = M + L,
    T = 2M + L, L = M, 2M, 4M) with the cap; its evidence counts them (nontrivial: caps > 2,
    and one per point grid) and its message says what was checked."""
    from attnio.bounds.attention import SEGMENT_MULTIPLES
    from attnio.bounds.joint import joint_segment_cap
    from attnio.proofs.joint_routes import _joint_cap_check
    sizes, points = [(1, 3), (4, 5)], [(1, 1), (2, 3)]
    verdict = _joint_cap_check(_ctx(), classes=_SMALL, sizes=sizes, points=points, brute=[])
    assert verdict.proved and "certificates, integer points and brute-force" in verdict.detail
    _, nf, k, kappa = _SMALL[0]
    certs = len(sizes) * len(SEGMENT_MULTIPLES)
    big = sum(joint_segment_cap(d, M, t * M, nf, k, kappa) > 2
              for d, M in sizes for t in SEGMENT_MULTIPLES)
    pts = sum(1 for _, M in points for t in (1, 2, 4) for s in range((1 + t) * M + 1)
              for _z in range((2 + t) * M - s + 1))
    assert verdict.evidence.instances == certs + pts
    assert verdict.evidence.nontrivial_instances == big + len(points) * 3
    assert verdict.detail.startswith(f"{certs + pts} ")


def test_the_cap_check_refutations_name_their_case() -> None:
    """Rule: each refutation of gap.joint_cap's check carries the case as data — certificate:
    class, d, M, L, cap; integer point: those and sigma, z (a point where Ψ > cap); brute
    force: class, n, d, M, L, cap, brute_force — and says which check failed."""
    from attnio.proofs.joint_routes import _joint_cap_check
    v = _joint_cap_check(_ctx(), classes=_SMALL, sizes=[(4, 5)], points=[], brute=[],
                         shift=lambda cap: cap // 2)
    assert isinstance(v, Refuted) and set(v.counterexample) == {"class", "d", "M", "L", "cap"}
    assert v.counterexample["class"] == "forward" and v.counterexample["d"] == 4
    assert v.counterexample["M"] == 5 and v.counterexample["L"] % 5 == 0
    assert "certificate fails" in v.detail
    v = _joint_cap_check(_ctx(), classes=_SMALL, sizes=[], points=[(2, 3)], brute=[],
                         shift=lambda cap: 0)
    cx = v.counterexample
    assert isinstance(v, Refuted) and set(cx) == {"class", "d", "M", "L", "cap", "sigma", "z"}
    assert "exceeds the cap" in v.detail
    S, T = cx["M"] + cx["L"], 2 * cx["M"] + cx["L"]
    s, z = cx["sigma"], cx["z"]
    w, u = T - s - z, min(z, S - s)
    assert cx["d"] == 2 and 0 <= s <= S and 0 <= z <= T - s and cx["cap"] == 0
    assert s * s + u * s + s * s * z + u * s * w > 0          # Ψ > 0 = cap there
    v = _joint_cap_check(_ctx(), classes=[], brute=[("forward", 1, 2)],
                         cap_of=lambda cls, n, d: lambda d_, M, L: 0)
    assert isinstance(v, Refuted) and set(v.counterexample) == {"class", "n", "d", "M", "L", "cap",
                                                   "brute_force"}
    assert v.counterexample["brute_force"] > v.counterexample["cap"] == 0
    assert "more designated leaves than the cap" in v.detail


def test_the_single_product_cap_is_segment_product_cap() -> None:
    """Rule: the twin's cap _single_cap(cls, n, d) is one product's segment_product_cap at the
    given (d, M, L), whatever the class."""
    from attnio.bounds.attention import segment_product_cap
    from attnio.proofs.joint_routes import _single_cap
    for d, M, L in [(1, 2, 6), (4, 10, 30), (64, 1024, 4096)]:
        assert _single_cap("recompute", 2, 1)(d, M, L) == segment_product_cap(d, M, L)


_TINY_ROUTES = [("forward", 8, 4, 6, 1, 1, 1), ("backward", 8, 4, 6, 1, 1, 1),
                ("backward", 1, 1, 100, 1, 1, 1), ("forward", 8, 4, 6, 2, 2, 1),
                ("backward", 16, 64, 100, 2, 4, 2)]   # two query heads per K/V head: the group


def test_the_route_check_counts_every_route(monkeypatch) -> None:
    """Rule: gap.joint_route's check compares each (pass, class) of its grid — counted, the
    nontrivial ones those with a positive route (recomputed here with each class's cap at the
    grid's group H/G) — and says so."""
    import attnio.proofs.joint_routes as module
    from attnio.bounds.attention import SEGMENT_MULTIPLES
    from attnio.bounds.joint import JOINT_CLASSES, joint_cap
    monkeypatch.setattr(module, "_ROUTE_GRID", _TINY_ROUTES)
    v = module._joint_route_check(_ctx())
    cases = [(p, n, d, M, B, H, G, cls) for p, n, d, M, B, H, G in _TINY_ROUTES
             for cls in (("forward",) if p == "forward" else ("recompute", "given-scores"))]
    positive = sum(max(t * M * max(0, -(-JOINT_CLASSES[c][0] * B * H * n * n * d
                                        // joint_cap(c, n, d, group=H // G)(d, M, t * M)) - 1)
                       for t in SEGMENT_MULTIPLES) > 0
                   for _, n, d, M, B, H, G, c in cases)
    assert 0 < positive < len(cases)
    assert v.proved and v.detail.startswith(f"{len(cases)} joint routes (single head and stacked)")
    assert v.evidence.instances == len(cases) and v.evidence.nontrivial_instances == positive


def test_the_route_check_refutes_with_the_case(monkeypatch) -> None:
    """Rule: a refutation of gap.joint_route's check carries the case: a stacked route off its
    formula (pass, n, d, M, batch, heads, kv_heads, class, routes, recomputed), one head
    differing from the single-head route (pass, n, d, M, class, single, stacked); each says
    which."""
    import attnio.proofs.joint_routes as module
    from attnio.bounds.joint import JOINT_CLASSES
    monkeypatch.setattr(module, "_ROUTE_GRID", _TINY_ROUTES)
    v = module._joint_route_check(_ctx(), products=lambda cls: JOINT_CLASSES[cls][0] + 1)
    assert isinstance(v, Refuted) and set(v.counterexample) == {"pass", "n", "d", "M", "batch", "heads",
                                                   "kv_heads", "class", "routes", "recomputed"}
    assert v.counterexample["routes"] != v.counterexample["recomputed"]
    assert "is not max_L" in v.detail
    real = module.joint_routes
    monkeypatch.setattr(module, "joint_routes", lambda *a: [
        type("R", (), {"value": r.value + 1})() for r in real(*a)])
    v = module._joint_route_check(_ctx())
    assert isinstance(v, Refuted) and set(v.counterexample) == {"pass", "n", "d", "M", "class", "single",
                                                   "stacked"}
    assert v.detail == "one stacked head differs from the single-head route"


def test_every_joint_claim_is_reconstructed_ours_and_in_its_tier() -> None:
    """Rule: every claim and twin of the joint routes is RECONSTRUCTED (ours), of the family
    joint_routes with its source, in the default tier except the --deep one."""
    from attnio.proofs import joint_lemmas, joint_routes
    claims = [*joint_lemmas.CLAIMS, *joint_lemmas.FALSE_TWINS, *joint_routes.CLAIMS,
              *joint_routes.FALSE_TWINS]
    for c in claims:
        assert c.reconstructed is True and c.family == "joint_routes", c.id
        assert "notes/gap.md" in c.source, c.id
        assert c.tier == ("deep" if c.id.endswith("_deep") else "default"), c.id
    assert sum(c.tier == "deep" for c in claims) == 1


def test_joint_cap_names_the_argument_it_refuses() -> None:
    """Rule: a non-positive n, d or group is refused with a message naming that argument."""
    from attnio.bounds.joint import joint_cap
    from attnio.exceptions import InvalidInputError
    for kwargs, name in [(dict(n=0, d=4), "n"), (dict(n=8, d=0), "d"),
                         (dict(n=8, d=4, group=0), "group")]:
        with pytest.raises(InvalidInputError) as err:
            joint_cap("recompute", **kwargs)
        assert str(err.value).startswith(f"{name}=0 "), str(err.value)


def test_the_certificate_checker_names_a_non_grid() -> None:
    """Rule: initial cells whose cuts tile the region but that are not their grid (a cell
    twice) are refused as 'not a grid'; the honest certificate passes (twin)."""
    import dataclasses

    import attnio.proofs.joint_routes as module
    from attnio.bounds.joint import joint_search
    args = (4, 6, 10, 8, 7, (1, 1))
    honest = joint_search(*args)
    assert module._certificate_problem(*args, honest.cap) is None
    twice = dataclasses.replace(honest, initial=honest.initial + honest.initial[:1])
    real = module.joint_search
    try:
        module.joint_search = lambda *a: twice
        assert module._certificate_problem(*args, honest.cap) == "the initial cells are not a grid"
    finally:
        module.joint_search = real


def test_the_certificate_recomputes_joint_cell_bound_exactly() -> None:
    """Rule: the certificate's independent cell bound is joint_cell_bound, an int, at every
    random cell (both round every term up)."""
    from attnio.bounds.joint import joint_cell_bound
    from attnio.proofs.joint_routes import _reference_cell_bound
    rng = random.Random(3639)
    for _ in range(300):
        d, nf, k = rng.randint(1, 9), rng.randint(1, 9), rng.randint(0, 9)
        kappa = rng.choice([(1, 1), (5, 4)])
        S = rng.randint(1, 30)
        T = S + rng.randint(0, 30)
        s0, z0 = rng.randint(0, S + 2), rng.randint(0, T + 2)
        cell = (s0, s0 + rng.randint(0, 4), z0, z0 + rng.randint(0, 4))
        ref = _reference_cell_bound(d, nf, k, kappa, S, T, *cell)
        assert type(ref) is int and ref == joint_cell_bound(d, nf, k, kappa, S, T, *cell)


def test_every_joint_twin_names_its_claim_and_reason() -> None:
    """Rule: every false twin of the joint routes names the claim it shadows (an id of the
    same module's CLAIMS), expects a refutation and says the reason expected."""
    from attnio.proofs import joint_lemmas, joint_routes
    for module in (joint_lemmas, joint_routes):
        ids = {c.id for c in module.CLAIMS}
        for twin in module.FALSE_TWINS:
            assert twin.twin_of in ids and twin.expect_reason, twin.id
            assert twin.expect == "refuted", twin.id
        for c in module.CLAIMS:
            assert c.twin_of is None, c.id


def _tiny_witness_dag():
    """x, y → c; c, w → P; z an input of nothing: with M = 3, P needs a READ of w after c."""
    import networkx as nx
    G = nx.DiGraph([("x", "c"), ("y", "c"), ("c", "P"), ("w", "P")])
    G.add_node("z")
    return G


def _replay_witness(G, W, target, watched, M, cx) -> str | None:
    """The counterexample's moves under the segment's rules, from its start red set: a read
    of an input or a vertex outside W; a compute of a non-input with every predecessor red;
    at most M red; ends with the target red and its never_red inputs never red."""
    red = set(cx["start_red"])
    if len(red) > M or red & set(W):
        return "bad start"
    seen = red & set(watched)
    for move, v in cx["moves"]:
        if move == "read" and (G.in_degree(v) == 0 or v not in W) and v not in red:
            red.add(v)
        elif move == "compute" and G.in_degree(v) > 0 and set(G.predecessors(v)) <= red \
                and v not in red:
            red.add(v)
        elif move == "delete" and v in red:
            red.remove(v)
        else:
            return f"illegal move {(move, v)}"
        if len(red) > M:
            return "more than M red"
        seen |= red & set(watched)
    if target not in red or set(cx["never_red"]) & seen or not cx["never_red"]:
        return "the counterexample does not end as it says"
    return None


def test_the_witness_counterexample_replays_under_the_game_rules() -> None:
    """Rule: explore_witness's counterexample is a legal segment (inputs read, never
    computed; W never read; at most M red) reaching the target with a watched input never
    red; _witness_check refutes with the case as data (dag, W, target, M, start_red, moves,
    never_red) and proves the lemma's case with every state counted."""
    from attnio.proofs.joint_lemmas import _witness_check, explore_witness, score_tree_dag
    G, W = _tiny_witness_dag(), ["c", "P"]
    states, hits, cx = explore_witness(G, W, "P", ["x", "z"], 3)
    assert cx is not None and ("read", "w") in cx["moves"] and cx["never_red"] == ["z"]
    assert _replay_witness(G, W, "P", ["x", "z"], 3, cx) is None
    v = _witness_check(_ctx(), cases=[("tiny", _tiny_witness_dag, W, "P", ["x", "z"], 3)])
    assert isinstance(v, Refuted) and "were never red" in v.detail
    assert set(v.counterexample) == {"dag", "W", "target", "M", "start_red", "moves",
                                     "never_red"}
    assert v.counterexample["M"] == 3 and v.counterexample["dag"] == "tiny"
    case = ("tree", score_tree_dag, ["m0", "m1", "S", "P"], "P", ["q0", "q1", "k0", "k1"], 4)
    v = _witness_check(_ctx(), cases=[case])
    states, hits, cx = explore_witness(*[f() if callable(f) else f for f in case[1:2]], *case[2:])
    assert v.proved and cx is None and v.evidence.instances == states
    assert v.evidence.nontrivial_instances == hits > 0


def test_twin__witness_replay_rejects_an_illegal_segment() -> None:
    """Planted twins: a counterexample that computes an input, one that reads a W vertex."""
    G, W = _tiny_witness_dag(), ["c", "P"]
    cx = {"start_red": ["x", "y"], "never_red": ["z"],
          "moves": [("compute", "c"), ("delete", "x"), ("delete", "y"), ("compute", "w"),
                    ("compute", "P")]}
    assert "illegal" in _replay_witness(G, W, "P", ["x", "z"], 3, cx)
    cx = {"start_red": ["w"], "never_red": ["x", "z"], "moves": [("read", "P")]}
    assert "illegal" in _replay_witness(G, W, "P", ["x", "z"], 3, cx)


def test_joint_claim_makes_a_reconstructed_claim_in_its_tier() -> None:
    """Rule: joint_claim (called here, not only at import: the registry's CLAIMS were built
    before any mutant) gives a RECONSTRUCTED claim of the family joint_routes with the joint
    source, its tier (default unless told), its twin_of and expected reason."""
    from attnio.proofs.attention_routes import EXACT
    from attnio.proofs.joint_routes import _SRC, joint_claim
    plain = joint_claim("gap.test_plain", "s", "f", EXACT, lambda ctx: None)
    deep = joint_claim("gap.test_deep", "s", "f", EXACT, lambda ctx: None, tier="deep")
    twin = joint_claim("gap.twin.test", "s", "f", EXACT, lambda ctx: None,
                       twin_of="gap.test_plain", expect_reason="is false")
    for c in (plain, deep, twin):
        assert c.reconstructed is True and c.family == "joint_routes" and c.source == _SRC
    assert (plain.tier, deep.tier, twin.tier) == ("default", "deep", "default")
    assert plain.id == "gap.test_plain" and plain.twin_of is None
    assert twin.twin_of == "gap.test_plain" and twin.expect_reason == "is false"
