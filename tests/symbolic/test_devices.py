"""Tests for attnio.symbolic.devices: the device table loads, validates, cites every number."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from attnio.algorithms.advisor import DEVICES, get_device
from attnio.exceptions import InvalidInputError
from attnio.symbolic.devices import find_device, load_device_table, parse_device_table

REQUIRED = {"a100-40gb", "h100-sxm", "h200", "b200", "mi300x", "l4", "rtx4090"}


def _raw() -> dict:
    return json.loads(resources.files("attnio.symbolic").joinpath("devices.json")
                      .read_text("utf-8"))


def test_table_loads_from_the_installed_package_and_has_the_required_devices() -> None:
    table = load_device_table()
    assert REQUIRED <= set(table)
    for ident in REQUIRED:
        names = [lvl.name for lvl in table[ident].levels]
        assert names[0] == "registers" and names[1] == "shared memory" and "L2" in names


def test_every_number_has_a_source_or_a_reason() -> None:
    table = load_device_table()
    checked = 0
    for dev in table.values():
        records = [dev.unit_count]
        for lvl in dev.levels:
            records += [lvl.bytes, lvl.bandwidth]
            if lvl.bytes_per_block is not None:
                records.append(lvl.bytes_per_block)
        for rec in records:
            checked += 1
            assert rec.source in dev.sources and dev.sources[rec.source].strip()
            if rec.value is None:
                assert rec.reason.strip()
            else:
                assert rec.where and isinstance(rec.sure, bool)
            assert dev.cite(rec)
    assert checked > 60


@pytest.mark.parametrize("name, ident", [("a100-40gb", "a100-40gb"), ("A100", "a100-40gb"),
                                         ("h100-sxm", "h100-sxm"), ("H100", "h100-sxm"),
                                         ("h200", "h200"), ("B200", "b200"), ("MI300X", "mi300x"),
                                         ("l4", "l4"), ("RTX4090", "rtx4090")])
def test_ids_and_aliases_case_insensitive(name: str, ident: str) -> None:
    assert find_device(name).id == ident


def test_known_figures() -> None:
    h100 = find_device("h100")
    assert h100.level("shared memory").bytes.value == 228 * 1024
    assert h100.level("L2").bytes.value == 50 * 2**20
    assert h100.level("HBM").bandwidth.value == 3_350_000_000_000
    assert find_device("a100").level("HBM").bandwidth.value == 1_555_000_000_000
    assert find_device("mi300x").level("shared memory").bytes.value == 64 * 1024
    assert find_device("b200").unit_count.value is None  # not published: null + reason


def test_advisor_reads_the_same_table() -> None:
    for key, row in DEVICES.items():
        spec = find_device(key)
        level = spec.level(spec.advisor_level)
        assert row.bytes_per_unit == level.bytes.value
        assert row.bytes_per_block == level.bytes_per_block.value
    assert get_device("H100-SXM").bytes_per_unit == 228 * 1024


def _mutate(path: list, value: object) -> dict:
    data = copy.deepcopy(_raw())
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value, match", [
    (["devices", 1, "levels", 3, "bandwidth", "value"], -5,
     r"devices\[1\]\.levels\[3\]\.bandwidth\.value=-5 must be a positive integer or null"),
    (["devices", 1, "levels", 3, "bandwidth", "value"], 1.5e12, r"bandwidth\.value=.*integer"),
    (["devices", 0, "levels", 2, "bytes", "source"], "wikipedia", r"source='wikipedia' is not"),
    (["devices", 0, "levels", 2, "bytes", "sure"], KeyError, r"levels\[2\]\.bytes\.sure"),
    (["devices", 0, "levels", 2, "bandwidth", "reason"], KeyError, r"reason must say why"),
    (["devices", 0, "levels", 1, "scope"], "galaxy", r"scope='galaxy' must be one of"),
    (["devices", 2, "id"], "H200", r"devices\[2\]\.id='H200' must be lower case"),
    (["devices", 2, "id"], "h100", r"name 'h100' is used twice"),
    (["devices", 0, "advisor_level"], "L7", r"advisor_level='L7'"),
    (["devices", 0, "units", "count"], KeyError, r"devices\[0\]\.units\.count must be an object"),
    (["sources"], [], r"sources must map"),
])
def test_bad_tables_name_the_field(path: list, value: object, match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        parse_device_table(_mutate(path, value))


def test_the_unmutated_table_passes_the_same_parser() -> None:  # the twin of the test above
    assert set(parse_device_table(_raw())) == set(load_device_table())
