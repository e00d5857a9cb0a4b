r"""Scalar-level computation DAGs of matrix multiplication and attention.

Every builder returns a :class:`networkx.DiGraph` in which each vertex is one scalar of the
computation (a matrix entry, a product, a partial sum, an ``exp``, ...), named like
``"A[0,1]"`` (entry of input A), ``"P[0,1,0]"`` (a product) or ``"C[0,1]"`` (an output entry).

Vertex attributes
-----------------
``op``
    ``"input"``, ``"mul"``, ``"add"``, ``"fma"``, ``"exp"``, ``"div"`` or ``"sub"``;
    ``args`` lists the operands in order (an operand may repeat: a row with one kept score
    entry has P = E / E).
``role``
    ``"input"``, ``"product"`` (a multiplication of a standard matrix product),
    ``"sum"`` (a vertex of a summation tree or chain), ``"output"`` or ``"intermediate"``.
``matrix``, ``index``
    The matrix the scalar belongs to and its index tuple.
``product_of``
    Set on the *level-1 vertices* of a standard matrix product (Saha & Ye, arXiv 2402.07443,
    §2.4): its products, the internal nodes of its summation trees and the trees' roots; the
    value names the product, e.g. ``"QK"`` for :math:`QK^\top`. See :func:`level1_vertices`.

Graph attributes: ``G.graph["inputs"]`` (sorted sources), ``G.graph["outputs"]`` (the vertices
that must end in slow memory), ``G.graph["builder"]`` and ``G.graph["params"]``.

Standard matrix multiplication (the model of Hong–Kung and Saha–Ye): every entry
:math:`C_{ij} = \sum_l A_{il} B_{lj}` gets its own products :math:`A_{il} B_{lj}` and its own
summation tree; trees of different entries are disjoint. ``summation`` chooses the tree:
``"tree"`` (balanced binary), ``"chain"`` (left to right) or ``"fma"`` (a chain of fused
multiply-adds, the COSMA CDAG: in-degree 3, so M ≥ 4 red pebbles are needed when k ≥ 2).
A tree with one leaf is its leaf: for k = 1 the product vertex *is* ``C[i,j]``.

Attention (Saha–Ye's Figure 1, no max-subtraction, no scaling):
:math:`S = QK^\top`, :math:`E = \exp(S)`, :math:`\ell = E\,\mathbf 1`, :math:`U = EV`,
:math:`O_{ia} = U_{ia} / \ell_i`. The backward builders follow FlashAttention's gradient
identities (``"qkv"``) and Alman–Song's formulation of the paper's :math:`dL/dX`
(``"dX"``, notes/reference/paper.md §2.2). A mask (``mask[i][j]`` true = attended)
drops masked score entries, as sparse attention does.

Examples
--------
>>> G = matmul_dag(1, 2, 1)
>>> sorted(G.graph["outputs"]), G.number_of_nodes(), G.number_of_edges()
(['C[0,0]'], 7, 6)
>>> expected_size("matmul", m=1, k=2, p=1)
(7, 6)
>>> sorted(level1_vertices(G, "AB"))
['C[0,0]', 'P[0,0,0]', 'P[0,0,1]']
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.validation import positive_int

__all__ = [
    "matmul_dag",
    "attention_forward_dag",
    "attention_backward_dag",
    "expected_size",
    "level1_vertices",
    "evaluate",
    "random_dag",
    "gnp_dag",
    "SUMMATIONS",
    "BUILDERS",
]

SUMMATIONS = ("tree", "chain", "fma")


def _name(matrix: str, *index: int) -> str:
    return f"{matrix}[{','.join(str(i) for i in index)}]"


def _positive(**values: Any) -> None:
    for key, value in values.items():
        positive_int(key, value)


class _Builder:
    """Adds vertices with consistent attributes; knows the outputs."""

    def __init__(self, builder: str, params: dict[str, Any]) -> None:
        self.G: nx.DiGraph = nx.DiGraph()
        self.G.graph["builder"] = builder
        self.G.graph["params"] = params
        self.outputs: list[str] = []

    def input(self, matrix: str, *index: int) -> str:
        v = _name(matrix, *index)
        self.G.add_node(v, op="input", role="input", matrix=matrix, index=tuple(index))
        return v

    def op(self, v: str, op: str, parents: Sequence[str], role: str, matrix: str,
           index: tuple, **extra: Any) -> str:
        assert v not in self.G, f"duplicate vertex {v}"  # internal invariant, not user input
        self.G.add_node(v, op=op, role=role, matrix=matrix, index=tuple(index),
                        args=tuple(parents), **extra)
        for p in parents:
            self.G.add_edge(p, v)
        return v

    def dot(self, matrix: str, index: tuple, pairs: Sequence[tuple[str, str]], product_of: str,
            summation: str, role: str = "sum") -> str:
        """Root ``matrix[index]`` = Σ a·b over ``pairs`` as a standard product's tree."""
        root = _name(matrix, *index)
        k = len(pairs)
        if k == 1:
            (a, b), = pairs
            return self.op(root, "mul", (a, b), "output" if role == "output" else "product",
                           matrix, index, product_of=product_of)
        if summation == "fma":
            prev = self.op(f"{root}:0-1", "mul", pairs[0], "product", matrix, index + (0, 1),
                           product_of=product_of)
            for t in range(1, k):
                last = t == k - 1
                name = root if last else f"{root}:0-{t + 1}"
                prev = self.op(name, "fma", (prev, *pairs[t]),
                               role if last else "sum", matrix,
                               index if last else index + (0, t + 1), product_of=product_of)
            return prev
        products = [
            self.op(_name("P" if product_of == "AB" else product_of, *index, t), "mul", pairs[t],
                    "product", "P" if product_of == "AB" else product_of, index + (t,),
                    product_of=product_of)
            for t in range(k)
        ]
        return self.reduce(root, matrix, index, products, summation, role, product_of)

    def reduce(self, root: str, matrix: str, index: tuple, leaves: Sequence[str],
               summation: str, role: str = "sum", product_of: str | None = None) -> str:
        """Sum ``leaves`` into ``root`` (a tree or a chain); one leaf is returned as is."""
        extra = {} if product_of is None else {"product_of": product_of}

        def build(lo: int, hi: int) -> str:
            if hi - lo == 1:
                return leaves[lo]
            top = lo == 0 and hi == len(leaves)
            name = root if top else f"{root}:{lo}-{hi}"
            if summation == "tree":
                mid = (lo + hi) // 2
                left, right = build(lo, mid), build(mid, hi)
            else:  # chain: ((x0 + x1) + x2) + ...
                left, right = build(lo, hi - 1), leaves[hi - 1]
            return self.op(name, "add", (left, right), role if top else "sum", matrix,
                           index if top else index + (lo, hi), **extra)

        return build(0, len(leaves))

    def finish(self, outputs: list[str]) -> nx.DiGraph:
        G = self.G
        G.graph["inputs"] = sorted(v for v in G if G.in_degree(v) == 0)
        G.graph["outputs"] = list(outputs)
        return G


