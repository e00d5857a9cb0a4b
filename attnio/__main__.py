"""``python -m attnio`` — same as the ``attnio`` console script.

Ctrl-C is taken over first (:mod:`attnio.interrupts`), before any heavy import.
"""

import sys

from attnio import interrupts

interrupts.install()

from attnio.cli import main  # noqa: E402  (after the SIGINT handler, on purpose)

sys.exit(main())
