"""``python -m attnio`` — same as the ``attnio`` console script.

Ctrl-C is taken over first (:mod:`attnio.interrupts`), before any heavy import. The guard
keeps Dask's spawned worker processes (``--workers``), which import the main module, from
running the command again.
"""

import sys

if __name__ == "__main__":
    from attnio import interrupts

    interrupts.install()

    from attnio.cli import main

    sys.exit(main())
