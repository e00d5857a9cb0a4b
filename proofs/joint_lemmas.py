r"""The lemmas behind the joint routes of :mod:`attnio.bounds.attention` (issue 35, item 5;
notes/gap.md, "The joint routes"; ours, RECONSTRUCTED in the house sense): the witness lemma,
checked exhaustively, and the algebra of the per-segment bound, as z3 chains. The cap and the
routes built on them are :mod:`attnio.proofs.joint_routes`.

* ``gap.joint_witness_lemma`` (exhaustive) — if :math:`P_{ij}` (or :math:`dS_{ij}`) is red in a
  segment in which no vertex of its private set :math:`W_{ij}` is red at the start or read,
  then every entry of :math:`q_i` and :math:`k_j` (and :math:`dO_i`, :math:`v_j` for
  :math:`dS_{ij}`) is red in it: every state a segment can reach under that restriction, from
  every start, on attnio's own forward and backward DAGs (:mod:`attnio.graphs.dags`) and on the
  smallest DAG with a two-leaf score tree (:func:`explore_witness`). Twins: :math:`W` without
  the score tree, without :math:`dP`.
* ``gap.joint_face_algebra`` (forward), ``…_given_scores``, ``…_recompute`` (z3 chains) — the
  per-segment counts (full pairs need full rows; free operands need full rows; charged leaves
  in full pairs need full columns; Loomis–Whitney on partial pairs; a partial pair holds at
  most inner − 1 leaves; Cauchy–Schwarz over the gradients sharing the charged face) imply
  designated leaves :math:`\le \Psi_\kappa(\sigma, z, w, u)`; ``gap.joint_rows`` (four
  cases) the rows inequality :math:`ab + a'b' + bp + 2pq \le \tfrac5{16}(a + a' + b + b')^2`
  behind the recompute class's :math:`\kappa = 5/4`; ``gap.joint_cube`` the forward's second
  cap.
* ``gap.joint_cell`` — :math:`\Psi_\kappa` on a cell is at most
  :func:`~attnio.bounds.attention.joint_cell_bound` (each variable at its extreme value);
  ``gap.joint_superadditive`` — :math:`\Psi_\kappa` is superadditive, term by term (groups
  of heads with disjoint operands share one segment budget: the stacked routes).
"""

from __future__ import annotations

import itertools
from collections import deque
from fractions import Fraction
from typing import Callable, Sequence

import networkx as nx
import z3

from attnio.graphs.dags import attention_backward_dag, attention_forward_dag
from attnio.proofs.attention_routes import CHAIN, EXACT, chain_check
from attnio.proofs.joint_routes import joint_claim
from attnio.proofs.registry import CheckContext, Claim, run_module
from attnio.results import Evidence, Proved, Refuted, Verdict
from attnio.smt.chains import Chain, Step

__all__ = ["CLAIMS", "FALSE_TWINS", "backward_chain", "cell_chain", "cube_chain",
           "explore_witness", "forward_chain", "rows_chain", "score_tree_dag",
           "superadditive_chain"]


# --------------------------------------------------------------------------------------------
# The witness lemma, exhaustively
# --------------------------------------------------------------------------------------------

def explore_witness(G: nx.DiGraph, W: Sequence[str], target: str, watched: Sequence[str],
                    M: int) -> tuple[int, int, dict | None]:
    """Every state a segment can reach when no vertex of ``W`` is red at its start and none is
    read in it: ``(red set, watched inputs red so far)``, from every start red set of at most
    M vertices outside W, by the game's moves (R1 read: an input or a vertex outside W;
    R3 compute: every predecessor red; R4 delete; at most M red pebbles; writes change no red
    set). Returns ``(states, states with target red, counterexample)`` — a counterexample is a
    state with ``target`` red while some watched input was never red in the segment, with the
    start red set and the moves that reach it.

    Side conditions
    ---------------
    1. ``start-outside-w``: a start red set holds at most M vertices, none of ``W``.
    2. ``read-outside-w``: a read is of an input or of a vertex outside ``W``.
    3. ``compute-needs-preds``: a compute needs every predecessor red.
    4. ``at-most-m``: no move makes more than M vertices red.
    5. ``witness-replays``: a counterexample's moves replay from its start to ``target``
       red with its ``never_red`` inputs never red.
    """
    V = sorted(G)
    bit = {v: 1 << i for i, v in enumerate(V)}
    preds = {v: sum(bit[p] for p in G.predecessors(v)) for v in V}
    inputs = {v for v in V if G.in_degree(v) == 0}
    in_w = set(W)
    w_all = sum(bit[v] for v in watched)
    pool = [v for v in V if v not in in_w]
    parent: dict[tuple[int, int], tuple[tuple[int, int], tuple[str, str]] | None] = {}
    queue: deque[tuple[int, int]] = deque()
    for k in range(M + 1):
        for start in itertools.combinations(pool, k):
            red = sum(bit[v] for v in start)
            state = (red, red & w_all)
            if state not in parent:
                parent[state] = None
                queue.append(state)
    hits = 0
    while queue:
        red, seen = state = queue.popleft()
        if red & bit[target]:
            hits += 1
            if seen != w_all:
                moves: list[tuple[str, str]] = []
                while parent[state] is not None:
                    state, move = parent[state]  # type: ignore[misc]
                    moves.append(move)
                return len(parent), hits, {
                    "start_red": [v for v in V if state[0] & bit[v]], "moves": moves[::-1],
                    "never_red": [v for v in watched if not seen & bit[v]]}
        count = red.bit_count()
        for v in V:
            b = bit[v]
            if red & b:
                nxt, move = red & ~b, ("delete", v)
            elif count >= M:
                continue
            elif v not in inputs and preds[v] & red == preds[v]:
                nxt, move = red | b, ("compute", v)
            elif v in inputs or v not in in_w:
                nxt, move = red | b, ("read", v)
            else:
                continue
            state2 = (nxt, seen | (nxt & w_all))
            if state2 not in parent:
                parent[state2] = ((red, seen), move)
                queue.append(state2)
            if v not in inputs and v not in in_w and not red & b and count < M \
                    and preds[v] & red == preds[v]:   # a computable vertex outside W: also read
                state3 = (red | b, seen | ((red | b) & w_all))
                if state3 not in parent:
                    parent[state3] = ((red, seen), ("read", v))
                    queue.append(state3)
    return len(parent), hits, None


