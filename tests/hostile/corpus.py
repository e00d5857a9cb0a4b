"""The hostile-input corpus of issue 22: generated cases across all eight commands, each with
the exit codes it may answer, a bound on its time and optional checks of its output; and the
runner that plays them fast.

A case is a command line of ``attnio`` (``{name}`` placeholders name files made by
:func:`make_files` in a temporary folder, which is also the working folder). What a case must
do (:func:`problems`):

* answer one of ``codes`` within ``seconds`` (wall clock, machine load included — generous:
  bad input is expected in well under a second, see notes/hostile.md for the figures);
* never print a traceback or ``MemoryError``;
* with exit code 2 (bad input): exactly one line on stderr, at most 300 characters, starting
  with ``attnio <subcommand>: `` (``attnio: `` without a subcommand);
* pass its ``checks`` (e.g. ``json-finite``: ``--json`` output holds no NaN/Infinity).

Where the issue leaves the answer open the case accepts a set of codes and says why
(``why``). Most cases run *in process* (:func:`run_corpus`): a few worker processes import
``attnio.cli`` once and call ``attnio.cli.main(argv)`` per case with fds 1 and 2 redirected
to files, a SIGALRM per case, and a watchdog in the parent that kills a worker stuck past the
bound (the case fails, the run goes on with a fresh worker). Cases that need real file
descriptors (closed or full stdout/stderr, closed stdin, an ASCII-only terminal) run as
``python -m attnio`` subprocesses (``io`` set; at most :data:`MAX_SUBPROCESS_CASES`).

Run this file as a script with ``--worker`` only through :func:`run_corpus`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable

#: Subcommands of ``attnio`` (attnio.cli.SUBCOMMANDS, spelled out so that collecting the
#: cases imports nothing of attnio).
COMMANDS = ("verify", "prove", "bounds", "simulate", "pebble", "gap", "lower-bound", "report")
#: Wall-clock bound of a bad-input case run in process (the answer is expected in < 1 s).
BAD_SECONDS = 10.0
#: Wall-clock bound of a ``prove`` case run in process (a forked child decides).
PROVE_SECONDS = 20.0
#: Wall-clock bound of a subprocess case (interpreter start and imports included).
SUBPROCESS_SECONDS = 40.0
#: Extra seconds the parent waits past a case's bound before it kills the worker.
KILL_GRACE = 15.0
#: At most this many cases run as their own subprocess (they cost an interpreter each).
MAX_SUBPROCESS_CASES = 30
MAX_LINE = 300
#: Per-case captured output kept for the checks (characters).
KEEP_CHARS = 200_000

BIG = "9" * 5001                   # beyond Python's 4300-digit int() limit
HUGE = str(10**400)                # an int beyond float range, within MAX_INT_DIGITS
DIGITS_600 = "1" * 600             # beyond MAX_INT_DIGITS = 500
DIGITS_300 = "1" + "0" * 300       # 10**300: a size no float holds
ARABIC_4096 = "٤٠٩٦"
FAST_CLAIM = "sym.crossover.fwd"   # the fastest claim of `attnio verify` (≈ 1 ms)
IO_MODES = ("stdout-closed", "stdout-full", "stderr-full", "stderr-closed", "stdin-closed",
            "ascii")


@dataclasses.dataclass(frozen=True)
class Case:
    """One hostile command line and what it must do (see the module docstring)."""

    id: str
    argv: tuple[str, ...]
    codes: frozenset[int]
    cls: str
    seconds: float = BAD_SECONDS
    why: str = ""
    io: str | None = None
    checks: tuple[str, ...] = ()

    @property
    def command(self) -> str | None:
        """The subcommand named by the command line (None: the dispatcher answers)."""
        return self.argv[0] if self.argv and self.argv[0] in COMMANDS else None

    @property
    def prefix(self) -> str:
        """How a one-line error must start."""
        return f"attnio {self.command}: " if self.command else "attnio: "


# --------------------------------------------------------------------------- files

def _node_link(params: Any = None, builder: Any = "matmul", index: Any = None,
               node_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The 7-vertex DAG of ``matmul:1x2x1`` as node-link JSON, its metadata replaceable."""
    def node(name: str, op: str, role: str, idx: list[int], args: list[str] | None = None
             ) -> dict[str, Any]:
        out: dict[str, Any] = {"id": name, "op": op, "role": role, "matrix": name[0],
                               "index": idx}
        if args:
            out.update(args=args, product_of="AB")
        return out

    nodes = [node("A[0,0]", "input", "input", [0, 0]), node("A[0,1]", "input", "input", [0, 1]),
             node("B[0,0]", "input", "input", [0, 0]), node("B[1,0]", "input", "input", [1, 0]),
             node("P[0,0,0]", "mul", "product", [0, 0, 0], ["A[0,0]", "B[0,0]"]),
             node("P[0,0,1]", "mul", "product", [0, 0, 1], ["A[0,1]", "B[1,0]"]),
             node("C[0,0]", "add", "output", [0, 0], ["P[0,0,0]", "P[0,0,1]"])]
    if index is not None:
        for item in nodes:
            item["index"] = index
    if node_extra:
        nodes[4].update(node_extra)
    graph: dict[str, Any] = {"outputs": ["C[0,0]"]}
    if builder is not None:
        graph["builder"] = builder
    graph["params"] = ({"m": 1, "k": 2, "p": 1, "summation": "tree"} if params is None
                       else params)
    links = [["A[0,0]", "P[0,0,0]"], ["A[0,1]", "P[0,0,1]"], ["B[0,0]", "P[0,0,0]"],
             ["B[1,0]", "P[0,0,1]"], ["P[0,0,0]", "C[0,0]"], ["P[0,0,1]", "C[0,0]"]]
    return {"directed": True, "multigraph": False, "graph": graph, "nodes": nodes,
            "links": [{"source": u, "target": v} for u, v in links]}


def _star(leaves: int) -> str:
    names = [f"i{j}" for j in range(leaves)]
    return json.dumps({"nodes": [*names, "out"], "edges": [[v, "out"] for v in names]})


def _chain(length: int) -> str:
    names = [f"v{j}" for j in range(length)]
    return json.dumps({"nodes": names, "edges": [[a, b] for a, b in zip(names, names[1:])]})


def _hierarchy(**level0: Any) -> str:
    first = {"name": "smem", "capacity_words": 4096, "bandwidth_bytes_per_s": None, **level0}
    return json.dumps({"dtype": "bf16", "levels": [
        first, {"name": "hbm", "capacity_words": None, "bandwidth_bytes_per_s": 2e12}]})


def _pattern(side: int, value: Any = True) -> str:
    return json.dumps([[value] * side for _ in range(side)])


