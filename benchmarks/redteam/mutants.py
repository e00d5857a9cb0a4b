r"""Hand-written semantic mutants of attnio's trusted core (issue 36's red-team figure).

Each mutant is one (or a few) lines of the trusted core changed so as to break one *rule* —
a side condition a checker lists in its docstring, a boundary of a comparison, a domain
hypothesis of the sympy → z3 bridge, a rule of the pebble game — written from the rules
(notes/, the numbered ``Side conditions`` sections of the docstrings) and the code, without
reading the tests. :mod:`benchmarks.redteam.run` applies each to a scratch copy of the tree
(exact string replace: ``original`` must occur exactly once in ``file``) and runs the
``trust`` tier against it.

Fields of :class:`Mutant`: ``id``; ``area`` (for the per-area breakdown); ``file`` (the
repository path of the real file, not of the ``attnio/<room>`` symlink); ``original`` and
``replacement``; ``rule`` (the rule it attacks); ``wrong`` (what a user would see wrongly);
``equivalent`` (None, or why no input can tell the mutant from the original: such a mutant is
listed but not counted).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutant:
    id: str
    area: str
    file: str
    original: str
    replacement: str
    rule: str
    wrong: str
    equivalent: str | None = None

    def source(self, root: Path = ROOT) -> str:
        return (root / self.file).read_text(encoding="utf-8")

    def line(self, root: Path = ROOT) -> int:
        """1-based line of the first changed line in the unmutated file."""
        text = self.source(root)
        return text[: text.index(self.original)].count("\n") + 1

    def apply(self, root: Path) -> None:
        """Replace ``original`` (which must occur exactly once) in the copy under ``root``."""
        path = root / self.file
        text = path.read_text(encoding="utf-8")
        hits = text.count(self.original)
        if hits != 1:
            raise ValueError(f"{self.id}: original text occurs {hits} times in {self.file}")
        path.write_text(text.replace(self.original, self.replacement), encoding="utf-8")


CERT = "certificate checkers"
VALID = "schedule validator"
SMT = "smt kernel/bridge/referee"
CLAIMS = "claim checkers (numbers)"
ATTN = "attention bounds/routes"
ALGO = "algorithms counting"
# the areas round 2 added (mutants_round2.py)
NEW_SMT = "smt exp/log, identities, points, coq"
JOINT = "joint routes, gap worst"
HEAD_BOUNDS = "attention/mask/head bounds"

MUTANTS: list[Mutant] = [
    # ---------------------------------------------------------------- certificate checkers
    Mutant("cov-load-slack", CERT, "graphs/lower_bounds/covering.py",
           "heavy = [v for v, w in load.items() if w > 1]",
           "heavy = [v for v, w in load.items() if w > Fraction(3, 2)]",
           "check_covering_lp side condition 6 `load`: every vertex's load <= 1",
           "a sub-dag-lp certificate with dual-infeasible weights (load 3/2) is accepted: a "
           "'certified' lower bound above Q(G, M)"),
    Mutant("cov-unit-negative", CERT, "graphs/lower_bounds/covering.py",
           "        if weight < 0:\n            return Refuted({\"weight\": text}",
           "        if weight < -1:\n            return Refuted({\"weight\": text}",
           "check_covering_lp side condition 5 `unit-weight-nonnegative`",
           "a negative unit weight lowers a vertex's load so member weights can exceed the dual "
           "bound: certified value above the optimum"),
    Mutant("cov-value-plus-one", CERT, "graphs/lower_bounds/covering.py",
           "if rec.value != math.ceil(objective):",
           "if rec.value - 1 > math.ceil(objective) or rec.value < math.ceil(objective):",
           "check_covering_lp side condition 7 `value-is-ceiling`",
           "a sub-dag-lp record claiming ceil(objective) + 1 is accepted"),
    Mutant("cov-unit-any-input", CERT, "graphs/lower_bounds/covering.py",
           "compulsory = set(need) | set(outs)",
           "compulsory = set(inputs) | set(outs)",
           "check_covering_lp side condition 4 `unit-on-compulsory`: only needed inputs",
           "a unit weight on an input no output depends on counts as a forced read"),
    Mutant("subdag-outside-in-h", CERT, "graphs/lower_bounds/subdag.py",
           "x not in inputs or x in covered or x in Hset",
           "x not in inputs or x in covered",
           "check_subdag side condition 7 `outside-not-in-h`",
           "an input read inside H is counted twice (once in Q(H), once outside): bound > Q"),
    Mutant("subdag-writes-distinct", CERT, "graphs/lower_bounds/subdag.py",
           "if len(set(writes)) != len(writes) or any(o not in outs or o in Hset for o in writes):",
           "if any(o not in outs or o in Hset for o in writes):",
           "check_subdag side condition 13 `writes-distinct`",
           "an output write listed twice is counted twice: certified bound one above"),
    Mutant("subdag-writes-in-h", CERT, "graphs/lower_bounds/subdag.py",
           "any(o not in outs or o in Hset for o in writes)",
           "any(o not in outs for o in writes)",
           "check_subdag side condition 12 `writes-outside-h`",
           "the write of an output of H is counted in Q(H) and again outside: bound > Q"),
    Mutant("subdag-window-uncounted", CERT, "graphs/lower_bounds/subdag.py",
           "window = independent_window_min(G, U, M, uncounted=frozenset(inputs & Hset),",
           "window = independent_window_min(G, U, M, uncounted=frozenset(),",
           "check_subdag side condition 4 `window-minimum` (inputs in H not counted)",
           "a certificate whose window reads also count H's input reads is the one accepted; "
           "the honest one is rejected"),
    Mutant("compulsory-write-input", CERT, "graphs/lower_bounds/counting.py",
           "        if o not in outs or o in inputs:",
           "        if o not in outs:",
           "check_compulsory side condition 4 `write-is-not-input`",
           "an input that is also an output (blue from the start) is charged a write: "
           "compulsory bound one above the optimum"),
    Mutant("resolve-not-settled", CERT, "graphs/lower_bounds/subdag.py",
           "    if plain.verdict is not Status.OPTIMAL:\n        deadline.check()",
           "    if plain.verdict is Status.INFEASIBLE:\n        deadline.check()",
           "resolve_for_checker side condition 4 `settled`",
           "a Q(H) the plain baseline did not settle (a time-limited upper bound) is trusted"),
    Mutant("forced-boundary", CERT, "graphs/lower_bounds/windows.py",
           "if len(set(G.predecessors(a)) | set(T)) <= M:",
           "if len(set(G.predecessors(a)) | set(T)) < M:",
           "verify_forced side condition 5 `set-exceeds-m`: |pred(a) ∪ T| > M",
           "a spill set that fits exactly in M is charged a forced spill: bound above Q"),
    Mutant("forced-overlap", CERT, "graphs/lower_bounds/windows.py",
           "        if seen & set(T):",
           "        if seen >= set(T):",
           "verify_forced side condition 6 `sets-disjoint`",
           "two overlapping forced sets both charged for the same spill"),
    Mutant("forced-charge-output", CERT, "graphs/lower_bounds/windows.py",
           "allowed = (1,) if set(T) & outs else (1, 2)",
           "allowed = (1, 2)",
           "verify_forced side condition 7 `charge`: 1 when T holds an output",
           "a spilled output (written anyway) charged a write too: bound one above"),
    Mutant("spill-outside-covered", CERT, "graphs/lower_bounds/windows.py",
           "if x not in inputs or x in covered or not any(s in computed for s in G.successors(x)):",
           "if x not in inputs or not any(s in computed for s in G.successors(x)):",
           "check_spill_windows side condition 5 `outside-not-covered`",
           "an input read already counted by a window counted again outside"),
    Mutant("hk-off-by-one", CERT, "graphs/lower_bounds/counting.py",
           "    if again.lower < P:  # (z3 unknown",
           "    if again.lower < P - 1:  # (z3 unknown",
           "check_hong_kung side condition 5 `p-is-least`",
           "a partition with one part more than the least accepted: HK bound M above"),
    Mutant("certified-not-refuted", CERT, "graphs/lower_bounds/combined.py",
           "return self.record.applies and self.verdict.verdict == \"proved\"",
           "return self.record.applies and self.verdict.verdict != \"refuted\"",
           "CertifiedRoute side condition 2 `proved` (Undecided is not certified)",
           "a route whose check timed out is printed as a certified lower bound"),
    Mutant("check-timeout-proved", CERT, "graphs/lower_bounds/combined.py",
           "        return Undecided(CHECK_TIME_LIMIT_REASON)",
           "        return Proved(CHECK_TIME_LIMIT_REASON)",
           "check_certificate: a check cut by the deadline is Undecided, never a pass",
           "`attnio lower-bound --verify` reports a certificate proved when its check ran out "
           "of time"),
    Mutant("check-not-applying", CERT, "graphs/lower_bounds/combined.py",
           "        if record.value != 0:",
           "        if record.value < 0:",
           "check_certificate side condition 1 `not-applying-is-zero`",
           "a record that does not apply but claims a positive value is Proved"),
    Mutant("route-verdict-plus-one", CERT, "proofs/certified_routes.py",
           "            if rec.value > q:",
           "            if rec.value > q + 1:",
           "route_verdict side condition 3 `within-optimum`",
           "a route one above the exact optimum passes its claim"),
    Mutant("route-verdict-undecided-pass", CERT, "proofs/certified_routes.py",
           "            if not verdict.proved:\n",
           "            if verdict.verdict == \"error\":\n",
           "route_verdict side condition 2 `certificate-decided`",
           "a route claim is Proved although its certificate checks were undecided"),
    Mutant("route-verdict-least-m", CERT, "proofs/certified_routes.py",
           "undecided += M >= oracles.least_M(G)",
           "undecided += M > oracles.least_M(G)",
           "route_verdict side condition 4 `optimum-settled` (at M = least M too)",
           "an instance at the least M without a settled optimum is silently skipped"),
    Mutant("route-verdict-vacuous", CERT, "proofs/certified_routes.py",
           "    if positive == 0:\n        return Undecided(f\"{route_prefix}: never positive",
           "    if checked == 0:\n        return Undecided(f\"{route_prefix}: never positive",
           "route_verdict side condition 5 `non-vacuous`",
           "a route that is 0 on every instance is Proved"),
    # ---------------------------------------------------------------- schedule validator
    Mutant("replay-red-limit-plus-one", VALID, "graphs/game.py",
           "        if len(red) > M:",
           "        if len(red) > M + 1:",
           "replay side condition 9 `red-limit`",
           "a schedule holding M + 1 red pebbles is legal; `attnio pebble` prints an upper "
           "bound below Q(G, M)"),
    Mutant("replay-red-limit-compute-only", VALID, "graphs/game.py",
           "        if len(red) > M:",
           "        if kind == \"compute\" and len(red) > M:",
           "replay side condition 9 `red-limit` after a read too",
           "a read past M accepted"),
    Mutant("replay-read-red", VALID, "graphs/game.py",
           "            if v not in blue:\n                raise illegal(i, move, \"read-needs-blue\")",
           "            if v not in blue and v not in red:\n"
           "                raise illegal(i, move, \"read-needs-blue\")",
           "replay side condition 3 `read-needs-blue`",
           "a read of a vertex that is red but never written is accepted"),
    Mutant("replay-write-after-delete", VALID, "graphs/game.py",
           "            if v not in red:\n                raise illegal(i, move, \"write-needs-red\")",
           "            if v not in red and v not in computed:\n"
           "                raise illegal(i, move, \"write-needs-red\")",
           "replay side condition 4 `write-needs-red` (a deleted pebble is gone)",
           "a write of a computed vertex whose red pebble was deleted is accepted"),
    Mutant("replay-blue-parents", VALID, "graphs/game.py",
           "missing = [u for u in G.predecessors(v) if u not in red]",
           "missing = [u for u in G.predecessors(v) if u not in red and u not in blue]",
           "replay side condition 6 `compute-needs-red-parents`",
           "a compute from blue (unread) predecessors is accepted: reads skipped, cost too low"),
    Mutant("replay-one-shot-deleted", VALID, "graphs/game.py",
           "if not recompute and v in computed:",
           "if not recompute and v in computed and v in red:",
           "replay side condition 7 `one-shot`",
           "in the one-shot game a vertex recomputed after its deletion is accepted"),
    Mutant("replay-output-red", VALID, "graphs/game.py",
           "missing_out = [o for o in outs if o not in blue]",
           "missing_out = [o for o in outs if o not in blue and o not in red]",
           "replay side condition 10 `outputs-blue`",
           "a schedule that leaves an output red (never written) is complete"),
    Mutant("replay-reread-free", VALID, "graphs/game.py",
           "            red.add(v)\n            reads += 1",
           "            reads += v not in red\n            red.add(v)",
           "replay Notes: a read of a red vertex is a legal no-op and is counted",
           "redundant reads cost nothing: the replayed I/O is below the schedule's moves"),
    Mutant("validate-claimed-io", VALID, "graphs/game.py",
           "if claimed_io is not None and result.io != claimed_io:",
           "if claimed_io is not None and result.io < claimed_io:",
           "validate: the schedule costs exactly claimed_io",
           "a schedule costing more than the claimed cost is Proved"),
    # ---------------------------------------------------------------- smt bridge
    Mutant("bridge-nonneg-root-strict", SMT, "smt/sympy_to_z3.py",
           "                self.side_conditions.append(v >= 0)\n                rule = \"s >= 0\"",
           "                self.side_conditions.append(v > 0)\n                rule = \"s >= 0\"",
           "bridge.square-root-needs-a-lower-bound: s >= 0 for a nonnegative symbol",
           "`prove 'sqrt(x) > 0' --var x:nonnegative` Proved (x = 0 excluded)"),
    Mutant("bridge-strict-nonneg", SMT, "smt/sympy_to_z3.py",
           "_STRICT = {\"positive\"}",
           "_STRICT = {\"positive\", \"nonnegative\"}",
           "declared domains: nonnegative includes 0",
           "`prove 'x > 0' --var x:nonnegative` Proved"),
    Mutant("bridge-root-below-zero", SMT, "smt/sympy_to_z3.py",
           "self.side_conditions += [r >= 0, z3.Implies(b >= 0, _int_power(r, q) == b)]",
           "self.side_conditions += [r >= 0, _int_power(r, q) == b]",
           "bridge.a-root-is-free-below-zero",
           "a statement with a cube root of a possibly negative base is proved on b >= 0 only"),
    Mutant("bridge-piecewise-no-branch", SMT, "smt/sympy_to_z3.py",
           "                out, branches = self._fresh(\"nobranch\"), e.args",
           "                out, branches = self._arith(e.args[-1][0]), e.args[:-1]",
           "bridge.no-branch-is-free",
           "where no Piecewise branch applies the last branch's value is used"),
    Mutant("bridge-piecewise-order", SMT, "smt/sympy_to_z3.py",
           "            for value, cond in reversed(branches):",
           "            for value, cond in branches:",
           "Piecewise: the first branch whose condition holds wins",
           "overlapping Piecewise conditions take the later branch's value"),
    Mutant("bridge-negative-power-integer", SMT, "smt/sympy_to_z3.py",
           "return bool(e.exp.is_Integer and e.exp >= 0) and self.integer_valued(e.base)",
           "return bool(e.exp.is_Integer) and self.integer_valued(e.base)",
           "bridge.integer-gaps-need-integer-sides / division-lemma-needs-integer-parts",
           "1/n is taken for an integer: the integer gaps exclude 0 < 1/n < 1"),
    Mutant("bridge-fourth-root-square", SMT, "smt/sympy_to_z3.py",
           "if isinstance(base, sympy.Symbol) and q == 2 and self._squarable(base):",
           "if isinstance(base, sympy.Symbol) and q in (2, 4) and self._squarable(base):",
           "bridge.only-square-roots-become-squares",
           "`prove 'root(x, 4) <= sqrt(x)' --var x:positive` Proved"),
    Mutant("bridge-division-remainder", SMT, "smt/sympy_to_z3.py",
           "z3.Implies(d > 0, z3.And(r >= 0, r <= d - 1))",
           "z3.Implies(d > 0, z3.And(r >= 1, r <= d - 1))",
           "division lemma: 0 <= r <= D - 1",
           "floor(n/2) at even n has no model: `floor(n/2)*2 < n` Proved"),
    Mutant("bridge-floor-strict", SMT, "smt/sympy_to_z3.py",
           "self.side_conditions += [k <= a, a < k + 1]",
           "self.side_conditions += [k < a, a < k + 1]",
           "floor(a) = k with k <= a < k + 1",
           "floor at an integer argument has no model: statements false there are Proved"),
    Mutant("bridge-gaps-one-side", SMT, "smt/sympy_to_z3.py",
           "self.integer_valued(e.lhs) \\\n                    and self.integer_valued(e.rhs):",
           "self.integer_valued(e.lhs):",
           "bridge.integer-gaps-need-integer-sides",
           "n > x/2 with x real is given the gap n - x/2 not in (0, 1)"),
    # ---------------------------------------------------------------- smt kernel/referee
    Mutant("referee-integer-outside", SMT, "smt/kernel.py",
           "        if inside is False:\n            return \"outside\"",
           "        if inside is False and \"integer\" not in dom:\n            return \"outside\"",
           "kernel.integers-are-integers / refuted-is-refereed (point in every domain)",
           "a non-integral point refutes a statement about integers"),
    Mutant("kernel-relaxed-unknown-decides", SMT, "smt/kernel.py",
           "    if relaxed.status in (\"unsat\", \"sat\"):\n        deciding = relaxed",
           "    if relaxed.status in (\"unsat\", \"sat\", \"unknown\"):\n        deciding = relaxed",
           "z3 unknown is Undecided, never Proved",
           "a statement z3 gave up on (unknown, no model) is Proved"),
    Mutant("kernel-vacuity-unknown", SMT, "smt/kernel.py",
           "        if status != \"sat\":\n            return (f\"proved, but z3",
           "        if status == \"error\":\n            return (f\"proved, but z3",
           "kernel.no-vacuous-proofs: an antecedent not shown satisfiable is possibly vacuous",
           "a proof whose antecedent may hold nowhere is printed Proved"),
    Mutant("kernel-vacuity-defined", SMT, "smt/kernel.py",
           "    if not checks and problem.defined is not sp.true:",
           "    if not checks and problem.defined is sp.true:",
           "kernel.no-vacuous-proofs: defined nowhere is vacuous",
           "`prove 'sqrt(-1 - x**2) >= 5'` Proved instead of Undecided vacuous"),
    Mutant("kernel-witness-undefined", SMT, "smt/kernel.py",
           "all(truth_at(f, candidate) is True for f in formulas)",
           "all(truth_at(f, candidate) is not False for f in formulas)",
           "kernel.a-witness-is-defined-and-true",
           "a vacuous implication's antecedent 'witnessed' at a point where it is undefined"),
    Mutant("kernel-identity-positivity", SMT, "smt/kernel.py",
           "shown = _decide(_Problem.of(sp.Gt(sym, 0, evaluate=False),",
           "shown = _decide(_Problem.of(sp.Ge(sym, 0, evaluate=False),",
           "kernel.identity-positivity-is-strict",
           "x >= 0 enough to assume x > 0 in sympy's rewriting: a false identity at 0 Proved"),
    Mutant("kernel-identity-not-refuted", SMT, "smt/kernel.py",
           "            if isinstance(shown, Proved):\n                assumptions[\"positive\"] = True",
           "            if not isinstance(shown, Refuted):\n"
           "                assumptions[\"positive\"] = True",
           "kernel.identity-positivity-is-strict (positivity must be proved)",
           "positivity assumed when it was merely not refuted (Undecided)"),
    Mutant("kernel-where-defined-unknown", SMT, "smt/kernel.py",
           "    if found == \"none\":\n        return None",
           "    if found != \"point\":\n        return None",
           "kernel.where-defined-has-a-point (not ruled out -> still 'where defined')",
           "a proof that holds only where defined is printed without its condition"),
    Mutant("kernel-constant-antecedent", SMT, "smt/kernel.py",
           "        if evaluate(context, {}) != \"true\":",
           "        if evaluate(context, {}) == \"false\":",
           "kernel.no-vacuous-proofs for constant statements (undefined antecedent)",
           "`prove 'Implies(sqrt(-1) > 0, 1 > 2)'` Proved"),
    # ---------------------------------------------------------------- definedness, coq
    Mutant("defined-negative-root", SMT, "smt/definedness.py",
           "parts.append(_relation(sp.Ge if exponent > 0 else sp.Gt, base, sp.Integer(0)))",
           "parts.append(_relation(sp.Ge, base, sp.Integer(0)))",
           "definedness.roots: b^(p/q) with p < 0 needs b > 0",
           "1/sqrt(x) taken as defined at x = 0"),
    Mutant("defined-implies-unguarded", SMT, "smt/definedness.py",
           "        return _conj([definedness(a), _guard(a, definedness(b))])",
           "        return _conj([definedness(a), definedness(b)])",
           "definedness.guarded-implies",
           "Implies(x >= 0, sqrt(x) >= 0) reported as proved only 'where x >= 0'"),
    Mutant("defined-piecewise-no-branch", SMT, "smt/definedness.py",
           "_guard(sp.Not(cond), rest) if rest is not sp.false else cond])",
           "_guard(sp.Not(cond), rest) if rest is not sp.false else sp.true])",
           "definedness.piecewise-in-order: no branch applying is undefined",
           "a Piecewise without a True branch is taken as defined everywhere"),
    Mutant("defined-log-base-one", SMT, "smt/definedness.py",
           "            parts += [term_definedness(b), _relation(sp.Gt, b, sp.Integer(0)),\n"
           "                      _relation(sp.Ne, b, sp.Integer(1))]",
           "            parts += [term_definedness(b), _relation(sp.Gt, b, sp.Integer(0))]",
           "definedness.log-base: b != 1",
           "log(a, 1) taken as defined (a division by log 1 = 0)"),
    Mutant("defined-or-antecedents", SMT, "smt/definedness.py",
           "    if isinstance(statement, (sp.And, sp.Or)):\n        return [c for arg",
           "    if isinstance(statement, sp.And):\n        return [c for arg",
           "definedness.positive-antecedents (an argument of Or is a positive position)",
           "Or(Implies(x < 0, ...), Implies(x > 1, ...)) with unsatisfiable antecedents Proved"),
    Mutant("coq-gt-as-ge", SMT, "smt/coq.py",
           "_SWAP = {\">=\": \"<=\", \">\": \"<\"}",
           "_SWAP = {\">=\": \"<=\", \">\": \"<=\"}",
           "Coq printer: a > b printed as b < a",
           "`prove --coq 'x > 0' --var x:nonnegative` re-checked by coqc (it proves x >= 0)"),
    # ---------------------------------------------------------------- claim checkers
    Mutant("counts-le-root-side", CLAIMS, "proofs/algorithm_counts.py",
           "    return excess * excess * M <= constant * constant * s * s",
           "    return excess * excess <= constant * constant * s * s * M",
           "_le side condition 2 `root-part`: (count - c r)^2 M <= c^2 s^2",
           "an envelope claim count <= c (r + s/sqrt M) passes with s sqrt(M) in its place"),
    Mutant("counts-le-one-word", CLAIMS, "proofs/algorithm_counts.py",
           "    if excess <= 0:\n        return True",
           "    if excess <= 1:\n        return True",
           "_le side condition 1 `rational-part`: one word more is false",
           "a count one word above a rational envelope passes"),
    Mutant("envelope-negative-part", CLAIMS, "proofs/algorithm_counts.py",
           "            if r < 0 or s < 0:",
           "            if r < 0 and s < 0:",
           "Envelope side condition 3 `nonnegative-parts`",
           "a form with one negative part compared by squaring (sign lost)"),
    Mutant("comparison-one-word", CLAIMS, "proofs/algorithm_counts.py",
           "            if a > b:",
           "            if a > b + 1:",
           "Comparison side condition 1 `fast-not-above-slow`",
           "an algorithm one word worse than the other is 'never worse'"),
    Mutant("comparison-vacuous", CLAIMS, "proofs/algorithm_counts.py",
           "        if checked == 0:\n            return Undecided(f\"no grid point in range ({self.range_text}) where both run\")",
           "        if checked < 0:\n            return Undecided(f\"no grid point in range ({self.range_text}) where both run\")",
           "Comparison side condition 3 `non-vacuous`",
           "a comparison over an empty range Proved"),
    Mutant("grid-drop-top", CLAIMS, "proofs/algorithm_counts.py",
           "return sorted(M for M in cands if 4 <= M <= top)",
           "return sorted(M for M in cands if 4 <= M < top)",
           "Envelope side condition 2 `every-point` (M = n d is in every range M <= nd)",
           "an envelope that fails only at M = n d passes"),
    Mutant("mask-route-plus-one", CLAIMS, "proofs/mask_bounds.py",
           "                    if bound.value > io:",
           "                    if bound.value > io + 1:",
           "mask.below_algorithms side condition 4 `route-within-count`",
           "a per-mask bound one word above a masked algorithm's exact I/O passes"),
    Mutant("mask-first-route-skipped", CLAIMS, "proofs/mask_bounds.py",
           "                for bound in routes[computation]:",
           "                for bound in routes[computation][1:]:",
           "mask.below_algorithms side condition 3 `every-route`",
           "the compulsory route of a mask is never compared"),
    # retargeted after main merged the four brute-force loops into one shared helper
    # (proofs/attention_routes.segment_cap_excess, which mask.segment_subset now calls)
    Mutant("mask-subset-short", CLAIMS, "proofs/attention_routes.py",
           "    for t in (1, 2, 3, 4):\n        L = t * M\n        most, value = segment_max(table, M, L), cap(d, M, L)",
           "    for t in (1, 2):\n        L = t * M\n        most, value = segment_max(table, M, L), cap(d, M, L)",
           "mask.segment_subset: L = t M for t <= 4",
           "a mask cap wrong only at L = 3M, 4M passes"),
    Mutant("joint-leaves-subset", CLAIMS, "proofs/joint_routes.py",
           "    if cells != set(search.leaves):",
           "    if not set(search.leaves) <= cells:",
           "gap.joint_cap certificate: the leaves are exactly the cells the splits leave",
           "a joint-search certificate that drops a leaf (the one with the top bound) passes"),
    Mutant("joint-psi-negative-lhs", CLAIMS, "proofs/joint_routes.py",
           "return C * C >= alpha2A and lhs >= 0 and lhs * lhs >= 4 * C * C * alpha2A",
           "return C * C >= alpha2A and lhs * lhs >= 4 * C * C * alpha2A",
           "psi_at_most: C >= x + y iff C^2 >= x^2 and C^2 + x^2 - y^2 >= 2 C x (sign)",
           "a cap below Psi accepted at a point where C^2 + x^2 - y^2 < 0"),
    Mutant("joint-grads-floor", CLAIMS, "bounds/joint.py",
           "        grads = r + (r * r != y)",
           "        grads = r",
           "extreme_bound: each term rounded up (an integer >= Psi)",
           "the joint cap rounds sqrt(u s w) down: a cap below Psi, a joint route above Q"),
    Mutant("joint-cap-best", CLAIMS, "bounds/joint.py",
           "    cap = max(1, best, -heap[0][0] if heap else 0)",
           "    cap = max(1, best)",
           "joint_search: the cap is the largest open cell bound, not the best point found",
           "joint routes use a cap below max Psi: gap.joint_route bound too high"),
    Mutant("heads-any-class-max", CLAIMS, "bounds/heads.py",
           "        if best is None or top.value < best[0].value:",
           "        if best is None or top.value > best[0].value:",
           "stacked_lower_bound 'any': the smallest class maximum",
           "`attnio bounds --heads` prints the larger class's bound as valid for every "
           "algorithm"),
    Mutant("heads-joint-group", CLAIMS, "bounds/heads.py",
           "cap=joint_cap(cls, n, d, group=heads // kv))",
           "cap=joint_cap(cls, n, d, group=1))",
           "joint route over GQA groups: partial depth g n - 1",
           "GQA joint route uses the single-head cap: bound above what GQA FlashAttention does"),
    Mutant("heads-kv-words", CLAIMS, "bounds/heads.py",
           "\"kv\": kv * n * d,",
           "\"kv\": heads * n * d,",
           "stacked_compulsory: K and V read once per K/V head (B G n d)",
           "the GQA compulsory I/O counts K, V per query head: a bound above the GQA algorithm"),
    Mutant("gapworst-cap-gap", CLAIMS, "bounds/gap_worst.py",
           "        gap = T_hi - S_lo * (per * j) // CELLS",
           "        gap = T_hi - S_hi * (per * j) // CELLS",
           "_cap_upper: s0 at its smallest (M = a) bounds every M in [a, b]",
           "the interval cap is too small: worst-ratio lower bound above the true bound",
           equivalent="found by the lead after it survived: in verdicts. Each cell bound "
                      "s1²/(4d) + min((s1/2)√(T − s0), k(T − s0)) at a fixed relative cell grows "
                      "with M (s1, T − s0 and T all scale with M), so the cells taken at M = b "
                      "bound the cap at every M ≤ b: the mutant's cap is tighter, still an upper "
                      "bound (checked on wide intervals by tests/test_redteam_survivors.py), and "
                      "the exact worst is unchanged; only the pruning's work differs"),
    Mutant("gapworst-max-class", CLAIMS, "bounds/gap_worst.py",
           "    return min(per_class)",
           "    return max(per_class)",
           "interval_lower_bound: the smallest over the classes",
           "the interval bound takes the best class: above the bound for another class"),
    # ---------------------------------------------------------------- attention bounds/routes
    Mutant("attn-cell-gap", ATTN, "bounds/attention.py",
           "    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2), k * (T - s0))\n    return full + partial",
           "    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s1)) // 2), k * (T - s0))\n    return full + partial",
           "_cell_cap: the partial term at its largest, T - s0",
           "segment cap too small: the segment route (printed lower bound) too large"),
    Mutant("attn-full-floor", ATTN, "bounds/attention.py",
           "    full = -(-s1 * s1 // (4 * d))\n    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2), k * (T - s0))\n    return full + partial",
           "    full = s1 * s1 // (4 * d)\n    partial = min(-(-ceil_sqrt(s1 * s1 * (T - s0)) // 2), k * (T - s0))\n    return full + partial",
           "_cell_cap: each term rounded up",
           "segment cap one below the cell bound: lower bound slightly too large"),
    Mutant("attn-route-minus-one", ATTN, "bounds/attention.py",
           "        value = L * max(0, -(-N // cap(d, M, L)) - 1)",
           "        value = L * max(0, -(-N // cap(d, M, L)))",
           "segment route L(ceil(N/F(L)) - 1): the last segment may be partial",
           "every segment route L words too high"),
    Mutant("attn-compulsory-forward", ATTN, "bounds/attention.py",
           "return (3 + 1) * n * d if pass_ == \"forward\"",
           "return (3 + 2) * n * d if pass_ == \"forward\"",
           "compulsory_io: forward reads Q, K, V and writes O: 4 n d",
           "forward compulsory bound 5 n d: above FlashAttention when everything fits"),
    Mutant("attn-cell-ge-sign", ATTN, "proofs/attention_routes.py",
           "return A >= 4 * d * k * (T - s0) or (A >= 0 and A * A >= 4 * d * d * s1 * s1 * (T - s0))",
           "return A >= 4 * d * k * (T - s0) or (A * A >= 4 * d * d * s1 * s1 * (T - s0))",
           "_cell_bound_ge: comparing a root by squaring needs A >= 0",
           "a cap far below a cell bound (A very negative) accepted"),
    Mutant("attn-brute-boundary", ATTN, "proofs/attention_routes.py",
           "               for s, full, prefix in table if s <= S)",
           "               for s, full, prefix in table if s < S)",
           "brute_segment_max: every shape with s <= M + L",
           "the brute-force check misses the fullest shapes: a low cap passes"),
    # ---------------------------------------------------------------- algorithms counting
    Mutant("memory-admit-late", ALGO, "algorithms/memory.py",
           "        if self._resident + words > self.M:",
           "        if self._resident > self.M:",
           "TwoLevelMemory: a load that would exceed M raises (checked before admitting)",
           "an algorithm whose tiles do not fit M runs and reports counts"),
    Mutant("memory-peak-before", ALGO, "algorithms/memory.py",
           "        self._resident += words\n        self.peak_words = max(self.peak_words, self._resident)",
           "        self.peak_words = max(self.peak_words, self._resident)\n        self._resident += words",
           "peak_words: the most words ever resident",
           "`attnio simulate` prints a peak below the real one"),
    Mutant("memory-fill-free", ALGO, "algorithms/memory.py",
           "        self.writes += int(np.prod(shape, dtype=np.int64))",
           "        self.writes += 0",
           "fill_slow: initialising slow memory costs one write per word",
           "FlashAttention-1's initialisation of O, l, m in HBM costs nothing"),
    Mutant("counts-require-fit", ALGO, "algorithms/counts.py",
           "    if counts.peak_fast_words > M:",
           "    if counts.peak_fast_words > M + 1:",
           "require_fit: a tile set needing more than M words is refused",
           "a closed-form count returned for a tile set one word over M"),
    Mutant("counts-matmul-floor", ALGO, "algorithms/counts.py",
           "        ceil_div(c, B) * a * k + ceil_div(a, B) * k * c, a * c, 2 * a * k * c,",
           "        c // B * a * k + ceil_div(a, B) * k * c, a * c, 2 * a * k * c,",
           "count_tile_matmul: T_c = ceil(c / B) column blocks",
           "closed-form counts too low whenever B does not divide c"),
    Mutant("counts-check-fits-late", ALGO, "algorithms/counts.py",
           "        if held + words > M:\n            raise CacheOverflowError(\n                f\"flash{version}",
           "        if held > M:\n            raise CacheOverflowError(\n                f\"flash{version}",
           "_check_fits: each tile checked before it is held",
           "FlashAttention counts returned for block sizes that overflow M"),
    Mutant("counts-fa2-prologue", ALGO, "algorithms/counts.py",
           "        peak = max(peak, 2 * r * d + r)",
           "        peak = max(peak, 2 * r * d)",
           "_flash_peak: FA-2 backward's D = rowsum(dO o O) prologue",
           "the closed-form peak of FA-2 backward below the executed peak",
           equivalent="found by the lead after it survived: the peak is first the SUM of the "
                      "backward tile set, which holds Q_i, dO_i, dQ_i (3rd words) and L_i, D_i "
                      "(2r) among others, so it is always at least 3rd + 2r > 2rd + r: the "
                      "prologue's term never wins the max, with or without its + r"),
]


def index(mutants: list[Mutant]) -> dict[str, Mutant]:
    """The mutants by id (an id used twice is an error)."""
    out: dict[str, Mutant] = {}
    for m in mutants:
        if m.id in out:
            raise ValueError(f"duplicate mutant id {m.id}")
        out[m.id] = m
    return out


def by_id() -> dict[str, Mutant]:
    return index(MUTANTS)


def count_bad(mutants: list[Mutant], taken: AbstractSet[tuple[str, str]] = frozenset()) -> int:
    """How many mutants do not apply to the current tree (``original`` not found exactly once,
    a replacement equal to it, or the text of a mutant in ``taken``), each printed."""
    bad = 0
    for m in mutants:
        hits = m.source().count(m.original)
        problem = (f"{hits} matches in {m.file}" if hits != 1 else
                   "replacement equals original" if m.original == m.replacement else
                   "the same text as a round-1 mutant" if (m.file, m.original) in taken else "")
        if problem:
            bad += 1
            print(f"{m.id}: {problem}")
    index(mutants)
    return bad


def areas(mutants: list[Mutant]) -> str:
    counts: dict[str, int] = {}
    for m in mutants:
        counts[m.area] = counts.get(m.area, 0) + 1
    return ", ".join(f"{a}: {k}" for a, k in counts.items())


if __name__ == "__main__":      # check every mutant applies to the current tree
    print(f"{len(MUTANTS)} mutants, {count_bad(MUTANTS)} bad; {areas(MUTANTS)}")


#: The modules added since round 1 (rounds 2 and 3 aim about half their mutants at them).
NEWEST = ("smt/explog.py", "smt/explog_terms.py", "smt/identities.py", "smt/obvious_points.py",
          "smt/coq.py", "smt/coq_statements.py", "smt/coqc.py", "bounds/joint.py",
          "proofs/joint_lemmas.py", "proofs/joint_routes.py", "bounds/gap_worst.py")


def check_round(mutants: list[Mutant], earlier: list[Mutant], label: str) -> int:
    """A held-out round's self-check: the number of bad mutants — not applying to the current
    tree, repeating the text of an ``earlier`` round's mutant, or reusing its id — with each
    printed, then a one-line summary (``label`` names the earlier rounds)."""
    bad = count_bad(mutants, {(m.file, m.original) for m in earlier})
    clash = sorted(set(index(mutants)) & {m.id for m in earlier})
    if clash:
        bad += len(clash)
        print(f"ids shared with {label}: {clash}")
    newest = sum(m.file in NEWEST for m in mutants)
    print(f"{len(mutants)} mutants ({newest} on the newest modules), {bad} bad; {areas(mutants)}")
    return bad
