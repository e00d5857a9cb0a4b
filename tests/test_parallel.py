"""Tests of attnio.parallel: the Dask path against the serial run, dead workers, CLI flags.

The Dask tests need the ``parallel`` extra (marker ``extra``: skipped without it, failed in
CI); the serial path and the refusals run on the quickstart install."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from attnio.cli import main
from attnio.commands.pebble import PebbleJob, _solve_job
from attnio.exceptions import InvalidInputError
from attnio.graphs.dags import random_dag
from attnio.graphs.exact import min_cache_size
from attnio.parallel import InstanceFailed, map_instances

on_dask = pytest.mark.extra("parallel")


def _pebble_jobs(count: int) -> list:
    jobs = []
    seed = 0
    while len(jobs) < count:
        G = random_dag(5 + seed % 3, 0.5, seed=seed)
        lo = min_cache_size(G)
        for M in (lo, lo + 1):
            jobs.append(PebbleJob(G, M, seed % 2 == 0, 30.0))
        seed += 1
    return jobs[:count]


def _comparable(outcome: tuple) -> tuple:
    result, costs = outcome[:2]
    return (result.verdict, getattr(result, "io", None), getattr(result, "schedule", None),
            costs)


@on_dask
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_local_cluster_of_two_matches_the_serial_run_on_60_instances() -> None:
    jobs = _pebble_jobs(60)
    serial = map_instances(_solve_job, jobs)
    seen: list[int] = []
    parallel = map_instances(_solve_job, jobs, workers=2, processes=False,
                             on_result=lambda i, _r: seen.append(i))
    assert len(parallel) == len(serial) == 60
    assert [_comparable(o) for o in parallel] == [_comparable(o) for o in serial]
    assert all(o[0].verdict == "optimal" for o in serial)
    assert sorted(seen) == list(range(60))


def _square(x: int) -> int:
    return x * x


def _die_on_first_try(job: tuple[str, int]) -> int:
    marker, x = job
    if x == 3 and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)  # the worker process dies
    return x * x


def _die_always(x: int) -> int:
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x


@on_dask
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_a_dead_worker_is_retried_once_then_reported(tmp_path: Path) -> None:
    marker = str(tmp_path / "died-once")
    jobs = [(marker, x) for x in range(6)]
    assert map_instances(_die_on_first_try, jobs, workers=2) == [0, 1, 4, 9, 16, 25]
    assert os.path.exists(marker)
    results = map_instances(_die_always, range(6), workers=2)
    assert results[:3] == [0, 1, 4] and results[4:] == [16, 25]
    assert isinstance(results[3], InstanceFailed) and results[3].item == 3
    assert "worker died" in results[3].reason and "2 times" in results[3].reason


@on_dask
def test_exceptions_of_fn_are_raised_as_in_the_serial_run() -> None:
    with pytest.raises(ZeroDivisionError):
        map_instances(lambda x: 1 // x, [1, 0, 2])
    with pytest.raises(ZeroDivisionError):
        map_instances(lambda x: 1 // x, [1, 0, 2], workers=2, processes=False)


@pytest.mark.parametrize("kwargs", [{"workers": 0}, {"workers": True}, {"workers": 1.5},
                                    {"workers": 2, "scheduler": "tcp://x:1"},
                                    {"scheduler": ""}])
def test_bad_parallel_arguments(kwargs: dict) -> None:
    with pytest.raises(InvalidInputError):
        map_instances(_square, [1], **kwargs)


@on_dask
@pytest.mark.slow  # measured >= 1 s (issue 40): the --runslow tier
def test_pebble_workers_match_serial_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    paths = []
    for seed in range(3):
        G = random_dag(6, 0.5, seed=seed)
        path = tmp_path / f"g{seed}.json"
        path.write_text(json.dumps({"nodes": sorted(G), "edges": sorted(map(list, G.edges))}))
        paths.append(str(path))
    args = ["pebble", "--dag", *paths, "--cache", "3:5", "--json"]
    assert main(args) == 0
    serial = json.loads(capsys.readouterr().out)["instances"]
    assert main(args + ["--workers", "2"]) == 0
    parallel = json.loads(capsys.readouterr().out)["instances"]
    for row in serial + parallel:
        row.pop("seconds")
    assert parallel == serial and len(serial) == 9
    assert [row["dag"] for row in serial] == [p for p in paths for _ in range(3)]
    assert main(["pebble", "--dag", *paths, "--cache", "3:4"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines()
             if not line.startswith(" ")]  # a line past 100 columns goes on indented
    assert [line.split(": M=")[0] for line in lines] == [p for p in paths for _ in range(2)]


def test_pebble_workers_bad_values_exit_2(capsys: pytest.CaptureFixture) -> None:
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "3", "--workers", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    with pytest.raises(SystemExit) as info:  # argparse: mutually exclusive options
        main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "3", "--workers", "2",
              "--scheduler", "tcp://x:1"])
    assert info.value.code == 2


def test_workers_without_dask_is_exit_2_naming_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture) -> None:
    """issue 23: dask is the ``parallel`` extra; --workers without it is one line, exit 2,
    before any work; the serial run needs no dask."""
    import attnio.extras

    monkeypatch.setitem(attnio.extras.EXTRAS, "parallel", ("attnio_no_such_dask",))
    for flag in (["--workers", "2"], ["--scheduler", "tcp://127.0.0.1:1"]):
        assert main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "3", *flag]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1
        assert f"{flag[0]} needs attnio_no_such_dask" in captured.err
        assert "install attnio[parallel]" in captured.err
    with pytest.raises(ImportError, match=r"attnio\[parallel\]"):  # also an ImportError
        map_instances(_square, [1, 2], workers=2)
    assert map_instances(_square, [1, 2, 3]) == [1, 4, 9]
    assert main(["pebble", "--builtin", "matmul:1x1x1", "--cache", "3"]) == 0
