r"""Run the hand-written red-team mutants (:mod:`mutants`) against the ``trust`` test tier.

.. code-block:: console

    $ python3 benchmarks/redteam/run.py --jobs 2                 # every mutant (~40 min)
    $ python3 benchmarks/redteam/run.py --only replay-output-red --json /tmp/r.json
    $ python3 benchmarks/redteam/run.py --list                   # the mutants, no run
    $ python3 benchmarks/redteam/run.py --set round2 --jobs 2    # the held-out second round
    $ python3 benchmarks/redteam/run.py --set round3 --jobs 2    # the held-out third round
    $ python3 benchmarks/redteam/run.py --set round4 --jobs 2    # the held-out fourth round

``--set`` picks the mutants: ``round1`` (default, :mod:`mutants`, results in
``results.json``), ``round2`` (:mod:`mutants_round2`, results in ``results_round2.json``),
``round3`` (:mod:`mutants_round3`, results in ``results_round3.json``) or ``round4``
(:mod:`mutants_round4`, results in ``results_round4.json``).

How it runs (the real tree is never touched): the files git tracks are copied to one scratch
directory per job (symlinks kept); the unmutated copy is first run once (the *baseline*: a
test that already fails on the unmutated tree would kill every mutant, so the baseline's
failures are deselected in every mutant's run and listed in the results); then each mutant's
file is rewritten in the job's copy (exact string replace, the original text must occur
exactly once), ``python -m pytest -m trust -x -q -n 0 -p no:cacheprovider`` runs there with
``PYTHONPATH`` set to the copy and no bytecode written, and the file is restored (also on an
exception or Ctrl-C; the scratch directories are removed at exit).

A mutant is *killed* when pytest exits 1 (a test failed; the first failing test id is
recorded), *timeout* when its run was killed at ``--timeout`` seconds twice (a run that times out is run
again once with twice the time, so that a busy machine does not pass for a hang), *error* when
pytest exited otherwise (collection or usage error: counted as killed, listed apart),
*survived* when the tier passed. Equivalent mutants (``Mutant.equivalent``) run but are left
out of the score. A timeout is **not** counted as killed (a hang is not a test that names the
bug); the lenient figure that counts it is printed beside:

.. math:: \text{score} = \frac{\text{killed} + \text{error}}
                              {\text{mutants run} - \text{equivalent}}.

Results: a table (tabulate), the score per area and overall, and ``--json`` (default
``benchmarks/redteam/results.json``) written atomically after every mutant; with ``--only``
the entries of the other mutants already in that file are kept, and so are the file's date and
commit (the run's); each entry carries the date and commit of the run that produced it.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import mutants  # noqa: E402
import mutants_round2  # noqa: E402
import mutants_round3  # noqa: E402
import mutants_round4  # noqa: E402
from mutants import ROOT, Mutant  # noqa: E402

#: The mutant sets: name → (module holding MUTANTS and by_id, default results file).
SETS = {"round1": (mutants, HERE / "results.json"),
        "round2": (mutants_round2, HERE / "results_round2.json"),
        "round3": (mutants_round3, HERE / "results_round3.json"),
        "round4": (mutants_round4, HERE / "results_round4.json")}
DEFAULT_JSON = SETS["round1"][1]
_LOCK = threading.Lock()
_PROCS: set[subprocess.Popen] = set()


def scratch_copy(dest: Path) -> None:
    """Copy every file git tracks (working-tree contents; symlinks as symlinks) to ``dest``."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        src, dst = ROOT / name, dest / name
        if not src.exists() and not src.is_symlink():
            continue                       # deleted in the working tree
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), dst)
        else:
            shutil.copy2(src, dst)


def pytest_command(tier: str, deselect: list[str], stop_first: bool = True) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-rfE"]
    if stop_first:
        cmd.append("-x")
    if tier == "trust":
        cmd += ["-m", "trust"]
    for test in deselect:
        cmd += ["--deselect", test]
    return cmd


_FAILED = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.M)


