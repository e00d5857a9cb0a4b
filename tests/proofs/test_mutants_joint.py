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
from attnio.smt.chains import Chain, Step

pytestmark = pytest.mark.trust

F = Fraction
_ROOT_BITS = 100


# ==============================================================================================
# An evaluator of z3 terms over Fractions (independent of z3's own simplifier)
# ==============================================================================================
_K = z3  # the operator kinds: z3.Z3_OP_*


def _compile(e: z3.ExprRef, tol: Fraction = F(0)) -> Callable[[dict], object]:
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
    out: set[str] = set()

    def walk(e: z3.ExprRef) -> None:
        if z3.is_const(e) and e.decl().kind() == _K.Z3_OP_UNINTERPRETED:
            out.add(e.decl().name())
        for c in e.children():
            walk(c)
    for f in (*chain.premises, *(s.conclusion for s in chain.steps), chain.conclusion):
        walk(f)
    return out


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

        def off(x: str, honest: Fraction | None) -> Fraction:
            roll = rng.random()
            if x in positive:
                return rng.choice([F(1, 2), F(1, 3), F(-1), F(-2)])
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


def rows_reference(coefficient: Fraction = F(5, 16)) -> dict:
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

_CHAINS: dict[str, Chain] = {}


def _chain(name: str) -> Chain:
    if name not in _CHAINS:
        _CHAINS[name] = PLANS[name][0]()
    return _CHAINS[name]


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
    """Planted twins the shape check must reject: the forward chain with free PV leaves from
    the entries of Q (a changed premise), the recompute chain with κ = 1 (its steps and
    conclusion), the rows chain with 1/4, the cube chain with 32, the cell chain with w at its
    lower corner, a renamed step, a weakened step (σ r·2 in place of σ r/2)."""
    assert any("premises differ" in p for p in shape_problems(jl.forward_chain(free_rows=False),
                                                               forward_reference()))
    assert shape_problems(jl.forward_chain(free_rows=False),
                          forward_reference(free_rows=False)) == []
    probs = shape_problems(jl.backward_chain("recompute", kappa=F(1)),
                           backward_reference("recompute"))
    assert "the conclusion differs" in probs and "step 'rows ≤ κσ²/(4d)': conclusion differs" in probs
    assert "the conclusion differs" in shape_problems(jl.rows_chain(coefficient=F(1, 4)),
                                                      rows_reference())
    assert shape_problems(jl.cube_chain(factor=32), cube_reference()) != []
    assert shape_problems(jl.cube_chain(factor=32), cube_reference(32)) == []
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
        one = lambda i: psi(v["kap"], v[f"s{i}"], v[f"u{i}"], v[f"z{i}"], v[f"w{i}"],  # noqa: E731
                            v[f"r{i}"], v[f"p{i}"], v["d"], v["n"], v["k"])
        both = psi(v["kap"], s1 + s2, q1 + q2, v["z1"] + v["z2"], v["w1"] + v["w2"], v["r"],
                   v["p"], v["d"], v["n"], v["k"])
        assert sum(f(v) for f in lhs) == one(1) + one(2)
        assert sum(f(v) for f in rhs) == both