def matmul_dag(m: int, k: int, p: int, summation: str = "tree") -> nx.DiGraph:
    r"""The standard-multiplication DAG of :math:`C = AB`, :math:`A \in \mathbb R^{m\times k}`,
    :math:`B \in \mathbb R^{k\times p}`.

    Parameters
    ----------
    m, k, p : int
        Positive sizes.
    summation : {"tree", "chain", "fma"}
        Shape of each entry's summation (see the module docstring).

    Returns
    -------
    networkx.DiGraph
        Inputs ``A[i,l]``, ``B[l,j]``; products ``P[i,j,l]`` (role ``"product"``,
        ``product_of="AB"``); outputs ``C[i,j]``.

    Raises
    ------
    InvalidInputError
        If a size is not a positive integer or ``summation`` is unknown.

    Examples
    --------
    >>> G = matmul_dag(2, 2, 2)
    >>> G.number_of_nodes(), len(G.graph["inputs"]), len(G.graph["outputs"])
    (20, 8, 4)
    >>> sorted(G.predecessors("C[0,1]"))
    ['P[0,1,0]', 'P[0,1,1]']
    >>> max(d for _, d in matmul_dag(1, 3, 1, "fma").in_degree())
    3
    """
    _positive(m=m, k=k, p=p)
    if summation not in SUMMATIONS:
        raise InvalidInputError(f"summation={summation!r} must be one of {SUMMATIONS}")
    b = _Builder("matmul", {"m": m, "k": k, "p": p, "summation": summation})
    A = [[b.input("A", i, t) for t in range(k)] for i in range(m)]
    B = [[b.input("B", t, j) for j in range(p)] for t in range(k)]
    outs = [
        b.dot("C", (i, j), [(A[i][t], B[t][j]) for t in range(k)], "AB", summation, "output")
        for i in range(m) for j in range(p)
    ]
    return b.finish(outs)


