r"""Scalar DAGs from einsum chains: ``attnio pebble --einsum PROGRAM --sizes i=2,j=2``.

Two spellings.

**numpy's**, one contraction: ``"ij,jk->ik"`` (operands named ``A``, ``B``, ``C``, ... in order,
the result ``OUT``).

**A program**, statements separated by ``;``, each ``NAME[idx] = RHS`` where ``idx`` is a
string of index letters (one letter per axis, each letter's size from ``--sizes``) and RHS is
one of

=================================  ===========================================================
``X[ij] Y[jk] ...``                a contraction (Einstein summation): every entry of the left
                                   side is the sum, over the letters that are not on the left,
                                   of the product of one entry per operand
``f(X[ij])``                       an elementwise function (``exp``, ``log``, any name) of one
                                   operand whose letters are exactly the left side's
``X[ij] OP Y[i]``                  an elementwise ``+``, ``-``, ``*`` or ``/``; each operand's
                                   letters are among the left side's (broadcast)
``softmax_j(X[ij])``               a softmax along letter ``j``: ``NAME.exp = exp(X)``,
                                   ``NAME.sum = sum_j NAME.exp``, ``NAME = NAME.exp / NAME.sum``
=================================  ===========================================================

A name no earlier statement defines is an input (its entries are the DAG's sources); the
outputs are the defined tensors no later statement uses.

The scalar DAG is that of :mod:`attnio.graphs.dags`: a product of several operand entries is a
chain of ``mul`` vertices left to right; a sum of several terms a balanced binary tree (split
at the middle, the terms in lexicographic order of the summed letters); **one term is its own
vertex** and one operand entry with nothing to multiply or add is that entry (no copy). So
attention forward with n = 2, d = 1 is

    S[ij] = Q[ia] K[ja]; E[ij] = exp(S[ij]); l[i] = E[ij]; U[ia] = E[ij] V[ja];
    O[ia] = U[ia] / l[i]                                      --sizes i=2,j=2,a=1

and gives :func:`attnio.graphs.dags.attention_forward_dag` up to isomorphism (a test, with
both backward passes too: :data:`ATTENTION_FORWARD`, :data:`ATTENTION_BACKWARD`,
:data:`ATTENTION_BACKWARD_DX`).

Examples
--------
>>> G = einsum_dag("ij,jk->ik", {"i": 2, "j": 2, "k": 2})
>>> G.number_of_nodes(), G.number_of_edges(), sorted(G.graph["outputs"])[:1]
(20, 24, ['OUT[0,0]'])
>>> einsum_dag("C[ik] = A[ij] B[jk]", {"i": 1, "j": 2})
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: --sizes has no size for index letter 'k'
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Mapping

import networkx as nx

from attnio.exceptions import InvalidInputError
from attnio.validation import describe, parse_positive_int

__all__ = ["einsum_dag", "parse_sizes_spec", "parse_program", "Statement",
           "ATTENTION_FORWARD", "ATTENTION_BACKWARD", "ATTENTION_BACKWARD_DX",
           "MAX_EINSUM_VERTICES"]

#: Largest DAG an einsum program may build (vertices), checked before building.
MAX_EINSUM_VERTICES = 200_000

#: Attention forward (Saha–Ye's Figure 1; sizes i = j = n, a = d).
ATTENTION_FORWARD = ("S[ij] = Q[ia] K[ja]; E[ij] = exp(S[ij]); l[i] = E[ij]; "
                     "U[ia] = E[ij] V[ja]; O[ia] = U[ia] / l[i]")
#: Attention backward, FlashAttention's identities (sizes i = j = n, a = d).
ATTENTION_BACKWARD = ("S[ij] = Q[ia] K[ja]; P[ij] = softmax_j(S[ij]); dV[ja] = P[ij] dO[ia]; "
                      "dP[ij] = dO[ia] V[ja]; D[i] = P[ij] dP[ij]; dPD[ij] = dP[ij] - D[i]; "
                      "dS[ij] = P[ij] * dPD[ij]; dQ[ia] = dS[ij] K[ja]; dK[ja] = dS[ij] Q[ia]")

#: Alman–Song's dL/dX (the builtin ``gradient="dX"``; sizes i = j = n, a = c = d).
ATTENTION_BACKWARD_DX = (
    "Qt[ic] = A1[ia] X[ac]; h[jc] = A3[ja] Y[ac]; S[ij] = Qt[ic] A2[jc]; "
    "f[ij] = softmax_j(S[ij]); O[ic] = f[ij] h[jc]; c[ic] = O[ic] - E[ic]; q[ij] = c[ic] h[jc]; "
    "r[i] = f[ij] q[ij]; qr[ij] = q[ij] - r[i]; p[ij] = f[ij] * qr[ij]; G[ic] = p[ij] A2[jc]; "
    "g[ac] = A1[ia] G[ic]")

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TERM = re.compile(rf"\s*({_NAME})\[([A-Za-z]*)\]\s*")
_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


@dataclass(frozen=True)
class Statement:
    """One step: ``out[idx] = kind(operands)``; kind is ``"contract"``, ``"unary"``
    (``op`` the function), ``"binary"`` (``op`` in + - * /) or ``"softmax"`` (``op`` the
    letter)."""

    out: str
    idx: str
    kind: str
    op: str
    operands: tuple[tuple[str, str], ...]


def _term(text: str, where: str) -> tuple[str, str]:
    match = _TERM.fullmatch(text)
    if not match:
        raise InvalidInputError(f"{where}: {describe(text.strip(), 40)} is not NAME[letters]")
    name, idx = match.groups()
    if len(set(idx)) != len(idx):
        raise InvalidInputError(f"{where}: {name}[{idx}] repeats an index letter")
    return name, idx


def parse_program(text: str) -> list[Statement]:
    """The statements of an einsum program (module docstring); numpy's ``"ij,jk->ik"`` is
    rewritten as ``OUT[ik] = A[ij] B[jk]``.

    >>> [s.kind for s in parse_program("E[ij] = exp(S[ij]); l[i] = E[ij]")]
    ['unary', 'contract']
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("--einsum must be a program or a numpy einsum string")
    if "->" in text and "=" not in text:
        left, _, right = text.replace(" ", "").partition("->")
        specs = left.split(",")
        if not all(re.fullmatch(r"[A-Za-z]*", s) for s in [*specs, right]):
            raise InvalidInputError(f"--einsum {describe(text, 40)} must look like ij,jk->ik")
        names = [chr(ord("A") + k) for k in range(len(specs))]
        if len(specs) > 26:
            raise InvalidInputError("--einsum has more than 26 operands")
        text = f"OUT[{right}] = " + " ".join(f"{n}[{s}]" for n, s in zip(names, specs))
    statements: list[Statement] = []
    for number, raw in enumerate(text.split(";"), start=1):
        if not raw.strip():
            continue
        where = f"--einsum statement {number}"
        lhs, eq, rhs = raw.partition("=")
        if not eq:
            raise InvalidInputError(f"{where}: expected NAME[letters] = ...")
        out, idx = _term(lhs, where)
        rhs = rhs.strip()
        call = re.fullmatch(rf"({_NAME})\s*\((.*)\)", rhs)
        binary = re.fullmatch(r"(.+?\])\s*([-+*/])\s*(.+)", rhs)
        if call:
            func, inner = call.groups()
            operand = _term(inner, where)
            if func.startswith("softmax_"):
                letter = func[len("softmax_"):]
                if len(letter) != 1 or letter not in operand[1] or operand[1] != idx:
                    raise InvalidInputError(f"{where}: softmax_X needs X a letter of its "
                                            "operand, whose letters are the left side's")
                statements.append(Statement(out, idx, "softmax", letter, (operand,)))
            else:
                if operand[1] != idx:
                    raise InvalidInputError(f"{where}: {func}(...) keeps the letters: "
                                            f"{operand[0]}[{operand[1]}] is not [{idx}]")
                statements.append(Statement(out, idx, "unary", func, (operand,)))
        elif binary:
            a, op, b = binary.groups()
            operands: tuple[tuple[str, str], ...] = (_term(a, where), _term(b, where))
            if not all(set(o[1]) <= set(idx) for o in operands):
                raise InvalidInputError(f"{where}: an elementwise {op} sums nothing: every "
                                        "operand's letters must be on the left side")
            statements.append(Statement(out, idx, "binary", op, operands))
        else:
            operands = tuple(_term(m.group(0), where) for m in
                             re.finditer(rf"{_NAME}\[[A-Za-z]*\]", rhs))
            if not operands or re.sub(rf"{_NAME}\[[A-Za-z]*\]", "", rhs).strip():
                raise InvalidInputError(f"{where}: {describe(rhs, 40)} is not a contraction, "
                                        "f(X[..]), X[..] OP Y[..] or softmax_j(X[..])")
            missing = set(idx) - {c for _, s in operands for c in s}
            if missing:
                raise InvalidInputError(f"{where}: letter {sorted(missing)[0]!r} of the left "
                                        "side is on no operand")
            statements.append(Statement(out, idx, "contract", "", operands))
    if not statements:
        raise InvalidInputError("--einsum has no statement")
    return statements


