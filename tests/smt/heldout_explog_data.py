"""Held-out statements on exp/log, floor/ceiling, huge constants and I/O-bound algebra.

Provenance: written by hand on 2026-12-06 by an adversarial tester who did NOT read the
implementation of the prover (nothing under ``smt/`` or any ``attnio`` source or test was
opened, except ``tests/smt/test_heldout_statements.py`` to learn the row format, the
domain names and the verdict semantics).  Every expectation was worked out by hand; the
counterexample points of the "refuted" rows and the undefined points of the "where" rows
were re-checked numerically with plain Python (``fractions``/``math``/``mpmath``) and with
sympy used as a calculator only -- the tool itself was never run on this file.

Each row is ``(statement, declarations, expected)`` with ``expected`` one of

* ``"proved"``  -- defined at every point of the declared domains and true there;
* ``"where"``   -- undefined at some admissible point, true wherever defined;
* ``"refuted"`` -- false at some admissible point where it is defined;
* ``"vacuous"`` -- defined nowhere, or an antecedent that holds nowhere it is defined.

Semantics assumed (partial functions): ``log(e)`` needs ``e > 0``; ``log(e, b)`` needs
``e > 0, b > 0, b != 1``; ``sqrt(e)`` needs ``e >= 0``; ``1/e`` needs ``e != 0``;
``And``/``Or``/``Not`` (and relations) are undefined where any argument is undefined;
``Implies(A, B)`` needs ``A`` defined everywhere and ``B`` defined only where ``A`` holds.

Comments: for "refuted" a concrete counterexample point, for "where" an admissible point
where the statement is undefined, otherwise the reason it holds.

Categories (marked by the section comments):
  (1) exp/log inequalities and identities, with false twins;
  (2) where-defined and vacuous cases with log;
  (3) floor/ceiling over integers and positive integers;
  (4) huge constants;
  (5) mixed I/O-bound statements (sqrt(M), log factors), with false twins.
"""

from __future__ import annotations

NONE: dict[str, str] = {}
R = {"x": "real"}
RY = {"x": "real", "y": "real"}
P = {"x": "positive"}
PXY = {"x": "positive", "y": "positive"}
INT = {"n": "integer"}
PI = {"n": "positive-integer"}
NM = {"n": "positive-integer", "M": "positive-integer"}
NiM = {"n": "integer", "M": "positive-integer"}
NMi = {"n": "positive-integer", "M": "integer"}
NMR = {"n": "positive", "M": "positive"}
AB = {"a": "positive-integer", "b": "positive-integer"}
ABR = {"a": "positive", "b": "positive"}
NAB = {"n": "positive-integer", "a": "positive-integer", "b": "positive-integer"}
XN = {"x": "real", "n": "integer"}
ND = {"n": "positive-integer", "d": "positive-integer"}
NDM = {"n": "positive-integer", "d": "positive-integer", "M": "positive-integer"}
NDMR = {"n": "positive", "d": "positive", "M": "positive"}