NOT_MINE = b"not mine"
#: Files made before the run: name -> content (bytes/str, or a callable returning it).
FILE_CONTENTS: dict[str, bytes | str | Callable[[], str]] = {
    "dag_ok": json.dumps({"nodes": ["a", "b", "c"], "edges": [["a", "c"], ["b", "c"]]}),
    "dag_latin1": b'{"nodes": ["a\xff"], "edges": []}',
    "dag_deep": "[" * 100_000 + "]" * 100_000,
    "dag_deep_obj": '{"a":' * 5000 + "1" + "}" * 5000,
    "dag_invalid": "{nodes",
    "dag_empty_text": "",
    "dag_nan": '{"nodes": ["a"], "edges": [], "w": NaN}',
    "dag_infinity": '{"nodes": ["a"], "edges": [], "w": -Infinity}',
    "dag_bigint": '{"nodes": [' + "7" * 5000 + '], "edges": []}',
    "dag_list": "[1, 2, 3]",
    "dag_string": '"nodes"',
    "dag_null": "null",
    "dag_nodes_dict": '{"nodes": {"a": 1}, "edges": []}',
    "dag_edges_str": '{"nodes": ["a"], "edges": "a->a"}',
    "dag_dup_vertex": '{"nodes": ["a", "a"], "edges": []}',
    "dag_unknown_vertex": '{"nodes": ["a"], "edges": [["a", "zz"]]}',
    "dag_cycle": '{"nodes": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}',
    "dag_self_loop": '{"nodes": ["a"], "edges": [["a", "a"]]}',
    "dag_edge_triple": '{"nodes": ["a", "b"], "edges": [["a", "b", "c"]]}',
    "dag_int_node": '{"nodes": [1, 2], "edges": [[1, 2]]}',
    "dag_dup_output": '{"nodes": ["a", "b"], "edges": [["a", "b"]], "outputs": ["b", "b"]}',
    "dag_unknown_output": '{"nodes": ["a", "b"], "edges": [["a", "b"]], "outputs": ["z"]}',
    "dag_outputs_str": '{"nodes": ["a", "b"], "edges": [["a", "b"]], "outputs": "b"}',
    "dag_attr_list": '{"nodes": ["a"], "edges": [], "attributes": [1]}',
    "dag_attr_unknown": '{"nodes": ["a"], "edges": [], "attributes": {"z": {}}}',
    "nl_undirected": json.dumps({"directed": False, "nodes": [{"id": "a"}, {"id": "b"}],
                                 "links": [{"source": "a", "target": "b"}]}),
    "nl_multigraph": json.dumps({"directed": True, "multigraph": True,
                                 "nodes": [{"id": "a"}, {"id": "b"}],
                                 "links": [{"source": "a", "target": "b", "key": 0}]}),
    "nl_no_id": json.dumps({"nodes": [{"name": "a"}], "links": []}),
    "nl_link_no_target": json.dumps({"nodes": [{"id": "a"}], "links": [{"source": "a"}]}),
    "nl_graph_text": json.dumps({"nodes": [{"id": "a"}], "links": [], "graph": "x"}),
    "nl_int_ids": json.dumps({"directed": True, "multigraph": False, "graph": {},
                              "nodes": [{"id": 0}, {"id": 1}, {"id": 2}],
                              "links": [{"source": 0, "target": 2},
                                        {"source": 1, "target": 2}]}),
    # metadata with wrong types (issue 22: 8 tracebacks)
    "meta_ok": json.dumps(_node_link()),
    "meta_params_str": json.dumps(_node_link(params="x")),
    "meta_params_list": json.dumps(_node_link(params=[1, 2, 3])),
    "meta_k_text": json.dumps(_node_link(params={"m": 1, "k": "abc", "p": 1})),
    "meta_k_float": json.dumps(_node_link(params={"m": 1, "k": 2.5, "p": 1})),
    "meta_k_negative": json.dumps(_node_link(params={"m": 1, "k": -2, "p": 1})),
    "meta_params_empty": json.dumps(_node_link(params={})),
    "meta_builder_list": json.dumps(_node_link(builder=["matmul"])),
    "meta_builder_int": json.dumps(_node_link(builder=7)),
    "meta_builder_unknown": json.dumps(_node_link(builder="fft")),
    "meta_index_text": json.dumps(_node_link(index="ab")),
    "meta_index_mixed": json.dumps(_node_link(index=[0, "a"])),
    "meta_index_int": json.dumps(_node_link(index=5)),
    "meta_args_unknown": json.dumps(_node_link(node_extra={"args": ["zz", "yy"]})),
    "meta_op_int": json.dumps(_node_link(node_extra={"op": 7})),
    "meta_summation_bad": json.dumps(_node_link(params={"m": 1, "k": 2, "p": 1,
                                                        "summation": ["tree"]})),
    # metadata that lies: a 7-vertex DAG claiming m = k = p = 50 (optimum 7)
    "meta_lie_50": json.dumps(_node_link(params={"m": 50, "k": 50, "p": 50,
                                                 "summation": "tree"})),
    "meta_lie_k_huge": json.dumps(_node_link(params={"m": 1, "k": 10**400, "p": 1,
                                                     "summation": "tree"})),
    "meta_attention_lie": json.dumps(_node_link(builder="attention-forward",
                                                params={"n": 64, "d": 64})),
    # big but well-formed graphs (lower-bound must be bounded)
    "star_1501": lambda: _star(1500),
    "chain_1999": lambda: _chain(1999),
    "chain_300k": lambda: _chain(300_000),
    "too_large": lambda: '{"nodes": [], "edges": []}' + " " * (17 * 2**20),
    # schedules (pebble --replay)
    "sched_latin1": b'[["read", "\xfe"]]',
    "sched_deep": "[" * 10_000 + "]" * 10_000,
    "sched_bad_move": '[["jump", "a"]]',
    "sched_none": '{"moves": null}',
    "sched_range": json.dumps([{"M": 3, "moves": []}, {"M": 4, "moves": []}]),
    "sched_unknown_vertex": '[["read", "zz"]]',
    "sched_move_int": '[["read", 1]]',
    # mask patterns (--mask block:B:FILE); n = 64, B = 32 needs a 2x2 pattern
    "pat_ok": _pattern(2),
    "pat_wrong_side": _pattern(3),
    "pat_not_square": json.dumps([[True, True], [True]]),
    "pat_numbers": _pattern(2, 1),
    "pat_bigint": "[[" + "7" * 5000 + ", true], [true, true]]",
    "pat_latin1": b"[[true, \xff]]",
    "pat_deep": "[" * 1000 + "]" * 1000,
    "pat_empty": "[]",
    # hierarchy files (bounds --hierarchy)
    "hier_ok": _hierarchy(),
    "hier_tiny_bandwidth": json.dumps({"dtype": "bf16", "levels": [
        {"name": "smem", "capacity_words": 4096, "bandwidth_bytes_per_s": None},
        {"name": "hbm", "capacity_words": None, "bandwidth_bytes_per_s": 5e-324}]}),
    "hier_neg_bandwidth": json.dumps({"dtype": "bf16", "levels": [
        {"name": "smem", "capacity_words": 4096, "bandwidth_bytes_per_s": None},
        {"name": "hbm", "capacity_words": None, "bandwidth_bytes_per_s": -1}]}),
    "hier_text_bandwidth": json.dumps({"dtype": "bf16", "levels": [
        {"name": "smem", "capacity_words": 4096, "bandwidth_bytes_per_s": None},
        {"name": "hbm", "capacity_words": None, "bandwidth_bytes_per_s": "fast"}]}),
    "hier_cap_text": _hierarchy(capacity_words="abc"),
    "hier_cap_zero": _hierarchy(capacity_words=0),
    "hier_cap_negative": _hierarchy(capacity_words=-5),
    "hier_cap_float": _hierarchy(capacity_words=2.5),
    "hier_cap_1e400": '{"levels": [{"name": "s", "capacity_words": 1e400}, '
                      '{"name": "h", "capacity_words": null, "bandwidth_bytes_per_s": 1e12}]}',
    "hier_cap_5000_digits": '{"levels": [{"name": "s", "capacity_words": ' + "7" * 5000
                            + '}, {"name": "h", "capacity_words": null}]}',
    "hier_cap_both": _hierarchy(capacity_bytes=8192),
    "hier_dtype_bad": json.dumps({"dtype": "int3", "levels": []}),
    "hier_word_bytes_text": json.dumps({"word_bytes": "two", "levels": [
        {"name": "s", "capacity_words": 4096}, {"name": "h", "capacity_words": None}]}),
    "hier_no_levels": json.dumps({"dtype": "bf16"}),
    "hier_levels_empty": json.dumps({"dtype": "bf16", "levels": []}),
    "hier_one_level": json.dumps({"dtype": "bf16", "levels": [
        {"name": "hbm", "capacity_words": None, "bandwidth_bytes_per_s": 1e12}]}),
    "hier_many_levels": json.dumps({"dtype": "bf16", "levels": [
        {"name": f"l{i}", "capacity_words": 64} for i in range(10_000)]
        + [{"name": "h", "capacity_words": None}]}),
    "hier_level_str": json.dumps({"dtype": "bf16", "levels": ["smem", "hbm"]}),
    "hier_list": "[]",
    "hier_latin1": b'{"levels": ["\xff"]}',
    # files that are not ours (nothing may overwrite them)
    "exists_png": NOT_MINE,
    "exists_pdf": NOT_MINE,
    "exists_tex": NOT_MINE,
    "exists_json": NOT_MINE,
    "exists_dot": NOT_MINE,
}
#: Folders, FIFOs and names that must not exist: name -> kind.
SPECIAL_FILES = {
    "folder": "dir", "folder_png": "dir", "folder_json": "dir", "folder_tex": "dir",
    "foreign_dir": "dir-with-file", "fifo": "fifo", "fifo_png": "fifo", "missing": "missing",
}
FILE_NAMES = (*FILE_CONTENTS, *SPECIAL_FILES, "root")


def make_files(root: Path) -> dict[str, str]:
    """Make every file of the corpus under ``root``; return name -> path."""
    paths: dict[str, str] = {"root": str(root)}
    for name, content in FILE_CONTENTS.items():
        data = content() if callable(content) else content
        suffix = ".png" if name == "exists_png" else ".pdf" if name == "exists_pdf" else (
            ".tex" if name == "exists_tex" else ".dot" if name == "exists_dot" else ".json")
        path = root / f"{name}{suffix}"
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        paths[name] = str(path)
    for name, kind in SPECIAL_FILES.items():
        path = root / (name + (".png" if name.endswith("_png") else ".json"
                               if name.endswith("_json") else ".tex" if name.endswith("_tex")
                               else ""))
        if kind.startswith("dir"):
            path.mkdir()
            if kind == "dir-with-file":
                (path / "thesis.md").write_bytes(NOT_MINE)
        elif kind == "fifo":
            os.mkfifo(path)  # no writer is ever opened: a read blocks for ever
        paths[name] = str(path)
    return paths


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def resolve(argv: Iterable[str], paths: dict[str, str]) -> list[str]:
    """Replace ``{name}`` by the path of file ``name`` (other braces are left alone)."""
    return [_PLACEHOLDER.sub(lambda m: paths.get(m.group(1), m.group(0)), a) for a in argv]


def placeholders(case: Case) -> set[str]:
    return {m.group(1) for a in case.argv for m in _PLACEHOLDER.finditer(a)}


# --------------------------------------------------------------------------- cases