def parse_sizes_spec(text: str) -> dict[str, int]:
    """``"i=2,j=3"`` → ``{"i": 2, "j": 3}`` (each letter once, sizes positive ints).

    >>> parse_sizes_spec("i=2, j=3")
    {'i': 2, 'j': 3}
    """
    sizes: dict[str, int] = {}
    for part in str(text).split(","):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not re.fullmatch(r"[A-Za-z]", key) or key in sizes:
            raise InvalidInputError(f"--sizes {describe(text, 40)} must look like i=2,j=2 "
                                    "(one letter each, once)")
        sizes[key] = parse_positive_int(f"size of {key}", value.strip())
    return sizes


class _Build:
    def __init__(self) -> None:
        self.G: nx.DiGraph = nx.DiGraph()
        self.tensors: dict[str, dict[tuple[int, ...], str]] = {}
        self.letters: dict[str, str] = {}

    def op(self, name: str, op: str, args: list[str]) -> str:
        self.G.add_node(name, op=op, args=tuple(args), role="intermediate")
        for a in args:
            self.G.add_edge(a, name)
        return name

    def product(self, name: str, entries: list[str]) -> str:
        acc = entries[0]
        for k, e in enumerate(entries[1:], start=1):
            acc = self.op(name if k == len(entries) - 1 else f"{name}:{k}", "mul", [acc, e])
        return acc

    def total(self, name: str, terms: list[str]) -> str:
        def build(lo: int, hi: int) -> str:
            if hi - lo == 1:
                return terms[lo]
            mid = (lo + hi) // 2
            return self.op(name if (lo, hi) == (0, len(terms)) else f"{name}:{lo}-{hi}", "add",
                           [build(lo, mid), build(mid, hi)])

        return build(0, len(terms))