def score_tree_dag() -> nx.DiGraph:
    """The smallest DAG with the forward's shape and a two-leaf score tree: products
    m0 = q0·k0, m1 = q1·k1, S = m0 + m1, P = f(S, l)."""
    return nx.DiGraph([("q0", "m0"), ("k0", "m0"), ("q1", "m1"), ("k1", "m1"), ("m0", "S"),
                       ("m1", "S"), ("S", "P"), ("l", "P")])


_BWD_W = ["QK[0,0,0]", "QK[0,0,1]", "S[0,0]", "Ex[0,0]", "P[0,0]", "PdP[0,0]", "dOVt[0,0,0]",
          "dOVt[0,0,1]", "dP[0,0]", "dPD[0,0]", "dS[0,0]"]
_BWD1_W = ["S[0,0]", "Ex[0,0]", "P[0,0]", "PdP[0,0]", "dP[0,0]", "dPD[0,0]", "dS[0,0]"]
_ROW_QK = ["Q[0,0]", "Q[0,1]", "K[0,0]", "K[0,1]"]

#: (name, DAG builder, W, target, watched inputs, M) of gap.joint_witness_lemma.
WITNESS_CASES: list[tuple[str, Callable[[], nx.DiGraph], list[str], str, list[str], int]] = [
    ("two-leaf score tree, P", score_tree_dag, ["m0", "m1", "S", "P"], "P",
     ["q0", "q1", "k0", "k1"], 5),
    ("attention_forward_dag(1, 2), E[0,0]", lambda: attention_forward_dag(1, 2),
     ["QK[0,0,0]", "QK[0,0,1]", "S[0,0]", "E[0,0]"], "E[0,0]", _ROW_QK, 4),
    ("attention_forward_dag(2, 1), E[0,1]", lambda: attention_forward_dag(2, 1),
     ["S[0,1]", "E[0,1]"], "E[0,1]", ["Q[0,0]", "K[1,0]"], 4),
    ("attention_backward_dag(1, 2), P[0,0]", lambda: attention_backward_dag(1, 2), _BWD_W,
     "P[0,0]", _ROW_QK, 4),
    ("attention_backward_dag(1, 1), dS[0,0]", lambda: attention_backward_dag(1, 1), _BWD1_W,
     "dS[0,0]", ["Q[0,0]", "K[0,0]", "dO[0,0]", "V[0,0]"], 5),
]


def _witness_check(ctx: CheckContext, *,
                   cases: list[tuple[str, Callable[[], nx.DiGraph], list[str], str, list[str],
                                     int]] | None = None) -> Verdict:
    states = hits = 0
    for name, build, W, target, watched, M in WITNESS_CASES if cases is None else cases:
        G = build()
        n_states, n_hits, cx = explore_witness(G, W, target, watched, M)
        states += n_states
        hits += n_hits
        if cx is not None:
            return Refuted({"dag": name, "W": W, "target": target, "M": M, **cx},
                           f"{target} is red in a segment in which no vertex of W was red at "
                           f"the start or read, yet {cx['never_red']} were never red in it")
    return Proved(f"{states} reachable segment states with no vertex of W red at the start or "
                  f"read ({hits} with the operand red), each with every watched input red",
                  evidence=Evidence.exhaustive(states, hits))



# --------------------------------------------------------------------------------------------
# The algebra (z3 chains)
# --------------------------------------------------------------------------------------------

