"""Progress bars for searches and sweeps (tqdm on stderr, silent when stderr is not a TTY).

``ATTNIO_PROGRESS=1`` forces the bar on, ``ATTNIO_PROGRESS=0`` forces it off.

>>> sum(progress(range(3), desc="demo", enabled=False))
3
"""

from __future__ import annotations

import os
import sys
from typing import Iterable, Iterator, TypeVar

from tqdm.auto import tqdm

__all__ = ["progress", "progress_enabled"]

T = TypeVar("T")


def progress_enabled(enabled: bool | None = None) -> bool:
    """Decide whether to draw a bar: explicit flag, then ``ATTNIO_PROGRESS``, then isatty."""
    if enabled is not None:
        return enabled
    env = os.environ.get("ATTNIO_PROGRESS")
    if env in {"0", "1"}:
        return env == "1"
    return sys.stderr.isatty()


def progress(
    iterable: Iterable[T], *, total: int | None = None, desc: str = "", enabled: bool | None = None
) -> Iterator[T]:
    """Wrap ``iterable`` in a tqdm bar written to stderr (never to stdout, which carries JSON)."""
    yield from tqdm(
        iterable, total=total, desc=desc, disable=not progress_enabled(enabled), file=sys.stderr,
        leave=False,
    )