def _mask(mask: Any, n: int) -> list[list[bool]]:
    if mask is None:
        return [[True] * n for _ in range(n)]
    rows = [list(row) for row in mask]
    if len(rows) != n or any(len(r) != n for r in rows):
        raise InvalidInputError(f"mask must be {n}x{n} (got {len(rows)} rows)")
    keep = [[bool(x) for x in r] for r in rows]
    for i, r in enumerate(keep):
        if not any(r):
            raise InvalidInputError(f"mask row {i} attends to nothing; every row needs one entry")
    return keep


def attention_forward_dag(n: int, d: int, mask: Any = None,
                          summation: str = "tree") -> nx.DiGraph:
    r"""The forward attention DAG :math:`O = D^{-1}\exp(QK^\top)V` (Saha & Ye, Figure 1).

    Parameters
    ----------
    n, d : int
        Sequence length and head dimension.
    mask : n×n array-like of bool, optional
        ``mask[i][j]`` true keeps score entry (i, j); every row must keep one entry.
    summation : {"tree", "chain"}
        Shape of every summation.

    Returns
    -------
    networkx.DiGraph
        Inputs ``Q[i,a]``, ``K[j,a]``, ``V[j,a]`` (only the K, V rows some query attends to);
        level-1 vertices of :math:`QK^\top` carry ``product_of="QK"`` (products ``QK[i,j,a]``,
        roots ``S[i,j]``), those of :math:`EV` carry ``product_of="EV"`` (roots ``U[i,a]``);
        ``E[i,j] = exp(S[i,j])``, row sums ``l[i]``, outputs ``O[i,a] = U[i,a] / l[i]``.

    Raises
    ------
    InvalidInputError
        Non-positive sizes, a malformed mask or a row that attends to nothing.

    Examples
    --------
    >>> G = attention_forward_dag(2, 1)
    >>> G.number_of_nodes(), G.number_of_edges(), sorted(G.graph["outputs"])
    (24, 32, ['O[0,0]', 'O[1,0]'])
    >>> expected_size("attention-forward", n=2, d=1)
    (24, 32)
    >>> masked = attention_forward_dag(2, 1, mask=[[1, 0], [1, 1]])
    >>> masked.number_of_nodes() == expected_size("attention-forward", n=2, d=1,
    ...                                           mask=[[1, 0], [1, 1]])[0] == 19
    True
    """
    _positive(n=n, d=d)
    if summation not in ("tree", "chain"):
        raise InvalidInputError(f"summation={summation!r} must be 'tree' or 'chain'")
    keep = _mask(mask, n)
    cols = [j for j in range(n) if any(keep[i][j] for i in range(n))]
    b = _Builder("attention-forward", {"n": n, "d": d, "mask": mask, "summation": summation})
    Q = {(i, a): b.input("Q", i, a) for i in range(n) for a in range(d)}
    K = {(j, a): b.input("K", j, a) for j in cols for a in range(d)}
    V = {(j, a): b.input("V", j, a) for j in cols for a in range(d)}
    E: dict[tuple[int, int], str] = {}
    outs = []
    for i in range(n):
        row = [j for j in range(n) if keep[i][j]]
        for j in row:
            S = b.dot("S", (i, j), [(Q[i, a], K[j, a]) for a in range(d)], "QK", summation)
            E[i, j] = b.op(_name("E", i, j), "exp", (S,), "intermediate", "E", (i, j))
        ell = b.reduce(_name("l", i), "l", (i,), [E[i, j] for j in row], summation)
        for a in range(d):
            U = b.dot("U", (i, a), [(E[i, j], V[j, a]) for j in row], "EV", summation)
            outs.append(b.op(_name("O", i, a), "div", (U, ell), "output", "O", (i, a)))
    return b.finish(outs)