STATEMENTS: list[tuple[str, dict[str, str], str]] = [
    # ------------------------------------------------ (1) exp/log inequalities, identities
    ("exp(x) >= 1 + x", R, "proved"),                          # tangent line of a convex fn
    ("exp(x) > 1 + x", R, "refuted"),                          # x = 0: 1 > 1 false
    ("exp(x) >= 2 + x", R, "refuted"),                         # x = 0: 1 >= 2 false
    ("log(x) <= x - 1", P, "proved"),                          # tangent line of a concave fn
    ("log(x) < x - 1", P, "refuted"),                          # x = 1: 0 < 0 false
    ("log(x) <= x - 2", P, "refuted"),                         # x = 1: 0 <= -1 false
    ("log(1 + x**2) >= 0", R, "proved"),                       # 1 + x**2 >= 1
    ("log(1 + x**2) > 0", R, "refuted"),                       # x = 0: log(1) = 0
    ("Eq(exp(x - y), exp(x)/exp(y))", RY, "proved"),           # exp(y) > 0, never 0
    ("exp(x) + exp(-x) >= 2", R, "proved"),                    # AM-GM, t + 1/t >= 2
    ("exp(x) + exp(-x) > 2", R, "refuted"),                    # x = 0: 2 > 2 false
    ("Implies(x <= y, exp(x) <= exp(y))", RY, "proved"),       # exp increasing
    ("Implies(x <= y, exp(x) < exp(y))", RY, "refuted"),       # x = y = 0
    ("Implies(x < y, log(x) < log(y))", PXY, "proved"),        # log increasing on (0, oo)
    ("Implies(x < y, log(y) - log(x) >= 1)", PXY, "refuted"),  # x = 1, y = 2: log 2 < 1
    ("Eq(log(x/y), log(x) - log(y))", PXY, "proved"),
    ("Eq(log(8, 2), 3)", NONE, "proved"),
    ("Eq(log(8, 2), 4)", NONE, "refuted"),                     # log2(8) = 3
    ("Eq(log(x, 2), log(x)/log(2))", P, "proved"),             # change of base
    ("Eq(log(x, 4), log(x, 2)/2)", P, "proved"),               # log 4 = 2 log 2
    ("Eq(log(x, 4), 2*log(x, 2))", P, "refuted"),              # x = 2: 1/2 vs 2
    ("Eq(log(x, 2) + log(y, 2), log(x*y, 2))", PXY, "proved"),
    ("Eq(log(2**n, 2), n)", INT, "proved"),                    # 2**n > 0 for every integer n
    ("log(n, 2) <= n", PI, "proved"),                          # n < 2**n
    ("log(n, 2) <= n - 1", PI, "proved"),                      # n <= 2**(n-1) for n >= 1
    ("log(x, 2) <= x - 1", P, "refuted"),                      # x = 3/2: log2(1.5) = 0.585 > 0.5
    ("log(n, 2) < n - 1", PI, "refuted"),                      # n = 1: 0 < 0 false
    ("log(n, 2) >= 1", PI, "refuted"),                         # n = 1: log2(1) = 0
    ("Implies(x > 0, Eq(exp(log(x)), x))", R, "proved"),
    ("Eq(log(exp(2*x)), 2*x)", R, "proved"),
    ("Eq(log(exp(x)), x + 1)", R, "refuted"),                  # x = 0: 0 vs 1
    ("Ne(exp(x), 0)", R, "proved"),
    ("exp(x) >= 1", R, "refuted"),                             # x = -1: exp(-1) = 0.368
    ("Ne(log(x), 0)", P, "refuted"),                           # x = 1
    ("Implies(x >= 0, exp(x) >= 1 + x + x**2/2)", R, "proved"),  # Taylor, all terms >= 0
    ("exp(x) >= 1 + x + x**2/2", R, "refuted"),                # x = -1: 0.368 < 0.5
    # ------------------------------------------------ (2) where-defined / vacuous with log
    ("log(log(x)) <= x", R, "where"),                          # x = 1: log(log 1) = log 0
    ("log(log(x)) < log(x)", R, "where"),                      # x = 1/2: log(-0.69) undefined
    ("log(log(x)) >= 0", R, "refuted"),                        # x = 2: log(0.693) = -0.37
    ("Eq(log(x)/log(x), 1)", P, "where"),                      # x = 1: division by log 1 = 0
    ("Implies(x > 1, Eq(log(x)/log(x), 1))", R, "proved"),
    ("Eq(log(x, x), 1)", P, "where"),                          # x = 1: base 1
    ("Eq(exp(log(x)), x)", R, "where"),                        # x = 0: log 0
    ("Eq(log(x*y), log(x) + log(y))", RY, "where"),            # x = y = -1: log(x) undefined
    ("Implies(x < y, log(x) < log(y))", RY, "where"),          # x = -1, y = 1: A holds, B undef.
    ("log(x) <= x - 1", R, "where"),                           # x = 0
    ("Eq(log(x**2), 2*log(Abs(x)))", R, "where"),              # x = 0
    ("Eq(exp(log(x**2)/2), x)", R, "refuted"),                 # missing x > 0; x = -1: exp(0) = 1 != -1
    ("Implies(x > 0, Eq(exp(log(x**2)/2), x))", R, "proved"),
    ("log(x**2) >= 0", R, "refuted"),                          # x = 1/2: log(1/4) < 0
    ("Implies(x >= 1, log(x**2) >= 0)", R, "proved"),
    ("sqrt(log(x)) >= 0", P, "where"),                         # x = 1/2: sqrt(log(1/2))
    ("Implies(log(x) > 0, x > 1)", R, "where"),                # x = -1: antecedent undefined
    ("Implies(log(x) > 0, x > 1)", P, "proved"),
    ("Implies(And(x > 0, log(x) > 0), x > 1)", R, "where"),    # x = -1: And is strict
    ("Implies(x > 0, Implies(log(x) > 0, x > 1))", R, "proved"),  # guarded, nested
    ("Implies(log(x - 1) > 0, x - 2 > 0)", R, "where"),        # x = 0: log(-1)
    ("Implies(log(x - 1) > 0, log(x - 2) >= 0)", R, "refuted"),  # x = 5/2: log(1/2) < 0
    ("Implies(log(x) < 0, x > 1)", R, "refuted"),              # x = 1/2 (x = -1 is undefined)
    ("Implies(log(x) < -1000, x > 1)", P, "refuted"),          # x = 10**(-500): log = -1151.3
    ("log(x - 3) + log(3 - x) <= 0", R, "vacuous"),            # needs x > 3 and x < 3
    ("Eq(log(x - 3) + log(3 - x), 7)", R, "vacuous"),
    ("log(x) + log(-x) <= 0", R, "vacuous"),                   # needs x > 0 and x < 0
    ("log(-1 - x**2) <= 0", R, "vacuous"),                     # argument always <= -1
    ("log(x, 1) >= 0", P, "vacuous"),                          # base 1 is never allowed
    ("Eq(log(x, 1), 0)", R, "vacuous"),
    ("Implies(And(log(x) > 0, x < 1), x > 5)", R, "vacuous"),  # log x > 0 forces x > 1
    ("Implies(log(x) > x, x < 0)", P, "vacuous"),              # log x <= x - 1 < x always
    ("Implies(exp(x) <= 0, x > 5)", R, "vacuous"),             # exp(x) > 0 everywhere
    # --------------------------------------------------- (3) floor / ceiling over integers
    ("Eq(ceiling(n/M), floor((n + M - 1)/M))", NM, "proved"),  # classic integer identity
    ("Eq(ceiling(n/M), floor((n + M - 1)/M))", NiM, "proved"),  # also for n <= 0
    ("Eq(ceiling(n/M), floor((n + M - 1)/M))", NMR, "refuted"),  # n = 1/2, M = 1: 1 vs 0
    ("Eq(ceiling(n/M), floor((n + M)/M))", NM, "refuted"),     # n = M = 1: 1 vs 2
    ("floor(n/M)*M <= n", NM, "proved"),
    ("floor(n/M)*M < n", NM, "refuted"),                       # n = M = 1: 1 < 1 false
    ("n - floor(n/M)*M < M", NM, "proved"),                    # remainder below divisor
    ("n - floor(n/M)*M >= 0", NiM, "proved"),                  # remainder non-negative
    ("n - floor(n/M)*M <= M - 2", NM, "refuted"),              # n = M = 1: 0 <= -1 false
    ("floor(n/M)*M <= n", NMi, "refuted"),                     # n = 1, M = -2: floor(-1/2)*(-2) = 2
    ("Implies(M > 0, floor(n/M)*M <= n)", NMi, "proved"),
    ("Abs(n - floor(n/M)*M) < Abs(M)", NMi, "where"),          # n = 1, M = 0: n/0 (M < 0 fine: r in (M, 0])
    ("ceiling(n/M)*M >= n", NM, "proved"),
    ("ceiling(n/M)*M <= n + M - 1", NM, "proved"),
    ("ceiling(n/M)*M <= n + M - 2", NM, "refuted"),            # n = M = 1: 1 <= 0 false
    ("ceiling(n/M) - floor(n/M) <= 1", NM, "proved"),
    ("Eq(ceiling(n/M), floor(n/M) + 1)", NM, "refuted"),       # n = M = 1: 1 vs 2
    ("ceiling(a/b) <= a", AB, "proved"),                       # a/b <= a and a is an integer
    ("ceiling(a/b) < a", AB, "refuted"),                       # a = b = 1
    ("ceiling(a/b) <= a", ABR, "refuted"),                     # a = 1/2, b = 1: 1 > 1/2
    ("Eq(floor(x + n), floor(x) + n)", XN, "proved"),
    ("Eq(floor(x + y), floor(x) + floor(y))", RY, "refuted"),  # x = y = 1/2: 1 vs 0
    ("floor(x + y) >= floor(x) + floor(y)", RY, "proved"),
    ("floor(x + y) <= floor(x) + floor(y) + 1", RY, "proved"),
    ("floor(x + y) <= floor(x) + floor(y)", RY, "refuted"),    # x = y = 1/2
    ("Eq(floor(floor(n/a)/b), floor(n/(a*b)))", NAB, "proved"),  # nested division
    ("Eq(ceiling(ceiling(n/a)/b), ceiling(n/(a*b)))", NAB, "proved"),
    ("Eq(floor(n/2) + floor((n + 1)/2), n)", INT, "proved"),   # Hermite, also n < 0
    ("Eq(2*floor(n/2), n)", INT, "refuted"),                   # n = 1: 0 vs 1
    ("Implies(floor(x) > x, x > 0)", R, "vacuous"),            # floor(x) <= x always
    # ---------------------------------------------------------------- (4) huge constants
    ("Implies(n >= 10**200, n >= 10**199)", INT, "proved"),
    ("Implies(n >= 10**199, n >= 10**200)", INT, "refuted"),   # n = 10**199
    ("Implies(x > 10**200, x > 10**199)", R, "proved"),
    ("Implies(n > 10**200, n >= 10**200 + 1)", INT, "proved"),  # integer gap
    ("Implies(n > 10**200, n >= 10**200 + 2)", INT, "refuted"),  # n = 10**200 + 1: n >= 10**200 + 2 false
    ("Implies(x > 10**200, x >= 10**200 + 1)", R, "refuted"),  # x = 10**200 + 1/2: x >= 10**200 + 1 false
    ("2**300 > 10**90", NONE, "proved"),                       # 2**300 = 2.04e90
    ("2**300 > 10**91", NONE, "refuted"),                      # 2.04e90 < 1e91
    ("2**1000 > 10**301", NONE, "proved"),                     # 2**1000 = 1.07e301
    ("2**1000 < 10**301", NONE, "refuted"),
    ("Eq(log(2**300, 2), 300)", NONE, "proved"),
    ("Eq(log(10**200, 10), 199)", NONE, "refuted"),            # it is 200
    ("Eq(floor(10**200/3)*3 + 1, 10**200)", NONE, "proved"),   # 10**200 = 1 mod 3
    ("Eq(floor(10**200/7)*7, 10**200)", NONE, "refuted"),      # 10**200 = 2 mod 7
    ("Implies(n >= 10**200, log(n) > 460)", INT, "proved"),    # log(10**200) = 460.517
    ("Implies(n >= 10**200, log(n) > 461)", INT, "refuted"),   # n = 10**200
    ("Implies(n >= 2**300, log(n, 2) >= 300)", PI, "proved"),
    ("exp(461) > 10**200", NONE, "proved"),                    # e**461 = 1.6e200
    ("exp(460) > 10**200", NONE, "refuted"),                   # e**460 = 5.97e199
    ("Implies(n**2 >= 10**400, n >= 10**200)", INT, "refuted"),  # n = -10**200
    ("Implies(n >= 10**200, n**2 >= 10**400)", INT, "proved"),
    ("log(n - 10**200) >= 0", INT, "where"),                   # n = 0: log(-10**200)
    ("log(x - 10**200) >= 0", R, "refuted"),                   # x = 10**200 + 1/2: log(1/2)
    ("Implies(And(n >= 10**200, n <= 10**199), n < 0)", INT, "vacuous"),
    ("Implies(x >= 10**200, 1/x <= 1/10**200)", R, "proved"),  # x > 0 there, 1/x decreasing
    ("Implies(x >= 10**200, 1/x < 1/10**200)", R, "refuted"),  # x = 10**200: equality
    # ------------------------------------------------------- (5) mixed I/O-bound statements
    ("Implies(M <= d**2, n**2*d**2/M >= n**2*d/sqrt(M))", NDM, "proved"),  # d/sqrt(M) >= 1
    ("Implies(M <= d**2, n**2*d**2/M > n**2*d/sqrt(M))", NDM, "refuted"),  # n=d=M=1: 1 > 1
    ("Implies(M >= d**2, n**2*d**2/M >= n**2*d/sqrt(M))", NDM, "refuted"),  # n=d=1, M=4
    ("n**2*d/sqrt(M) >= n**2*d**2/M", NDM, "refuted"),         # n = 1, d = 2, M = 1: 2 < 4
    ("Implies(M <= d**2, n**2*d**2/M >= n**2)", NDM, "proved"),
    ("Implies(And(M >= 4, M <= d**2), n*d/sqrt(M) <= n*d/2)", NDM, "proved"),  # sqrt(M) >= 2
    ("Implies(M >= d, n*d/M <= n)", NDM, "proved"),
    ("Implies(M >= d, n*d/M < n)", NDM, "refuted"),            # n = d = M = 1: 1 < 1 false
    ("Implies(M <= n, ceiling(n/M) <= 2*n/M)", NM, "proved"),  # t >= 1: ceil(t) < t + 1 <= 2t
    ("ceiling(n/M) <= 2*n/M", NM, "refuted"),                  # n = 1, M = 3: 1 > 2/3
    ("Implies(M >= 2, n*log(n, M) <= n*log(n, 2))", NM, "proved"),  # log M >= log 2, log n >= 0
    ("n*log(n, M) <= n*log(n, 2)", NM, "where"),               # n = 2, M = 1: base 1
    ("Implies(M >= 2, n*log(n, M) < n*log(n, 2))", NM, "refuted"),  # n = M = 2: 2 < 2
    ("Implies(M >= 2, n*log(n, 2)/log(M, 2) <= n*log(n, 2))", NM, "proved"),  # log2 M >= 1
    ("n*log(n, 2)/log(M, 2) <= n*log(n, 2)", NM, "where"),     # n = 2, M = 1: divides by log2(1) = 0
    ("Implies(M >= 2, n*log(n, 2)/log(M, 2) <= n*log(n, 2)/2)", NM, "refuted"),  # n = M = 2
    ("Implies(M <= n, n/M*log(n/M, 2) >= 0)", NM, "proved"),   # n/M >= 1
    ("n/M*log(n/M, 2) >= 0", NM, "refuted"),                   # n = 1, M = 2: -1/2
    ("n*log(n, 2) >= n - 1", PI, "proved"),                    # n = 1: 0 >= 0; n >= 2: log2 n >= 1
    ("n*log(n, 2) >= n", PI, "refuted"),                       # n = 1: 0 >= 1 false
    ("Implies(n >= 2, n*log(n, 2) >= n)", PI, "proved"),
    ("Eq(exp(log(n) + log(d)), n*d)", ND, "proved"),
    ("Implies(M < n, n*log(n, 2) > n*log(M, 2))", NM, "proved"),  # log2 increasing, n > 0
    ("n*d/sqrt(M) >= n*d/M", NDM, "proved"),                   # M >= 1: sqrt(M) <= M
    ("n*d/sqrt(M) >= n*d/M", NDMR, "refuted"),                 # n = d = 1, M = 1/4: 2 < 4
    ("Implies(M <= d**2, log(n*d**2/M, 2) >= log(n, 2))", NDM, "proved"),  # d**2/M >= 1
    ("Implies(M <= d**2, log(n*d**2/M, 2) > log(n, 2))", NDM, "refuted"),  # n = d = M = 1: 0 > 0
    ("Implies(M <= n*d, n*d/M >= 1)", NDM, "proved"),
]
