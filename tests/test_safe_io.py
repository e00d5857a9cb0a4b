"""attnio.safe_io (issue 22, item 4): no-overwrite decided at the rename itself, never through
a symlink, attnio's own crash leftovers recognised and cleaned, over-long names refused; and
the injective escaping of exported DOT names."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnio import safe_io
from attnio.exceptions import InvalidInputError
from attnio.safe_io import (
    STALE_TEMP_SECONDS,
    TEMP_PREFIX,
    OutputError,
    clean_stale_temps,
    is_attnio_temp,
    write_bytes,
    write_text,
)


def test_a_file_created_after_the_check_is_never_replaced(tmp_path: Path, monkeypatch) -> None:
    """The stranger's file appears between the check and the rename: it survives."""
    target = tmp_path / "out.json"
    real_fsync = os.fsync

    def fsync_then_stranger(fd: int) -> None:
        real_fsync(fd)
        if not target.exists():
            target.write_text("the user's file")  # created while attnio was writing

    monkeypatch.setattr(os, "fsync", fsync_then_stranger)
    with pytest.raises(InvalidInputError, match="appeared while attnio was writing"):
        write_text(target, "attnio's")
    monkeypatch.undo()
    assert target.read_text() == "the user's file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temp left


def test_a_symlink_planted_after_the_check_is_not_written_through(tmp_path: Path,
                                                                  monkeypatch) -> None:
    target, elsewhere = tmp_path / "out.txt", tmp_path / "precious.txt"
    elsewhere.write_text("precious")
    real_fsync = os.fsync

    def fsync_then_link(fd: int) -> None:
        real_fsync(fd)
        if not target.is_symlink():
            target.symlink_to(elsewhere)

    monkeypatch.setattr(os, "fsync", fsync_then_link)
    with pytest.raises(InvalidInputError):
        write_text(target, "x")  # no overwrite: the link makes the name taken
    monkeypatch.undo()
    assert elsewhere.read_text() == "precious" and target.is_symlink()


def test_without_hard_links_renameat2_noreplace_is_used(tmp_path: Path, monkeypatch) -> None:
    def no_links(*args: object, **kwargs: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "a.txt"
    try:
        write_text(target, "one")
    except OutputError as exc:  # a kernel without renameat2: nothing written, said so
        assert "cannot write" in str(exc) and not target.exists()
        return
    assert target.read_text() == "one"
    target.write_text("user")
    with pytest.raises(InvalidInputError, match="refusing to overwrite"):
        write_text(target, "two")
    assert target.read_text() == "user"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_overwrite_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    write_text(target, "one")
    write_text(target, "two", overwrite=True)
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_a_disk_error_is_output_error_and_keeps_the_old_file(tmp_path: Path,
                                                             monkeypatch) -> None:
    target = tmp_path / "a.txt"
    write_text(target, "old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="No space left on device"):
        write_text(target, "new", overwrite=True)
    monkeypatch.undo()
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_parent_that_is_a_file_and_missing_folder(tmp_path: Path) -> None:
    (tmp_path / "existing-file").write_text("mine")
    with pytest.raises(InvalidInputError, match="existing-file is a file, not a folder"):
        write_text(tmp_path / "existing-file" / "x.json", "{}")
    with pytest.raises(InvalidInputError, match="existing-file is a file, not a folder"):
        write_text(tmp_path / "existing-file" / "deeper" / "x.json", "{}")
    with pytest.raises(InvalidInputError, match="does not exist"):
        write_text(tmp_path / "missing" / "x.json", "{}")


def test_over_long_names_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="has 300 bytes; the file system allows at most"):
        write_text(tmp_path / ("é" * 150), "x")  # 150 characters, 300 bytes
    write_text(tmp_path / ("a" * 250), "x")  # long names that fit are fine (temp name is short)
    assert (tmp_path / ("a" * 250)).read_text() == "x"


def test_stale_temps_of_a_killed_writer_are_recognised_and_cleaned(tmp_path: Path) -> None:
    """A SIGKILLed process leaves ``.attnio-tmp-<pid>-*.tmp``; the next write removes it once
    the process is gone and the file is old; a live writer's, or a user's, file is kept."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f"{TEMP_PREFIX}{dead_pid}-abc123.tmp"
    fresh = tmp_path / f"{TEMP_PREFIX}{dead_pid}-new999.tmp"
    alive = tmp_path / f"{TEMP_PREFIX}{os.getppid()}-live12.tmp"
    users = tmp_path / ".attnio-tmp-notes.tmp"
    for path in (stale, fresh, alive, users):
        path.write_bytes(b"half")
    old = time.time() - STALE_TEMP_SECONDS - 10
    for path in (stale, alive, users):
        os.utime(path, (old, old))
    assert is_attnio_temp(stale.name) and not is_attnio_temp(users.name)
    write_bytes(tmp_path / "next.png", b"png")
    assert not stale.exists()
    assert fresh.exists() and alive.exists() and users.exists()
    assert clean_stale_temps(tmp_path) == []


def test_a_killed_write_leaves_only_an_attnio_temp(tmp_path: Path) -> None:
    """SIGKILL in the middle of a write: the target is absent, the leftover is attnio's."""
    code = ("import os, sys, signal\n"
            "from attnio import safe_io\n"
            "real = os.fsync\n"
            "def die(fd):\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n"
            "os.fsync = die\n"
            f"safe_io.write_bytes({str(tmp_path / 'fig.png')!r}, b'x' * 1000)\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-c", code], env=env, timeout=120)
    assert proc.returncode == -9
    names = [p.name for p in tmp_path.iterdir()]
    assert len(names) == 1 and is_attnio_temp(names[0]), names
    assert not (tmp_path / "fig.png").exists()