def _numbers() -> list[tuple[str, str, frozenset[int], str]]:
    """(label, text, codes, why) of the number class, for a flag that takes a positive int."""
    two = frozenset({2})
    either = frozenset({0, 2})
    return [
        ("zero", "0", two, ""),
        ("negative", "-4", two, ""),
        ("float", "2.5", two, ""),
        ("exponent", "1e3", two, ""),
        ("text", "x", two, ""),
        ("empty", "", two, ""),
        ("blank", "   ", two, ""),
        ("5001-digits", BIG, two, ""),
        ("600-digits", DIGITS_600, two, ""),
        ("arabic-digits", ARABIC_4096, two, ""),
        ("fullwidth-digits", "６４", two, ""),
        ("underscore", "1_0", two, ""),
        ("unicode-minus", "−4", two, ""),
        ("hex", "0x40", two, ""),
        ("nan", "nan", two, ""),
        ("inner-space", "6 4", either,
         "the size parser drops blanks inside a value (as in '64, 256'): read as 64 or refused"),
        ("surrounding-space", " 64 ", either,
         "surrounding blanks around one integer are tolerated by parse_positive_int"),
    ]


def _flag_cases(command: str, base: list[str], flag: str, *, labels: Iterable[str] | None = None,
                cls: str = "numbers", valid: str = "64") -> list[Case]:
    """``base`` with ``flag VALUE`` for every number of :func:`_numbers` (or ``labels``)."""
    out = []
    keep = set(labels) if labels is not None else None
    for label, text, codes, why in _numbers():
        if keep is not None and label not in keep:
            continue
        if label == "surrounding-space":
            text = f" {valid} "
        argv = [*base, f"{flag}={text}"] if text.startswith("-") or not text.strip() else \
            [*base, flag, text]
        out.append(Case(f"{command}-{flag.lstrip('-')}-{label}", tuple(argv), codes, cls,
                        why=why))
    return out


def _time_limit_cases(command: str, base: list[str], flag: str = "--time-limit") -> list[Case]:
    """Bad time limits: negative, nan, inf, text, non-ASCII digits, ... (0: see ``why``)."""
    two = frozenset({2})
    name = flag.lstrip("-")
    rows = [("negative", "-1", two, ""), ("nan", "nan", two, ""), ("inf", "inf", two, ""),
            ("text", "soon", two, ""), ("1e400", "1e400", two, ""),
            ("arabic-digits", "٣", two, ""), ("underscore", "1_0", two, ""),
            ("empty", "", two, ""),
            ("zero", "0", frozenset({1, 2}),
             "0 s is refused (a limit must be > 0) or answered at once as undecided (exit 1)")]
    out = []
    for label, text, codes, why in rows:
        argv = [*base, f"{flag}={text}"]
        out.append(Case(f"{command}-{name}-{label}", tuple(argv), codes, "time limits",
                        why=why))
    return out