def attention_backward_dag(n: int, d: int, gradient: str = "qkv", mask: Any = None,
                           summation: str = "tree") -> nx.DiGraph:
    r"""The attention backward DAG at scalar level.

    ``gradient="qkv"`` (FlashAttention's identities, arXiv 2205.14135 App. B.2): inputs
    Q, K, V, dO; recomputes :math:`P = \mathrm{diag}(\ell)^{-1}\exp(QK^\top)`, then
    :math:`dV = P^\top dO`, :math:`dP = dO\,V^\top`, :math:`D_i = \langle P_i, dP_i\rangle`
    (equal to rowsum(dO∘O); this form needs no O), :math:`dS = P\circ(dP - D)`,
    :math:`dQ = dS\,K`, :math:`dK = dS^\top Q`; outputs dQ, dK, dV.

    ``gradient="dX"`` (Alman–Song's formulation, used by arXiv 2410.09397; §2.2 of the
    reference): inputs A1, A2, A3, E (n×d), X, Y (d×d);
    :math:`\tilde Q = A_1X`, :math:`h = A_3Y`, :math:`f = \mathrm{diag}(\ell)^{-1}
    \exp(\tilde Q A_2^\top)`, :math:`c = fh - E`, :math:`q = c\,h^\top`,
    :math:`r_i = \langle f_i, q_i\rangle`, :math:`p = f\circ(q - r\mathbf 1^\top)`,
    :math:`G = pA_2`; output :math:`dL/dX = A_1^\top G` (d×d).

    Parameters
    ----------
    n, d : int
        Sequence length and head dimension (keep them tiny: n = 2, d = 1 has 58 / 63 vertices).
    gradient : {"qkv", "dX"}
    mask : n×n array-like of bool, optional
        As in :func:`attention_forward_dag`.
    summation : {"tree", "chain"}

    Returns
    -------
    networkx.DiGraph

    Raises
    ------
    InvalidInputError
        Bad sizes, an unknown ``gradient``, a malformed mask.

    Examples
    --------
    >>> G = attention_backward_dag(2, 1)
    >>> G.number_of_nodes(), sorted(G.graph["outputs"])[:2]
    (58, ['dK[0,0]', 'dK[1,0]'])
    >>> expected_size("attention-backward", n=2, d=1) == (58, G.number_of_edges())
    True
    >>> attention_backward_dag(2, 1, gradient="dX").graph["outputs"]
    ['g[0,0]']
    """
    _positive(n=n, d=d)
    if gradient not in ("qkv", "dX"):
        raise InvalidInputError(f"gradient={gradient!r} must be 'qkv' or 'dX'")
    if summation not in ("tree", "chain"):
        raise InvalidInputError(f"summation={summation!r} must be 'tree' or 'chain'")
    keep = _mask(mask, n)
    cols = [j for j in range(n) if any(keep[i][j] for i in range(n))]
    rows_of = {j: [i for i in range(n) if keep[i][j]] for j in cols}
    cols_of = {i: [j for j in range(n) if keep[i][j]] for i in range(n)}
    b = _Builder("attention-backward",
                 {"n": n, "d": d, "gradient": gradient, "mask": mask, "summation": summation})
    s = summation
    if gradient == "qkv":
        Q = {(i, a): b.input("Q", i, a) for i in range(n) for a in range(d)}
        dO = {(i, a): b.input("dO", i, a) for i in range(n) for a in range(d)}
        K = {(j, a): b.input("K", j, a) for j in cols for a in range(d)}
        V = {(j, a): b.input("V", j, a) for j in cols for a in range(d)}
        rowQ = Q
    else:
        A1 = {(i, a): b.input("A1", i, a) for i in range(n) for a in range(d)}
        Ein = {(i, a): b.input("E", i, a) for i in range(n) for a in range(d)}
        A2 = {(j, a): b.input("A2", j, a) for j in cols for a in range(d)}
        A3 = {(j, a): b.input("A3", j, a) for j in cols for a in range(d)}
        X = {(a, c): b.input("X", a, c) for a in range(d) for c in range(d)}
        Y = {(a, c): b.input("Y", a, c) for a in range(d) for c in range(d)}
        # Q~ = A1·X and h = A3·Y: the n×d·d×d products.
        rowQ = {(i, c): b.dot("Qt", (i, c), [(A1[i, a], X[a, c]) for a in range(d)], "A1X", s)
                for i in range(n) for c in range(d)}
        K = A2
        V = {(j, c): b.dot("h", (j, c), [(A3[j, a], Y[a, c]) for a in range(d)], "A3Y", s)
             for j in cols for c in range(d)}
    # Forward recomputation: S, exp, row sums, P (= f).
    P: dict[tuple[int, int], str] = {}
    for i in range(n):
        E = {}
        for j in cols_of[i]:
            S = b.dot("S", (i, j), [(rowQ[i, a], K[j, a]) for a in range(d)], "QK", s)
            E[j] = b.op(_name("Ex", i, j), "exp", (S,), "intermediate", "Ex", (i, j))
        ell = b.reduce(_name("l", i), "l", (i,), list(E.values()), s)
        for j in cols_of[i]:
            P[i, j] = b.op(_name("P", i, j), "div", (E[j], ell), "intermediate", "P", (i, j))
    outs: list[str] = []
    if gradient == "qkv":
        dOm = dO
    else:
        # O = f·h, c = O − E  (c plays dO's role).
        dOm = {}
        for i in range(n):
            for a in range(d):
                Oia = b.dot("O", (i, a), [(P[i, j], V[j, a]) for j in cols_of[i]], "fh", s)
                dOm[i, a] = b.op(_name("c", i, a), "sub", (Oia, Ein[i, a]), "intermediate",
                                 "c", (i, a))
    if gradient == "qkv":
        for j in cols:  # dV = Pᵀ·dO
            for a in range(d):
                outs.append(b.dot("dV", (j, a), [(P[i, j], dO[i, a]) for i in rows_of[j]],
                                  "PtdO", s, "output"))
    dS: dict[tuple[int, int], str] = {}
    for i in range(n):
        dP = {j: b.dot("dP", (i, j), [(dOm[i, a], V[j, a]) for a in range(d)], "dOVt", s)
              for j in cols_of[i]}
        prods = [b.op(_name("PdP", i, j), "mul", (P[i, j], dP[j]), "intermediate", "PdP", (i, j))
                 for j in cols_of[i]]
        D = b.reduce(_name("D", i), "D", (i,), prods, s)
        for j in cols_of[i]:
            diff = b.op(_name("dPD", i, j), "sub", (dP[j], D), "intermediate", "dPD", (i, j))
            dS[i, j] = b.op(_name("dS", i, j), "mul", (P[i, j], diff), "intermediate", "dS", (i, j))
    if gradient == "qkv":
        for i in range(n):  # dQ = dS·K
            for a in range(d):
                outs.append(b.dot("dQ", (i, a), [(dS[i, j], K[j, a]) for j in cols_of[i]],
                                  "dSK", s, "output"))
        for j in cols:  # dK = dSᵀ·Q
            for a in range(d):
                outs.append(b.dot("dK", (j, a), [(dS[i, j], Q[i, a]) for i in rows_of[j]],
                                  "dStQ", s, "output"))
    else:
        Gm = {(i, a): b.dot("G", (i, a), [(dS[i, j], K[j, a]) for j in cols_of[i]], "pA2", s)
              for i in range(n) for a in range(d)}
        for a in range(d):  # g = A1ᵀ·G
            for c in range(d):
                outs.append(b.dot("g", (a, c), [(A1[i, a], Gm[i, c]) for i in range(n)],
                                  "A1tG", s, "output"))
    return b.finish(outs)