def _min(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    return z3.If(x <= y, x, y)


def _r(name: str) -> z3.ArithRef:
    return z3.Real(name)


def _psi(kappa: Fraction, sig: z3.ArithRef, u: z3.ArithRef, z: z3.ArithRef, w: z3.ArithRef,
         r: z3.ArithRef, rho: z3.ArithRef, d: z3.ArithRef, n: z3.ArithRef,
         k: z3.ArithRef) -> z3.ArithRef:
    """Ψ_κ with r = √z and rho = √(uσw) given as variables."""
    return (z3.RealVal(kappa) * sig * sig / (4 * d) + u * sig / n + _min(sig * r / 2, (d - 1) * z)
            + _min(rho, k * w))


def forward_chain(*, free_rows: bool = True) -> Chain:
    r"""Forward (:math:`QK^\top` + :math:`PV`): designated leaves of one segment
    :math:`\le \Psi_1(\sigma, z, w, u)`, :math:`\sigma = a_Q + b_K + b_V`.

    Premises (the counts of notes/gap.md): ``a ≤ aQ``, ``b ≤ bK`` (entries in full rows of Q, K);
    full QK pairs :math:`\le ab/d`; free PV leaves :math:`\le a\,b_V/d` (a free operand needs a
    full row of Q: at most :math:`|R_Q| = a/d` rows, each with :math:`b_V` V entries);
    charged leaves in full PV pairs :math:`\le u b_V/n` (a full pair needs a full column of V);
    partial QK leaves :math:`\le \sqrt{a_Q b_K Z}` and :math:`\le (d-1)Z`, :math:`Z \le z`;
    charged partial PV leaves :math:`\le \sqrt{u b_V w}` and :math:`\le kw` (:math:`k` the
    most leaves of a partial pair: :math:`n - 1`).
    ``free_rows=False`` (a twin): free PV leaves bounded by :math:`a_Q b_V/d` — wrong side."""
    aQ, bK, bV, a, b, u, z, Z, w, d, n, k = (_r(x) for x in
                                             "aQ bK bV a b u z Z w d n k".split())
    QKf, PVfr, PVch, QKp, PVp, y1, y2, r, rho = (_r(x) for x in
                                                "QKf PVfr PVch QKp PVp y1 y2 r rho".split())
    sig = aQ + bK + bV
    sign = [v >= 0 for v in (aQ, bK, bV, a, b, u, z, Z, w, QKf, PVfr, PVch, QKp, PVp)]
    dom = [d >= 1, n >= 1, k >= 0]
    roots = [y1 >= 0, y1 * y1 == aQ * bK * Z, y2 >= 0, y2 * y2 == u * bV * w, r >= 0,
             r * r == z, rho >= 0, rho * rho == u * sig * w]
    rows = [a <= aQ, b <= bK, Z <= z]
    counts = [d * QKf <= a * b, d * PVfr <= (a if free_rows else aQ) * bV, n * PVch <= u * bV,
              QKp <= y1, QKp <= (d - 1) * Z, PVp <= y2, PVp <= k * w]
    full = 4 * a * (b + bV) <= sig * sig
    s_full = QKf + PVfr <= sig * sig / (4 * d)
    s_pairs = PVch <= u * sig / n
    s_y1 = y1 <= sig * r / 2
    s_qk = QKp <= _min(sig * r / 2, (d - 1) * z)
    s_y2 = y2 <= rho
    s_pv = PVp <= _min(rho, k * w)
    return Chain(
        premises=(*sign, *dom, *roots, *rows, *counts),
        steps=(Step("a(b + bV) ≤ σ²/4", full, (*sign, *rows[:2])),
               Step("full pairs + free PV ≤ σ²/(4d)", s_full, (counts[0], counts[1], full,
                                                               *dom, *sign)),
               Step("charged full PV ≤ uσ/n", s_pairs, (counts[2], *dom, *sign)),
               Step("√(aQ bK Z) ≤ (σ/2)√z", s_y1, (*sign, *roots[:2], *roots[4:6], rows[2])),
               Step("partial QK ≤ min((σ/2)√z, (d−1)z)", s_qk, (counts[3], counts[4], s_y1,
                                                                 rows[2], *dom, *sign)),
               Step("√(u bV w) ≤ √(uσw)", s_y2, (*sign, *roots[2:4], *roots[6:])),
               Step("partial PV ≤ min(√(uσw), kw)", s_pv, (counts[5], counts[6], s_y2))),
        conclusion=QKf + PVfr + PVch + QKp + PVp
        <= _psi(Fraction(1), sig, u, z, w, r, rho, d, n, k))


def _gradients(u: z3.ArithRef, faces: Sequence[z3.ArithRef], carries: Sequence[z3.ArithRef],
               tag: str) -> tuple[list, list, z3.ArithRef, list]:
    """Cauchy–Schwarz for the three gradient products sharing the charged face u:
    √(u x₁c₁) + √(u x₂c₂) + √(u x₃c₃) ≤ √(u(x₁+x₂+x₃)(c₁+c₂+c₃)), in two two-term steps.
    Returns (premises, steps, the bound's variable, the per-product partial variables)."""
    su, e1, e2, e3, E12, E = (_r(f"{tag}{x}") for x in ("su", "e1", "e2", "e3", "E12", "E"))
    g = [_r(f"{tag}g{i}") for i in range(3)]
    x1, x2, x3 = faces
    c1, c2, c3 = carries
    prem = [su >= 0, su * su == u, e1 >= 0, e1 * e1 == x1 * c1, e2 >= 0, e2 * e2 == x2 * c2,
            e3 >= 0, e3 * e3 == x3 * c3, E12 >= 0, E12 * E12 == (x1 + x2) * (c1 + c2),
            E >= 0, E * E == (x1 + x2 + x3) * (c1 + c2 + c3)]
    prem += [g[0] <= su * e1, g[1] <= su * e2, g[2] <= su * e3]
    sign = [v >= 0 for v in (u, x1, x2, x3, c1, c2, c3)]
    cs1 = e1 + e2 <= E12
    cs2 = E12 + e3 <= E
    steps = [Step(f"{tag}: √(x₁c₁) + √(x₂c₂) ≤ √((x₁+x₂)(c₁+c₂))", cs1, (*sign, *prem[2:6],
                                                                        *prem[8:10])),
             Step(f"{tag}: + √(x₃c₃) ≤ √((x₁+x₂+x₃)(c₁+c₂+c₃))", cs2, (*sign, *prem[6:12])),
             Step(f"{tag}: the three ≤ √u·√((x₁+x₂+x₃)(c₁+c₂+c₃))", g[0] + g[1] + g[2] <= su * E,
                  (prem[12], prem[13], prem[14], cs1, cs2, prem[0]))]
    return prem + sign, steps, su * E, g


def backward_chain(computation: str, *, kappa: Fraction | None = None) -> Chain:
    r"""Backward (``given-scores``: :math:`dO\,V^\top`, :math:`P^\top dO`, :math:`dS\,K`,
    :math:`dS^\top Q`; ``recompute``: also :math:`QK^\top`, and free operands): designated
    leaves of one segment :math:`\le \Psi_\kappa(\sigma, z, w, u)`,
    :math:`\sigma = a_Q + b_K + a_O + b_V`, :math:`\kappa` = 1 (given-scores), 5/4 (recompute;
    the rows term ``rows`` ≤ 5σ²/(16d) is claim ``gap.joint_rows``). ``kappa`` plants another
    κ (a twin)."""
    rc = computation == "recompute"
    kap = kappa if kappa is not None else (Fraction(5, 4) if rc else Fraction(1))
    aQ, bK, aO, bV, u, z, Zs, Zp, d, n, k = (_r(x) for x in
                                             "aQ bK aO bV u z Zs Zp d n k".split())
    cV, cQ, cK, w = (_r(x) for x in "cV cQ cK w".split())
    rowsum, Gf, Pp, y1, y2, r, rho, SP = (_r(x) for x in
                                          "rowsum Gf Pp y1 y2 r rho SP".split())
    sig = aQ + bK + aO + bV
    sign = [v >= 0 for v in (aQ, bK, aO, bV, u, z, Zs, Zp, cV, cQ, cK, w, rowsum, Gf, Pp)]
    dom = [d >= 1, n >= 1, k >= 0]
    carries = [cV + cQ + cK <= w, Zs + Zp <= z]
    # full pairs and free operands (rows): recompute — claim gap.joint_rows; given-scores —
    # dO·Vᵀ's full pairs only, ≤ aO·bV/d
    rows_prem = ([4 * 4 * d * rowsum <= 5 * sig * sig] if rc else
                 [d * rowsum <= aO * bV])
    grad_full = [n * Gf <= u * (aO + bK + aQ)]
    # partial pairs of the score products: √(aQ bK Zs) + √(aO bV Zp) (recompute) or
    # √(aO bV Zp) (given-scores), each pair ≤ d − 1 leaves
    lw = [y1 >= 0, y1 * y1 == (aQ * bK * Zs if rc else 0), y2 >= 0, y2 * y2 == aO * bV * Zp,
          r >= 0, r * r == z, SP >= 0, SP * SP == (aQ + aO) * (bK + bV) * (Zs + Zp)]
    part = [Pp <= y1 + y2, Pp <= (d - 1) * (Zs + Zp)]
    gp, gsteps, gbound, g = _gradients(u, (aO, bK, aQ), (cV, cQ, cK), "grad")
    lin = [g[0] <= k * cV, g[1] <= k * cQ, g[2] <= k * cK]
    roots_rho = [rho >= 0, rho * rho == u * sig * w]
    s_rows = rowsum <= kap * sig * sig / (4 * d)
    s_pairs = Gf <= u * sig / n
    s_holder = y1 + y2 <= SP
    s_sp = SP <= sig * r / 2
    s_part = Pp <= _min(sig * r / 2, (d - 1) * z)
    s_g = gbound <= rho
    s_grad = g[0] + g[1] + g[2] <= _min(rho, k * w)
    rows_hyp = (*rows_prem, *dom, *sign) if rc else (*rows_prem, *dom, *sign)
    steps = [Step("rows ≤ κσ²/(4d)", s_rows, rows_hyp),
             Step("charged full gradient pairs ≤ uσ/n", s_pairs, (*grad_full, *dom, *sign)),
             Step("√(aQ bK Zs) + √(aO bV Zp) ≤ √((aQ+aO)(bK+bV)(Zs+Zp))", s_holder,
                  (*lw[:4], *lw[6:], *sign)),
             Step("√((aQ+aO)(bK+bV)(Zs+Zp)) ≤ (σ/2)√z", s_sp, (*lw[4:], carries[1], *sign)),
             Step("partial score pairs ≤ min((σ/2)√z, (d−1)z)", s_part,
                  (part[0], part[1], s_holder, s_sp, carries[1], *dom, *sign)),
             *gsteps,
             Step("√u·√((aO+bK+aQ)(cV+cQ+cK)) ≤ √(uσw)", s_g,
                  (*gp[:2], *gp[10:12], *roots_rho, carries[0], *sign)),
             Step("partial gradient pairs ≤ min(√(uσw), kw)", s_grad,
                  (s_g, gsteps[-1].conclusion, *lin, carries[0], *gp[12:15], *dom))]
    return Chain(
        premises=(*sign, *dom, *carries, *rows_prem, *grad_full, *lw, *part, *gp, *lin,
                  *roots_rho),
        steps=tuple(steps),
        conclusion=rowsum + Gf + Pp + g[0] + g[1] + g[2]
        <= _psi(kap, sig, u, z, w, r, rho, d, n, k))


def rows_chain(*, coefficient: Fraction = Fraction(5, 16)) -> Chain:
    r"""The recompute class's rows term. With :math:`a` (:math:`b`) the Q (K) entries in full
    rows, :math:`p = \min(a, a_O)`, :math:`q = \min(b, b_V)`: full :math:`QK^\top` pairs
    :math:`\le ab/d`, full :math:`dO\,V^\top` pairs :math:`\le a_O b_V/d`, free :math:`dV`
    leaves :math:`\le b\,p/d`, free :math:`dQ` and :math:`dK` leaves :math:`\le pq/d` each, and

    .. math:: ab + a_Ob_V + bp + 2pq \;\le\; \tfrac5{16}(a + a_O + b + b_V)^2

    — four cases (which of :math:`a, a_O` and of :math:`b, b_V` is the smaller), each a step.
    ``coefficient`` plants another constant (twin: 1/4 is false, the flash configuration
    :math:`a = a_O = b = b_V` gives 5/16)."""
    a, aO, b, bV, p, q = (_r(x) for x in "a aO b bV p q".split())
    sign = [v >= 0 for v in (a, aO, b, bV, p, q)]
    mins = [p <= a, p <= aO, q <= b, q <= bV, z3.Or(p == a, p == aO), z3.Or(q == b, q == bV)]
    lhs = a * b + aO * bV + b * p + 2 * p * q
    rhs = z3.RealVal(coefficient) * (a + aO + b + bV) ** 2
    goal = lhs <= rhs
    cases = z3.And(mins[4], mins[5])
    steps = (Step("p ∈ {a, aO} and q ∈ {b, bV}", cases, (mins[4], mins[5])),) + tuple(
        Step(f"case p = {pn}, q = {qn}", z3.Implies(z3.And(p == pv, q == qv), goal),
             (*sign, *mins[:4]))
        for (pn, pv), (qn, qv) in itertools.product((("a", a), ("aO", aO)),
                                                    (("b", b), ("bV", bV))))
    return Chain(premises=(*sign, *mins), steps=steps, conclusion=goal)


def cube_chain(*, factor: int = 27) -> Chain:
    r"""The forward's second cap: faces :math:`X, Y, Z \ge 0` with :math:`X + Y + Z \le T`
    (the two products' partial leaves in one cube sharing the score face) give
    :math:`\sqrt{XYZ} \le (T/3)^{3/2}`; rows :math:`a(b + b_V) + u b_V \le (a+u)(b+b_V)
    \le s^2/4`. ``factor`` plants another AM–GM constant (twin: 32 is false)."""
    X, Y, Z, T, y, t = (_r(x) for x in "X Y Z T y t".split())
    a, b, bV, u, s = (_r(x) for x in "a b bV u s".split())
    sign = [v >= 0 for v in (X, Y, Z, T, a, b, bV, u)]
    prem = [X + Y + Z <= T, y >= 0, y * y == X * Y * Z, t >= 0, factor * t * t == T ** 3,
            a + b + bV + u <= s]
    amgm = factor * X * Y * Z <= (X + Y + Z) ** 3
    cube = (X + Y + Z) ** 3 <= T ** 3
    rows = a * (b + bV) + u * bV <= (a + u) * (b + bV)
    quad = 4 * (a + u) * (b + bV) <= s * s
    root = y <= t
    return Chain(
        premises=(*sign, *prem),
        steps=(Step(f"{factor}XYZ ≤ (X+Y+Z)³", amgm, sign[:3]),
               Step("(X+Y+Z)³ ≤ T³", cube, (*sign[:4], prem[0])),
               Step("√(XYZ) ≤ √(T³/27)", root, (amgm, cube, *prem[1:5])),
               Step("a(b+bV) + u·bV ≤ (a+u)(b+bV)", rows, sign[4:]),
               Step("(a+u)(b+bV) ≤ s²/4", quad, (*sign[4:], prem[5]))),
        conclusion=z3.And(y <= t, 4 * (a * (b + bV) + u * bV) <= s * s))


def cell_chain(*, lower_w: bool = False) -> Chain:
    r""":math:`\Psi_\kappa(\sigma, z, w, u) \le` the bound of
    :func:`~attnio.bounds.attention.joint_cell_bound` on a cell: :math:`\sigma \in [s_0, s_1]`,
    :math:`z \in [z_0, z_1]`, :math:`u \le z`, :math:`\sigma + u \le S`,
    :math:`\sigma + z + w \le T`: every term at its largest value — :math:`s_1`, :math:`z_1`,
    :math:`W = T - s_0 - z_0`, :math:`U = \min(z_1, S - s_0)`. ``lower_w`` (a twin) takes
    :math:`w` at :math:`T - s_1 - z_1`."""
    sg, z, w, u, s0, s1, z0, z1, S, T, U, Wc, d, n, k, kap = (
        _r(x) for x in "sg z w u s0 s1 z0 z1 S T U Wc d n k kap".split())
    r, R, rho, P = (_r(x) for x in "r R rho P".split())
    sign = [v >= 0 for v in (sg, z, w, u, s0, z0, k)]
    dom = [d >= 1, n >= 1, kap >= 0]
    box = [s0 <= sg, sg <= s1, z0 <= z, z <= z1, u <= z, sg + u <= S, sg + z + w <= T]
    caps = [Wc == (T - s1 - z1 if lower_w else T - s0 - z0), U <= z1, U <= S - s0,
            z3.Or(U == z1, U == S - s0)]
    roots = [r >= 0, r * r == z, R >= 0, R * R == z1, rho >= 0, rho * rho == u * sg * w,
             P >= 0, P * P == U * s1 * Wc]
    u_le = u <= U
    w_le = w <= Wc
    sq = sg * sg <= s1 * s1
    us = u * sg <= U * s1
    uw = u * sg * w <= U * s1 * Wc
    t_full = kap * sg * sg / (4 * d) <= kap * s1 * s1 / (4 * d)
    t_pairs = u * sg / n <= U * s1 / n
    t_root = sg * r / 2 <= s1 * R / 2
    t_lin = (d - 1) * z <= (d - 1) * z1
    t_rho = rho <= P
    t_kw = k * w <= k * Wc
    return Chain(
        premises=(*sign, *dom, *box, *caps, *roots),
        steps=(Step("u ≤ U", u_le, (box[3], box[4], box[5], box[0], caps[1], caps[2], caps[3])),
               Step("w ≤ W", w_le, (box[0], box[2], box[6], caps[0])),
               Step("σ² ≤ s1²", sq, (box[0], box[1], sign[4])),
               Step("κσ²/(4d) ≤ κs1²/(4d)", t_full, (sq, dom[0], dom[2])),
               Step("uσ ≤ U·s1", us, (u_le, box[1], *sign[:4])),
               Step("uσ/n ≤ U·s1/n", t_pairs, (us, dom[1])),
               Step("(σ/2)√z ≤ (s1/2)√z1", t_root, (box[1], box[3], *roots[:4], *sign[:2])),
               Step("(d−1)z ≤ (d−1)z1", t_lin, (box[3], dom[0])),
               Step("uσw ≤ U·s1·W", uw, (u_le, w_le, box[1], *sign[:4])),
               Step("√(uσw) ≤ √(U·s1·W)", t_rho, (uw, *roots[4:])),
               Step("kw ≤ kW", t_kw, (w_le, sign[6]))),
        conclusion=(kap * sg * sg / (4 * d) + u * sg / n + _min(sg * r / 2, (d - 1) * z)
                    + _min(rho, k * w))
        <= kap * s1 * s1 / (4 * d) + U * s1 / n + _min(s1 * R / 2, (d - 1) * z1)
        + _min(P, k * Wc))


def superadditive_chain() -> Chain:
    r""":math:`\Psi_\kappa(\sigma_1, z_1, w_1, u_1) + \Psi_\kappa(\sigma_2, z_2, w_2, u_2) \le
    \Psi_\kappa(\sigma_1+\sigma_2, z_1+z_2, w_1+w_2, u_1+u_2)`: groups of heads with disjoint
    operands, witnesses and trees share one segment budget (the stacked joint routes)."""
    s1, s2, z1, z2, w1, w2, u1, u2, d, n, k, kap = (
        _r(x) for x in "s1 s2 z1 z2 w1 w2 u1 u2 d n k kap".split())
    r1, r2, r, p1, p2, p = (_r(x) for x in "r1 r2 r p1 p2 p".split())
    sign = [v >= 0 for v in (s1, s2, z1, z2, w1, w2, u1, u2, k, kap)]
    dom = [d >= 1, n >= 1]
    roots = [r1 >= 0, r1 * r1 == z1, r2 >= 0, r2 * r2 == z2, r >= 0, r * r == z1 + z2,
             p1 >= 0, p1 * p1 == u1 * s1 * w1, p2 >= 0, p2 * p2 == u2 * s2 * w2,
             p >= 0, p * p == (u1 + u2) * (s1 + s2) * (w1 + w2)]
    sq = s1 * s1 + s2 * s2 <= (s1 + s2) ** 2
    sq_d = (kap * s1 * s1 / (4 * d) + kap * s2 * s2 / (4 * d)
            <= kap * (s1 + s2) ** 2 / (4 * d))
    us = u1 * s1 + u2 * s2 <= (u1 + u2) * (s1 + s2)
    us_n = u1 * s1 / n + u2 * s2 / n <= (u1 + u2) * (s1 + s2) / n
    rt1, rt2 = r1 <= r, r2 <= r
    mixed = s1 * r1 + s2 * r2 <= (s1 + s2) * r
    holder = p1 + p2 <= p
    S = s1 + s2
    m_rows = (_min(s1 * r1 / 2, (d - 1) * z1) + _min(s2 * r2 / 2, (d - 1) * z2)
              <= _min(S * r / 2, (d - 1) * (z1 + z2)))
    m_grads = _min(p1, k * w1) + _min(p2, k * w2) <= _min(p, k * (w1 + w2))
    # the conclusion term by term (their sum is Ψ's superadditivity): the solver adds nothing
    # nonlinear, and each term's min is a case split of its step's conclusion
    return Chain(
        premises=(*sign, *dom, *roots),
        steps=(Step("s1² + s2² ≤ (s1+s2)²", sq, sign[:2]),
               Step("κs1²/(4d) + κs2²/(4d) ≤ κ(s1+s2)²/(4d)", sq_d, (sq, dom[0], sign[9])),
               Step("u1s1 + u2s2 ≤ (u1+u2)(s1+s2)", us, sign[:8]),
               Step("u1s1/n + u2s2/n ≤ (u1+u2)(s1+s2)/n", us_n, (us, dom[1])),
               Step("√z1 ≤ √(z1+z2)", rt1, (*sign[2:4], *roots[:2], *roots[4:6])),
               Step("√z2 ≤ √(z1+z2)", rt2, (*sign[2:4], *roots[2:6])),
               Step("s1√z1 + s2√z2 ≤ (s1+s2)√(z1+z2)", mixed, (*sign[:2], roots[0], roots[2],
                                                               rt1, rt2)),
               Step("√(u1s1w1) + √(u2s2w2) ≤ √((u1+u2)(s1+s2)(w1+w2))", holder,
                    (*sign[:8], *roots[6:]))),
        conclusion=z3.And(sq_d, us_n, m_rows, m_grads))



CLAIMS: list[Claim] = [
    joint_claim("gap.joint_witness_lemma",
                "if P_ij (dS_ij) is red in a segment in which no vertex of its private set W_ij is "
                "red at the start or read, every entry of q_i, k_j (and dO_i, v_j) is red in it: "
                "every reachable segment state, from every start, on attnio's forward (1×2, 2×1) "
                "and backward (1×2, 1×1) DAGs and a two-leaf score tree",
                "exhaustive state exploration (red set × watched inputs seen)", EXACT,
                _witness_check),
    joint_claim("gap.joint_face_algebra",
                "forward: the per-segment counts (full pairs, free operands from full rows, "
                "charged full pairs from full columns, Loomis–Whitney, inner − 1 per partial "
                "pair) ⇒ designated leaves ≤ Ψ₁(σ, z, w, u) = σ²/(4d) + uσ/n + "
                "min((σ/2)√z, (d−1)z) + min(√(uσw), (n−1)w)", "chain of 7 steps", CHAIN, chain_check(forward_chain)),
    joint_claim("gap.joint_face_algebra_given_scores",
                "given-scores: dO·Vᵀ, Pᵀ·dO, dS·K, dSᵀ·Q with every P, dS charged ⇒ designated "
                "leaves ≤ Ψ₁(σ, z, w, u) (Cauchy–Schwarz over the three gradients sharing u)",
                "chain", CHAIN, chain_check(lambda: backward_chain("given-scores"))),
    joint_claim("gap.joint_face_algebra_recompute",
                "recompute: the five products, free P and dS from full rows ⇒ designated leaves "
                "≤ Ψ_{5/4}(σ, z, w, u) (rows term: gap.joint_rows)",
                "chain", CHAIN, chain_check(lambda: backward_chain("recompute"))),
    joint_claim("gap.joint_rows",
                "ab + aO·bV + b·p + 2pq ≤ (5/16)(a + aO + b + bV)², p = min(a, aO), q = min(b, bV)",
                "chain of 4 cases", CHAIN, chain_check(rows_chain)),
    joint_claim("gap.joint_cube",
                "X + Y + Z ≤ T ⇒ √(XYZ) ≤ (T/3)^{3/2}; a(b + bV) + u·bV ≤ (a+u)(b+bV) ≤ s²/4 "
                "(the forward's cube cap)", "chain of 4 steps", CHAIN, chain_check(cube_chain)),
    joint_claim("gap.joint_cell",
                "on a cell σ ∈ [s0, s1], z ∈ [z0, z1] (u ≤ z, σ + u ≤ S, σ + z + w ≤ T): "
                "Ψ_κ ≤ κs1²/(4d) + U·s1/n + min((s1/2)√z1, (d−1)z1) + min(√(U·s1·W), kW), "
                "U = min(z1, S − s0), W = T − s0 − z0", "chain of 8 steps", CHAIN,
                chain_check(cell_chain)),
    joint_claim("gap.joint_superadditive",
                "Ψ_κ(σ1, z1, w1, u1) + Ψ_κ(σ2, z2, w2, u2) ≤ Ψ_κ(σ1+σ2, z1+z2, w1+w2, u1+u2), "
                "term by term (κσ²/(4d), uσ/n, min((σ/2)√z, (d−1)z), min(√(uσw), kw))",
                "chain of 8 steps", CHAIN, chain_check(superadditive_chain)),
]

_REC = "gap.joint_face_algebra_recompute"

FALSE_TWINS: list[Claim] = [
    joint_claim("gap.twin.joint_witness_without_score_tree",
                "the witness lemma with the score tree's products left out of W_ij (a partial sum "
                "red at the start finishes S_ij, then P_ij, with no W vertex red or read)",
                "exhaustive state exploration", EXACT,
                lambda ctx: _witness_check(ctx, cases=[
                    ("two-leaf score tree, P, W = {S, P}", score_tree_dag, ["S", "P"], "P",
                     ["q0", "q1", "k0", "k1"], 5)]),
                twin_of="gap.joint_witness_lemma", expect_reason="were never red"),
    joint_claim("gap.twin.joint_witness_without_dp_tree",
                "the witness lemma for dS_ij with dP_ij left out of W_ij (dP red at the start)",
                "exhaustive state exploration", EXACT,
                lambda ctx: _witness_check(ctx, cases=[
                    ("attention_backward_dag(1, 1), dS[0,0], W without dP",
                     lambda: attention_backward_dag(1, 1),
                     [v for v in _BWD1_W if v != "dP[0,0]"], "dS[0,0]",
                     ["Q[0,0]", "K[0,0]", "dO[0,0]", "V[0,0]"], 4)]),
                twin_of="gap.joint_witness_lemma", expect_reason="were never red"),
    joint_claim("gap.twin.joint_free_rows_from_entries",
                "the forward chain with free PV leaves bounded by aQ·bV/d (entries of Q, not the "
                "entries in full rows): the AM–GM step no longer follows",
                "chain", CHAIN, chain_check(lambda: forward_chain(free_rows=False)),
                twin_of="gap.joint_face_algebra", expect_reason="is false"),
    joint_claim("gap.twin.joint_recompute_kappa_1",
                "the recompute chain with κ = 1 (the free gradient leaves of the flash "
                "configuration a = aO = b = bV need 5/4)", "chain", CHAIN,
                chain_check(lambda: backward_chain("recompute", kappa=Fraction(1))),
                twin_of=_REC, expect_reason="is false"),
    joint_claim("gap.twin.joint_rows_quarter",
                "the rows inequality with 1/4 instead of 5/16", "chain of 4 cases", CHAIN,
                chain_check(lambda: rows_chain(coefficient=Fraction(1, 4))),
                twin_of="gap.joint_rows", expect_reason="is false"),
    joint_claim("gap.twin.joint_cube_factor_32",
                "32XYZ ≤ (X+Y+Z)³ (the AM–GM constant too large)", "chain", CHAIN,
                chain_check(lambda: cube_chain(factor=32)), twin_of="gap.joint_cube",
                expect_reason="is false"),
    joint_claim("gap.twin.joint_cell_w_at_upper_corner",
                "the cell bound with w taken at T − s1 − z1 (its smallest value on the cell)",
                "chain", CHAIN, chain_check(lambda: cell_chain(lower_w=True)),
                twin_of="gap.joint_cell", expect_reason="is false"),
    joint_claim("gap.twin.joint_forward_without_free_row_step",
                "the forward chain with the step 'full pairs + free PV ≤ σ²/(4d)' deleted",
                "chain", CHAIN, chain_check(lambda: forward_chain().without(
                    "full pairs + free PV ≤ σ²/(4d)")),
                twin_of="gap.joint_face_algebra", expect_reason="does not follow from the steps"),
]


if __name__ == "__main__":
    raise SystemExit(run_module(CLAIMS, FALSE_TWINS))