def cases() -> list[Case]:
    """Every case of the corpus (ids unique)."""
    two = frozenset({2})
    out: list[Case] = []

    def add(id: str, argv: Iterable[str], codes: Iterable[int] = (2,), cls: str = "",
            **kw: Any) -> None:
        out.append(Case(id, tuple(argv), frozenset(codes), cls, **kw))

    BOUNDS = ["bounds", "--n", "64", "--d", "8"]
    SIM = ["simulate", "--n", "64", "--d", "8"]
    GAP = ["gap", "--n", "64", "--d", "8"]
    PEB = ["pebble", "--builtin", "matmul:1x2x1"]
    LB = ["lower-bound", "--builtin", "matmul:1x2x1"]
    VERIFY = ["verify", "--only", FAST_CLAIM]
    PROVE_OK = ["prove", "n >= 1", "--var", "n:positive-integer"]

    # ---- controls: valid commands must still answer 0 in the runner
    add("control-bounds", [*BOUNDS, "--M", "64"], (0,), "controls")
    add("control-simulate", [*SIM, "--M", "256"], (0,), "controls")
    add("control-gap", [*GAP, "--M", "256"], (0,), "controls")
    add("control-pebble", [*PEB, "--cache", "3"], (0,), "controls")
    add("control-lower-bound", [*LB, "--M", "3", "--json"], (0,), "controls",
        checks=("json-finite",))
    add("control-verify", VERIFY, (0,), "controls", seconds=20.0)
    add("control-prove", PROVE_OK, (0,), "controls", seconds=20.0)
    add("control-pebble-replay-illegal",
        ["pebble", "--dag", "{dag_ok}", "--cache", "3", "--replay", "{sched_unknown_vertex}"],
        (1,), "controls", why="a schedule that breaks the rules is a failed check (exit 1)")
    add("control-version", ["--version"], (0,), "controls")

    # ---- numbers
    out += _flag_cases("bounds", ["bounds", "--d", "8", "--M", "64"], "--n")
    out += _flag_cases("bounds", ["bounds", "--n", "64", "--M", "64"], "--d", valid="8")
    out += _flag_cases("bounds", BOUNDS, "--M")
    out += _flag_cases("bounds", [*BOUNDS, "--M", "64"], "--heads",
                       labels=("zero", "text", "arabic-digits", "underscore", "5001-digits"),
                       valid="1")
    out += _flag_cases("bounds", [*BOUNDS, "--M", "64"], "--batch",
                       labels=("negative", "float", "fullwidth-digits"), valid="1")
    out += _flag_cases("simulate", ["simulate", "--d", "8", "--M", "256"], "--n")
    out += _flag_cases("simulate", SIM, "--M", valid="256",
                       labels=("zero", "negative", "float", "text", "empty", "5001-digits",
                               "arabic-digits", "underscore", "unicode-minus", "nan"))
    out += _flag_cases("simulate", [*SIM, "--M", "256"], "--kv-heads",
                       labels=("zero", "text", "arabic-digits"), valid="1")
    out += _flag_cases("gap", ["gap", "--d", "8", "--M", "256"], "--n")
    out += _flag_cases("gap", ["gap", "--n", "64", "--M", "256"], "--d",
                       labels=("zero", "negative", "text", "arabic-digits", "underscore",
                               "5001-digits", "unicode-minus"), valid="8")
    out += _flag_cases("gap", GAP, "--M",
                       labels=("zero", "float", "text", "600-digits", "fullwidth-digits",
                               "empty"), valid="256")
    out += _flag_cases("pebble", PEB, "--cache",
                       labels=("zero", "negative", "float", "text", "empty", "5001-digits",
                               "arabic-digits", "underscore", "unicode-minus", "hex"),
                       valid="3")
    out += _flag_cases("lower-bound", LB, "--M",
                       labels=("zero", "negative", "float", "text", "empty", "5001-digits",
                               "arabic-digits", "fullwidth-digits", "underscore",
                               "unicode-minus"), valid="3")
    # the deprecated millisecond spellings (issue 23: --solver-time-limit SECONDS) still refuse
    out += _flag_cases("lower-bound", [*LB, "--M", "3"], "--z3-timeout-ms",
                       labels=("zero", "negative", "text", "arabic-digits", "underscore"),
                       valid="2000")
    out += _flag_cases("verify", VERIFY, "--z3-timeout",
                       labels=("zero", "negative", "text", "arabic-digits", "underscore",
                               "fullwidth-digits"), valid="2000")
    out += _flag_cases("report", ["report", "{root}/r-n"], "--n",
                       labels=("zero", "negative", "text", "5001-digits", "arabic-digits",
                               "underscore"), valid="64")
    out += _flag_cases("report", ["report", "{root}/r-d"], "--d",
                       labels=("zero", "float", "fullwidth-digits"), valid="8")
    out += _flag_cases("report", ["report", "{root}/r-M"], "--M",
                       labels=("zero", "text", "600-digits", "unicode-minus"), valid="64")
    out += _flag_cases("simulate", [*SIM, "--M", "256", "--execute"], "--seed",
                       labels=("negative", "float", "text", "arabic-digits", "underscore",
                               "5001-digits"), valid="1")
    # huge but well-formed sizes: computed exactly, or refused; never a traceback or inf
    huge = "a size beyond float range is computed exactly (inf never printed) or refused"
    add("bounds-n-huge-json", ["bounds", "--n", HUGE, "--d", "8", "--M", "64", "--json"],
        (0, 2), "numbers", why=huge, checks=("json-finite",))
    add("bounds-n-300-digits-causal-json", ["bounds", "--n", DIGITS_300, "--d", "8", "--M",
                                            "64", "--mask", "causal", "--json"],
        (0, 2), "numbers", why=huge, checks=("json-finite",))
    add("simulate-n-300-digits-plot", ["simulate", "--n", DIGITS_300, "--d", "8", "--M", "64",
                                       "--plot", "{root}/huge-n.png"],
        (0, 2), "numbers", why=huge)
    add("simulate-n-300-digits-json", ["simulate", "--n", DIGITS_300, "--d", "8", "--M", "64",
                                       "--json"], (0, 2), "numbers", why=huge,
        checks=("json-finite",))
    add("gap-n-300-digits-json", ["gap", "--n", DIGITS_300, "--d", "8", "--M", "64", "--json"],
        (0, 2), "numbers", why=huge, checks=("json-finite",))
    add("pebble-cache-huge", [*PEB, "--cache", HUGE], (0, 2), "numbers",
        why="a cache larger than the DAG is valid (optimal = compulsory I/O) or refused")
    add("lower-bound-M-huge-json", [*LB, "--M", HUGE, "--json"], (0, 2), "numbers",
        why="a cache larger than the DAG is valid or refused", checks=("json-finite",))
    add("verify-z3-timeout-huge", [*VERIFY, "--z3-timeout", HUGE], (0, 2), "numbers",
        why="a timeout beyond z3's range is refused or clamped", seconds=20.0)
    add("lower-bound-z3-timeout-huge", [*LB, "--M", "3", "--z3-timeout-ms", HUGE], (0, 2),
        "numbers", why="a timeout beyond z3's range is refused or clamped")
    for command, base in (("verify", VERIFY), ("lower-bound", [*LB, "--M", "3"]),
                          ("pebble", [*PEB, "--M", "3"])):
        add(f"{command}-solver-time-limit-huge", [*base, "--solver-time-limit", HUGE], (0, 2),
            "numbers", why="a budget beyond float range is refused or clamped", seconds=20.0)
        add(f"{command}-solver-time-limit-valid", [*base, "--solver-time-limit", "2.5"], (0,),
            "controls", seconds=20.0)

    # ---- ranges and sweeps
    for command, base in (("simulate", SIM), ("gap", GAP)):
        for label, text in [("reversed", "64:8:3"), ("two-parts", "64:1024"),
                            ("four-parts", "64:1024:3:4"), ("steps-1e9", "64:1024:1000000000"),
                            ("zero-lo", "0:10:3"), ("zero-steps", "64:1024:0"),
                            ("negative-steps", "64:1024:-3"), ("text", "a:b:c"),
                            ("missing-hi", "64::3"), ("colon", ":"), ("empty", ""),
                            ("huge-hi", f"64:{HUGE}:3"), ("arabic", "٦٤:١٠٢٤:٣"),
                            ("float-steps", "64:1024:3.5"), ("digits-hi", f"64:{BIG}:3")]:
            add(f"{command}-M-geom-{label}", [*base, f"--M-geom={text}"], cls="ranges")
    for command, base in (("pebble", PEB), ("report", ["report", "{root}/r-geom"])):
        for label, text in [("reversed", "64:8:3"), ("steps-1e9", "1:1024:1000000000"),
                            ("zero-lo", "0:10:3"), ("text", "a:b:c"), ("two-parts", "3:8")]:
            add(f"{command}-M-geom-{label}", [*base, f"--M-geom={text}"], cls="ranges")
    # the deprecated spelling: the same refusals (one line: its warning is dropped on error)
    for command, base in (("simulate", SIM), ("gap", GAP)):
        for label, text in [("reversed", "64:8:3"), ("zero-steps", "64:1024:0")]:
            add(f"{command}-M-range-{label}", [*base, f"--M-range={text}"], cls="ranges")
    # a control that does the whole job (the exact worst over the logit scale, ~4 s idle in
    # process): a hang guard, not a speed test — CI failed it at 10 s under a load of four
    add("gap-M-range-valid", [*GAP, "--M-range", "64:256:3"], (0,), "controls",
        why="--M-range still works (deprecated: --M-geom)", seconds=40.0)
    for command, base in (("simulate", SIM), ("gap", GAP), ("pebble", PEB),
                          ("report", ["report", "{root}/r-range"])):
        for label, text in [("1e5-values", "1:100000"), ("reversed", "8:4"),
                            ("step-zero", "1:10:0"), ("step-negative", "1:10:-1"),
                            ("comma-only", ","), ("item-text", "64,x"), ("open-hi", "1:"),
                            ("open-lo", ":5"), ("four-parts", "1:2:3:4"),
                            ("1001-items", ",".join(str(64 + i) for i in range(1001))),
                            ("hi-5001-digits", f"1:{BIG}"), ("count-10e400", f"1:{HUGE}")]:
            flag = "--cache" if command == "pebble" else "--M"
            add(f"{command}-M-list-{label}", [*base, f"{flag}={text}"], cls="ranges")
    add("pebble-cache-range-1e12", [*PEB, "--cache", "1:1000000000000"], cls="ranges")
    add("lower-bound-M-list", [*LB, "--M", "3,4"], cls="ranges")
    add("lower-bound-M-range", [*LB, "--M", "3:4"], cls="ranges")
    add("bounds-M-list", [*BOUNDS, "--M", "64,128"], cls="ranges")
    add("bounds-M-range", [*BOUNDS, "--M", "64:128"], cls="ranges")

    # ---- specs: --builtin, --mask, --device/--dtype/--scope
    specs = [("missing-part", "matmul:2x2"), ("no-sizes", "matmul:"), ("bare", "matmul"),
             ("zero", "matmul:0x1x1"), ("arabic", "matmul:٢x٢x٢"),
             ("bad-summation", "matmul:2x2x2:fancy"), ("underscore", "matmul:1_0x1x1"),
             ("5001-digits", f"matmul:{BIG}x1x1"), ("giant", "matmul:100000x100000x100000"),
             ("fwd-missing-d", "attention-forward:n=2"),
             ("fwd-d-twice", "attention-forward:n=2,d=1,d=1"),
             ("fwd-arabic", "attention-forward:n=٢,d=1"),
             ("fwd-unknown-key", "attention-forward:n=2,d=1,x=3"),
             ("fwd-negative", "attention-forward:n=-2,d=1"),
             ("fwd-giant", "attention-forward:n=100000,d=100000"),
             ("fwd-empty", "attention-forward:"),
             ("bwd-bad-gradient", "attention-backward:n=2,d=1,gradient=dY"),
             ("unknown", "fft:8"), ("empty", ""), ("10000-chars", "x" * 10_000)]
    for label, spec in specs:
        add(f"pebble-builtin-{label}", ["pebble", f"--builtin={spec}", "--cache", "3"],
            cls="specs")
    for label, spec in specs[::2]:
        add(f"lower-bound-builtin-{label}", ["lower-bound", f"--builtin={spec}", "--M", "3"],
            cls="specs")
    add("pebble-builtin-too-big-for-exact", ["pebble", "--builtin", "matmul:13x13x13",
                                             "--cache", "4"], cls="specs")
    masks = [("window-arabic", "window:٣"), ("window-underscore", "window:1_0"),
             ("window-zero", "window:0"), ("window-negative", "window:-1"),
             ("window-empty", "window:"), ("window-text", "window:x"),
             ("window-5001-digits", f"window:{BIG}"), ("window-exponent", "window:1e3"),
             ("window-fullwidth", "window:３"), ("block-no-file", "block:2"),
             ("block-zero", "block:0:{pat_ok}"), ("block-arabic", "block:٣٢:{pat_ok}"),
             ("block-missing-file", "block:32:{missing}/p.json"),
             ("block-fifo", "block:32:{fifo}"), ("block-folder", "block:32:{folder}"),
             ("block-dev-zero", "block:32:/dev/zero"), ("block-latin1", "block:32:{pat_latin1}"),
             ("block-not-square", "block:32:{pat_not_square}"),
             ("block-numbers", "block:32:{pat_numbers}"),
             ("block-5000-digit-number", "block:32:{pat_bigint}"),
             ("block-wrong-side", "block:32:{pat_wrong_side}"),
             ("block-deep", "block:32:{pat_deep}"), ("block-empty-list", "block:32:{pat_empty}"),
             ("unknown", "diagonal"), ("empty", ""), ("causal-arg", "causal:1")]
    for label, mask in masks:
        add(f"bounds-mask-{label}", [*BOUNDS, "--M", "64", f"--mask={mask}"], cls="specs")
    for label, mask in masks[::3]:
        add(f"simulate-mask-{label}", [*SIM, "--M", "256", f"--mask={mask}"], cls="specs")
    add("bounds-mask-window-huge", [*BOUNDS, "--M", "64", "--mask", f"window:{HUGE}", "--json"],
        (0, 2), "specs", why="a window wider than n is the causal mask, or refused",
        checks=("json-finite",))
    add("simulate-sparse-operands-unknown", [*SIM, "--M", "256", "--mask", "causal",
                                             "--sparse-operands", "Q,X"], cls="specs")
    add("bounds-scope-without-device", [*BOUNDS, "--M", "64", "--scope", "block"],
        cls="flag combinations")
    add("bounds-unknown-dtype-with-M", [*BOUNDS, "--M", "64", "--dtype", "bf17"],
        cls="flag combinations")
    add("bounds-dtype-with-M-is-bytes", [*BOUNDS, "--M", "64", "--dtype", "bf16"], codes=(0,),
        cls="flag combinations")
    add("bounds-M-and-device", [*BOUNDS, "--M", "64", "--device", "a100"],
        cls="flag combinations")
    add("bounds-neither-M-nor-device", BOUNDS, cls="flag combinations")
    add("bounds-unknown-device", [*BOUNDS, "--device", "tpu"], cls="specs")
    add("bounds-empty-device", [*BOUNDS, "--device="], cls="specs")
    add("bounds-unknown-dtype", [*BOUNDS, "--device", "a100", "--dtype", "int3"], cls="specs")
    add("bounds-bad-scope", [*BOUNDS, "--device", "a100", "--scope", "grid"], cls="specs")
    add("bounds-device-and-hierarchy", [*BOUNDS, "--device", "a100", "--hierarchy",
                                        "{hier_ok}"], cls="flag combinations")
    add("bounds-M-and-hierarchy", [*BOUNDS, "--M", "64", "--hierarchy", "{hier_ok}"],
        cls="flag combinations")
    add("bounds-kv-heads-not-dividing", [*BOUNDS, "--M", "64", "--heads", "3", "--kv-heads",
                                         "2"], cls="flag combinations")

    # ---- files: --hierarchy
    hier_bad = ["hier_neg_bandwidth", "hier_text_bandwidth", "hier_cap_text", "hier_cap_zero",
                "hier_cap_negative", "hier_cap_float", "hier_cap_1e400", "hier_cap_5000_digits",
                "hier_cap_both", "hier_dtype_bad", "hier_word_bytes_text", "hier_no_levels",
                "hier_levels_empty", "hier_one_level", "hier_many_levels", "hier_level_str",
                "hier_list", "hier_latin1", "missing", "folder", "fifo", "dag_deep",
                "dag_invalid", "dag_nan"]
    for name in hier_bad:
        target = "{missing}/h.json" if name == "missing" else "{%s}" % name
        add(f"bounds-hierarchy-{name.replace('_', '-')}", [*BOUNDS, "--hierarchy", target],
            cls="files")
    for label, target in [("dev-null", "/dev/null"), ("dev-zero", "/dev/zero"),
                          ("empty-path", "")]:
        add(f"bounds-hierarchy-{label}", [*BOUNDS, f"--hierarchy={target}"], cls="files")
    add("bounds-hierarchy-tiny-bandwidth-json", [*BOUNDS, "--hierarchy", "{hier_tiny_bandwidth}",
                                                 "--json"], (0, 2), "files",
        why="a bandwidth of 5e-324 B/s gives infinite times: printed as null/strings, or "
            "refused", checks=("json-finite",))

    # ---- files: --dag (pebble and lower-bound), --replay
    dag_bad = ["dag_latin1", "dag_deep", "dag_deep_obj", "dag_invalid", "dag_empty_text",
               "dag_nan", "dag_infinity", "dag_bigint", "dag_list", "dag_string", "dag_null",
               "dag_nodes_dict", "dag_edges_str", "dag_dup_vertex", "dag_unknown_vertex",
               "dag_cycle", "dag_self_loop", "dag_edge_triple", "dag_int_node",
               "dag_dup_output", "dag_unknown_output", "dag_outputs_str", "dag_attr_list",
               "dag_attr_unknown", "nl_undirected", "nl_multigraph", "nl_no_id",
               "nl_link_no_target", "nl_graph_text", "missing", "folder", "fifo",
               "too_large"]
    meta_bad = ["meta_params_str", "meta_params_list", "meta_k_text", "meta_k_float",
                "meta_k_negative", "meta_params_empty", "meta_builder_list",
                "meta_builder_int", "meta_builder_unknown", "meta_index_text",
                "meta_index_mixed", "meta_index_int", "meta_args_unknown", "meta_op_int",
                "meta_summation_bad"]
    #: right types, but nothing attnio can use: refused, or ignored (derived from the graph)
    meta_either = {"meta_params_empty", "meta_builder_unknown"}
    for name in dag_bad + meta_bad:
        target = "{missing}/g.json" if name == "missing" else "{%s}" % name
        cls = "metadata" if name.startswith("meta") else "files"
        label = name.replace("_", "-")
        kw: dict[str, Any] = {"cls": cls}
        if name in meta_either:
            kw.update(codes=(0, 2), why="well-typed metadata naming no known builder or no "
                                        "sizes: refused, or not used (derived from the graph)")
        add(f"pebble-dag-{label}", ["pebble", "--dag", target, "--cache", "3"], **kw)
        if cls == "metadata" or name in ("dag_latin1", "dag_deep", "dag_nan", "dag_bigint",
                                         "dag_cycle", "dag_unknown_vertex", "nl_undirected",
                                         "missing", "folder", "fifo", "too_large"):
            add(f"lower-bound-dag-{label}", ["lower-bound", "--dag", target, "--M", "3"], **kw)
    for label, target in [("dev-null", "/dev/null"), ("dev-zero", "/dev/zero"),
                          ("empty-path", "")]:
        add(f"pebble-dag-{label}", ["pebble", f"--dag={target}", "--cache", "3"], cls="files")
        add(f"lower-bound-dag-{label}", ["lower-bound", f"--dag={target}", "--M", "3"],
            cls="files")
    add("pebble-dag-second-file-fifo", ["pebble", "--dag", "{dag_ok}", "{fifo}", "--cache", "3"],
        cls="files")
    meta_why = ("metadata is either checked against the structure (a mismatch is exit 2) or "
                "not trusted (the bound is derived from the graph: the optimum is 7)")
    for name in ("meta_lie_50", "meta_lie_k_huge", "meta_attention_lie"):
        label = name.replace("_", "-")
        add(f"lower-bound-dag-{label}", ["lower-bound", "--dag", "{%s}" % name, "--M", "3"],
            (0, 2), "metadata", why=meta_why, checks=("best<=7",))
        add(f"lower-bound-dag-{label}-json", ["lower-bound", "--dag", "{%s}" % name, "--M", "3",
                                              "--json"],
            (0, 2), "metadata", why=meta_why, checks=("best<=7", "json-finite"))
        add(f"pebble-dag-{label}", ["pebble", "--dag", "{%s}" % name, "--cache", "3",
                                    "--json"], (0, 2), "metadata", why=meta_why,
            checks=("json-finite", "certified<=7"))
    add("lower-bound-dag-meta-ok", ["lower-bound", "--dag", "{meta_ok}", "--M", "3"], (0,),
        "metadata", checks=("best<=7",))
    add("pebble-dag-nl-int-ids", ["pebble", "--dag", "{nl_int_ids}", "--cache", "3"], (0, 2),
        "files", why="networkx's default integer ids: read (their str as names) or refused "
                     "in one line")
    for name in ("sched_latin1", "sched_deep", "sched_bad_move", "sched_none",
                 "sched_move_int", "dag_invalid", "missing", "folder", "fifo"):
        target = "{missing}/s.json" if name == "missing" else "{%s}" % name
        add(f"pebble-replay-{name.replace('_', '-')}",
            ["pebble", "--dag", "{dag_ok}", "--cache", "3", "--replay", target], cls="files")
    add("pebble-replay-no-result-at-M", ["pebble", "--dag", "{dag_ok}", "--cache", "7",
                                         "--replay", "{sched_range}"], cls="files")
    add("pebble-replay-dev-zero", ["pebble", "--dag", "{dag_ok}", "--cache", "3", "--replay",
                                   "/dev/zero"], cls="files")

    # ---- bounded work on valid but large inputs
    add("lower-bound-star-1501-M3", ["lower-bound", "--dag", "{star_1501}", "--M", "3"], (0, 1),
        "bounded work", seconds=20.0, checks=("says-infeasible",),
        why="acceptance: answers 'infeasible' in <= 5 s (bound 20 s under load)")
    add("lower-bound-chain-1999-M2", ["lower-bound", "--dag", "{chain_1999}", "--M", "2",
                                      "--time-limit", "2"], (0, 1), "bounded work",
        seconds=20.0, why="answered, or the best bound so far marked as such")
    add("lower-bound-attention-backward-8-8", ["lower-bound", "--builtin",
                                               "attention-backward:n=8,d=8", "--M", "16",
                                               "--time-limit", "2"],
        (0, 1), "bounded work", seconds=20.0,
        why="acceptance (with 2 s for 5 s): the best bound found so far, marked as such")
    add("lower-bound-matmul-3x3x3-M4", ["lower-bound", "--builtin", "matmul:3x3x3", "--M", "4",
                                        "--time-limit", "2"], (0, 1), "bounded work",
        seconds=20.0, why="answered within its time limit")
    add("lower-bound-chain-300k", ["lower-bound", "--dag", "{chain_300k}", "--M", "3"], (2,),
        "bounded work", seconds=30.0, why="beyond the vertex cap: exit 2 naming the cap")
    add("pebble-chain-300k", ["pebble", "--dag", "{chain_300k}", "--cache", "3"], (2,),
        "bounded work", seconds=30.0, why="beyond MAX_EXACT_VERTICES")
    add("pebble-matmul-9x9x9-limit-0.1", ["pebble", "--builtin", "matmul:9x9x9", "--cache", "3",
                                          "--time-limit", "0.1"], (0, 1, 2), "bounded work",
        seconds=10.0, why="undecided at the limit (1), decided (0) or too large (2)")
    add("pebble-star-1501-M3", ["pebble", "--dag", "{star_1501}", "--cache", "3"], (0, 1, 2),
        "bounded work", seconds=20.0, why="infeasible (0), or refused by a size cap (2)")
    add("gap-tune-time-limit", ["gap", "--n", "4096", "--d", "64", "--M-geom",
                                "64:262144:13", "--tune", "--time-limit", "1"], (0, 1),
        "bounded work", seconds=15.0, why="gap --tune stops at its time limit")
    add("verify-time-limit-valid", [*VERIFY, "--time-limit", "60"], (0,), "bounded work",
        seconds=20.0, why="verify takes --time-limit (issue 22, item 1)")
    add("prove-exponent-1e8", ["prove", "n**100000000 >= 0", "--var", "n:real", "--time-limit",
                               "2"], (0, 1, 2), "bounded work", seconds=15.0,
        why="decided, undecided at the timeout, or the exponent refused; within timeout + 1 s")
    add("prove-root-1e9", ["prove", "root(n, 10**9) >= 0", "--var", "n:positive", "--time-limit",
                           "2"], (0, 1, 2), "bounded work", seconds=15.0,
        why="decided, undecided at the timeout, or the root refused; within timeout + 1 s")
    add("prove-factorial-1e9", ["prove", "factorial(10**9) > 0", "--time-limit", "2"], (0, 1, 2),
        "bounded work", seconds=15.0, why="decided, undecided or refused within the timeout")
    add("prove-long-valid-10k", ["prove", " + ".join(["n"] * 2500) + " >= 0", "--var",
                                 "n:positive", "--time-limit", "3"], (0, 1, 2), "bounded work",
        seconds=15.0, why="a 10k-character statement: decided, undecided or refused by a "
                          "length cap")

    # ---- time limits
    out += _time_limit_cases("pebble", [*PEB, "--cache", "3"])
    out += _time_limit_cases("lower-bound", [*LB, "--M", "3"])
    out += _time_limit_cases("gap", [*GAP, "--M", "256", "--tune"])
    out += _time_limit_cases("verify", VERIFY)
    out += [c for c in _time_limit_cases("report", ["report", "{root}/r-time"])
            if not c.id.endswith("-zero")]
    out += [dataclasses.replace(c, codes=two, why="") for c in
            _time_limit_cases("prove", PROVE_OK)]
    add("prove-time-limit-beyond-3600", [*PROVE_OK, "--time-limit", "1e9"], cls="time limits")
    add("prove-timeout-beyond-3600", [*PROVE_OK, "--timeout", "1e9"], cls="time limits",
        why="")  # the deprecated spelling refuses the same values
    out += _time_limit_cases("verify", VERIFY, "--solver-time-limit")
    out += _time_limit_cases("lower-bound", [*LB, "--M", "3"], "--solver-time-limit")
    out += [dataclasses.replace(c, codes=two, why="") for c in
            _time_limit_cases("pebble", [*PEB, "--M", "3"], "--solver-time-limit")
            if c.id.endswith("-zero")]  # a per-instance budget is > 0

    # ---- workers and schedulers
    for command, base in (("pebble", [*PEB, "--cache", "3"]), ("verify", VERIFY),
                          ("simulate", [*SIM, "--M", "256"]), ("gap", [*GAP, "--M", "256"])):
        for label, text in [("zero", "0"), ("negative", "-1"), ("million", "1000000"),
                            ("text", "x"), ("arabic", "٢"), ("underscore", "1_0"),
                            ("float", "1.5")]:
            add(f"{command}-workers-{label}", [*base, f"--workers={text}"], cls="workers")
        for label, text in [("empty", ""), ("blank", "  "), ("no-scheme", "not-an-address"),
                            ("no-host", "tcp://"), ("port-99999", "tcp://127.0.0.1:99999"),
                            ("unclosed-ipv6", "tcp://[::1"), ("unknown-scheme", "gopher://x:1")]:
            add(f"{command}-scheduler-{label}", [*base, f"--scheduler={text}"], cls="workers",
                seconds=15.0)
        add(f"{command}-workers-and-scheduler", [*base, "--workers", "2", "--scheduler",
                                                 "tcp://127.0.0.1:8786"],
            cls="flag combinations")
    add("pebble-scheduler-unreachable", [*PEB, "--cache", "3", "--time-limit", "2",
                                         "--scheduler", "tcp://127.0.0.1:1"], (2,), "workers",
        seconds=15.0, why="nothing listens on port 1: exit 2 within the time limit")

    # ---- prove statements and declarations
    # 1e308 is an exact decimal (10**308) since issue 20, like 0.1 = 1/10: the statement is
    # decided (refuted at n = 10**309 + 1), not misread as the symbol 'e308'.
    add("prove-1e308", ["prove", "n <= 1e308*10", "--var", "n:real"], (1,), "prove statements")
    statements = [("caret", "2^3 >= 8", ()), ("empty-min", "Min() > 0", ()), ("undeclared", "x > 0", ()),
                  ("unbalanced", "(n + 1 >= 0", ("n:real",)), ("empty", "", ()),
                  ("blank", "   ", ()), ("10k-parens", "(" * 10_000, ()),
                  ("10k-chars-garbage", "n >= " + "@" * 10_000, ("n:real",)),
                  ("not-boolean", "n + 1", ("n:real",)),
                  ("tuple", "n > 0,", ("n:real",)), ("arabic-digit", "n > ٤", ("n:real",)),
                  ("import", "__import__('os').getcwd() == 0", ()),
                  ("dunder", "n.__class__ > 0", ("n:real",)),
                  ("semicolon", "n >= 0; n <= 1", ("n:real",))]
    for label, statement, decls in statements:
        argv = ["prove", f"{statement}"] if not statement.startswith("-") else ["prove", "--",
                                                                              statement]
        for decl in decls:
            argv += ["--var", decl]
        add(f"prove-{label}", argv, cls="prove statements")
    add("prove-python-and", ["prove", "n > 0 and n < 1", "--var", "n:real"], (1, 2),
        "prove statements", why="Python's 'and' is refused, or read as And and refuted")
    add("prove-assignment", ["prove", "n = 1", "--var", "n:real"], (1, 2), "prove statements",
        why="'=' is refused, or read as Eq and refuted")
    add("prove-true", ["prove", "true"], (0, 2), "prove statements",
        why="a constant statement may be decided (proved) or refused in one line")
    add("prove-False", ["prove", "False"], (1, 2), "prove statements",
        why="a constant false statement may be refuted or refused in one line")
    declarations = [("declared-twice", ["n:positive", "n :real"]),
                    ("declared-twice-same", ["n:positive", "n:positive"]),
                    ("no-domain", ["n"]), ("empty-domain", ["n:"]), ("no-name", [":real"]),
                    ("unknown-domain", ["n:complex"]), ("empty", [""]),
                    ("name-not-identifier", ["1n:real"]), ("arabic-name", ["٤:real"]),
                    ("unused", ["n:real", "m:real"])]
    for label, decls in declarations:
        argv = ["prove", "n >= 0"]
        for decl in decls:
            argv.append(f"--var={decl}")
        codes = (2,) if label != "unused" else (1, 2)
        why = ("" if label != "unused" else
               "declaring a symbol the statement does not use: ignored (decided) or refused")
        add(f"prove-var-{label}", argv, codes, "prove statements", why=why)

    # ---- output paths
    long_name = "x" * 300
    outputs = {
        "simulate": ([*SIM, "--M", "256", "--plot"], ".png", "exists_png", "folder_png"),
        "gap": ([*GAP, "--M", "256", "--plot"], ".png", "exists_png", "folder_png"),
        "bounds": ([*BOUNDS, "--M", "64", "--latex"], ".tex", "exists_tex", "folder_tex"),
        "pebble": ([*PEB, "--export-dag"], ".json", "exists_json", "folder_json"),
    }
    for command, (base, ext, exists, folder) in outputs.items():
        rows = [("existing-not-ours", "{%s}" % exists), ("folder", "{%s}" % folder),
                ("missing-parent", "{missing}/out" + ext),
                ("parent-is-file", "{%s}/out%s" % (exists, ext)),
                ("empty", ""), ("name-300-bytes", "{root}/" + long_name + ext),
                ("wrong-extension", "{root}/out-%s.bmp" % command),
                ("no-extension", "{root}/out-%s" % command),
                ("proc", "/proc/attnio-hostile" + ext), ("fifo", "{fifo_png}")]
        for label, target in rows:
            add(f"{command}-output-{label}", [*base[:-1], f"{base[-1]}={target}"],
                cls="output paths", checks=("not-ours-kept",))
    add("gap-plot-pdf-format", [*GAP, "--M", "256", "--plot", "{root}/gap-format.pdf"],
        (0, 2), "output paths", checks=("pdf:gap-format.pdf",),
        why="a .pdf name gets PDF bytes, or the extension is refused")
    add("simulate-plot-svg-format", [*SIM, "--M", "256", "--plot", "{root}/sim-format.svg"],
        (0, 2), "output paths", checks=("svg:sim-format.svg",),
        why="a .svg name gets SVG, or the extension is refused")
    add("pebble-export-unicode-name", [*PEB, "--export-dag", "{root}/ünï-ɡraph.dot"], (0,),
        "output paths", why="a non-ASCII file name is a valid name")
    for label, target in [("existing-file", "{exists_json}"), ("foreign-folder", "{foreign_dir}"),
                          ("empty", ""), ("name-300-bytes", "{root}/" + long_name),
                          ("parent-is-file", "{exists_json}/report"), ("proc", "/proc/attnio-r"),
                          ("fifo", "{fifo}")]:
        add(f"report-outdir-{label}", ["report", f"{target}", "--quick"]
            if target else ["report", "", "--quick"], cls="output paths",
            checks=("not-ours-kept",))

    # ---- flag combinations
    add("prove-var-declared-twice-spaced", ["prove", "n >= 0", "--var", "n:positive", "--var",
                                            "n :real"], cls="flag combinations")
    add("bounds-json-and-latex", [*BOUNDS, "--M", "64", "--json", "--latex"],
        cls="flag combinations")
    add("simulate-count-and-execute", [*SIM, "--M", "256", "--count", "--execute"],
        cls="flag combinations")
    add("simulate-M-and-range", [*SIM, "--M", "256", "--M-range", "64:256:3"],
        cls="flag combinations")
    add("simulate-neither-M", SIM, cls="flag combinations")
    add("simulate-crossover-one-name", [*SIM, "--M", "256", "--crossover", "flash1"],
        cls="flag combinations")
    add("simulate-json-and-csv", [*SIM, "--M", "256", "--json", "--csv"],
        cls="flag combinations")
    add("gap-M-and-range", [*GAP, "--M", "256", "--M-range", "64:256:3"],
        cls="flag combinations")
    add("gap-M-and-geom", [*GAP, "--M", "256", "--M-geom", "64:256:3"],
        cls="flag combinations")
    add("pebble-cache-and-geom", [*PEB, "--cache", "3", "--M-geom", "3:8:2"],
        cls="flag combinations")
    add("gap-tune-with-heads", [*GAP, "--M", "256", "--tune", "--heads", "2"],
        cls="flag combinations")
    add("gap-unknown-pass", [*GAP, "--M", "256", "--pass", "sideways"], cls="flag combinations")
    add("pebble-dag-and-builtin", ["pebble", "--dag", "{dag_ok}", "--builtin", "matmul:1x1x1",
                                   "--cache", "3"], cls="flag combinations")
    add("pebble-no-cache", PEB, cls="flag combinations")
    add("pebble-replay-without-cache", ["pebble", "--dag", "{dag_ok}", "--replay",
                                        "{sched_range}"], cls="flag combinations")
    add("pebble-replay-cache-range", [*PEB, "--replay", "{sched_range}", "--cache", "3:4"],
        cls="flag combinations")
    add("pebble-replay-two-dags", ["pebble", "--dag", "{dag_ok}", "{dag_ok}", "--cache", "3",
                                   "--replay", "{sched_range}"], cls="flag combinations")
    add("lower-bound-dag-and-builtin", ["lower-bound", "--dag", "{dag_ok}", "--builtin",
                                        "matmul:1x1x1", "--M", "3"], cls="flag combinations")
    add("lower-bound-no-M", LB, cls="flag combinations")
    add("verify-self-test-no-match", ["verify", "--self-test", "--only", "no-such-twin-xyz"],
        cls="flag combinations")
    add("verify-only-no-match", ["verify", "--only", "no-such-claim-xyz"],
        cls="flag combinations")
    add("verify-only-bad-glob", ["verify", "--only", "[no-such"], cls="flag combinations")
    add("verify-only-10k-chars", ["verify", "--only", "q" * 10_000], cls="flag combinations")
    add("report-no-outdir", ["report"], cls="flag combinations")
    add("report-two-outdirs", ["report", "{root}/r-a", "{root}/r-b"],
        cls="flag combinations")
    opt = "an option without its partner is refused (the rule of --scope) or harmless"
    add("pebble-force-without-export", [*PEB, "--cache", "3", "--force"], (0, 2),
        "flag combinations", why=opt)
    add("simulate-seed-without-execute", [*SIM, "--M", "256", "--seed", "1"], (0, 2),
        "flag combinations", why=opt)
    add("simulate-force-without-plot", [*SIM, "--M", "256", "--force"], (0, 2),
        "flag combinations", why=opt)
    add("bounds-force-without-latex-file", [*BOUNDS, "--M", "64", "--force"], (0, 2),
        "flag combinations", why=opt)
    for command, argv in (("bounds", [*BOUNDS, "--M", "64"]), ("gap", [*GAP, "--M", "256"]),
                          ("lower-bound", [*LB, "--M", "3"]), ("prove", PROVE_OK),
                          ("verify", VERIFY), ("report", ["report", "{root}/r-flag"])):
        add(f"{command}-unknown-flag", [*argv, "--no-such-flag"], cls="flag combinations")
    add("attnio-unknown-subcommand", ["no-such-command"], cls="flag combinations")
    add("attnio-no-subcommand", [], cls="flag combinations")

    # ---- real file descriptors (subprocesses)
    fd = "output channels"
    closed = "a closed or full stdout is exit 1, nothing half-claimed"
    for command, argv in (("bounds", [*BOUNDS, "--M", "64"]), ("simulate", [*SIM, "--M", "256"]),
                          ("gap", [*GAP, "--M", "256"]), ("pebble", [*PEB, "--cache", "3"]),
                          ("lower-bound", [*LB, "--M", "3"]), ("prove", PROVE_OK),
                          ("verify", VERIFY)):
        add(f"{command}-stdout-full", argv, (1,), fd, io="stdout-full",
            seconds=SUBPROCESS_SECONDS, why=closed)
        if command not in ("simulate", "pebble"):  # their output is ASCII already
            add(f"{command}-ascii-terminal", argv, (0, 1, 2), fd, io="ascii",
                seconds=SUBPROCESS_SECONDS,
                why="ASCII output (0), or one line refusing the terminal; never a traceback")
    for command, argv in (("bounds", [*BOUNDS, "--M", "64", "--json"]),
                          ("gap", [*GAP, "--M", "256"]), ("prove", PROVE_OK)):
        add(f"{command}-stdout-closed", argv, (1,), fd, io="stdout-closed",
            seconds=SUBPROCESS_SECONDS, why=closed)
    add("bounds-bad-input-stderr-full", ["bounds", "--n", "0", "--d", "8", "--M", "64"], (2,),
        fd, io="stderr-full", seconds=SUBPROCESS_SECONDS, why="exit 2 stays 2")
    add("pebble-bad-input-stderr-full", ["pebble", "--builtin", "fft:8", "--cache", "3"], (2,),
        fd, io="stderr-full", seconds=SUBPROCESS_SECONDS, why="exit 2 stays 2")
    add("bounds-bad-input-stderr-closed", ["bounds", "--n", "x", "--d", "8", "--M", "64"], (2,),
        fd, io="stderr-closed", seconds=SUBPROCESS_SECONDS, why="exit 2 stays 2")
    add("gap-bad-input-stdout-closed", ["gap", "--n", "0", "--d", "8", "--M", "64"], (2,),
        fd, io="stdout-closed", seconds=SUBPROCESS_SECONDS, why="exit 2 stays 2")
    for command, argv in (("pebble", ["pebble", "--dag", "/dev/stdin", "--cache", "3"]),
                          ("lower-bound", ["lower-bound", "--dag", "/dev/stdin", "--M", "3"]),
                          ("bounds", [*BOUNDS, "--hierarchy", "/dev/stdin"])):
        add(f"{command}-closed-stdin", argv, (2,), fd, io="stdin-closed",
            seconds=SUBPROCESS_SECONDS, why="closed stdin is refused before any read")
    # prove decides in a forked child (attnio.smt.isolation): a bad statement may be
    # refused there, so its cases get the bound of a short proof
    return [dataclasses.replace(c, seconds=max(c.seconds, PROVE_SECONDS))
            if c.command == "prove" and c.io is None else c for c in out]