def size_floor(builder_name: str, **params: Any) -> int:
    """A cheap lower bound on the vertices of a builder's DAG — its m·k·p products (matmul)
    or n²·d score products (attention) — to refuse huge declared sizes before
    :func:`expected_size` (which lists an n×n mask) or a build runs.

    >>> size_floor("matmul", m=2, k=3, p=4), size_floor("attention-forward", n=4, d=2)
    (24, 32)
    """
    if builder_name == "matmul":
        return params["m"] * params["k"] * params["p"]
    return params["n"] ** 2 * params["d"]


def shown_count(count: int) -> str:
    """``"at least N"``, or ``"more than 10**30"`` for a count too long to print.

    >>> shown_count(125000), shown_count(10**400)
    ('at least 125000', 'more than 10**30')
    """
    return f"at least {count}" if count < 10**30 else "more than 10**30"


def expected_size(builder_name: str, **params: Any) -> tuple[int, int]:
    r"""Closed-form (vertices, edges) of a builder's DAG.

    With z = kept score entries and c = attended key columns (z = n², c = n unmasked):

    * ``matmul`` (tree/chain): V = mk + kp + mkp + mp(k−1), E = 2mkp + 2mp(k−1);
      (fma): V = mk + kp + mkp, E = 2mp + 3mp(k−1).
    * ``attention-forward``: V = nd + 2cd + 2zd + z(d−1) + z + (z−n) + d(z−n) + nd,
      E = 2zd + 2z(d−1) + z + 2(z−n) + 2zd + 2d(z−n) + 2nd.
    * ``attention-backward`` (``qkv``): inputs 2nd + 2cd; recomputation of P: zd products,
      z(d−1) adds, z exp, z−n adds, z div; dV: zd + d(z−c); dP: zd + z(d−1);
      D: z + (z−n); dS: 2z; dQ: zd + d(z−n); dK: zd + d(z−c).
    * ``attention-backward`` (``dX``): as ``qkv`` without dV, dK, dQ, plus
      Q̃, h (nd² + nd(d−1), cd² + cd(d−1)), O (zd + d(z−n)), c (nd), G (zd + d(z−n)),
      g (nd² + d²(n−1)) and the inputs 2nd + 2cd + 2d².

    Examples
    --------
    >>> expected_size("matmul", m=2, k=2, p=2)
    (20, 24)
    >>> expected_size("matmul", m=1, k=3, p=1, summation="fma")
    (9, 8)
    """
    if builder_name == "matmul":
        m, k, p = params["m"], params["k"], params["p"]
        if params.get("summation", "tree") == "fma":
            return m * k + k * p + m * k * p, 2 * m * p + 3 * m * p * (k - 1)
        return m * k + k * p + m * k * p + m * p * (k - 1), 2 * m * k * p + 2 * m * p * (k - 1)
    n, d = params["n"], params["d"]
    keep = _mask(params.get("mask"), n)
    z = sum(map(sum, keep))
    c = sum(1 for j in range(n) if any(keep[i][j] for i in range(n)))
    # the P / f layer shared by forward and backward: S trees, exp, row sums
    v_s, e_s = z * d + z * (d - 1) + z, 2 * z * d + 2 * z * (d - 1) + z
    v_l, e_l = z - n, 2 * (z - n)
    if builder_name == "attention-forward":
        v = n * d + 2 * c * d + v_s + v_l + z * d + d * (z - n) + n * d
        e = e_s + e_l + 2 * z * d + 2 * d * (z - n) + 2 * n * d
        return v, e
    if builder_name != "attention-backward":
        raise InvalidInputError(f"builder_name={builder_name!r} is not a known builder")
    # ... and P = E / l; a row with one kept entry divides E by itself: one edge, not two
    singles = sum(1 for row in keep if sum(row) == 1)
    v = v_s + v_l + z
    e = e_s + e_l + 2 * z - singles
    v += z * d + z * (d - 1)           # dP = dO·Vᵀ
    e += 2 * z * d + 2 * z * (d - 1)
    v += z + (z - n) + 2 * z           # D_i = <P_i, dP_i>, dS = P∘(dP − D)
    e += 2 * z + 2 * (z - n) + 4 * z
    if params.get("gradient", "qkv") == "qkv":
        v += 2 * n * d + 2 * c * d
        for _ in range(3):             # dV, dQ, dK: zd products each
            v += z * d
            e += 2 * z * d
        v += d * (z - c) + d * (z - n) + d * (z - c)
        e += 2 * (d * (z - c) + d * (z - n) + d * (z - c))
        return v, e
    v += 2 * n * d + 2 * c * d + 2 * d * d
    for rows in (n, c):                # Q~ = A1·X (n rows), h = A3·Y (c rows)
        v += rows * d * d + rows * d * (d - 1)
        e += 2 * rows * d * d + 2 * rows * d * (d - 1)
    v += z * d + d * (z - n) + n * d   # O = f·h, c = O − E
    e += 2 * z * d + 2 * d * (z - n) + 2 * n * d
    v += z * d + d * (z - n)           # G = p·A2
    e += 2 * z * d + 2 * d * (z - n)
    v += n * d * d + d * d * (n - 1)   # g = A1ᵀ·G
    e += 2 * n * d * d + 2 * d * d * (n - 1)
    return v, e


