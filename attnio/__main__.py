"""``python -m attnio`` — same as the ``attnio`` console script."""

import sys

from attnio.cli import main

sys.exit(main())
