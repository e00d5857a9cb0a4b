from __future__ import annotations

import json

import pytest

from attnio.results import Proved, Refuted, Undecided, all_proved, with_seconds


def test_only_proved_is_a_pass() -> None:
    assert Proved().proved
    assert not Refuted({"x": 1}).proved
    assert not Undecided("z3 unknown").proved


def test_all_proved_rejects_empty_and_undecided() -> None:
    assert all_proved([Proved(), Proved()])
    assert not all_proved([])
    assert not all_proved([Proved(), Undecided("timeout")])
    assert not all_proved([Refuted(None)])


def test_json_and_seconds() -> None:
    r = with_seconds(Refuted({"M": 3}, "too big"), 0.25)
    assert r.to_json() == {"verdict": "refuted", "counterexample": {"M": 3}, "detail": "too big",
                           "seconds": 0.25, "evidence": None}
    assert Undecided("budget").to_json()["verdict"] == "undecided"


def test_verdicts_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Proved().detail = "x"  # type: ignore[misc]


# ------------------------------------------------------------------ one status vocabulary
def _every_result_type() -> dict[str, object]:
    """One instance of every result type attnio returns, built on tiny inputs (≈ 1 s)."""
    import networkx as nx

    from attnio.graphs.dags import matmul_dag
    from attnio.graphs.exact import solve_optimal
    from attnio.graphs.exact_z3 import solve_time_indexed
    from attnio.graphs.partitions import min_partition_parts
    from attnio.parallel import InstanceFailed
    from attnio.proofs.sandwich import Instance, sandwich_row
    from attnio.symbolic.dominance import DENSE_INSTANCE, compare

    small = nx.DiGraph([("a", "c"), ("b", "c")])
    inst = Instance("matmul 1x2x1", "matmul", {"m": 1, "k": 2, "p": 1}, (4,))
    return {
        "Proved": Proved(), "Refuted": Refuted({"x": 1}), "Undecided": Undecided("budget"),
        "pebble optimal": solve_optimal(small, 3, progress=False),
        "pebble infeasible": solve_optimal(small, 2, progress=False),
        "pebble undecided": solve_optimal(matmul_dag(2, 2, 2), 3, max_states=5,
                                         progress=False),
        "time-indexed complete": solve_time_indexed(small, 3, recompute=False),
        "time-indexed horizon": solve_time_indexed(small, 3),
        "PartitionResult exact": min_partition_parts(small, 2, timeout_ms=5_000),
        "PartitionResult undecided": min_partition_parts(matmul_dag(2, 2, 2), 1, timeout_ms=1),
        "DominanceResult decided": compare("bwd.flash1.upper", "bwd.alg6.upper"),
        "DominanceResult undecided": compare("matmul.hk_explicit.lower", "matmul.hk.lower",
                                             substitute=DENSE_INSTANCE),
        "SandwichRow": sandwich_row(inst, inst.build(), 4, timeout_ms=5_000, time_limit=10,
                                    schedules_fn=lambda G, M: {}),
        "InstanceFailed": InstanceFailed(("G", 3), "worker died"),
    }


EXPECTED_STATUS = {
    "Proved": "proved", "Refuted": "refuted", "Undecided": "undecided",
    "pebble optimal": "optimal", "pebble infeasible": "infeasible",
    "pebble undecided": "undecided",
    "time-indexed complete": "optimal", "time-indexed horizon": "undecided",
    "PartitionResult exact": "optimal", "PartitionResult undecided": "undecided",
    "DominanceResult decided": "proved", "DominanceResult undecided": "undecided",
    "SandwichRow": "proved", "InstanceFailed": "undecided",
}


@pytest.fixture(scope="module")
def every_result() -> dict[str, object]:
    return _every_result_type()