def level1_vertices(G: nx.DiGraph, product: str) -> list[str]:
    r"""The level-1 vertices of one standard product in ``G``: its products, the internal
    vertices of its summation trees and their roots (Saha & Ye's definition, §2.4).

    ``product`` is the ``product_of`` tag: ``"AB"`` (matmul), ``"QK"`` and ``"EV"`` (forward),
    ``"QK"``, ``"PtdO"``, ``"dOVt"``, ``"dSK"``, ``"dStQ"`` (backward ``qkv``), ``"A1X"``,
    ``"A3Y"``, ``"fh"``, ``"pA2"``, ``"A1tG"`` (backward ``dX``).

    Examples
    --------
    >>> G = attention_forward_dag(2, 2)
    >>> len(level1_vertices(G, "QK"))   # n² trees with d = 2 leaves: 4·(2 + 1)
    12
    >>> [v for v in level1_vertices(G, "QK") if G.nodes[v]["role"] == "product"][:2]
    ['QK[0,0,0]', 'QK[0,0,1]']
    """
    return [v for v, tag in G.nodes(data="product_of") if tag == product]


_OPS: dict[str, Callable[..., float]] = {
    "mul": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / b,
    "fma": lambda c, a, b: c + a * b,
    "exp": math.exp,
}


def evaluate(G: nx.DiGraph, values: dict[str, float]) -> dict[str, float]:
    """Evaluate every vertex of a builder DAG given the input values (for testing builders).

    Parameters
    ----------
    G : networkx.DiGraph
        A builder DAG: every computed vertex carries ``op`` and ``args`` (its operands in
        order, e.g. dividend first; an operand may repeat, as in E / E).
    values : dict
        A value for every input vertex.

    Returns
    -------
    dict
        Value of every vertex.

    Examples
    --------
    >>> G = matmul_dag(1, 2, 1)
    >>> evaluate(G, {"A[0,0]": 1.0, "A[0,1]": 2.0, "B[0,0]": 3.0, "B[1,0]": 4.0})["C[0,0]"]
    11.0
    """
    out = dict(values)
    for v in nx.topological_sort(G):
        op = G.nodes[v]["op"]
        if op == "input":
            if v not in out:
                raise InvalidInputError(f"no value for input {v!r}")
            continue
        out[v] = _OPS[op](*(out[u] for u in G.nodes[v]["args"]))
    return out


