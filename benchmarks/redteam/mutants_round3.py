r"""Round 3 of the red team (issue 36): hand-written semantic mutants of the trusted core,
held out from the tests.

Written blind, like rounds 1 and 2 (:mod:`mutants`, :mod:`mutants_round2`): from the rules
(notes/, the ``Side conditions`` sections and the numbered rules of the module docstrings) and
the code of the modules of ``benchmarks/mutation.py``'s ``TRUSTED`` list, **without reading
tests/** (no file, no test name, no collection output, no run of the trust tier), nor the
README, results or equivalents files of the earlier rounds. Each mutant changes a line that
neither round 1 nor round 2 touched (``__main__`` checks the texts), and each ``wrong`` says
what a user would see. About half aim at the newest modules (exp/log, identities, the Coq
kernel, the joint routes and the exact worst's interval bounds), the rest at the validator,
the certificate checkers' shared helpers, the SMT helpers, the bridge, the masks. The commit
that adds this file comes before any of them was run against the tests (the evidence that
they were written blind).

Same format as round 1 (:class:`mutants.Mutant`): ``file`` is the repository path of the real
file (``smt/kernel.py``, not ``attnio/smt/kernel.py``); ``original`` must occur exactly once
in it. Run with ``python benchmarks/redteam/run.py --set round3`` (results in
``results_round3.json``); ``python benchmarks/redteam/mutants_round3.py`` checks that every
mutant applies to the current tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutants import (  # noqa: E402
    CERT,
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
    Mutant("r3-explog-exp-upper-instance", NEW_SMT, "smt/explog.py",
           "lambda a, e: z3.Implies(a < 1, z3.And(1 >= e * (1 - a),",
           "lambda a, e: z3.Implies(a < 1, z3.And(1 >= e * (1 - a / 2),",
           "explog.instances-match-statements: exp_upper's instance is e^x (1 - x) <= 1",
           "the bridge assumes exp(x)(1 - x/2) <= 1 (the registered twin, false for x in "
           "(0, 1)): `prove 'Implies(And(x > 1/4, x < 1/3), exp(x)*(1 - x/2) <= 1)' --var "
           "x:real` Proved (false at x = 3/10; no obvious point lies inside the interval)"),
    Mutant("r3-explog-log-lower-instance", NEW_SMT, "smt/explog.py",
           "lambda b, g: z3.Implies(b > 0, z3.And(g * b >= b - 1,",
           "lambda b, g: z3.Implies(b > 0, z3.And(g * b >= b - 1 / 2,",
           "explog.instances-match-statements: log_lower's instance is x log x >= x - 1",
           "the instance is false where log's argument is 1 (0 >= 1/2), so z3 excludes those "
           "points: `prove 'Ne(log(3*x - 7), 0)' --var x:real` Proved where defined (false "
           "at x = 8/3, unless an obvious point reaches it before z3)"),
    # ---------------------------------------------------------------- smt/explog_terms.py
    Mutant("r3-explogterms-constant-split-swapped", NEW_SMT, "smt/explog_terms.py",
           "self._fact(\"explog.log_mul\", b, lg, self._arith(q), self._log(q), self._log(p))",
           "self._fact(\"explog.log_mul\", b, lg, self._arith(p), self._log(p), self._log(q))",
           "log_mul at constants: log(p) = log(p/q) + log(q) (not log(q) = log(p/q) + log(p))",
           "log(2/3) tied to log(3) - log(2) = -log(2/3): contradicts its certified bounds, so "
           "every statement holding log(2/3) is Proved, e.g. `prove 'log(2/3) > x' --var "
           "x:positive`"),
    Mutant("r3-explogterms-exp-add-rest", NEW_SMT, "smt/explog_terms.py",
           "rest = others[0] if len(others) == 1 else sympy.Add(*others, evaluate=False)",
           "rest = others[0]",
           "exp_add: exp(a + b) = exp(a) exp(b) with b the WHOLE rest of the sum",
           "exp(x + y + z) tied to exp(x) exp(y): `prove 'Implies(And(z > 1/3, z < 2/5), "
           "exp(x + y + z) <= exp(x)*exp(y))' --var x:real --var y:real --var z:real` Proved "
           "(checked with the CLI on a scratch copy; Refuted unmutated)"),
    Mutant("r3-explogterms-exp-scale-rational", NEW_SMT, "smt/explog_terms.py",
           "if k.is_Integer and 2 <= abs(int(k)) <= _MAX_EXP_SCALE or k == -1:",
           "if k.is_Rational and abs(k) <= _MAX_EXP_SCALE and k != 1 or k == -1:",
           "exp_scale: exp(k t) = exp(t)^k for an INTEGER k only",
           "the bridge gets exp(x/2) = exp(x)**int(1/2) = 1 (the fact 1 == exp_uf(x/2) is "
           "added; Translator.expr(exp(x/2)) shows it), a false instance; NOT confirmed at the "
           "CLI: on `prove 'Implies(And(x > 1/3, x < 2/5), exp(x/2) <= 1 + x/100)'` the "
           "kernel still finds the real counterexample, so the visible case needs a "
           "statement whose counterexamples its other searches miss"),
    Mutant("r3-explogterms-log-mul-rest", NEW_SMT, "smt/explog_terms.py",
           "self._arith(rest), self._log(rest), lg)",
           "self._arith(first), self._log(first), lg)",
           "log_mul: log(f g) = log f + log g with g the rest of the product",
           "log(2*x) tied to 2 log 2: `prove 'log(2*x) < 2' --var x:positive` Proved (false at "
           "x = 10)"),
    # ---------------------------------------------------------------- smt/identities.py
    Mutant("r3-identity-no-rule-defined", NEW_SMT, "smt/identities.py",
           "    except TranslationError:          # a function with no definedness rule "
           "(gamma, ...)\n        return False",
           "    except TranslationError:          # a function with no definedness rule "
           "(gamma, ...)\n        return True",
           "check_identity: simplify proves only a difference DEFINED everywhere (a function "
           "with no definedness rule is not known to be)",
           "check_identity(sp.gamma(x + 1)/sp.gamma(x), x, {x: 'real'}) Proved "
           "(sympy-canonical), though the left side is undefined at x = 0, -1, ..."),
    # ---------------------------------------------------------------- smt/coq.py
    Mutant("r3-coq-rpower-nonnegative", NEW_SMT, "smt/coq.py",
           "        if isinstance(base, sp.Symbol) and ctx.domains.get(base) in POSITIVE_DOMAINS:",
           "        if isinstance(base, sp.Symbol) and ctx.domains.get(base) in (\n"
           "                *POSITIVE_DOMAINS, \"nonnegative\", \"nonnegative-integer\"):",
           "Coq printer: b**(p/q), q > 2, is Rpower b (p/q) only for a POSITIVE symbol b "
           "(Coq's Rpower 0 y = exp(y ln 0) = 1)",
           "`prove --coq 'Implies(x <= 0, x**(1/3) >= 1)' --var x:nonnegative` (false at x = "
           "0) prints a theorem true in Coq (Rpower 0 (1/3) = 1)"),
    Mutant("r3-coq-z-negation", NEW_SMT, "smt/coq.py",
           "        return (\"neg\", out) if coeff < 0 else out",
           "        return out",
           "Coq printer: a Z product with a negative coefficient is negated",
           "-n printed as n in a Z relation: `prove --coq '-n >= n' --var n:positive-integer` "
           "(false at n = 1) prints (n <= n)%Z, which coqc accepts"),
    Mutant("r3-coq-z-power", NEW_SMT, "smt/coq.py",
           "return b if int(e.exp) == 1 else (\"mul\", tuple(b for _ in range(int(e.exp))))",
           "return b if int(e.exp) == 1 else (\"mul\", tuple(b for _ in range(int(e.exp) - 1)))",
           "Coq printer: n**k in Z is the product of k factors n",
           "n**3 printed as n*n: `prove --coq 'n**3 <= n**2' --var n:positive-integer` (false "
           "at n = 2) prints a true theorem"),
    Mutant("r3-coq-piecewise-otherwise-lost", NEW_SMT, "smt/coq.py",
           "        if cond is sp.true:\n"
           "            conjuncts.append((\"imp\", _junction(\"and\", earlier), body) "
           "if earlier else body)\n            break",
           "        if cond is sp.true:\n            break",
           "Coq printer: a relation holding a Piecewise keeps EVERY branch (the otherwise one "
           "too)",
           "`prove --coq 'Piecewise((1, x < 0), (x, True)) >= 1' --var x:real` (false at x = "
           "0) prints only x < 0 -> 1 >= 1, a theorem coqc accepts"),
    Mutant("r3-coq-division-precedence", NEW_SMT, "smt/coq.py",
           "        return f\"{_wrap(t[1], 40, scope)} / {_wrap(t[2], 39, scope)}\"",
           "        return f\"{_wrap(t[1], 40, scope)} / {_wrap(t[2], 40, scope)}\"",
           "Coq printer: a product below the line is parenthesised (Coq reads a / b * c as "
           "(a / b) * c)",
           "x/(2*y) printed `x / 2 * y`: `prove --coq 'x/(2*y) <= x*y/2' --var "
           "x:positive,y:positive` (false at y = 1/4) prints a true theorem"),
    # ---------------------------------------------------------------- smt/coq_statements.py
    Mutant("r3-coqstmt-positive-integer-from-two", NEW_SMT, "smt/coq_statements.py",
           "        return [(\"rel\", \"<=\", (\"znum\", 1), (\"zvar\", name), \"Z\")]",
           "        return [(\"rel\", \"<=\", (\"znum\", 2), (\"zvar\", name), \"Z\")]",
           "Coq statement: a positive-integer symbol's domain fact is (1 <= n)%Z",
           "`prove --coq 'n >= 2' --var n:positive-integer` re-checked by coqc (false at n = 1)"),
    Mutant("r3-coqstmt-reciprocal-positive", NEW_SMT, "smt/coq_statements.py",
           "            return out + (_condition(\"<>\", base, ctx) if k < 0 else [])",
           "            return out + (_condition(\">\", base, ctx) if k < 0 else [])",
           "Coq definedness: 1/e needs e <> 0 (not e > 0)",
           "`prove --coq '1/x > 0' --var x:real` re-checked (false at x = -1, where it is "
           "defined)"),
    Mutant("r3-coqstmt-log-above-one", NEW_SMT, "smt/coq_statements.py",
           "        return _term_defined(e.args[0], ctx) + _condition(\">\", e.args[0], ctx)",
           "        return _term_defined(e.args[0], ctx) + _condition(\">\", e.args[0] - 1, ctx)",
           "Coq definedness: log a needs a > 0",
           "the theorem assumes x > 1 under log(x): `prove --coq 'log(x) > 0' --var x:positive` "
           "re-checked (false at x = 1/2)"),
    Mutant("r3-coqstmt-composition-drops-links", NEW_SMT, "smt/coq_statements.py",
           "        for h in reversed([h for h in hs if not any(h == p for p in premises)]):",
           "        for h in reversed([h for h in hs if any(h == p for p in premises)]):",
           "coq_chain composition: F_i = (H_i \\ P) => C_i (a step's non-premise hypotheses "
           "stay as antecedents)",
           "a chain whose step rests on an unproved hypothesis gets a composition with that "
           "step's conclusion unconditional: a chain with a gap re-checked by coqc"),
    # ---------------------------------------------------------------- smt/coqc.py
    Mutant("r3-coqc-qualified-axioms-allowed", NEW_SMT, "smt/coqc.py",
           "        extra = sorted(axioms - ALLOWED_AXIOMS)",
           "        extra = sorted(a for a in axioms - ALLOWED_AXIOMS if \".\" not in a)",
           "coqc.accepted: Print Assumptions lists ONLY the three standard-library axioms of "
           "the reals",
           "a proof resting on Classical_Prop.classic or Epsilon.epsilon (any qualified "
           "library axiom) counts as re-checked by coqc"),
    # ---------------------------------------------------------------- bounds/joint.py
    Mutant("r3-joint-cell-w-low", JOINT, "bounds/joint.py",
           "    return extreme_bound(d, n_full, k_grad, kappa, s1, z1, T - s0 - z0, "
           "min(z1, S - s0))",
           "    return extreme_bound(d, n_full, k_grad, kappa, s1, z1, T - s1 - z0, "
           "min(z1, S - s0))",
           "joint_cell_bound: w at its largest on the cell, T - s0 - z0 (claim gap.joint_cell)",
           "cells bounded with w at sigma = s1: the cap below max Psi, every joint route "
           "(`attnio bounds`, `attnio gap`) above what the argument gives"),
    Mutant("r3-joint-rows-root-argument", JOINT, "bounds/joint.py",
           "    x = s1 * s1 * z1 ",
           "    x = s1 * z1 ",
           "extreme_bound: the partial-pairs term is ceil((s1/2) sqrt z1) = ceil(ceil(sqrt(s1^2 "
           "z1))/2)",
           "the root branch taken as sqrt(s1 z1)/2: the joint cap far below Psi, joint routes "
           "above Q"),
    Mutant("r3-joint-grads-root-argument", JOINT, "bounds/joint.py",
           "    y = u * s1 * w",
           "    y = u * w",
           "extreme_bound: the gradient term is min(sqrt(u sigma w), k w)",
           "sqrt(u w) for sqrt(u sigma w): the backward joint cap too small, backward joint "
           "routes above Q"),
    Mutant("r3-joint-cube-face-sum", JOINT, "bounds/joint.py",
           "return -(-S * S // (4 * m)) + ceil_sqrt(-(-T ** 3 // 27))",
           "return -(-S * S // (4 * m)) + ceil_sqrt(-(-S ** 3 // 27))",
           "cube_segment_cap: the faces sum to s + c <= T (not S): (T/3)^(3/2)",
           "the forward's cube cap too small: the forward joint route above FlashAttention's "
           "count where it binds"),
    Mutant("r3-joint-gqa-gradient-depth", JOINT, "bounds/joint.py",
           "        inner = self.group * self.n if self.computation != \"forward\" else self.n",
           "        inner = self.n",
           "joint_cap: with g query heads per K/V head the gradients dV, dK sum over g n rows "
           "(k = g n - 1)",
           "GQA backward joint caps with k = n - 1: stacked GQA joint routes (`attnio bounds "
           "--heads 32 --kv-heads 8`) above the algorithms' counts"),
    Mutant("r3-joint-interval-w-at-a", JOINT, "bounds/joint.py",
           "    return max(extreme_bound(d, n_full, k_grad, kappa, s1, z1, Tb - s0 - z0,",
           "    return max(extreme_bound(d, n_full, k_grad, kappa, s1, z1, Ta - s0 - z0,",
           "joint_interval_cap: w = T_b - s0(a) - z0(a), its largest over the interval",
           "the interval cap below joint_segment_cap at M = b: the exact worst ratio's pruning "
           "unsound (`attnio gap --worst` can skip the worst M)"),
    # ---------------------------------------------------------------- proofs/joint_routes.py
    Mutant("r3-jointroutes-psi-wrong-branch", JOINT, "proofs/joint_routes.py",
           "    x1_root = 4 * lin1 * lin1 > sigma * sigma * z ",
           "    x1_root = 4 * lin1 * lin1 < sigma * sigma * z ",
           "psi_at_most: min((sigma/2) sqrt z, (d-1) z) is the SMALLER branch",
           "the exact point check takes the rows term from the LARGER branch where the "
           "smaller one binds: Psi underestimated at integer points, a cap below Psi passes "
           "gap.joint_cap"),
    Mutant("r3-jointroutes-psi-no-pairs", JOINT, "proofs/joint_routes.py",
           "    C = Fraction(cap) - Fraction(kn * sigma * sigma, 4 * d * kd) - "
           "Fraction(u * sigma, n_full)",
           "    C = Fraction(cap) - Fraction(kn * sigma * sigma, 4 * d * kd)",
           "psi_at_most: Psi holds the u sigma / n term",
           "the point check forgets u sigma / n: a cap too small by it passes gap.joint_cap"),
    Mutant("r3-jointroutes-psi-one-root", JOINT, "proofs/joint_routes.py",
           "        return C * C >= alpha2A + Bv",
           "        return C * C >= alpha2A",
           "psi_at_most: with one root zero, C >= sqrt(alpha2A) + sqrt(Bv) is C^2 >= alpha2A + "
           "Bv",
           "points where only the gradient root is present are compared with nothing under "
           "it: a cap below Psi there passes gap.joint_cap"),
    Mutant("r3-jointroutes-tiling-top", JOINT, "proofs/joint_routes.py",
           "        if cuts[0][0] != 0 or cuts[-1][1] != size or any(",
           "        if cuts[0][0] != 0 or any(",
           "gap.joint_cap: the initial cells tile the WHOLE region [0, S] x [0, T]",
           "a search whose grid stops short of S (or T) passes its certificate: the cap "
           "ignores the top of the region"),
    Mutant("r3-jointroutes-brute-score-carry", JOINT, "proofs/joint_routes.py",
           "pair(sum((i, k) in Q and (j, k) in K for k in range(d)), d, (i, j) in charge[0])",
           "pair(sum((i, k) in Q and (j, k) in K for k in range(d)), d, False)",
           "brute_joint_table: a score pair with a charged vertex in its own tree needs no "
           "carry (its leaves are fixed)",
           "the brute force undercounts designated leaves of charged score pairs: a joint cap "
           "below the true segment maximum passes gap.joint_cap"),
    Mutant("r3-jointroutes-brute-boundary", JOINT, "proofs/joint_routes.py",
           "    return max(f + p[min(T - s, len(p) - 1)] for s, f, p in table if s <= S)",
           "    return max(f + p[min(T - s, len(p) - 1)] for s, f, p in table if s < S)",
           "brute_joint_max: every shape with s <= S red entries (S included)",
           "shapes using the whole budget are skipped: a joint cap below them passes"),
    # ---------------------------------------------------------------- proofs/joint_lemmas.py
    Mutant("r3-jointlemmas-forward-kappa", JOINT, "proofs/joint_lemmas.py",
           "        <= _psi(Fraction(1), sig, u, z, w, r, rho, d, n, k))",
           "        <= _psi(Fraction(5, 4), sig, u, z, w, r, rho, d, n, k))",
           "gap.joint_face_algebra (forward): designated leaves <= Psi_1 (kappa = 1, as the "
           "forward cap uses)",
           "the forward chain proves a weaker bound (kappa = 5/4) than the forward cap uses: "
           "gap.joint_face_algebra Proved without proving what the forward route needs"),
    Mutant("r3-jointlemmas-compute-some-parents", JOINT, "proofs/joint_lemmas.py",
           "            elif v not in inputs and preds[v] & red == preds[v]:",
           "            elif v not in inputs and preds[v] & red:",
           "explore_witness: R3 computes a vertex only when EVERY predecessor is red",
           "illegal computes are explored: the witness lemma refuted by a move sequence the "
           "game forbids (gap.joint_witness_lemma Refuted, though true)"),
    # ---------------------------------------------------------------- bounds/gap_worst.py
    Mutant("r3-gapworst-skip-midpoint", JOINT, "bounds/gap_worst.py",
           "        for lo_, hi_ in ((a, mid), (mid + 1, b - 1)):",
           "        for lo_, hi_ in ((a, mid - 1), (mid + 1, b - 1)):",
           "worst_ratio: the two halves cover [a, b - 1] (b is evaluated exactly)",
           "M = mid is never looked at: `attnio gap --worst` can print a worst ratio below the "
           "true maximum, marked exact"),
    Mutant("r3-gapworst-tie-larger-m", JOINT, "bounds/gap_worst.py",
           "        if top is not None and -neg < top[0]:",
           "        if top is not None and -neg <= top[0]:",
           "worst_ratio: among ties the smallest M is the worst point (only intervals that "
           "cannot reach the ratio are cut)",
           "an interval that reaches the same worst ratio at a smaller M is cut: the worst "
           "point printed at a larger M than the smallest one"),
    Mutant("r3-gapworst-cap-depth", JOINT, "bounds/gap_worst.py",
           "    k = d - 1 if depth is None else depth",
           "    k = d - 2 if depth is None else depth",
           "_cap_upper: a partial pair holds at most d - 1 leaves (k = d - 1)",
           "the interval cap below the segment cap: interval lower bounds above the exact "
           "bound, pruning unsound (or an AssertionError at an evaluated point)"),
    # ================================================================ older trusted modules
    # ---------------------------------------------------------------- schedule validator
    Mutant("r3-replay-unknown-kind", VALID, "graphs/game.py",
           "        if not isinstance(kind, str) or kind not in MOVE_KINDS:",
           "        if not isinstance(kind, str):",
           "replay side condition 1 `unknown-kind`",
           "a move ('flush', v) is replayed as a delete: a malformed schedule validated "
           "(`attnio validate` says legal)"),
    Mutant("r3-replay-peak-under", VALID, "graphs/game.py",
           "        peak = max(peak, len(red))",
           "        peak = max(peak, len(red) - 1)",
           "replay Notes: peak_red is the most red pebbles after any move",
           "the certificate says 'peak red = 2 <= M = 3' for a schedule that used 3"),
    Mutant("r3-outputs-repeated", VALID, "graphs/game.py",
           "        seen.add(v)\n    return chosen",
           "    return chosen",
           "game_outputs: an output listed twice is an error (InvalidInputError)",
           "compulsory_io(G, outputs=['c', 'c']) counts c's write twice: `attnio pebble "
           "--outputs c,c` brackets Q from below one above it"),
    Mutant("r3-anytime-needed-output-input", VALID, "graphs/anytime.py",
           "        needed |= nx.ancestors(G, o) & inputs",
           "        needed |= (nx.ancestors(G, o) | {o}) & inputs",
           "compulsory_io: needed inputs are the inputs that are ancestors of an output (an "
           "input output is blue already, never read)",
           "a DAG whose output is an input: the compulsory lower bound one above Q"),
    Mutant("r3-anytime-close-early", VALID, "graphs/anytime.py",
           "        if state.upper_bound is not None and state.upper_bound <= state.lower_bound:",
           "        if state.upper_bound is not None and "
           "state.upper_bound <= state.lower_bound + 1:",
           "anytime_pebble: optimal only when the bracket is closed (upper == lower)",
           "`attnio pebble` prints 'optimal' with a schedule one above the proven lower bound"),
    Mutant("r3-anytime-window-unverified", VALID, "graphs/anytime.py",
           "        if record.applies and _certificate_holds(G, M, record, outputs):",
           "        if record.applies:",
           "certified_window_bound: only a spill-windows bound whose certificate re-verifies",
           "a spill-windows value whose certificate fails raises the lower side of `attnio "
           "pebble`'s bracket (an 'optimal' above Q possible)"),
    Mutant("r3-zerowaste-keep-red-inputs", VALID, "graphs/zero_waste.py",
           "            free = list(iter_bits(red & ~pv))",
           "            free = list(iter_bits(red & ~pv & ~input_mask))",
           "zero_waste_exists lemma: a move drops vertices of R \\ pred(v), ALL choices (inputs "
           "included)",
           "schedules that delete a red input are never explored: zero_waste_exists False where "
           "one exists, and Q >= L0 + 1 claimed on a DAG with Q = L0"),
    # ---------------------------------------------------------------- certificate checkers
    Mutant("r3-records-need-computed", CERT, "graphs/lower_bounds/records.py",
           "need_inputs = frozenset(u for v in N for u in G.predecessors(v) if u in inputs)",
           "need_inputs = frozenset(u for v in N for u in G.predecessors(v))",
           "must_compute: I_N is the INPUTS among the predecessors of N",
           "computed vertices counted as compulsory reads by every checker that uses I_N: "
           "compulsory / sub-dag-lp bounds above Q"),
    Mutant("r3-records-input-outputs", CERT, "graphs/lower_bounds/records.py",
           "    outs = [o for o in dict.fromkeys(game_outputs(G, outputs)) if o not in inputs]",
           "    outs = list(dict.fromkeys(game_outputs(G, outputs)))",
           "must_compute: O* is the NON-INPUT outputs",
           "an output that is an input counted as a compulsory write (and as must-compute) by "
           "the checkers: a certified bound one above Q"),
    Mutant("r3-hk-least-with-m", CERT, "graphs/lower_bounds/counting.py",
           "    again = min_partition_parts(G, 2 * M, timeout_ms=",
           "    again = min_partition_parts(G, M, timeout_ms=",
           "check_hong_kung side condition 5 `p-is-least`: no 2M-partition with fewer parts",
           "a certificate with a valid 2M-partition of more parts than the least (P too large) "
           "passes when M-partitions need that many: hong-kung bound above Q"),
    Mutant("r3-route-verdict-unsettled-ignored", CERT, "proofs/certified_routes.py",
           "    if undecided:\n        return Undecided(",
           "    if undecided and not checked:\n        return Undecided(",
           "route_verdict side condition `optimum-settled`: an instance without a settled "
           "optimum makes the claim Undecided",
           "a route claim Proved although some instances were never compared with an exact Q "
           "(the search ran out of time there)"),
    # ---------------------------------------------------------------- smt kernel/bridge/referee
    Mutant("r3-z3tools-isolated-unknown", SMT, "smt/z3tools.py",
           "    if head == \"unsat\":",
           "    if head != \"sat\":",
           "z3tools: unknown or a timeout is never a proof (check_sat_isolated's unknown stays "
           "unknown)",
           "a nonlinear integer statement whose isolated z3 run times out is Proved, e.g. "
           "`prove 'x**3 + y**3 != z**3 + 1' --var x:positive-integer,y:positive-integer,"
           "z:positive-integer` (false at 9, 10, 12)"),
    Mutant("r3-z3tools-nested-antecedent", SMT, "smt/z3tools.py",
           "        inner = (*context, a)",
           "        inner = (a,)",
           "z3tools.prove vacuity (kernel rule 6): an antecedent is checked WITH the "
           "antecedents enclosing it",
           "z3tools.prove(Implies(x > 1, Implies(x < 0, x == 5))) Proved instead of Undecided "
           "vacuous"),
    Mutant("r3-chains-premises-vacuous", SMT, "smt/chains.py",
           "    if status == \"unsat\":\n        return Undecided(\"vacuous: the chain's premises",
           "    if False:\n        return Undecided(\"vacuous: the chain's premises",
           "check_chain: the premises must be satisfiable (vacuous premises are Undecided)",
           "a chain over contradictory premises (x >= 1, x <= 0, each step from one of them) "
           "Proved"),
    Mutant("r3-chains-step-unknown", SMT, "smt/chains.py",
           "        if not verdict.proved:\n            return Undecided(f\"step {step.name!r}: "
           "{verdict.detail}\"",
           "        if False:\n            return Undecided(f\"step {step.name!r}: "
           "{verdict.detail}\"",
           "check_chain: an unknown answer on any step is Undecided",
           "a chain whose step z3 could not decide (timeout) is Proved"),
    Mutant("r3-bridge-ceiling-strict", SMT, "smt/sympy_to_z3.py",
           "                self.side_conditions += [k - 1 < a, a <= k]",
           "                self.side_conditions += [k - 1 < a, a < k]",
           "bridge: ceiling(a) is k with k - 1 < a <= k (a itself when a is an integer)",
           "`prove 'Implies(And(x > 17, x < 21, ceiling(x) < 20, ceiling(x) > 18), "
           "ceiling(x) > x)' --var x:real` Proved (false at x = 19, no obvious point; checked "
           "with the CLI on a scratch copy, Refuted unmutated)"),
    Mutant("r3-bridge-division-negative", SMT, "smt/sympy_to_z3.py",
           "                z3.Implies(d < 0, z3.And(r <= 0, r >= d + 1))]",
           "                z3.Implies(d < 0, z3.And(r >= 0, r <= -d - 1))]",
           "division_lemma: for D < 0 the remainder lies in [D + 1, 0]",
           "`prove 'Implies(m <= -2, floor(1/m) >= 0)' --var m:integer` Proved (floor(1/m) = "
           "-1 there)"),
    Mutant("r3-defined-reciprocal", SMT, "smt/definedness.py",
           "            if exponent < 0:\n                parts.append(_relation(sp.Ne, base, "
           "sp.Integer(0)))",
           "            if exponent < -1:\n                parts.append(_relation(sp.Ne, base, "
           "sp.Integer(0)))",
           "definedness: b**k with an integer k < 0 needs b != 0 (k = -1 included)",
           "check_identity((x**2 - x)/(x - 1), x) Proved (sympy-canonical) though undefined at "
           "x = 1; 1/x statements lose their where-defined qualification"),
    # ---------------------------------------------------------------- attention/mask/head bounds
    Mutant("r3-masks-block-rows-axis", ATTN, "algorithms/masks.py",
           "return int(s[p.any(axis=1)].sum()), int(s[p.any(axis=0)].sum())",
           "return int(s[p.any(axis=0)].sum()), int(s[p.any(axis=0)].sum())",
           "Mask.needed_rows: rho_Q counts block rows with a kept entry (axis 1), rho_K block "
           "columns",
           "a block mask whose kept columns outnumber its kept rows: rho_Q too large, the "
           "masked compulsory I/O above the masked algorithms' count"),
    Mutant("r3-masks-block-zqk-sizes", ATTN, "algorithms/masks.py",
           "            return int(((p * s[:, None]).sum(axis=0) * s).sum())",
           "            return int(((p * s[None, :]).sum(axis=0) * s).sum())",
           "Mask.z_qk (block): the sum over kept blocks of s_I s_J",
           "uneven blocks (n = 5, block 2: sizes 2, 2, 1): Z_QK miscounted, per-mask segment "
           "routes above the masked algorithms' I/O"),
]


def by_id() -> dict[str, Mutant]:
    return index(MUTANTS)


if __name__ == "__main__":      # check every mutant applies to the current tree
    from mutants import MUTANTS as ROUND1
    from mutants_round2 import MUTANTS as ROUND2

    sys.exit(1 if check_round(MUTANTS, ROUND1 + ROUND2, "rounds 1-2") else 0)