def test_status_is_one_str_enum() -> None:
    from attnio.results import CLAIM_STATUSES, SEARCH_STATUSES, Status

    assert {s.value for s in Status} == {"proved", "refuted", "undecided", "optimal",
                                         "infeasible", "computed"}
    assert set(CLAIM_STATUSES) | set(SEARCH_STATUSES) | {Status.COMPUTED} == set(Status)
    assert set(CLAIM_STATUSES) & set(SEARCH_STATUSES) == {Status.UNDECIDED}
    for member in Status:
        assert json.dumps(member) == f'"{member.value}"' and str(member) == member.value
        assert f"{member}" == member.value and repr(member) == repr(member.value)


@pytest.mark.parametrize("name", sorted(EXPECTED_STATUS))
def test_every_result_type_speaks_the_status_vocabulary(every_result, name: str) -> None:
    from attnio.results import Status

    result = every_result[name]
    # claims and pebbling results name it ``verdict``; the other searches still ``status``
    answer = getattr(result, "verdict", None)
    if not isinstance(answer, Status):
        answer = result.status
    assert type(answer) is Status, (name, type(answer))
    assert answer.value == EXPECTED_STATUS[name]


def test_undecided_searches_carry_the_proven_bracket(every_result) -> None:
    pebble = every_result["pebble undecided"]
    assert isinstance(pebble.lower, int)
    horizon = every_result["time-indexed horizon"]
    assert horizon.lower <= horizon.upper and horizon.horizon is not None
    complete = every_result["time-indexed complete"]
    assert complete.lower == complete.upper == complete.io
    part = every_result["PartitionResult undecided"]
    assert part.lower < part.upper
    undecided = every_result["DominanceResult undecided"]
    assert undecided.outcome is undecided.status  # one spelling of "undecided"


def test_json_outputs_spell_the_status_by_its_value(every_result) -> None:
    from attnio.commands.pebble import result_to_json

    for name in ("pebble optimal", "pebble infeasible", "pebble undecided"):
        text = json.dumps(result_to_json(every_result[name], 3, True))
        assert json.loads(text)["verdict"] == EXPECTED_STATUS[name]
        assert json.loads(text) == {**every_result[name].to_json(), "M": 3, "recompute": True}
    row = json.loads(json.dumps(every_result["SandwichRow"].as_dict()))
    assert row["verdict"] == "proved" and row["optimum_bracket"] == [row["optimum"]] * 2
    for name in ("Proved", "Refuted", "Undecided"):
        assert json.loads(json.dumps(every_result[name].to_json()))["verdict"] == \
            EXPECTED_STATUS[name]


# ------------------------------------------------------------------ one JSON convention
def test_json_fields_rename_omit_and_nest() -> None:
    from dataclasses import dataclass, field

    from attnio.results import Evidence, JsonFields, Status

    @dataclass(frozen=True, slots=True)
    class Row(JsonFields):
        pass_: str
        words: int = field(metadata={"json": "capacity_words"})
        hidden: str = field(default="x", metadata={"json": False})
        ratio: float = float("nan")
        inner: Evidence = Evidence("exhaustive", instances=3, nontrivial_instances=2)
        verdict: Status = Status.OPTIMAL

    out = Row("forward", 7).to_json()
    assert list(out) == ["verdict", "pass", "capacity_words", "ratio", "inner"]
    assert out["verdict"] == "optimal" and type(out["verdict"]) is str
    assert out["ratio"] is None and out["inner"]["instances"] == 3
    assert json.loads(json.dumps(out, allow_nan=False)) == out


def test_overall_verdict_mirrors_the_exit_code() -> None:
    from attnio.results import Status, overall_verdict

    assert overall_verdict(["proved", "refuted", "undecided"]) is Status.REFUTED
    assert overall_verdict(["optimal", "undecided"]) is Status.UNDECIDED
    assert overall_verdict([]) is Status.UNDECIDED  # nothing answered is never a pass
    assert overall_verdict(["infeasible", "infeasible"]) is Status.INFEASIBLE
    assert overall_verdict(["optimal", "infeasible"]) is Status.PROVED
    assert overall_verdict(["computed"]) is Status.COMPUTED


def test_undecided_text_is_detail_with_reason_as_its_alias() -> None:
    u = Undecided("budget")
    assert u.detail == u.reason == "budget" and u.to_json()["detail"] == "budget"