def random_dag(n: int, edge_probability: float = 0.4, *, seed: int,
               max_in_degree: int = 3) -> nx.DiGraph:
    """A random DAG on vertices ``"v0" … "v{n-1}"`` (edges only from lower to higher index),
    for property tests of the pebbling solvers; outputs are the sinks.

    Parameters
    ----------
    n : int
        Number of vertices.
    edge_probability : float
        Chance of each forward edge, before in-degrees are capped.
    seed : int
        Seed of the ``numpy.random.Generator`` (reproducible).
    max_in_degree : int
        Cap on in-degrees (keeps the minimum cache size small).

    Examples
    --------
    >>> G = random_dag(6, seed=1)
    >>> G.number_of_nodes(), nx.is_directed_acyclic_graph(G)
    (6, True)
    >>> sorted(random_dag(6, seed=1).edges) == sorted(G.edges)
    True
    """
    import numpy as np

    _positive(n=n)
    rng = np.random.default_rng(seed)
    G: nx.DiGraph = nx.DiGraph()
    G.add_nodes_from(f"v{i}" for i in range(n))
    for j in range(1, n):
        parents = [i for i in range(j) if rng.random() < edge_probability]
        if len(parents) > max_in_degree:
            parents = sorted(int(x) for x in rng.choice(parents, max_in_degree, replace=False))
        G.add_edges_from((f"v{i}", f"v{j}") for i in parents)
    G.graph["builder"] = "random"
    G.graph["params"] = {"n": n, "edge_probability": edge_probability, "seed": seed}
    return G


def gnp_dag(n: int, p: float, seed: int) -> nx.DiGraph:
    """The uncapped random DAG of the SAT engine's and the checker's soundness tests: vertices
    ``"v0" … "v{n-1}"``, each edge ``v_i → v_j`` (i < j) present with probability ``p``, drawn
    by ``random.Random(seed)`` for j ascending, then i ascending; outputs are the sinks.

    Unlike :func:`random_dag` no in-degree is capped (so the minimum cache can be large).

    >>> G = gnp_dag(5, 0.5, 0)
    >>> sorted(G), nx.is_directed_acyclic_graph(G), set(gnp_dag(5, 0.5, 0).edges) == set(G.edges)
    (['v0', 'v1', 'v2', 'v3', 'v4'], True, True)
    """
    import random

    rng = random.Random(seed)
    G: nx.DiGraph = nx.DiGraph()
    G.add_nodes_from(f"v{i}" for i in range(n))
    G.add_edges_from((f"v{i}", f"v{j}") for j in range(n) for i in range(j) if rng.random() < p)
    return G


BUILDERS: dict[str, Callable[..., nx.DiGraph]] = {
    "matmul": matmul_dag,
    "attention-forward": attention_forward_dag,
    "attention-backward": attention_backward_dag,
}
