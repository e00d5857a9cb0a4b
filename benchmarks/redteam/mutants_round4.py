r"""Round 4 of the red team (issue 36): hand-written semantic mutants of the trusted core,
held out from the tests.

Written blind on 2026-12-07, like rounds 1 to 3 (:mod:`mutants`, :mod:`mutants_round2`,
:mod:`mutants_round3`), against main at commit ``1a6e15cf8b912b34d19392b3f6b36825a2ee2876``:
from the rules (notes/, the ``Side conditions`` sections and the numbered rules of the module
docstrings) and the code of the modules of ``benchmarks/mutation.py``'s ``TRUSTED`` list,
**without reading tests/** (no file, no test name, no collection output, no run of the trust
tier or of any test), nor the README, results or equivalents files of the earlier rounds
(``benchmarks/redteam/README*``, ``results*.json``, ``benchmarks/mutation_equivalents/``).
Each mutant changes a line that none of rounds 1 to 3 touched (``__main__`` checks the texts)
and aims at a rule they did not attack; each ``wrong`` says what a user would see. The
``attnio prove`` (also ``--coq``) and Python-API examples quoted in the ``wrong`` texts were
run on a scratch copy of the tree (tests/ left out of the copy), unmutated and mutated, and
show the answer quoted (a ``wrong`` says so where an example did NOT come out as hoped); the
``attnio verify`` / ``bounds`` / ``gap`` answers named elsewhere are what the code computes,
not run. About 30 aim
at the newest modules (exp/log and its terms, identities, obvious points, the Coq printer,
statements and judge, the joint routes, their lemmas and checker, the exact worst's interval
bounds), about 20 at the older core (the referee, the term caps, the parser and declared
domains, the kernel's vacuity witness, the bridge's division lemma, definedness, z3tools, the
pebble game, the anytime bracket, zero-waste, the stacked-head and masked routes, the
envelope forms, the route tiers). The commit that adds this file comes before any of them
was run against the tests (the evidence that they were written blind).

Same format as round 1 (:class:`mutants.Mutant`): ``file`` is the repository path of the real
file (``smt/kernel.py``, not ``attnio/smt/kernel.py``); ``original`` must occur exactly once
in it. Run with ``python benchmarks/redteam/run.py --set round4`` (results in
``results_round4.json``); ``python benchmarks/redteam/mutants_round4.py`` checks that every
mutant applies to the current tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutants import (  # noqa: E402
    CERT,
    CLAIMS,
    JOINT,
    NEW_SMT,
    SMT,
    VALID,
    Mutant,
    check_round,
    index,
)
from mutants import HEAD_BOUNDS as ATTN  # noqa: E402

MUTANTS: list[Mutant] = [
    # ================================================================ newest modules (issue 38/39/35)
    # ---------------------------------------------------------------- smt/explog.py
    Mutant("r4-explog-exp-sign-at-zero", NEW_SMT, "smt/explog.py",
           "z3.Implies(a > 0, e > 1)",
           "z3.Implies(a >= 0, e > 1)",
           "explog.instances-match-statements: exp_sign's instance says e^x > 1 only for x > 0 "
           "(e^0 = 1)",
           "the bridge assumes exp(0) > 1, so z3 never puts an exp argument at 0: `prove "
           "'Ne(exp(x*y - 7), 1)' --var x:real --var y:real` Proved (false at x = 1, y = 7; "
           "Refuted unmutated)"),
    Mutant("r4-explog-tangent-strict-at-zero", NEW_SMT, "smt/explog.py",
           "z3.And(e >= 1 + a, z3.Implies(a != 0, e > 1 + a))",
           "z3.And(e >= 1 + a, z3.Implies(a != 1, e > 1 + a))",
           "explog.instances-match-statements: exp_tangent is strict exactly off x = 0",
           "the instance claims e^0 > 1 (and drops the strict bound at 1): `prove "
           "'exp(x*y - 7) > 1 + x*y - 7' --var x:real --var y:real` Proved (false wherever "
           "x y = 7, e.g. x = 1, y = 7, which no obvious point hits)"),
    Mutant("r4-explog-int-power-one-short", NEW_SMT, "smt/explog.py",
           "(b if k == 1 else z3.Product([b] * k))",
           "(b if k == 1 else z3.Product([b] * (k - 1)))",
           "explog.instances-match-statements: exp_scale's instance is e^{kx} = (e^x)^k (k "
           "factors)",
           "exp(2x) tied to exp(x) (one factor short): `prove 'Implies(And(x > 1/3, x < 2/5), "
           "exp(2*x) < exp(x) + 1/10)' --var x:real` Proved (false on the whole interval)"),
    Mutant("r4-explog-recipe-increasing-flat", NEW_SMT, "smt/explog.py",
           "if sp.solveset(derivative <= 0, x, domain) != sp.S.EmptySet:",
           "if sp.solveset(derivative < 0, x, domain) != sp.S.EmptySet:",
           "check_axiom side condition 3 `recipe-required` (\"increasing\"/\"through\": f' <= 0 "
           "nowhere, so f is STRICTLY increasing)",
           "a recipe whose f is constant (f' = 0 everywhere) confirms 'x < y => f(x) < f(y)': "
           "check_axiom Proved for a false monotonicity axiom the grid does not refute"),
    # ---------------------------------------------------------------- smt/explog_terms.py
    Mutant("r4-explogterms-integer-split-cofactor", NEW_SMT, "smt/explog_terms.py",
           "        m = sympy.Integer(n // p)\n",
           "        m = sympy.Integer(n // p ** factors[p])\n",
           "ExpLogTerms side condition 7 `constant-log-split`: log(m p) = log m + log p with "
           "m = n / p exactly",
           "log(12) tied to log 2 + log 3 (= log 6), which contradicts log(12)'s certified "
           "bounds: every statement holding log(12) is Proved, e.g. `prove "
           "'Implies(And(x > 1/3, x < 2/5), log(12) < 2 + x)' --var x:real` (log 12 = 2.48)"),
    Mutant("r4-explogterms-exp-bounds-of-log", NEW_SMT, "smt/explog_terms.py",
           "self._bound(sympy.exp(arg), e)",
           "self._bound(sympy.log(arg), e)",
           "ExpLogTerms side condition 8 `constant-bounds-around`: exp(c) gets the certified "
           "bounds of exp(c), not of log(c)",
           "exp(2) bounded by log(2) = 0.69, contradicting exp's tangent: `prove "
           "'Implies(And(x > 1/3, x < 2/5), exp(2) < 1 + x)' --var x:real` Proved"),
    Mutant("r4-explogterms-log-tangent-e-at-two", NEW_SMT, "smt/explog_terms.py",
           "self._fact(\"explog.log_tangent_e\", b, lg, self._exp(sympy.Integer(1)))",
           "self._fact(\"explog.log_tangent_e\", b, lg, self._exp(sympy.Integer(2)))",
           "ExpLogTerms side condition 1 `unary-instances`: log_tangent_e is log x <= x/e, "
           "instantiated with the term e = exp(1)",
           "the bridge assumes log x <= x/e^2 (false at x = e^2): `prove "
           "'Implies(And(x > 3/2, x < 8/5), log(x) < x/5)' --var x:real` Proved (false: "
           "log(3/2) = 0.41 > 0.3)"),
    # ---------------------------------------------------------------- smt/identities.py
    Mutant("r4-identity-simplify-own-flags", NEW_SMT, "smt/identities.py",
           "difference = sp.simplify((lhs - rhs).xreplace(declared))",
           "difference = sp.simplify(lhs - rhs)",
           "check_identity side condition 1 `simplify-declared-only` (kernel."
           "declaration-beats-flags)",
           "simplify reasons with the symbols' own flags: an identity sympy reduces to 0 only "
           "for a positive symbol is Proved (sympy-canonical) over the wider declared domain "
           "(real), where it is false; NOT confirmed with a concrete identity (sympy "
           "auto-simplifies most such expressions at construction)"),
    Mutant("r4-identity-grid-outside-domain", NEW_SMT, "smt/identities.py",
           "    \"positive\": (1, 2, 3, sp.Rational(1, 2), 5, 7, sp.Rational(3, 2)),",
           "    \"positive\": (1, 2, 3, sp.Rational(1, 2), 5, 7, 0),",
           "check_identity side condition 3 `refuted-where-defined`: grid points lie in the "
           "declared domains (the loop does not re-check them)",
           "check_identity(floor(sqrt(r + 1) - sqrt(r)), 0, {r: 'positive'}) Refuted (at r = 0, "
           "outside the domain); Proved unmutated (checked on a scratch copy)"),
    # ---------------------------------------------------------------- smt/obvious_points.py
    Mutant("r4-obvious-quartic-edges-dropped", NEW_SMT, "smt/obvious_points.py",
           "if e.free_symbols != {sym} or _degree_bound(e) > _MAX_DEGREE:",
           "if e.free_symbols != {sym} or _degree_bound(e) >= _MAX_DEGREE:",
           "obvious_witness side condition 3 `edges-tried`: the roots of every polynomial of "
           "degree AT MOST 4 in one symbol are edges",
           "an exp/log statement false only near a root of a quartic critical expression (where "
           "z3's uninterpreted models do not reach) is Undecided instead of Refuted, and a "
           "vacuity witness lying only at such an edge is missed"),
    # ---------------------------------------------------------------- smt/coq.py
    Mutant("r4-coq-mul-first-factor-unparenthesised", NEW_SMT, "smt/coq.py",
           "parts = [_wrap(t[1][0], 40, scope)] + [_wrap(a, 39, scope) for a in t[1][1:]]",
           "parts = [_wrap(t[1][0], 50, scope)] + [_wrap(a, 39, scope) for a in t[1][1:]]",
           "render_statement side condition 1 `precedence`: a sum as the first factor of a "
           "product is parenthesised",
           "(x + 1)*(x + 2) printed `x + 1 * (x + 2)`: `prove --coq '(x + 1)*(x + 2) <= 3*x + "
           "2' --var x:nonnegative` (false at x = 1) prints a theorem true in Coq"),
    Mutant("r4-coq-pow-base-unparenthesised", NEW_SMT, "smt/coq.py",
           "return f\"{_wrap(t[1], 29, scope)} ^ {t[2]}\"",
           "return f\"{_wrap(t[1], 50, scope)} ^ {t[2]}\"",
           "render_statement side condition 1 `precedence`: the base of a power is "
           "parenthesised unless atomic",
           "(x + 1)**2 printed `x + 1 ^ 2` (= x + 1): `prove --coq '(x + 1)**2 <= x + 1' --var "
           "x:nonnegative` (false at x = 1) prints a theorem coqc accepts"),
    Mutant("r4-coq-and-of-or-unparenthesised", NEW_SMT, "smt/coq.py",
           r'return " /\\ ".join(_pwrap(q, 79) for q in p[1])',
           r'return " /\\ ".join(_pwrap(q, 85) for q in p[1])',
           "render_statement side condition 5 `connectives`: a disjunction inside a "
           "conjunction is parenthesised (/\\ binds tighter than \\/)",
           "And(Or(a, b), c) printed `a \\/ b /\\ c` = a \\/ (b /\\ c): `prove --coq "
           "'Implies(x > 2, And(Or(x > 1, x < 0), x > 5))' --var x:real` (false at x = 3) "
           "re-checked by coqc"),
    Mutant("r4-coq-lift-earlier-not-negated", NEW_SMT, "smt/coq.py",
           "        earlier.append((\"not\", c))",
           "        earlier.append(c)",
           "Coq printer: a relation holding a Piecewise is the conjunction of ¬c_1 ∧ … ∧ c_i → "
           "rel(e_i) (the EARLIER conditions negated)",
           "the otherwise branch is only required where the first condition HOLDS: `prove "
           "--coq 'Piecewise((1, x > 0), (x, True)) > 0' --var x:real` (false at x = 0) prints "
           "(x > 0 -> 1 > 0) /\\ (x > 0 -> x > 0), which coqc accepts"),
    Mutant("r4-coq-min-max-swapped", NEW_SMT, "smt/coq.py",
           "kind = \"min\" if isinstance(e, sp.Min) else \"max\"",
           "kind = \"max\" if isinstance(e, sp.Min) else \"min\"",
           "render_statement side condition 4 `functions`: Min is Rmin, Max is Rmax",
           "Max(x, 1) printed Rmin: `prove --coq 'Max(x, 1) <= 1' --var x:real` (false at x = "
           "2) prints Rmin x 1 <= 1, which coqc accepts"),
    Mutant("r4-coq-three-halves-as-root", NEW_SMT, "smt/coq.py",
           "            t = r if magnitude == 1 else (\"pow\", r, magnitude)",
           "            t = r",
           "render_statement side condition 3 `rational-powers`: b**(p/2) is sqrt b ^ |p|",
           "x**(3/2) printed `sqrt x`: `prove --coq 'x**(3/2) <= sqrt(x)' --var x:positive` "
           "(false at x = 4) prints sqrt x <= sqrt x, which coqc accepts"),
    Mutant("r4-coq-leading-negative-term", NEW_SMT, "smt/coq.py",
           "            out = (\"neg\", t) if negative else t",
           "            out = t",
           "render_statement side condition 1/2: a sum whose first term is negative keeps its "
           "sign (`- x - 1`)",
           "-x - 1 printed `x - 1`: `prove --coq 'Implies(x >= 1, -x - 1 >= 0)' --var "
           "x:nonnegative` (false at x = 1) prints x >= 1 -> x - 1 >= 0, re-checked by coqc"),
    # ---------------------------------------------------------------- smt/coq_statements.py
    Mutant("r4-coqstmt-piecewise-rest-unguarded", NEW_SMT, "smt/coq_statements.py",
           "parts.append(c if rest == (\"false\",) else (\"imp\", (\"not\", c), rest))",
           "parts.append(c if rest == (\"false\",) else rest)",
           "Coq definedness (module docstring): Piecewise needs the later branches defined only "
           "where the earlier conditions fail (¬c1 → rest)",
           "the theorem assumes the otherwise branch defined everywhere: `prove --coq "
           "'Piecewise((0, x < 0), (sqrt(x) + 1, True)) >= 1' --var x:real` (false at x = -1, "
           "where it is defined) gets the hypothesis 0 <= x and is re-checked"),
    Mutant("r4-coqstmt-nested-implies-unguarded", NEW_SMT, "smt/coq_statements.py",
           "return _defined_list(a, ctx) + ([(\"imp\", prop(a, ctx), conjunction(inner))] if "
           "inner else [])",
           "return _defined_list(a, ctx) + inner",
           "coq_statement side condition 5 `implication-peeled` (a nested Implies(A, B) needs B "
           "defined only where A holds)",
           "`prove --coq 'And(x >= 1, Implies(x > 2, log(x - 1) >= 0))' --var x:real` (false "
           "at x = 0) gets the hypothesis 0 < x - 1, under which it is true (coqc's tactics "
           "did not close this one: a printed theorem weaker than the statement)"),
    Mutant("r4-coqstmt-claim-assumes-steps", NEW_SMT, "smt/coq_statements.py",
           "    claim = coq_statement(base, conclusion, list(premises), doms, defined=False,",
           "    claim = coq_statement(base, conclusion, [*premises, *(c for _, c, _ in steps)], "
           "doms,\n                          defined=False,",
           "coq_chain: the claim is P ⇒ G, the premises only (its proof cites the lemmas)",
           "the chain's claim is printed with every step's conclusion as a hypothesis: coqc "
           "re-checks a theorem that assumes what the chain should derive"),
    # ---------------------------------------------------------------- smt/coqc.py
    Mutant("r4-coqc-long-axiom-ends-block", NEW_SMT, "smt/coqc.py",
           r'''found = re.match(r"^([A-Za-z_][A-Za-z0-9_.']*)(?: :|\s*$)", line)''',
           r'''found = re.match(r"^([A-Za-z_][A-Za-z0-9_.']*)(?: :)", line)''',
           "accepted side condition 5 `only-allowed-axioms` (axioms_of: an axiom name alone on "
           "its line, its long type below, is still an axiom and the block goes on)",
           "after ClassicalDedekindReals.sig_forall_dec (printed alone on its line) the report "
           "is cut: an axiom listed after it (Axiom cheat, a qualified library axiom) is never "
           "read and the theorem counts as re-checked"),
    # ---------------------------------------------------------------- bounds/joint.py
    Mutant("r4-joint-leaf-one-above-best", JOINT, "bounds/joint.py",
           "        if ub > best:",
           "        if ub > best + 1:",
           "joint_search: a cell is left unsplit (a leaf) only when its bound is at most the "
           "best value (the cap then covers it)",
           "cells whose bound is best + 1 become leaves but the cap is max(best, open cells): "
           "the joint cap can sit one below a leaf's bound (below max Psi), joint routes above "
           "what the argument gives"),
    Mutant("r4-joint-cube-cap-backward", JOINT, "bounds/joint.py",
           "        if self.computation == \"forward\":\n            value = min(value, "
           "cube_segment_cap(",
           "        if self.computation != \"forward\":\n            value = min(value, "
           "cube_segment_cap(",
           "JointCap / joint_search side condition 5: the cube cap bounds the FORWARD's two "
           "products only",
           "the backward classes' joint caps cut by the forward's cube cap: `attnio bounds` / "
           "`attnio gap` backward joint routes above what any schedule needs"),
    Mutant("r4-joint-nfull-group-rows", JOINT, "bounds/joint.py",
           "        return self.n, inner - 1, kappa",
           "        return inner, inner - 1, kappa",
           "joint_cap: with g query heads per K/V head only the partial depth grows to g n - 1; "
           "the charged-full-pair term u sigma / n keeps the one-head n",
           "GQA joint caps divide u sigma by g n: caps too small, stacked GQA joint routes "
           "(`attnio bounds --heads 32 --kv-heads 8`) too high"),
    Mutant("r4-joint-interval-feasible-at-a", JOINT, "bounds/joint.py",
           "               if s0 + z0 <= Tb)",
           "               if s0 + z0 <= Ta)",
           "joint_search side condition 4 `interval-cap-covers`: a cell counts when it is "
           "feasible at SOME M of [a, b] (T_b)",
           "cells feasible only for M near b are dropped: the interval cap below "
           "joint_segment_cap at M = b, the exact worst ratio's pruning unsound"),
    # ---------------------------------------------------------------- proofs/joint_routes.py
    Mutant("r4-jointroutes-brute-one-charge-set", JOINT, "proofs/joint_routes.py",
           "    n_charge = 2 if computation == \"recompute\" else 1",
           "    n_charge = 1",
           "brute_joint_table: recompute charges the score tree and the dP tree separately",
           "the recompute brute force shares one charge set between the trees: fewer segment "
           "shapes, and a recompute joint cap below the true segment maximum passes "
           "gap.joint_cap"),
    Mutant("r4-jointroutes-brute-charge-free", JOINT, "proofs/joint_routes.py",
           "        s = sum(len(v) for v in red.values()) + sum(len(c) for c in charge)",
           "        s = sum(len(v) for v in red.values())",
           "brute_joint_table: each charged pair costs its W vertex (one unit of s)",
           "charged pairs cost nothing in the enumeration: more leaves per budget than the "
           "proof allows, `attnio verify --only gap.joint_cap` Refuted though the cap is "
           "right"),
    Mutant("r4-jointroutes-points-skip-full-sigma", JOINT, "proofs/joint_routes.py",
           "                for sigma in range(S + 1):",
           "                for sigma in range(S):",
           "_joint_cap_check side condition 2 `points-every-point`: every integer sigma in "
           "[0, S]",
           "the points sigma = S (the whole budget red) are never compared: a cap below Psi "
           "there passes gap.joint_cap"),
    # ---------------------------------------------------------------- proofs/joint_lemmas.py
    Mutant("r4-jointlemmas-seen-not-cumulative", JOINT, "proofs/joint_lemmas.py",
           "            state2 = (nxt, seen | (nxt & w_all))",
           "            state2 = (nxt, nxt & w_all)",
           "explore_witness: the state records the watched inputs red SO FAR in the segment",
           "an input red earlier in the segment and deleted counts as never red: "
           "`attnio verify --only gap.joint_witness_lemma` Refuted (a true lemma)"),
    Mutant("r4-jointlemmas-psi-grad-min-dropped", JOINT, "proofs/joint_lemmas.py",
           "(d - 1) * z)\n            + _min(rho, k * w))",
           "(d - 1) * z)\n            + rho)",
           "gap.joint_face_algebra*: the chains conclude Psi with min(sqrt(u sigma w), k w), "
           "the term the cap uses",
           "the face-algebra chains prove a weaker Psi (without the k w branch) and are Proved "
           "while the caps' k w branch has no proof behind it"),
    Mutant("r4-jointlemmas-rows-without-free-dv", JOINT, "proofs/joint_lemmas.py",
           "    lhs = a * b + aO * bV + b * p + 2 * p * q",
           "    lhs = a * b + aO * bV + 2 * p * q",
           "gap.joint_rows: the rows inequality counts the free dV leaves b p",
           "the rows chain proves an inequality without b p: its 1/4 twin (flash configuration "
           "a = aO = b = bV: 4x^2 <= 4x^2) is Proved, and kappa = 5/4 is unjustified"),
    # ---------------------------------------------------------------- bounds/gap_worst.py
    Mutant("r4-gapworst-zero-bound-pruned", JOINT, "bounds/gap_worst.py",
           "return Fraction(io, low) if low else Fraction(10**30)",
           "return Fraction(io, low) if low else Fraction(0)",
           "worst_ratio step 3: an interval whose lower bound is 0 can hold any ratio "
           "(unbounded potential)",
           "intervals with interval_lower_bound 0 are never opened: `attnio gap --worst` can "
           "print a worst ratio below the true maximum, marked exact"),
    Mutant("r4-gapworst-overflowing-counted", JOINT, "bounds/gap_worst.py",
           "    names = tuple(n for n in asked if headline(n, instance.pass_))",
           "    names = asked",
           "worst_ratio: the maximum is over algorithms that stay finite for every logit (an "
           "overflowing one is listed apart, never the best)",
           "an algorithm that overflows can be the worst point's 'best', and left_out is "
           "empty: the printed worst ratio is not the one of the finite algorithms"),
    Mutant("r4-gapworst-last-coarse-cell", JOINT, "bounds/gap_worst.py",
           "    for j in range(coarse):",
           "    for j in range(coarse - 1):",
           "worst_ratio side condition 2 `cap-upper-covers`: every coarse cell (the fullest "
           "too)",
           "the coarse cap misses the cells with s near S: interval lower bounds above the "
           "bound, pruning unsound (or the AssertionError at an evaluated point)"),
    Mutant("r4-gapworst-plateau-end-skipped", JOINT, "bounds/gap_worst.py",
           "            while runs[i][1] < a:",
           "            while runs[i][1] <= a:",
           "worst_ratio step 2: the elementary interval [a, b] takes each algorithm's count "
           "from the plateau that holds a (one ending at a included)",
           "an elementary interval starting at a plateau's last M takes the next plateau's "
           "count (or an IndexError at the range's end): wrong best count, wrong worst ratio"),
    # ================================================================ older trusted modules
    # ---------------------------------------------------------------- smt referee, caps, parser
    Mutant("r4-exacteval-min-as-max", SMT, "smt/exact_eval.py",
           "        better = -1 if isinstance(e, sp.Min) else 1",
           "        better = 1 if isinstance(e, sp.Min) else -1",
           "referee: Min and Max evaluated exactly (kernel.refuted-is-refereed)",
           "the referee evaluates Min as Max: `prove 'Min(x, 1) <= exp(x)' --var x:real` "
           "Refuted at the obvious point x = -1 (Proved unmutated)"),
    Mutant("r4-exacteval-lenient-connectives", SMT, "smt/exact_eval.py",
           "        if any(p is _UNDEF for p in parts):",
           "        if all(p is _UNDEF for p in parts):",
           "referee.undefined-is-undefined / definedness.strict-connectives: And/Or/Not/Xor/"
           "Equivalent are undefined when ANY argument is",
           "Or(x > 0, log(x) > 100) evaluated 'false' at x = 0, where it is undefined: `prove "
           "'Or(x > 0, log(x) > 100)' --var x:real` Refuted at x = 0 (unmutated: proved where "
           "defined, x > 0)"),
    Mutant("r4-termlimits-root-as-integer-power", SMT, "smt/term_limits.py",
           "        if base is None or exponent is None or exponent.denominator != 1:",
           "        if base is None or exponent is None:",
           "exact_constant: only +, × and INTEGER powers of rationals are exact rationals "
           "(bridge.constants-are-exact)",
           "sqrt(2) is the numeral 2**int(1/2) = 1 for z3: `prove 'Implies(And(x > 1/3, "
           "x < 2/5), sqrt(2)*x < x + 1/10)' --var x:real` Proved (false on the interval)"),
    Mutant("r4-statements-log2-arguments-swapped", SMT, "smt/statements.py",
           "    \"log2\": lambda a, **_: sp.log(a, 2, evaluate=False),",
           "    \"log2\": lambda a, **_: sp.log(2, a, evaluate=False),",
           "parse_statement: log2(a) is log(a, 2) = log a / log 2",
           "log2(8) read as log_8 2 = 1/3: `prove 'log2(8) < 1'` Proved (log2 8 = 3)"),
    Mutant("r4-statements-flags-beat-declaration", SMT, "smt/statements.py",
           "        found = given.get(str(sym)) or declared_domain(sym)",
           "        found = declared_domain(sym) or given.get(str(sym))",
           "kernel.declaration-beats-flags: a declared domain overrides the symbol's own flags",
           "prove_statement(Ge(x, 1), {x: 'real'}) with x = Symbol('x', positive=True, "
           "integer=True) is decided over the positive integers: Proved, though false at x = 0"),
    Mutant("r4-statements-drop-undecided-facts", SMT, "smt/statements.py",
           "            if folded is sp.true:\n                continue",
           "            if folded is not sp.false:\n                continue",
           "drop_domain_facts: only conditions the declared domains PROVE (sympy folds them to "
           "True) are dropped",
           "every definedness condition sympy cannot decide is dropped: `prove 'sqrt(x) >= 0' "
           "--var x:real` printed Proved with no 'where defined (x >= 0)', and `prove "
           "'sqrt(x - 1) + sqrt(-x) >= 5' --var x:real` (defined nowhere) no longer Undecided "
           "vacuous"),
    # ---------------------------------------------------------------- kernel, bridge, definedness
    Mutant("r4-kernel-vacuity-witness-off-domain", SMT, "smt/kernel.py",
           "all(in_domain(candidate[s], dom) is True for s, dom in doms.items()) and \\\n"
           "                    all(truth_at(f, candidate) is True for f in formulas):",
           "all(truth_at(f, candidate) is True for f in formulas):",
           "kernel.no-vacuous-proofs / kernel.integers-are-integers: a witness of an "
           "antecedent is a point of the declared domains (an integral one for integers)",
           "the relaxed model n = 3/4 witnesses an antecedent no integer satisfies: `prove "
           "'Implies(And(4*n > 2, 4*n < 4), n > 5)' --var n:integer` Proved instead of "
           "Undecided vacuous"),
    Mutant("r4-bridge-ceiling-division-sign", SMT, "smt/sympy_to_z3.py",
           "        return [n == k * d + r if floor else n == k * d - r,",
           "        return [n == k * d + r,",
           "division_lemma: ceiling(N/D) = k with N = k D - r (floor: + r)",
           "ceiling(n/2) at odd n has no model: `prove 'ceiling(n/2) < n' --var "
           "n:positive-integer` Proved (false at n = 1)"),
    Mutant("r4-definedness-piecewise-value-unguarded", SMT, "smt/definedness.py",
           "rest = _conj([definedness(cond), _guard(cond, term_definedness(value)),",
           "rest = _conj([definedness(cond), term_definedness(value),",
           "definedness.piecewise-in-order: a branch's value needs to be defined only where "
           "its condition holds",
           "`prove 'Piecewise((sqrt(x), x >= 0), (x, True)) >= 0' --var x:real` Proved 'where "
           "defined: x >= 0', though it is defined and false at x = -1"),
    Mutant("r4-z3tools-hypotheses-never-checked", SMT, "smt/z3tools.py",
           "    checks = [tuple(hypotheses)] if hypotheses else []",
           "    checks = []",
           "z3tools.prove vacuity: the hypotheses themselves must be satisfiable",
           "z3tools.prove(x == 5, [x > 1, x < 0]) Proved instead of Undecided vacuous (no "
           "Implies in the claim, so no other vacuity check runs)"),
    # ---------------------------------------------------------------- schedule validator, search
    Mutant("r4-replay-inputs-start-red", VALID, "graphs/game.py",
           "    red: set[str] = set()\n    blue: set[str] = set(inputs)",
           "    red: set[str] = set(inputs)\n    blue: set[str] = set(inputs)",
           "replay: the game starts with blue pebbles on the inputs and NO red pebble",
           "a schedule that never reads an input is legal: `attnio validate` accepts it and "
           "its cost (no reads) is below Q(G, M)"),
    Mutant("r4-anytime-budget-out-as-proof", VALID, "graphs/anytime.py",
           "        if exists is False:",
           "        if exists is not True:",
           "zero_waste_exists: None (a budget ran out) claims nothing; only False proves "
           "Q >= L0 + 1",
           "`attnio pebble` raises its lower bound to the compulsory I/O + 1 when the zero-waste "
           "search merely ran out of time: an 'optimal' above Q possible"),
    Mutant("r4-zerowaste-one-pebble-short", VALID, "graphs/zero_waste.py",
           "            need = size + new.bit_count() + 1 - M",
           "            need = size + new.bit_count() + 2 - M",
           "zero_waste_exists lemma: a move keeps |R| + reads + 1 <= M (deletes max(0, |R| + "
           "#reads + 1 - M))",
           "every compute is searched with one pebble fewer: zero_waste_exists False where a "
           "zero-waste schedule exists (e.g. the docstring DAG at M = 4), and Q >= L0 + 1 "
           "claimed on a DAG with Q = L0"),
    Mutant("r4-zerowaste-deleted-non-input-spent", VALID, "graphs/zero_waste.py",
           "                state = canonical(r2, spent | (gone & input_mask),",
           "                state = canonical(r2, spent | gone,",
           "zero_waste_exists lemma: only INPUTS are spent when deleted (a non-input may be "
           "recomputed and used again)",
           "a recomputed vertex whose earlier copy was deleted is blocked as a predecessor: "
           "schedules that need recomputation are never found, False claimed where one costs "
           "L0"),
    # ---------------------------------------------------------------- attention/mask/head bounds
    Mutant("r4-heads-interval-cube-at-a", ATTN, "bounds/heads.py",
           "            cap = min(cap, cube_segment_cap(d, b, t * b, min(n, d)))",
           "            cap = min(cap, cube_segment_cap(d, a, t * a, min(n, d)))",
           "joint_interval_lower_bound: U_t >= cap(M, tM) on [a, b]; the forward's cube cap "
           "grows with M, so it is taken at M = b",
           "the forward's interval cap is the cube cap at M = a, below the cap at larger M: "
           "the interval lower bound above the route, `attnio gap --worst` prunes unsoundly"),
    Mutant("r4-heads-witnessed-rest-kv", ATTN, "bounds/heads.py",
           "+ 2 * matrix_words(\n            \"kv\", n, d, batch, heads, kv)",
           "+ 2 * matrix_words(\n            \"q\", n, d, batch, heads, kv)",
           "witnessed route's rest: Q and O read per query head, dK and dV written per K/V head",
           "with GQA the witnessed route + rest counts dK, dV per query head: `attnio bounds "
           "--heads 32 --kv-heads 8` given-scores bound above the GQA algorithms' counts"),
    Mutant("r4-masks-given-scores-full-matrix", ATTN, "bounds/masks.py",
           "            \"given-scores\": q * z_qk + 3 * d * rows}[computation]",
           "            \"given-scores\": q * n * n + 3 * d * rows}[computation]",
           "mask routes: the given-scores rest reads the KEPT entries of the given matrix "
           "(q Z_QK)",
           "the masked given-scores segment + rest charges all n^2 given entries: a per-mask "
           "bound above the masked algorithms' exact I/O"),
    Mutant("r4-maskbounds-forward-only", CLAIMS, "proofs/mask_bounds.py",
           "        for pass_ in (\"forward\", \"backward\"):\n            routes:",
           "        for pass_ in (\"forward\",):\n            routes:",
           "mask.below_algorithms side condition 1 `both-passes`",
           "the backward masked routes are never compared with the masked algorithms: a "
           "backward per-mask bound above their counts passes"),
    Mutant("r4-stackedheads-v-per-head", CLAIMS, "proofs/stacked_heads.py",
           "shared = base.nodes[v].get(\"matrix\") in (\"K\", \"V\")",
           "shared = base.nodes[v].get(\"matrix\") in (\"K\",)",
           "heads.stacked_compulsory: the composed DAG shares K AND V within a group",
           "the composed DAG reads V once per query head: `attnio verify --only "
           "heads.stacked_compulsory` Refuted (the formula is right)"),
    # ---------------------------------------------------------------- claim checkers
    Mutant("r4-counts-form-root-part", CLAIMS, "proofs/algorithm_counts.py",
           "            s_part += term * t",
           "            s_part += term / t",
           "form_parts: the form is r + s/sqrt(M), s = (odd-power terms) · sqrt(M)",
           "s is read M times too small: envelope claims compare the counts with a bound far "
           "below the catalogue's, true envelopes Refuted"),
    Mutant("r4-certroutes-default-tier-boundary", CERT, "proofs/certified_routes.py",
           "        return [c for c in cases if c[1].number_of_nodes() <= small]",
           "        return [c for c in cases if c[1].number_of_nodes() < small]",
           "route_cases: an exact-cost route's default tier keeps the DAGs of AT MOST 10 "
           "vertices (the deep tier the rest)",
           "DAGs of exactly 10 vertices fall in neither tier: a sub-DAG route wrong only there "
           "is never compared with the exact optimum"),
]


def by_id() -> dict[str, Mutant]:
    return index(MUTANTS)


if __name__ == "__main__":      # check every mutant applies to the current tree
    from mutants import MUTANTS as ROUND1
    from mutants_round2 import MUTANTS as ROUND2
    from mutants_round3 import MUTANTS as ROUND3

    sys.exit(1 if check_round(MUTANTS, ROUND1 + ROUND2 + ROUND3, "rounds 1-3") else 0)