# --------------------------------------------------------------------------- checks

def _strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"JSON holds {name}")
    return json.loads(text, parse_constant=refuse)


def _check(check: str, result: dict[str, Any], paths: dict[str, str]) -> str | None:
    """None if ``check`` holds for a case that answered 0, else what is wrong."""
    stdout = result.get("stdout", "")
    if check == "json-finite":
        try:
            _strict_json(stdout)
        except ValueError as exc:
            return f"--json output is not strict JSON: {str(exc)[:200]}"
        return None
    if check == "best<=7":
        if stdout.lstrip().startswith("{"):
            value = _strict_json(stdout)["best"]["value"]
        else:
            found = re.findall(r"^best: .*= *(-?\d+)", stdout, re.M)
            if not found:
                return "no 'best:' line"
            value = int(found[-1])
        return None if int(value) <= 7 else f"best bound {value} exceeds the optimum 7"
    if check == "certified<=7":
        doc = _strict_json(stdout)
        objs = doc if isinstance(doc, list) else doc.get("instances", [doc])
        if not objs:
            return "no instance in the pebble --json document"
        for obj in objs:
            cert = obj.get("certified_lower_bound") or {}
            value = cert.get("value")
            if value is not None and int(value) > 7:
                return f"certified lower bound {value} exceeds the optimum 7"
            if obj.get("verdict") == "optimal" and int(obj["io"]) != 7:
                return f"optimal io {obj['io']} is not 7"
        return None
    if check == "says-infeasible":
        return None if "infeasible" in stdout.lower() else "the answer does not say infeasible"
    if check.startswith(("pdf:", "svg:")):
        path = Path(paths["root"]) / check.split(":", 1)[1]
        head = path.read_bytes()[:200] if path.exists() else b""
        ok = head.startswith(b"%PDF") if check.startswith("pdf:") else b"<svg" in head or \
            head.startswith(b"<?xml")
        return None if ok else f"{path.name} does not hold {check[:3].upper()} bytes: {head[:8]!r}"
    raise ValueError(f"unknown check {check}")


