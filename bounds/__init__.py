"""attnio.bounds — explicit-constant lower bounds at real sizes, and what they are compared with.

The bounds room sits above the models (:mod:`attnio.symbolic`, :mod:`attnio.graphs`,
:mod:`attnio.algorithms`) and below the claims (:mod:`attnio.proofs`): every function here
returns exact integers; the claims that certify them live in :mod:`attnio.proofs`
(notes/extending.md, "The floors").
"""
