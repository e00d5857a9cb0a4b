"""attnio.smt — the ground floor: from a sympy statement to Proved / Refuted / Undecided.

It imports nothing of attnio but the root's exceptions, results and validation; every other
room builds on it (notes/extending.md, "The floors").

* :mod:`attnio.smt.kernel`       — :func:`prove_statement`, the one proof kernel of
  ``attnio verify`` and ``attnio prove`` (declared domains, exact counterexamples, z3 + cvc5);
* :mod:`attnio.smt.sympy_to_z3`  — the bridge: sympy → z3 / SMT-LIB with declared domains;
* :mod:`attnio.smt.explog`, :mod:`attnio.smt.explog_terms` — the exp/log fragment: exp and
  log as uninterpreted functions, the true axioms that constrain them (each a claim), and
  their instances at a statement's terms;
* :mod:`attnio.smt.obvious_points` — where a counterexample is looked for first (0, ±1, the
  edges of the domains and of the definedness conditions);
* :mod:`attnio.smt.identities`   — :func:`~attnio.smt.identities.check_identity`;
* :mod:`attnio.smt.exact_eval`   — the referee: exact evaluation of a statement at a point;
* :mod:`attnio.smt.definedness`  — the one semantics of partial functions and ``Implies``;
* :mod:`attnio.smt.term_limits`  — caps on exponents, root indices and numbers;
* :mod:`attnio.smt.z3tools`      — :func:`prove` / :func:`check_sat` with the Undecided discipline;
* :mod:`attnio.smt.chains`       — inequality chains: each step proved, the conclusion composed;
* :mod:`attnio.smt.second_solver`, :mod:`attnio.smt.isolation` — cvc5, and calls run in a
  process of their own, killed at their deadline.

Importing :mod:`attnio.smt` itself imports no solver: each module imports z3 when it is
imported.
"""