def problems(case: Case, result: dict[str, Any], paths: dict[str, str]) -> list[str]:
    """What is wrong with ``result`` for ``case`` (empty: the case passes)."""
    code, stderr = result.get("code"), result.get("stderr", "")
    found: list[str] = []
    if code is None:
        return [f"no answer: {result.get('error', 'killed')} (bound {case.seconds:g} s)"]
    if code not in case.codes:
        found.append(f"exit code {code}, expected {sorted(case.codes)}")
    if result["seconds"] > case.seconds:
        found.append(f"took {result['seconds']:.1f} s > {case.seconds:g} s")
    for word in ("Traceback", "MemoryError"):
        if word in stderr:
            found.append(f"{word} on stderr")
    readable = case.io not in ("stderr-full", "stderr-closed")
    if code == 2 and readable:
        lines = stderr.splitlines()
        if len(lines) != 1 or not stderr.endswith("\n"):
            found.append(f"{len(lines)} lines on stderr, expected exactly one")
        elif len(lines[0]) > MAX_LINE:
            found.append(f"stderr line of {len(lines[0])} characters > {MAX_LINE}")
        elif not lines[0].startswith(case.prefix):
            found.append(f"stderr line does not start with {case.prefix!r}")
    if code == 0:
        for check in case.checks:
            if check == "not-ours-kept":
                continue
            try:
                wrong = _check(check, result, paths)
            except (ValueError, KeyError, TypeError) as exc:
                wrong = f"check {check}: {type(exc).__name__}: {str(exc)[:200]}"
            if wrong:
                found.append(wrong)
    if found:
        found.append(f"stderr: {stderr[-400:]!r}")
    return found


