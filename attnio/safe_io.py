"""Writing the user's files safely: atomically, never through a symlink, never over a stranger.

Every file attnio writes (reports, figures, exported DAGs, LaTeX tables, schedules) goes
through :func:`write_bytes` / :func:`write_text`:

* **atomic** — the bytes go to a temporary file in the same folder, are flushed and fsynced,
  then :func:`os.replace` renames it over the target; a crash leaves the old file or the new
  one, never half of either;
* **no symlinks** — a target that is a symlink (dangling or not) is refused; the rename
  replaces a path, it never writes through a link;
* **no strangers** — an existing target is replaced only with ``overwrite=True``; the caller
  decides that (e.g. ``--force``, or a file it created itself, recorded in a marker).

Errors are :class:`~attnio.exceptions.InvalidInputError` with one line naming the path and
the rule, so the CLI answers exit code 2.

Examples
--------
>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = write_text(os.path.join(folder, "a.txt"), "hello\\n")
>>> open(path).read()
'hello\\n'
>>> write_text(path, "again\\n")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: refusing to overwrite existing file ...a.txt (pass --force to replace it)
>>> _ = write_text(path, "again\\n", overwrite=True)
>>> os.symlink(path, os.path.join(folder, "link.txt"))
>>> write_text(os.path.join(folder, "link.txt"), "x", overwrite=True)
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: refusing to write through symlink ...link.txt
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from attnio.exceptions import InvalidInputError

__all__ = ["write_bytes", "write_text", "check_writable_target"]


def check_writable_target(path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Validate ``path`` as a file target; return it as a :class:`Path`.

    Raises
    ------
    InvalidInputError
        If ``path`` is a symlink, a directory or another non-regular file, if it exists and
        ``overwrite`` is false, or if its parent folder is missing or not a folder.
    """
    target = Path(path)
    if target.is_symlink():
        raise InvalidInputError(f"refusing to write through symlink {target}")
    if target.exists():
        if target.is_dir():
            raise InvalidInputError(f"{target} is a directory, not a file")
        if not target.is_file():
            raise InvalidInputError(f"{target} exists and is not a regular file")
        if not overwrite:
            raise InvalidInputError(
                f"refusing to overwrite existing file {target} (pass --force to replace it)")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidInputError(f"folder {parent} of {target.name} does not exist")
    return target


def write_bytes(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically (temp file + rename), never through a symlink.

    Returns the path written. See the module docstring for the rules.
    """
    target = check_writable_target(path, overwrite=overwrite)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise InvalidInputError(f"cannot write in folder {parent}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        # Re-check just before the rename: a symlink planted meanwhile is refused too.
        if target.is_symlink():
            raise InvalidInputError(f"refusing to write through symlink {target}")
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


def write_text(path: str | os.PathLike[str], text: str, *, overwrite: bool = False,
               encoding: str = "utf-8") -> Path:
    """:func:`write_bytes` for text (UTF-8 by default)."""
    return write_bytes(path, text.encode(encoding), overwrite=overwrite)
