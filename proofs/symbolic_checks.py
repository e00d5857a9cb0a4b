r"""The symbolic engineer's crossover, branch and dominance checks, as registry claims.

:mod:`attnio.symbolic.checks` states the symbolic claims of the catalogue — crossovers derived
by ``sympy.solveset`` (never typed in), which branch of each min wins on each side, and
exponent-space dominance (FlashAttention ÷ Algorithm 6, the sparse bound at the dense
instance, the extra :math:`nd^3, nd^2` terms) — with planted false twins. This module wraps
each of them as a :class:`~attnio.proofs.registry.Claim` so that ``attnio verify`` runs them
beside the z3 proofs. They are an independent second method for several z3 claims
(e.g. ``sym.crossover.bwd`` against ``bwd.tight.crossover_exact``; STYLE.md practice 9).

Families: ``symbolic.crossovers``, ``symbolic.branch``, ``symbolic.dominance`` (from the id's
first component). Claim ids are the symbolic ids prefixed with ``sym.``; twin ids are
``sym.twin.*``. Source and RECONSTRUCTED flag come from
:data:`attnio.symbolic.checks.SOURCES`.

Hollow claims are not wrapped (issue 20; each reason is in :data:`REMOVED`):
``dominance.sparse_dense.equals_reduced`` (srepr-identical after the dense substitution, the
kind ``sparse.lower.dense_case`` was removed for) and ``crossover.sparse_dense``
(:math:`Z_{in}^2/Z_{QK}` at :math:`Z_{in} = nd, Z_{QK} = n^2` is :math:`d^2` by sympy's automatic
simplification: nothing is derived), with their twins. ``branch.<b>.large`` and
``branch.<b>.small`` ran the same derivation (:func:`~attnio.symbolic.crossovers.branch_ratio`
gives both sides at once): they are merged into one claim ``sym.branch.<b>.sides``.

Run ``python -m attnio.proofs.symbolic_checks`` to check this family alone.

Examples
--------
>>> any(c.id == "sym.crossover.bwd" for c in CLAIMS)
True
>>> sorted({t.family for t in FALSE_TWINS})
['symbolic.branch', 'symbolic.crossover', 'symbolic.dominance']
"""

from __future__ import annotations

from typing import Callable

from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Verdict
from attnio.symbolic import checks as _checks

__all__ = ["CLAIMS", "FALSE_TWINS", "REMOVED"]

#: Symbolic claims (and twins) of attnio.symbolic.checks not registered, with the reason.
REMOVED: dict[str, str] = {
    "dominance.sparse_dense.equals_reduced": "srepr-identical after the dense substitution "
                                             "(as sparse.lower.dense_case): cannot fail",
    "crossover.sparse_dense": "Z_in**2/Z_QK at Z_in = n d, Z_QK = n**2 is d**2 by sympy's "
                              "automatic simplification: nothing is derived",
    "twin.crossover.sparse_dense_nd": "twin of the removed crossover.sparse_dense",
    "twin.dominance.sparse_dense_equals_bwd": "twin of the removed "
                                              "dominance.sparse_dense.equals_reduced",
}
#: Pairs of claims that ran one derivation, merged into one claim (id suffix ".sides").
_MERGED = {f"branch.{b}.{side}": f"branch.{b}.sides" for b in ("bwd", "fwd", "sparse")
           for side in ("large", "small")}

_METHOD = {
    "crossover": "sympy solveset",
    "branch": "sympy branch ratio",
    "dominance": "exponent-space sign",
}
#: What each kind of check rests on when its verdict does not say (see attnio.results.Evidence):
#: solveset/simplify identities are sympy-canonical; the exponent-space signs are decided by z3
#: on linear real arithmetic.
_EVIDENCE = {"crossover": "sympy-canonical", "branch": "sympy-canonical",
             "dominance": "smt-forall"}


# Each planted false claim of attnio.symbolic.checks -> the true claim it perturbs.
_TWIN_OF = {
    "twin.crossover.bwd_half": "crossover.bwd",
    "twin.crossover.fwd_at_d": "crossover.fwd",
    "twin.crossover.sparse_sqrt": "crossover.sparse",
    "twin.branch.bwd_ratio_square": "branch.bwd.ratio",
    "twin.branch.bwd_large_is_small": "branch.bwd.sides",
    "twin.branch.sparse_second_above": "branch.sparse.sides",
    "twin.dominance.flash_wins_small": "dominance.flash_vs_alg6.small_cache",
    "twin.dominance.tie_large": "dominance.flash_vs_alg6.large_cache",
    "twin.dominance.sparse_dense_all_n": "dominance.sparse_dense.same_order_bwd",
    "twin.dominance.extra_terms_always": "dominance.thm11_extra_terms.iff_n_ge_d",
}


def _wrap(sc: _checks.SymbolicClaim, *, twin: bool) -> Claim:
    kind = sc.id.split(".")[1] if twin else sc.id.split(".")[0]
    source, reconstructed = _checks.SOURCES.get(sc.id, ("attnio.symbolic.checks", True))
    if twin:
        source = "planted false twin (attnio.symbolic.checks)"

    def check(ctx: CheckContext, run=sc.check) -> Verdict:
        return run()

    return Claim(id=f"sym.{sc.id}", statement=("FALSE: " if twin else "") + sc.statement,
                 formal=f"attnio.symbolic.checks: {sc.id}", source=source,
                 method=_METHOD.get(kind, "sympy"), family=f"symbolic.{kind}", check_fn=check,
                 reconstructed=reconstructed, evidence_kind=_EVIDENCE.get(kind),
                 twin_of=f"sym.{_TWIN_OF[sc.id]}" if twin else None)


def _both(large: _checks.SymbolicClaim, small: _checks.SymbolicClaim) -> Callable[[], Verdict]:
    def check() -> Verdict:
        return _checks.all_of(large.check, small.check)
    return check


def _merged(claims: list[_checks.SymbolicClaim]) -> list[_checks.SymbolicClaim]:
    """The claims with each pair of :data:`_MERGED` replaced by one claim checking both (at
    the place of the first); the hollow ones of :data:`REMOVED` dropped."""
    out: list[_checks.SymbolicClaim] = []
    by_id = {c.id: c for c in claims}
    for c in claims:
        if c.id in REMOVED:
            continue
        merged = _MERGED.get(c.id)
        if merged is None:
            out.append(c)
            continue
        if any(o.id == merged for o in out):
            continue
        large, small = by_id[merged.replace("sides", "large")], by_id[merged.replace("sides",
                                                                                     "small")]
        out.append(_checks.SymbolicClaim(
            merged, f"{large.statement}; {small.statement[0].lower()}{small.statement[1:]} "
                    "(one derivation of both sides)", _both(large, small)))
        _checks.SOURCES.setdefault(merged, _checks.SOURCES[large.id])
    return out


CLAIMS: list[Claim] = [_wrap(c, twin=False) for c in _merged(_checks.symbolic_claims())]
FALSE_TWINS: list[Claim] = [_wrap(t, twin=True) for t in _checks.false_twins()
                            if t.id not in REMOVED]

if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
