"""Write notes/sparse.md and docs/figures/sparse_io_ratio.png: masked attention against the
sparse lower bound (count mode; see attnio.reporting.sparse_measure for what is measured).

Run: ``python3 benchmarks/sparse_table.py`` (a few seconds).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from attnio.reporting.sparse_measure import write_outputs


def main() -> int:
    start = time.perf_counter()
    print(write_outputs(Path(__file__).resolve().parents[1]))
    print(f"[sparse_table: {time.perf_counter() - start:.2f} s]", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
