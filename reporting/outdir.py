r"""OUTDIR of ``attnio report``: checked before any work, and the only way the report writes.

The user's files are safe (:class:`OutputFolder`)
-------------------------------------------------
``attnio report`` never overwrites a file it did not write. It records what it wrote in the
**marker** ``OUTDIR/.attnio-report.json`` (:data:`MARKER_NAME`): valid JSON with the attnio
version, the library versions and, for each file written, its SHA-256. Before any work:

* OUTDIR missing or empty: it is created / used;
* OUTDIR non-empty **without** a marker: refused (exit 2, one line) — attnio does not write
  into a fresh sub-folder behind the user's back; choose another folder, or pass ``--force``;
* with a marker: a file attnio is about to write may be replaced only if the marker lists it
  **and** its content still has the recorded SHA-256 (a file the user edited since is
  refused); other files in OUTDIR are never touched;
* ``--force``: same-named regular files are replaced; nothing else is touched;
* a **symlink** — OUTDIR itself, the marker or any file to be written — is refused, even with
  ``--force``: attnio never writes through a link;
* every file (PNGs included: figures are rendered to bytes in memory) is written by
  :mod:`attnio.safe_io` — temporary file, fsync, atomic rename;
* **one run at a time**: :meth:`OutputFolder.create` creates the lock
  ``OUTDIR/.attnio-report.lock`` (:data:`LOCK_NAME`) with ``O_EXCL`` before any work, and the
  run removes it at the end. A second ``attnio report`` into the same folder meanwhile is
  refused at once (exit 2, naming the other run's pid), not after minutes of work; a lock
  left by a run that was killed (its pid is gone) is taken over;
* **a crashed run is still attnio's**: before each file is written the marker records its
  coming SHA-256 (``pending_sha256``), so a run killed between the file and the marker
  leaves a folder whose files the marker explains; attnio's own temporary files
  (``.attnio-tmp-*.tmp``, :func:`attnio.safe_io.is_attnio_temp`) and the lock never make
  OUTDIR "not empty", and stale ones are removed by the next run.

>>> prepare_outdir("/dev/null")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: OUTDIR='/dev/null' exists and is not a directory
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Sequence

from attnio.exceptions import InvalidInputError
from attnio.provenance import provenance
from attnio.safe_io import (
    is_attnio_temp,
    process_alive,
    validate_folder_target,
    validate_name_lengths,
    write_bytes,
)

__all__ = ["prepare_outdir", "OutputFolder", "MARKER_NAME", "LOCK_NAME"]

#: The marker attnio leaves in OUTDIR, listing the files it wrote (see the module docstring).
MARKER_NAME = ".attnio-report.json"
_MARKER_FORMAT = "attnio-report-marker/1"
#: The lock of a running report (see the module docstring).
LOCK_NAME = ".attnio-report.lock"


#: What a symlinked OUTDIR's error adds.
_REAL_FOLDER = " (name the real folder)"


def prepare_outdir(outdir: str | os.PathLike[str]) -> Path:
    """Create OUTDIR if needed and make sure a file can be written in it; return it as a Path.

    This checks only that OUTDIR can hold files; which files may be replaced is decided by
    :class:`OutputFolder`.

    Raises
    ------
    attnio.exceptions.InvalidInputError
        OUTDIR is a symlink, exists and is not a directory, cannot be created, or is not
        writable.
    """
    path = validate_name_lengths(outdir, "OUTDIR name")
    validate_folder_target(path, f"OUTDIR={str(outdir)!r}", _REAL_FOLDER)
    try:
        path.mkdir(parents=True, exist_ok=True)
        # os.access is not enough (root passes it on read-only mounts): really write a file.
        with tempfile.NamedTemporaryFile(dir=path, prefix=".attnio-write-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} is not a writable directory ({reason})") from None
    return path


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


class OutputFolder:
    """OUTDIR, checked before any work, and the only way the report writes into it.

    ``OutputFolder(outdir, names, force=...)`` checks the rules of the module docstring for
    every file name in ``names`` (plus the marker) without creating anything, and raises
    :class:`~attnio.exceptions.InvalidInputError` (one line) on the first violation.
    :meth:`create` then creates OUTDIR; :meth:`write` writes one file atomically through
    :mod:`attnio.safe_io` and records it in the marker.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "notes.txt").write_text("mine")
    4
    >>> OutputFolder(folder, ["index.md"])
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: OUTDIR=... is not empty and holds no attnio marker (.attnio-report.json): attnio report writes only into a new or empty folder, or one it wrote before; choose another folder or pass --force to replace same-named files
    >>> out = OutputFolder(folder / "report", ["index.md"]).create()
    >>> _ = out.write("index.md", b"# hello\\n")
    >>> out.release()  # the end of the run: the lock goes
    >>> sorted(p.name for p in (folder / "report").iterdir())
    ['.attnio-report.json', 'index.md']
    """

    def __init__(self, outdir: str | os.PathLike[str], names: Sequence[str], *,
                 force: bool = False) -> None:
        self.path = validate_name_lengths(outdir, "OUTDIR name")
        self.force = force
        self.names = list(names)
        for name in self.names:
            if name != Path(name).name or name in {"", ".", ".."} or name == MARKER_NAME:
                raise InvalidInputError(f"file name {name!r} is not a plain file name")
        self.recorded: dict[str, str] = {}  # name -> sha256 of what attnio wrote
        self.pending: dict[str, str] = {}  # name -> sha256 about to be written
        self.replaceable: set[str] = set()
        self._locked = False
        self.written: list[Path] = []
        self._marker_ours = False  # may the marker file be replaced (it is ours, or --force)?
        self._marker_sha: str | None = None  # the marker's content when attnio last saw it
        self._check()

    # -- the rules -----------------------------------------------------------------------

    def _check(self) -> None:
        path, shown = self.path, repr(str(self.path))
        validate_folder_target(path, f"OUTDIR={shown}", _REAL_FOLDER)
        if not path.exists():
            return
        marker = path / MARKER_NAME
        for target in [marker, *(path / name for name in self.names)]:
            if target.is_symlink():  # first: the most specific reason, whatever else holds
                raise InvalidInputError(f"refusing to write through symlink {target}")
        has_marker = marker.exists()
        if has_marker and not marker.is_file():
            raise InvalidInputError(f"{marker} exists and is not a regular file")
        if has_marker:
            try:
                known = self._read_marker(marker)
            except InvalidInputError:
                if not self.force:
                    raise
                known = {}
            self._marker_ours = True
            self._marker_sha = _file_sha256(marker)
        else:
            known = {}
            try:
                entries = [e for e in os.listdir(path) if not e.startswith(".attnio-write-probe-")
                           and not is_attnio_temp(e) and e != LOCK_NAME]
            except OSError as exc:
                raise InvalidInputError(f"OUTDIR={shown} cannot be listed ({exc.strerror})") from None
            if entries and not self.force:
                raise InvalidInputError(
                    f"OUTDIR={shown} is not empty and holds no attnio marker ({MARKER_NAME}): "
                    "attnio report writes only into a new or empty folder, or one it wrote "
                    "before; choose another folder or pass --force to replace same-named files")
        # Keep the files whose content is one attnio wrote (or was writing when a run was
        # killed); forget those removed or changed since (they are not ours any more).
        for name, digests in known.items():
            current = None if (path / name).is_symlink() else _file_sha256(path / name)
            if current is not None and current in digests:
                self.recorded[name] = current
        for name in self.names:
            target = path / name
            if not target.exists():
                continue
            if not target.is_file():
                raise InvalidInputError(f"{target} exists and is not a regular file")
            if self.force or name in self.recorded:
                self.replaceable.add(name)
            elif has_marker:
                raise InvalidInputError(
                    f"refusing to overwrite {target}: the attnio marker does not list it with "
                    "its current content (it is not attnio's, or was edited since); pass "
                    "--force to replace it")
            else:  # only reachable with --force off and an empty listing race; be safe
                raise InvalidInputError(f"refusing to overwrite existing file {target} "
                                        "(pass --force to replace it)")

    @staticmethod
    def _read_marker(marker: Path) -> dict[str, set[str]]:
        """``{name: {sha256, pending_sha256}}`` from a marker; InvalidInputError if it is not
        one of ours."""
        bad = InvalidInputError(f"{marker} is not a valid attnio marker; remove it, choose "
                                "another folder, or pass --force")
        try:
            if marker.stat().st_size > 1_000_000:
                raise bad
            data = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            raise bad from None
        if not isinstance(data, dict) or data.get("format") != _MARKER_FORMAT:
            raise bad
        files = data.get("files")
        if not isinstance(files, dict):
            raise bad
        out: dict[str, set[str]] = {}
        for name, entry in files.items():
            if not isinstance(entry, dict):
                raise bad
            digests = {entry[key] for key in ("sha256", "pending_sha256") if key in entry}
            if (not isinstance(name, str) or name != Path(name).name or name in {".", "..", ""}
                    or not digests
                    or not all(isinstance(g, str) and len(g) == 64 for g in digests)):
                raise bad
            out[name] = digests
        return out

    # -- writing -------------------------------------------------------------------------

    def create(self) -> "OutputFolder":
        """Create OUTDIR (parents too), check that it is writable and take the lock."""
        prepare_outdir(self.path)
        self._lock()
        return self

    @property
    def lock(self) -> Path:
        """OUTDIR/.attnio-report.lock."""
        return self.path / LOCK_NAME

    def _lock(self) -> None:
        """Create the lock with O_EXCL; refuse if another live run holds it (see the module
        docstring); take over a lock whose process is gone."""
        import socket

        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "started_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        for _attempt in range(2):
            try:
                fd = os.open(self.lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o644)
            except FileExistsError:
                holder = self._lock_holder()
                if holder is not None:
                    raise InvalidInputError(
                        f"OUTDIR={str(self.path)!r} is being written by another attnio report "
                        f"right now ({holder}); wait for it to finish or choose another folder "
                        f"(remove {LOCK_NAME} there if no report is running)") from None
                try:  # the run that held it is gone: its lock is stale
                    os.unlink(self.lock)
                except FileNotFoundError:
                    pass
                continue
            except OSError as exc:
                raise InvalidInputError(f"cannot create {self.lock} ({exc.strerror})") from None
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(me) + "\n")
            self._locked = True
            return
        raise InvalidInputError(f"OUTDIR={str(self.path)!r}: another attnio report took the "
                                f"lock {LOCK_NAME} at the same moment; choose another folder")

    def _lock_holder(self) -> str | None:
        """Who holds the lock (e.g. "pid 4242 on host h, since ..."), or None if its process
        is gone (a stale lock). A lock that is not attnio's, a symlink or unreadable counts as
        held: attnio does not delete what it cannot recognise."""
        import socket

        try:
            if self.lock.is_symlink() or self.lock.stat().st_size > 10_000:
                return f"{LOCK_NAME} is not attnio's lock"
            data = json.loads(self.lock.read_text(encoding="utf-8"))
            pid, host = int(data["pid"]), str(data["host"])
        except (OSError, ValueError, KeyError, TypeError):
            return f"{LOCK_NAME} is not a lock attnio can read"
        if host == socket.gethostname() and not process_alive(pid):
            return None
        return f"pid {pid} on host {host}, since {data.get('started_utc', '?')}"

    def release(self) -> None:
        """Remove the lock taken by :meth:`create` (idempotent; the end of every run)."""
        if self._locked:
            self._locked = False
            try:
                os.unlink(self.lock)
            except OSError:
                pass

    def write(self, name: str, data: bytes) -> Path:
        """Write ``data`` to OUTDIR/name atomically and record it in the marker.

        Only names given to the constructor; a file that appeared since the check is refused
        (``overwrite`` is granted only to files found replaceable then, or written by this
        run).
        """
        if name not in self.names:
            raise InvalidInputError(f"file name {name!r} was not checked before writing")
        overwrite = name in self.replaceable
        self.pending[name] = _sha256(data)
        self._write_marker()  # first: a run killed after the file still explains it
        target = write_bytes(self.path / name, data, overwrite=overwrite)
        self.replaceable.add(name)
        self.recorded[name] = self.pending.pop(name)
        self.written.append(target)
        self._write_marker()
        return target

    def _write_marker(self) -> None:
        marker = {
            "format": _MARKER_FORMAT,
            "note": "written by attnio report: the files it wrote and may replace; any other "
                    "file in this folder is never touched",
            **provenance(),
            "written_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "files": {name: {**({"sha256": self.recorded[name]} if name in self.recorded else {}),
                             **({"pending_sha256": self.pending[name]}
                                if name in self.pending else {})}
                      for name in sorted({*self.recorded, *self.pending})},
        }
        # A marker that appeared or changed during the run (not ours) is refused like any
        # stranger's file.
        if self._marker_ours and _file_sha256(self.marker) not in (self._marker_sha, None):
            raise InvalidInputError(f"refusing to overwrite existing file {self.marker}: it "
                                    "changed since attnio wrote it")
        data = (json.dumps(marker, indent=2, allow_nan=False) + "\n").encode("utf-8")
        write_bytes(self.marker, data, overwrite=self._marker_ours)
        self._marker_ours = True
        self._marker_sha = _sha256(data)

    @property
    def marker(self) -> Path:
        """OUTDIR/.attnio-report.json."""
        return self.path / MARKER_NAME