# ----------------------------------------------------------------------- DOT export

def _undot(quoted: str) -> str:
    """Invert :func:`attnio.graphs.dagio.dot_id` (the four two-character escapes)."""
    assert quoted[0] == quoted[-1] == '"'
    out, i, body = [], 0, quoted[1:-1]
    table = {"\\": "\\", '"': '"', "n": "\n", "r": "\r"}
    while i < len(body):
        if body[i] == "\\":
            out.append(table[body[i + 1]])
            i += 2
        else:
            assert body[i] != '"', "an unescaped quote ends the string early"
            out.append(body[i])
            i += 1
    return "".join(out)


def test_dot_names_with_line_breaks_stay_distinct() -> None:
    import networkx as nx

    from attnio.graphs.dotio import dot_id, to_dot

    names = ["x\ny", "x\ry", "x\r\ny", "x\\ny", "x\\ry", 'x"y', "x\\", "x\\\\"]
    assert len({dot_id(v) for v in names}) == len(names)
    G = nx.DiGraph([("src", v) for v in names])
    text = to_dot(G)
    # one line per statement: the header, a node line each, an edge line each, the brace
    assert len([line for line in text.splitlines() if "shape=" in line]) == len(names) + 1
    assert "\r" not in text and text.count("\n") == len(names) * 2 + 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(['a', '\n', '\r', '"', '\\', 'n', 'r', 'é',
                                                     '日', ' ', '\t', '\x00']), max_size=8),
                min_size=2, max_size=6, unique=True))
def test_dot_id_is_injective_and_decodes_back(names: list[str]) -> None:
    from attnio.graphs.dotio import dot_id

    ids = [dot_id(v) for v in names]
    assert len(set(ids)) == len(names)
    assert [_undot(i) for i in ids] == names
    assert all("\n" not in i and "\r" not in i for i in ids)  # one line per statement


def test_dot_round_trip_through_pydot() -> None:
    pydot = pytest.importorskip("pydot")
    import networkx as nx

    from attnio.graphs.dotio import to_dot

    names = ["x\ny", "x\ry", "x\r\ny", 'q"uote', "back\\", "ünï 日本"]
    G = nx.DiGraph([(f"s{i}", v) for i, v in enumerate(names)])
    graphs = pydot.graph_from_dot_data(to_dot(G))
    assert graphs is not None and len(graphs) == 1
    parsed = {_undot(n.get_name()) for n in graphs[0].get_nodes()}
    assert parsed == set(G.nodes)
    assert len(graphs[0].get_edges()) == len(names)


def test_module_exports() -> None:
    assert set(safe_io.__all__) <= set(dir(safe_io))
