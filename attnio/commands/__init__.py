"""The command modules of the ``attnio`` console script: one module per subcommand, named after it.

Each exposes ``register(subparsers)`` and ``run(args)`` (:mod:`attnio.cli`). This is the top
floor (notes/extending.md): a command module may import every room; no room imports it.
"""
