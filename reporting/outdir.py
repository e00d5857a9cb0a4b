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
  :mod:`attnio.safe_io` — temporary file, fsync, atomic rename.

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
from attnio.safe_io import write_bytes, write_text

__all__ = ["prepare_outdir", "OutputFolder", "MARKER_NAME"]

#: The marker attnio leaves in OUTDIR, listing the files it wrote (see the module docstring).
MARKER_NAME = ".attnio-report.json"
_MARKER_FORMAT = "attnio-report-marker/1"


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
    path = Path(outdir)
    if path.is_symlink():
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} is a symlink; attnio does not write "
                                "through symlinks (name the real folder)")
    if path.exists() and not path.is_dir():
        raise InvalidInputError(f"OUTDIR={str(outdir)!r} exists and is not a directory")
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
    >>> sorted(p.name for p in (folder / "report").iterdir())
    ['.attnio-report.json', 'index.md']
    """

    def __init__(self, outdir: str | os.PathLike[str], names: Sequence[str], *,
                 force: bool = False) -> None:
        self.path = Path(outdir)
        self.force = force
        self.names = list(names)
        for name in self.names:
            if name != Path(name).name or name in {"", ".", ".."} or name == MARKER_NAME:
                raise InvalidInputError(f"file name {name!r} is not a plain file name")
        self.recorded: dict[str, str] = {}  # name -> sha256 of what attnio wrote
        self.replaceable: set[str] = set()
        self.written: list[Path] = []
        self._marker_ours = False  # may the marker file be replaced (it is ours, or --force)?
        self._check()

    # -- the rules -----------------------------------------------------------------------

    def _check(self) -> None:
        path, shown = self.path, repr(str(self.path))
        if path.is_symlink():
            raise InvalidInputError(f"OUTDIR={shown} is a symlink; attnio does not write "
                                    "through symlinks (name the real folder)")
        if not path.exists():
            return
        if not path.is_dir():
            raise InvalidInputError(f"OUTDIR={shown} exists and is not a directory")
        marker = path / MARKER_NAME
        for target in [marker, *(path / name for name in self.names)]:
            if target.is_symlink():  # first: the most specific reason, whatever else holds
                raise InvalidInputError(f"refusing to write through symlink {target}")
        has_marker = marker.exists()
        if has_marker and not marker.is_file():
            raise InvalidInputError(f"{marker} exists and is not a regular file")
        if has_marker:
            try:
                self.recorded = self._read_marker(marker)
            except InvalidInputError:
                if not self.force:
                    raise
                self.recorded = {}
            self._marker_ours = True
        else:
            try:
                entries = [e for e in os.listdir(path) if not e.startswith(".attnio-write-probe-")]
            except OSError as exc:
                raise InvalidInputError(f"OUTDIR={shown} cannot be listed ({exc.strerror})") from None
            if entries and not self.force:
                raise InvalidInputError(
                    f"OUTDIR={shown} is not empty and holds no attnio marker ({MARKER_NAME}): "
                    "attnio report writes only into a new or empty folder, or one it wrote "
                    "before; choose another folder or pass --force to replace same-named files")
        # Forget recorded files that were removed or changed since (they are not ours any more).
        self.recorded = {name: digest for name, digest in self.recorded.items()
                         if _file_sha256(path / name) == digest and not (path / name).is_symlink()}
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
    def _read_marker(marker: Path) -> dict[str, str]:
        """``{name: sha256}`` from a marker; InvalidInputError if it is not one of ours."""
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
        out: dict[str, str] = {}
        for name, entry in files.items():
            digest = entry.get("sha256") if isinstance(entry, dict) else None
            if (not isinstance(name, str) or name != Path(name).name or name in {".", "..", ""}
                    or not isinstance(digest, str) or len(digest) != 64):
                raise bad
            out[name] = digest
        return out

    # -- writing -------------------------------------------------------------------------

    def create(self) -> "OutputFolder":
        """Create OUTDIR (parents too) and check that it is writable."""
        prepare_outdir(self.path)
        return self

    def write(self, name: str, data: bytes) -> Path:
        """Write ``data`` to OUTDIR/name atomically and record it in the marker.

        Only names given to the constructor; a file that appeared since the check is refused
        (``overwrite`` is granted only to files found replaceable then, or written by this
        run).
        """
        if name not in self.names:
            raise InvalidInputError(f"file name {name!r} was not checked before writing")
        overwrite = name in self.replaceable
        target = write_bytes(self.path / name, data, overwrite=overwrite)
        self.replaceable.add(name)
        self.recorded[name] = _sha256(data)
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
            "files": {name: {"sha256": digest} for name, digest in sorted(self.recorded.items())},
        }
        # A marker that appeared during the run (not ours) is refused like any stranger's file.
        write_text(self.path / MARKER_NAME, json.dumps(marker, indent=2, allow_nan=False) + "\n",
                   overwrite=self._marker_ours)
        self._marker_ours = True

    @property
    def marker(self) -> Path:
        """OUTDIR/.attnio-report.json."""
        return self.path / MARKER_NAME