def run_tests(copy: Path, tier: str, deselect: list[str], timeout: float,
              stop_first: bool = True) -> dict:
    """Run the tier in ``copy``: status, failing test ids, seconds, the output's tail."""
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    start = time.monotonic()
    proc = subprocess.Popen(pytest_command(tier, deselect, stop_first), cwd=copy, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    with _LOCK:
        _PROCS.add(proc)
    try:
        out, _ = proc.communicate(timeout=timeout)
        status = {0: "survived", 1: "killed"}.get(proc.returncode, "error")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        status = "timeout"
    finally:
        with _LOCK:
            _PROCS.discard(proc)
    failed = _FAILED.findall(out or "")
    return {"status": status, "returncode": proc.returncode, "failed": failed,
            "seconds": round(time.monotonic() - start, 1),
            "tail": "\n".join((out or "").strip().splitlines()[-3:])}


def write_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def score(entries: list[dict]) -> dict:
    counted = [e for e in entries if not e.get("equivalent") and e["status"] != "not-applied"]
    dead = [e for e in counted if e["status"] in ("killed", "error")]
    hung = sum(e["status"] == "timeout" for e in counted)
    return {"killed": len(dead), "counted": len(counted),
            "percent": round(100 * len(dead) / len(counted), 1) if counted else None,
            "percent_with_timeouts": (round(100 * (len(dead) + hung) / len(counted), 1)
                                      if counted else None),
            "timeout": hung,
            "error": sum(e["status"] == "error" for e in counted),
            "equivalent": sum(bool(e.get("equivalent")) for e in entries)}


def report(data: dict) -> str:
    from tabulate import tabulate

    rows = [(e["id"], e["area"], f"{e['file']}:{e['line']}", e["status"]
             + (" (equivalent)" if e.get("equivalent") else ""),
             (e["first_failure"] or "")[-70:], e["seconds"]) for e in data["mutants"]]
    lines = [tabulate(rows, headers=["id", "area", "where", "result", "first failing test",
                                     "s"])]
    areas = sorted({e["area"] for e in data["mutants"]})
    per_area = []
    for area in areas:
        s = score([e for e in data["mutants"] if e["area"] == area])
        per_area.append((area, s["killed"], s["counted"], s["percent"]))
    lines += ["", tabulate(per_area, headers=["area", "killed", "counted", "%"])]
    s = data["score"]
    lines.append(f"\nscore: {s['killed']} / {s['counted']} killed ({s['percent']} %); "
                 f"{s['error']} of them by a pytest error; {s['timeout']} timed out twice (not "
                 f"counted as killed; {s.get('percent_with_timeouts')} % if they were); "
                 f"{s['equivalent']} equivalent (not counted)")
    survivors = [e for e in data["mutants"] if e["status"] == "survived"
                 and not e.get("equivalent")]
    if survivors:
        lines.append("survivors:")
        lines += [f"  {e['id']} ({e['file']}:{e['line']}): {e['wrong']}" for e in survivors]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="run only this mutant (repeatable, or comma-separated)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel runs (at most 2; default 1)")
    ap.add_argument("--tier", choices=("trust", "default"), default="trust")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant run")
    ap.add_argument("--set", choices=tuple(SETS), default="round1", dest="mutant_set",
                    help="which mutants: round1 (default), round2, round3 or round4 (the "
                         "held-out rounds)")
    ap.add_argument("--json", type=Path, default=None,
                    help="results file (default: results.json for round1, "
                         "results_round2.json for round2, results_round3.json for round3, "
                         "results_round4.json for round4)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--reuse-baseline", action="store_true",
                    help="take the baseline's failing tests from the --json file of an earlier "
                         "run of the same commit instead of running the baseline again")
    args = ap.parse_args(argv)
    if not 1 <= args.jobs <= 2:
        ap.error("--jobs must be 1 or 2 (the machine is shared)")
    module, default_json = SETS[args.mutant_set]
    if args.json is None:
        args.json = default_json
    all_mutants: list[Mutant] = list(module.MUTANTS)
    table = module.by_id()
    wanted = [i for spec in args.only for i in spec.split(",") if i]
    unknown = [i for i in wanted if i not in table]
    if unknown:
        ap.error(f"unknown mutant id(s): {', '.join(unknown)}")
    chosen: list[Mutant] = [table[i] for i in wanted] if wanted else list(all_mutants)
    if args.list:
        for m in chosen:
            print(f"{m.id:32} {m.file}:{m.line()}  {m.rule}")
        return 0

    # every mutant must apply to the current tree before anything runs
    for m in chosen:
        hits = m.source().count(m.original)
        if hits != 1:
            print(f"{m.id}: the original text occurs {hits} times in {m.file}", file=sys.stderr)
            return 2

    previous: dict[str, dict] = {}
    old: dict = {}
    if args.json.exists():
        old = json.loads(args.json.read_text(encoding="utf-8"))
    if wanted:
        previous = {e["id"]: e for e in old.get("mutants", [])}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    data: dict = {"date": started,
                  "set": args.mutant_set, "commit": head, "tier": args.tier, "timeout_s": args.timeout,
                  "command": " ".join(pytest_command(args.tier, [])[1:]),
                  "baseline": None, "mutants": [], "score": None}
    if wanted and old.get("date"):  # a partial re-run: the file stays the original run's
        data.update(date=old["date"], commit=old.get("commit"),
                    reruns=old.get("reruns", []) + [{"date": started, "commit": head,
                                                     "only": wanted}])
    tmp_root = Path(tempfile.mkdtemp(prefix="attnio-redteam-"))
    copies = []
    try:
        for j in range(args.jobs):
            copy = tmp_root / f"job{j}"
            scratch_copy(copy)
            copies.append(copy)
        if args.reuse_baseline and old.get("baseline") and old.get("tier") == args.tier:
            base = {"status": old["baseline"]["status"], "failed": old["baseline"]["failing"],
                    "seconds": old["baseline"]["seconds"], "tail": ""}
            print("baseline: reused from", args.json, flush=True)
        else:
            print(f"baseline: the unmutated tree, {args.tier} tier (no -x) ...", flush=True)
            base = run_tests(copies[0], args.tier, [], max(args.timeout, 900.0),
                             stop_first=False)
        deselect = sorted(set(base["failed"]))
        data["baseline"] = {"status": base["status"], "failing": deselect,
                            "seconds": base["seconds"]}
        print(f"baseline: {base['status']} in {base['seconds']} s; "
              f"{len(deselect)} failing test(s) deselected: {deselect}", flush=True)
        if base["status"] in ("timeout", "error"):
            print(f"baseline run unusable:\n{base['tail']}", file=sys.stderr)
            return 2

        todo: queue.Queue[tuple[int, Mutant]] = queue.Queue()
        for k, m in enumerate(chosen):
            todo.put((k, m))
        results: dict[str, dict] = {}

        def save() -> None:
            merged = dict(previous)
            merged.update(results)
            order = [m.id for m in all_mutants if m.id in merged]
            data["mutants"] = [merged[i] for i in order]
            data["score"] = score(data["mutants"])
            write_atomic(args.json, data)

        def worker(copy: Path) -> None:
            while True:
                try:
                    k, m = todo.get_nowait()
                except queue.Empty:
                    return
                path = copy / m.file
                pristine = path.read_text(encoding="utf-8")
                try:
                    m.apply(copy)
                    got = run_tests(copy, args.tier, deselect, args.timeout)
                    if got["status"] == "timeout":  # busy machine or a hang: once more, 2x
                        got = run_tests(copy, args.tier, deselect, 2 * args.timeout)
                finally:
                    path.write_text(pristine, encoding="utf-8")
                entry = {"id": m.id, "area": m.area, "file": m.file, "line": m.line(),
                         "rule": m.rule, "wrong": m.wrong, "original": m.original,
                         "replacement": m.replacement, "equivalent": m.equivalent,
                         "status": got["status"],
                         "first_failure": got["failed"][0] if got["failed"] else None,
                         "seconds": got["seconds"], "run_date": started,
                         "run_commit": head}
                if got["status"] == "error":
                    entry["tail"] = got["tail"]
                with _LOCK:
                    results[m.id] = entry
                    save()
                    print(f"[{len(results):3}/{len(chosen)}] {m.id:32} {got['status']:9} "
                          f"{got['seconds']:7.1f} s  {entry['first_failure'] or ''}",
                          flush=True)

        threads = [threading.Thread(target=worker, args=(c,), daemon=True) for c in copies]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(timeout=0.5)
        save()
        print(report(data))
        print(f"wrote {args.json}")
        return 0
    except KeyboardInterrupt:
        with _LOCK:
            for proc in list(_PROCS):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        print("\ninterrupted; the results so far are in the results file", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