def _key(index: tuple[int, ...]) -> str:
    return ",".join(map(str, index))


def einsum_dag(program: str, sizes: Mapping[str, int], *,
               max_vertices: int = MAX_EINSUM_VERTICES) -> nx.DiGraph:
    """The scalar DAG of an einsum program (module docstring) with the letters' ``sizes``.

    Raises
    ------
    InvalidInputError
        A malformed program, a letter without a size (or a size no letter uses), a name
        defined twice or used with two shapes, more than ``max_vertices`` vertices.
    """
    statements = parse_program(program)
    used = {c for s in statements for c in s.idx + "".join(i for _, i in s.operands)}
    for c in sorted(used):
        if c not in sizes:
            raise InvalidInputError(f"--sizes has no size for index letter {c!r}")
    extra = sorted(set(sizes) - used)
    if extra:
        raise InvalidInputError(f"--sizes names {extra[0]!r}, which no statement uses")
    # a cheap size estimate first: every entry of every statement, and its terms
    estimate = 0
    for s in statements:
        count = 1
        for c in s.idx:
            count *= sizes[c]
        per_entry = 1
        for c in {c for _, i in s.operands for c in i} - set(s.idx):
            per_entry *= sizes[c]
        estimate += count * per_entry * (len(s.operands) + 1) * (3 if s.kind == "softmax"
                                                                    else 1)
        if estimate > max_vertices:
            raise InvalidInputError(f"--einsum builds more than {max_vertices} vertices "
                                    "(MAX_EINSUM_VERTICES); use smaller --sizes")
    b = _Build()
    defined: list[str] = []
    read: set[str] = set()

    def tensor(name: str, idx: str, where: str) -> dict[tuple[int, ...], str]:
        if name in b.letters:
            if len(b.letters[name]) != len(idx) or any(
                    sizes[x] != sizes[y] for x, y in zip(b.letters[name], idx)):
                raise InvalidInputError(f"{where}: {name} is used with two shapes")
            return b.tensors[name]
        b.letters[name] = idx  # an input: its entries are sources
        entries = {}
        for index in itertools.product(*(range(sizes[c]) for c in idx)):
            v = f"{name}[{_key(index)}]"
            b.G.add_node(v, op="input", role="input")
            entries[index] = v
        b.tensors[name] = entries
        return entries

    def define(name: str, idx: str, where: str) -> None:
        if name in b.letters:
            raise InvalidInputError(f"{where}: {name} is defined twice (or is an input)")
        b.letters[name] = idx
        defined.append(name)

    for number, s in enumerate(statements, start=1):
        where = f"--einsum statement {number}"
        operands = [(tensor(n, i, where), i) for n, i in s.operands]
        read.update(n for n, _ in s.operands)
        out_index = list(itertools.product(*(range(sizes[c]) for c in s.idx)))
        result: dict[tuple[int, ...], str] = {}
        if s.kind == "softmax":
            (src, src_idx), = operands
            define(s.out, s.idx, where)
            pos = s.idx.index(s.op)
            exps = {ix: b.op(f"{s.out}.exp[{_key(ix)}]", "exp", [src[ix]]) for ix in out_index}
            rest = [c for c in s.idx if c != s.op]
            sums = {}
            for rix in itertools.product(*(range(sizes[c]) for c in rest)):
                terms = [exps[rix[:pos] + (t,) + rix[pos:]] for t in range(sizes[s.op])]
                sums[rix] = (terms[0] if len(terms) == 1 else
                             b.total(f"{s.out}.sum[{_key(rix)}]", terms))
            for ix in out_index:
                rix = ix[:pos] + ix[pos + 1:]
                result[ix] = b.op(f"{s.out}[{_key(ix)}]", "div", [exps[ix], sums[rix]])
        elif s.kind in ("unary", "binary"):
            define(s.out, s.idx, where)
            for ix in out_index:
                at = dict(zip(s.idx, ix))
                args = [t[tuple(at[c] for c in i)] for t, i in operands]
                op = s.op if s.kind == "unary" else _OPS[s.op]
                result[ix] = b.op(f"{s.out}[{_key(ix)}]", op, args)
        else:
            define(s.out, s.idx, where)
            summed = sorted({c for _, i in operands for c in i} - set(s.idx),
                            key=lambda c: [c2 for _, i in s.operands for c2 in i].index(c))
            for ix in out_index:
                at = dict(zip(s.idx, ix))
                terms = []
                for sx in itertools.product(*(range(sizes[c]) for c in summed)):
                    at.update(zip(summed, sx))
                    entries = [t[tuple(at[c] for c in i)] for t, i in operands]
                    single = len(sx) == 0 or all(sizes[c] == 1 for c in summed)
                    name = (f"{s.out}[{_key(ix)}]" if single else
                            f"{s.out}.p[{_key(ix)}|{_key(sx)}]")
                    terms.append(entries[0] if len(entries) == 1 else b.product(name, entries))
                result[ix] = (terms[0] if len(terms) == 1 else
                              b.total(f"{s.out}[{_key(ix)}]", terms))
        b.tensors[s.out] = result
    G = b.G
    outputs = [v for name in defined if name not in read for v in b.tensors[name].values()]
    for v in outputs:
        if G.nodes[v].get("op") != "input":
            G.nodes[v]["role"] = "output"
    G.graph["inputs"] = sorted(v for v in G if G.in_degree(v) == 0)
    G.graph["outputs"] = list(dict.fromkeys(outputs))
    G.graph["builder"] = "einsum"
    return G