# --------------------------------------------------------------------------- runner

class CaseTimeout(BaseException):
    """Raised by SIGALRM in a worker when a case passes its bound."""


def _run_in_process(argv: list[str], seconds: float) -> dict[str, Any]:
    """Run ``attnio.cli.main(argv)`` with fds 1 and 2 sent to files; what it did."""
    from attnio.cli import main

    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    saved = os.dup(1), os.dup(2)
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    code: int | None
    error = ""
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        try:
            code = main(argv)
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            code = 130
        except CaseTimeout:
            code, error = None, f"timed out after {seconds:g} s (SIGALRM)"
        except BaseException:  # what the real CLI would do: a traceback, exit 1
            traceback.print_exc()
            code = 1
    except CaseTimeout:  # the alarm fired while a handler above ran
        code, error = None, f"timed out after {seconds:g} s (SIGALRM)"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    elapsed = time.monotonic() - start
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
        if stream is None or getattr(stream, "closed", False) or \
                stream is not getattr(sys, f"__{name}__"):
            setattr(sys, name, getattr(sys, f"__{name}__"))
    os.dup2(saved[0], 1)
    os.dup2(saved[1], 2)
    os.close(saved[0])
    os.close(saved[1])
    texts = []
    for handle in (out, err):
        handle.seek(0)
        texts.append(handle.read(KEEP_CHARS * 4).decode("utf-8", "replace")[:KEEP_CHARS])
        handle.close()
    return {"code": code, "stdout": texts[0], "stderr": texts[1], "seconds": elapsed,
            "error": error}


