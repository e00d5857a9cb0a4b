"""Writing the user's files safely: atomically, never through a symlink, never over a stranger.

Every file attnio writes (reports, figures, exported DAGs, LaTeX tables, schedules) goes
through :func:`write_bytes` / :func:`write_text`:

* **atomic** — the bytes go to a temporary file in the same folder (named
  ``.attnio-tmp-<pid>-<random>.tmp``, :data:`TEMP_PREFIX`), are flushed and fsynced, then
  the temporary file becomes the target in one step; a crash leaves the old file or the new
  one, never half of either;
* **no overwrite, checked at the rename itself** — without ``overwrite`` the temporary file
  is *hard-linked* to the target name (:func:`os.link` fails if the name exists, atomically)
  and then unlinked; where hard links are not supported, ``renameat2(RENAME_NOREPLACE)``
  (Linux) is used. A file that appears between the check and the rename is never replaced.
  With ``overwrite`` the rename is :func:`os.replace`;
* **no symlinks** — a target that is a symlink (dangling or not) is refused; the rename or
  link replaces a path, it never writes through a link;
* **no strangers** — an existing target is replaced only with ``overwrite=True``; the caller
  decides that (e.g. ``--force``, or a file it created itself, recorded in a marker);
* **crash leftovers are attnio's own** — a process killed mid-write (SIGKILL) leaves its
  temporary file; the next write into that folder deletes such files when their process is
  gone and they are older than :data:`STALE_TEMP_SECONDS` (:func:`clean_stale_temps`), and
  :func:`is_attnio_temp` lets a folder check ignore them;
* **names the file system can hold** — a file name longer than the file system allows
  (usually 255 bytes) is refused up front, not a traceback.

Errors are :class:`~attnio.exceptions.InvalidInputError` with one line naming the path and
the rule, so the CLI answers exit code 2; a write that fails for a reason of the disk (no
space, an I/O error) is :class:`OutputError`, exit code 1, with the target left as it was.

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
>>> sorted(os.listdir(folder))  # no temporary file left behind
['a.txt', 'link.txt']
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from attnio.exceptions import InvalidInputError, OutputError

__all__ = ["write_bytes", "write_text", "validate_writable_target", "validate_name_lengths",
           "validate_folder_target",
           "is_attnio_temp", "OutputError",
           "clean_stale_temps", "TEMP_PREFIX", "STALE_TEMP_SECONDS"]

#: Prefix of attnio's temporary files: ``.attnio-tmp-<pid>-<random>.tmp``.
TEMP_PREFIX = ".attnio-tmp-"
#: A temporary file of a finished process is deleted once it is this old (a live writer's file
#: is seconds old; the delay also protects writers in another PID namespace sharing the folder).
STALE_TEMP_SECONDS = 60.0
_TEMP_NAME = re.compile(r"\.attnio-tmp-(\d+)-[A-Za-z0-9_]+\.tmp\Z")
_NAME_MAX = 255  # when the file system does not say (POSIX NAME_MAX on every common one)


def is_attnio_temp(name: str) -> bool:
    """True if ``name`` is the name of one of attnio's temporary files (see the module doc).

    >>> is_attnio_temp(".attnio-tmp-4242-k3j_x9.tmp"), is_attnio_temp("notes.tmp")
    (True, False)
    """
    return _TEMP_NAME.match(name) is not None


def process_alive(pid: int) -> bool:
    if pid <= 0:
        return True  # not a real pid: never treat as stale
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def clean_stale_temps(folder: str | os.PathLike[str]) -> list[str]:
    """Delete attnio's temporary files in ``folder`` whose process is gone and that are older
    than :data:`STALE_TEMP_SECONDS`; return the names deleted. Only regular files matching
    the name pattern are touched (never a symlink, never a user's file); errors are ignored."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        match = _TEMP_NAME.match(name)
        if match is None or int(match.group(1)) == os.getpid():
            continue
        path = os.path.join(folder, name)
        try:
            info = os.lstat(path)
            if (stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_TEMP_SECONDS
                    and not process_alive(int(match.group(1)))):
                os.unlink(path)
                removed.append(name)
        except (OSError, ValueError):
            continue
    return removed


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError):
        return _NAME_MAX