def _worker(command_fd: int, result_fd: int, root: str) -> None:
    """Serve cases: read one JSON line (argv, seconds) per case, answer one JSON line."""
    os.chdir(root)
    try:  # the plots extra; without it the figure cases are its one-line refusal
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401  (imports paid once, not by the first case)
    except ImportError:
        pass
    import networkx  # noqa: F401
    import sympy  # noqa: F401
    import z3  # noqa: F401

    from attnio.cli import build_parser

    build_parser()

    def alarm(signum: int, frame: Any) -> None:
        raise CaseTimeout()

    signal.signal(signal.SIGALRM, alarm)
    commands = os.fdopen(command_fd, "r", encoding="utf-8")
    results = os.fdopen(result_fd, "w", encoding="utf-8")
    results.write("ready\n")
    results.flush()
    for line in commands:
        job = json.loads(line)
        result = _run_in_process(job["argv"], job["seconds"])
        results.write(json.dumps(result) + "\n")
        results.flush()


def descendants(pid: int) -> list[tuple[int, str]] | None:
    """``(pid, command line)`` of every process below ``pid``, read from Linux's /proc (no
    psutil: it is not a dependency of the ``[test]`` install, and without it the corpus
    restarted its worker after every case, 150 s more on a fresh clone); None where /proc
    cannot tell."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        return None
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: list[tuple[int, str]] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        try:
            command = (proc / str(child) / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        found.append((child, command.decode(errors="replace")))
        todo.extend(children.get(child, []))
    return found


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill a process we started and every process it started (by their ids)."""
    for child, _ in descendants(proc.pid) or []:
        try:
            os.kill(child, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # started with start_new_session: its own group
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _env(tree: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (tree, env.get("PYTHONPATH")) if p)
    env.update(ATTNIO_PROGRESS="0", MPLBACKEND="Agg", PYTHONIOENCODING="utf-8",
               PYTHONDONTWRITEBYTECODE="1")
    return env


class _Slot:
    """One worker process serving in-process cases (restarted after a kill)."""

    def __init__(self, root: str, tree: str) -> None:
        self.root, self.tree = root, tree
        self.proc: subprocess.Popen | None = None
        self.buffer = b""

    def _start(self) -> None:
        command_r, self.command_w = os.pipe()
        self.result_r, result_w = os.pipe()
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(command_r), str(result_w), self.root],
            pass_fds=(command_r, result_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(self.tree),
            cwd=self.root, start_new_session=True)
        os.close(command_r)
        os.close(result_w)
        self.buffer = b""
        if self._read_line(300.0) != b"ready":
            self.stop()
            raise RuntimeError("the hostile-corpus worker did not start")

    def _read_line(self, timeout: float) -> bytes | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.result_r], [], [], left)
            if ready:
                chunk = os.read(self.result_r, 1 << 20)
                if not chunk:
                    return None  # the worker died
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def left_processes(self) -> bool:
        """Whether the last case left processes running in the worker (e.g. a Dask cluster);
        multiprocessing's resource tracker does not count."""
        family = descendants(self.proc.pid) if self.proc else []
        if family is None:  # no /proc: replace the worker to be safe
            return True
        return any("resource_tracker" not in command for _, command in family)

    def stop(self) -> None:
        if self.proc is not None:
            _kill_tree(self.proc)
            for fd in (self.command_w, self.result_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.proc = None

    def run(self, argv: list[str], seconds: float) -> dict[str, Any]:
        if self.proc is None:
            self._start()
        start = time.monotonic()
        try:
            os.write(self.command_w,
                     (json.dumps({"argv": argv, "seconds": seconds}) + "\n").encode())
        except BrokenPipeError:
            line = None
        else:
            line = self._read_line(seconds + KILL_GRACE)
        if line is None:
            dead = self.proc is not None and self.proc.poll() is not None
            self.stop()
            return {"code": None, "stdout": "", "stderr": "", "seconds":
                    time.monotonic() - start,
                    "error": "the worker died" if dead else
                    f"killed after {seconds + KILL_GRACE:g} s (stuck outside Python)"}
        return json.loads(line)


def _run_subprocess(case: Case, argv: list[str], root: str, tree: str) -> dict[str, Any]:
    """A case with real file descriptors (``case.io``) as ``python -m attnio``."""
    env = _env(tree)
    stdout: Any = subprocess.PIPE
    stderr: Any = subprocess.PIPE
    close: list[int] = []
    if case.io == "ascii":
        env["PYTHONIOENCODING"] = "ascii"
        env["LC_ALL"] = env["LANG"] = "C"
        env["PYTHONUTF8"] = "0"
    elif case.io == "stdout-full":
        stdout = open("/dev/full", "wb")
    elif case.io == "stderr-full":
        stderr = open("/dev/full", "wb")
    elif case.io == "stdout-closed":
        close = [1]
    elif case.io == "stderr-closed":
        close = [2]
    elif case.io == "stdin-closed":
        close = [0]

    def preexec() -> None:
        for fd in close:
            os.close(fd)

    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "attnio", *argv], stdin=subprocess.DEVNULL,
                            stdout=stdout, stderr=stderr, env=env, cwd=root,
                            start_new_session=True, preexec_fn=preexec if close else None)
    try:
        out, err = proc.communicate(timeout=case.seconds + KILL_GRACE)
        code: int | None = proc.returncode
        error = ""
    except subprocess.TimeoutExpired:
        _kill_tree(proc)
        out, err = b"", b""
        code, error = None, f"killed after {case.seconds + KILL_GRACE:g} s"
    finally:
        for handle in (stdout, stderr):
            if hasattr(handle, "close"):
                handle.close()
    return {"code": code, "stdout": (out or b"").decode("utf-8", "replace")[:KEEP_CHARS],
            "stderr": (err or b"").decode("utf-8", "replace")[:KEEP_CHARS],
            "seconds": time.monotonic() - start, "error": error}


def run_corpus(selected: list[Case], root: Path, *, workers: int = 2) -> dict[str, dict]:
    """Make the files under ``root`` and run every case; return id -> result.

    ``workers`` slots run at once; each serves in-process cases through its own worker
    process and runs the subprocess cases itself. The slowest-bounded cases go first.
    """
    import attnio

    tree = str(Path(attnio.__file__).resolve().parent.parent)
    paths = make_files(root)
    order = sorted(selected, key=lambda c: (c.io is None, -c.seconds))
    jobs: queue.Queue[Case] = queue.Queue()
    for case in order:
        jobs.put(case)
    results: dict[str, dict] = {}

    def serve() -> None:
        slot = _Slot(str(root), tree)
        try:
            while True:
                try:
                    case = jobs.get_nowait()
                except queue.Empty:
                    return
                argv = resolve(case.argv, paths)
                if case.io is None:
                    result = slot.run(argv, case.seconds)
                    if result["code"] is None or slot.left_processes():
                        slot.stop()  # a fresh worker: nothing of this case runs on
                else:
                    result = _run_subprocess(case, argv, str(root), tree)
                results[case.id] = result
        finally:
            slot.stop()

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(max(1, workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results["__paths__"] = paths  # type: ignore[assignment]
    return results


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "--worker":
    _worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