def _lstat(path: Path) -> os.stat_result | None:
    """``os.lstat`` or None if nothing is there; other failures as one-line errors."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise InvalidInputError(_not_a_folder(path)) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot use {_shown(path)} ({exc.strerror})") from None


def _shown(path: Path, limit: int = 120) -> str:
    text = str(path)
    return text if len(text) <= limit else text[:limit // 2] + "…" + text[-limit // 2:]


def _not_a_folder(target: Path) -> str:
    """Name the ancestor of ``target`` that is a file (``existing-file/x.json``)."""
    for ancestor in [*reversed(target.parents)]:
        try:
            info = os.stat(ancestor)
        except OSError:
            break
        if not stat.S_ISDIR(info.st_mode):
            return f"{_shown(ancestor)} is a file, not a folder: cannot write {_shown(target)}"
    return f"a parent of {_shown(target)} is not a folder"


def validate_name_lengths(path: str | os.PathLike[str], what: str = "file name") -> Path:
    """``path`` as a Path, after checking that no component is longer than the file system
    allows (``PC_NAME_MAX``, usually 255 bytes): otherwise an InvalidInputError, not the
    ``OSError: File name too long`` of the first stat.

    >>> validate_name_lengths("x" * 300 + ".png")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: file name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'… has 304 bytes; the file system allows at most 255 per name
    """
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        limit = _name_max(parent) if len(os.fsencode(str(parent))) < 4096 and parent.is_dir() \
            else _NAME_MAX
    except OSError:
        limit = _NAME_MAX
    for part in target.parts:
        size = len(os.fsencode(part))
        if size > limit:
            raise InvalidInputError(f"{what} {part[:40]!r}… has {size} bytes; the file "
                                    f"system allows at most {limit} per name")
    return target


def validate_folder_target(path: Path, shown: str, hint: str = "") -> None:
    """Refuse a folder attnio is to write files into when it is a symlink or exists and is
    not a directory (a missing one is fine: the caller creates it); ``shown`` names it in the
    one-line error (``OUTDIR='out'``), ``hint`` follows the symlink's.

    >>> validate_folder_target(Path("attnio-no-such-folder"), "OUTDIR='attnio-no-such-folder'")
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     validate_folder_target(Path(f.name), "--coq-dir")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: --coq-dir exists and is not a directory
    """
    if path.is_symlink():
        raise InvalidInputError(f"{shown} is a symlink; attnio does not write through "
                                f"symlinks{hint}")
    if path.exists() and not path.is_dir():
        raise InvalidInputError(f"{shown} exists and is not a directory")


def validate_writable_target(path: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Validate ``path`` as a file target; return it as a :class:`Path`.

    Raises
    ------
    InvalidInputError
        If ``path`` is a symlink, a directory or another non-regular file, if it exists and
        ``overwrite`` is false, if its parent folder is missing or is a file, or if its name
        is longer than the file system allows.
    """
    target = validate_name_lengths(path)
    parent = target.parent if str(target.parent) else Path(".")
    info = _lstat(target)
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise InvalidInputError(f"refusing to write through symlink {_shown(target)}")
        if stat.S_ISDIR(info.st_mode):
            raise InvalidInputError(f"{_shown(target)} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInputError(f"{_shown(target)} exists and is not a regular file")
        if not overwrite:
            raise InvalidInputError(f"refusing to overwrite existing file {_shown(target)} "
                                    "(pass --force to replace it)")
    try:
        parent_info = os.stat(parent)  # a symlinked folder is fine: the file itself is not one
    except FileNotFoundError:
        raise InvalidInputError(f"folder {_shown(parent)} of {target.name} does not exist") from None
    except NotADirectoryError:
        raise InvalidInputError(_not_a_folder(target)) from None
    except OSError as exc:
        raise InvalidInputError(f"cannot use folder {_shown(parent)} ({exc.strerror})") from None
    if not stat.S_ISDIR(parent_info.st_mode):
        raise InvalidInputError(f"{_shown(parent)} is a file, not a folder: cannot write "
                                f"{target.name}")
    return target


_RENAME_NOREPLACE = 1
_AT_FDCWD = -100


def _rename_noreplace(source: str, target: Path) -> None:
    """``renameat2(source, target, RENAME_NOREPLACE)`` (Linux ≥ 3.15); OSError if it fails,
    FileExistsError if ``target`` exists, OSError(ENOSYS) where it is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        raise OSError(errno.ENOSYS, "renameat2 is not available") from None
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target),
                 _RENAME_NOREPLACE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def _publish_new(tmp: str, target: Path) -> None:
    """Give ``tmp`` the name ``target`` only if no file has that name, atomically."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                             errno.EXDEV, errno.ENOSYS):
            raise
        _rename_noreplace(tmp, target)  # no hard links here (FAT, some FUSE mounts)
        return
    try:
        os.unlink(tmp)  # the target is written; a temp left here is cleaned by a later write
    except OSError:
        pass


def write_bytes(path: str | os.PathLike[str], data: bytes, *, overwrite: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically (temp file + link/rename), never through a symlink.

    Returns the path written. See the module docstring for the rules.
    """
    target = validate_writable_target(path, overwrite=overwrite)
    parent = target.parent if str(target.parent) else Path(".")
    clean_stale_temps(parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=".tmp",
                                   dir=parent)
    except OSError as exc:
        raise InvalidInputError(f"cannot write in folder {_shown(parent)}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if overwrite:
            # Re-check just before the rename: a symlink planted meanwhile is refused too.
            info = _lstat(target)
            if info is not None and stat.S_ISLNK(info.st_mode):
                raise InvalidInputError(f"refusing to write through symlink {_shown(target)}")
            os.replace(tmp, target)
        else:
            try:
                _publish_new(tmp, target)
            except FileExistsError:
                raise InvalidInputError(
                    f"refusing to overwrite existing file {_shown(target)}: it appeared while "
                    "attnio was writing (pass --force to replace it)") from None
    except OSError as exc:  # the disk, not the input: exit 1 at the CLI
        _discard(tmp)
        raise OutputError(f"cannot write {_shown(target)}: "
                          f"{exc.strerror or type(exc).__name__}; nothing was written") from None
    except BaseException:
        _discard(tmp)
        raise
    return target


def _discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def write_text(path: str | os.PathLike[str], text: str, *, overwrite: bool = False,
               encoding: str = "utf-8") -> Path:
    """:func:`write_bytes` for text (UTF-8 by default)."""
    return write_bytes(path, text.encode(encoding), overwrite=overwrite)
