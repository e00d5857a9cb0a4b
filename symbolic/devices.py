r"""The device table: memory levels of real accelerators, every number with its source.

The table is the data file ``symbolic/devices.json`` (installed as package data of
:mod:`attnio.symbolic`), not Python literals. :func:`load_device_table` reads and validates
it; a malformed table raises :class:`~attnio.exceptions.InvalidInputError` naming the field
(``devices[2].levels[1].bytes.value``) and the rule. The hardware advisor
(:mod:`attnio.algorithms.advisor`) and the memory hierarchy
(:mod:`attnio.algorithms.hierarchy`) both read this one table.

Each number is a record ``{"value", "source", "where", "sure"}``:

* ``value`` — a positive integer (bytes, or bytes per second), or ``null`` when the vendor
  does not publish the figure; a ``null`` carries a ``reason``;
* ``source`` — a key of the table's ``"sources"`` (document name and year);
* ``where`` — the section / table of that document (``null`` for unpublished figures);
* ``sure`` — ``false`` marks a figure quoted without certainty (the table was compiled
  offline from the named documents; see ``notes/hardware.md``).

Each device has ``id`` (lower case), ``aliases``, ``name``, ``units`` (SMs or CUs, with a
``count`` record), ``advisor_level`` (the level the advisor treats as the cache M) and
``levels``, fastest first: ``name``, ``scope`` (``"per-unit"``: per SM / CU; ``"chip"``),
``bytes``, ``bandwidth`` (bytes/s at which this level feeds the level above it) and, for the
advisor level, ``bytes_per_block`` (the most one thread block may allocate).

Examples
--------
>>> table = load_device_table()
>>> sorted({"a100-40gb", "h100-sxm", "h200", "b200", "mi300x", "l4", "rtx4090"} - set(table))
[]
>>> find_device("H100").id, find_device("a100").id
('h100-sxm', 'a100-40gb')
>>> find_device("h100").level("HBM").bandwidth.value
3350000000000
>>> find_device("tpu")
Traceback (most recent call last):
...
attnio.exceptions.InvalidInputError: device='tpu' is unknown; valid devices: a100-40gb (a100), h100-sxm (h100), h200, b200, mi300x, l4, rtx4090, rtx3090, gtx1060, spr-l1d, spr-l2
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from attnio.exceptions import InvalidInputError
from attnio.results import JsonFields

__all__ = ["Sourced", "Level", "DeviceSpec", "load_device_table", "parse_device_table",
           "find_device", "device_ids", "TABLE_RESOURCE"]

#: The package resource holding the table.
TABLE_RESOURCE = "devices.json"

_SCOPES = ("per-unit", "chip")


@dataclass(frozen=True, slots=True)
class Sourced(JsonFields):
    """One number of the table with its source (``value`` None: not published, see ``reason``,
    the table's own field name). ``to_json()``: :class:`attnio.results.JsonFields`."""

    value: int | None
    source: str
    where: str | None
    sure: bool
    reason: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class Level:
    """One memory level of a device."""

    name: str
    scope: str
    bytes: Sourced
    bandwidth: Sourced
    bytes_per_block: Sourced | None = None


@dataclass(frozen=True, slots=True)
class DeviceSpec:
    """One device of the table."""

    id: str
    aliases: tuple[str, ...]
    name: str
    unit_name: str
    unit_count: Sourced
    advisor_level: str
    levels: tuple[Level, ...]
    sources: Mapping[str, str]

    def level(self, name: str) -> Level:
        """The level called ``name``.

        >>> find_device("mi300x").level("Infinity Cache").bytes.value // 2**20
        256
        """
        for lvl in self.levels:
            if lvl.name == name:
                return lvl
        raise InvalidInputError(f"device {self.id} has no level {name!r}; levels: "
                                f"{', '.join(lvl.name for lvl in self.levels)}")

    def cite(self, record: Sourced) -> str:
        """``document — where`` for one number (or the reason it is unpublished)."""
        doc = self.sources[record.source]
        if record.value is None:
            return f"not published ({record.reason}); {doc}"
        return f"{doc}: {record.where}" + ("" if record.sure else " [unsure]")


def _fail(field: str, rule: str) -> InvalidInputError:
    return InvalidInputError(f"device table: {field} {rule}")


def _str(obj: Mapping[str, Any], key: str, field: str, *, allow_none: bool = False) -> Any:
    if key not in obj:
        raise _fail(f"{field}.{key}", "is missing")
    value = obj[key]
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"{field}.{key}={value!r}", "must be a non-empty string")
    return value


def _record(obj: Any, field: str, sources: Mapping[str, str]) -> Sourced:
    if not isinstance(obj, dict):
        raise _fail(field, "must be an object {value, source, where, sure}")
    if "value" not in obj:
        raise _fail(f"{field}.value", "is missing")
    value = obj["value"]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise _fail(f"{field}.value={value!r}", "must be a positive integer or null")
    source = _str(obj, "source", field)
    if source not in sources:
        raise _fail(f"{field}.source={source!r}", "is not a key of the table's sources")
    where = _str(obj, "where", field, allow_none=value is None)
    sure = obj.get("sure")
    if not isinstance(sure, bool):
        raise _fail(f"{field}.sure={sure!r}", "must be true or false")
    reason = obj.get("reason", "")
    if value is None and (not isinstance(reason, str) or not reason.strip()):
        raise _fail(f"{field}.reason", "must say why the value is null (not published)")
    return Sourced(value, source, where, sure, str(reason), str(obj.get("note", "")))


def parse_device_table(data: Any) -> dict[str, DeviceSpec]:
    """Validate a parsed table and return its devices by id (lower case).

    >>> parse_device_table({"sources": {}, "devices": [{"id": "x"}]})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: device table: devices[0].aliases is missing
    """
    if not isinstance(data, dict):
        raise _fail("top level", "must be an object with 'sources' and 'devices'")
    sources = data.get("sources")
    if not isinstance(sources, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in sources.items()):
        raise _fail("sources", "must map keys to non-empty document names")
    devices = data.get("devices")
    if not isinstance(devices, list) or not devices:
        raise _fail("devices", "must be a non-empty list")
    table: dict[str, DeviceSpec] = {}
    names_seen: set[str] = set()
    for i, dev in enumerate(devices):
        field = f"devices[{i}]"
        if not isinstance(dev, dict):
            raise _fail(field, "must be an object")
        ident = _str(dev, "id", field)
        if ident != ident.lower():
            raise _fail(f"{field}.id={ident!r}", "must be lower case")
        if "aliases" not in dev:
            raise _fail(f"{field}.aliases", "is missing")
        aliases = dev["aliases"]
        if not isinstance(aliases, list) or not all(
                isinstance(a, str) and a == a.lower() and a for a in aliases):
            raise _fail(f"{field}.aliases", "must be a list of lower-case names")
        for key in (ident, *aliases):
            if key in names_seen:
                raise _fail(f"{field}: name {key!r}", "is used twice")
            names_seen.add(key)
        units = dev.get("units")
        if not isinstance(units, dict):
            raise _fail(f"{field}.units", "must be an object {name, count}")
        unit_name = _str(units, "name", f"{field}.units")
        unit_count = _record(units.get("count"), f"{field}.units.count", sources)
        levels_data = dev.get("levels")
        if not isinstance(levels_data, list) or not levels_data:
            raise _fail(f"{field}.levels", "must be a non-empty list, fastest first")
        levels: list[Level] = []
        for j, lvl in enumerate(levels_data):
            lfield = f"{field}.levels[{j}]"
            if not isinstance(lvl, dict):
                raise _fail(lfield, "must be an object")
            scope = _str(lvl, "scope", lfield)
            if scope not in _SCOPES:
                raise _fail(f"{lfield}.scope={scope!r}", f"must be one of {', '.join(_SCOPES)}")
            per_block = lvl.get("bytes_per_block")
            levels.append(Level(
                _str(lvl, "name", lfield), scope,
                _record(lvl.get("bytes"), f"{lfield}.bytes", sources),
                _record(lvl.get("bandwidth"), f"{lfield}.bandwidth", sources),
                None if per_block is None else
                _record(per_block, f"{lfield}.bytes_per_block", sources)))
        advisor_level = _str(dev, "advisor_level", field)
        spec = DeviceSpec(ident, tuple(aliases), _str(dev, "name", field), unit_name,
                          unit_count, advisor_level, tuple(levels), sources)
        adv = next((lvl for lvl in levels if lvl.name == advisor_level), None)
        if adv is None or adv.bytes.value is None or adv.bytes_per_block is None \
                or adv.bytes_per_block.value is None:
            raise _fail(f"{field}.advisor_level={advisor_level!r}",
                        "must name a level with bytes and bytes_per_block values")
        if adv.bytes_per_block.value > adv.bytes.value:
            raise _fail(f"{field}.levels: bytes_per_block", "must not exceed bytes")
        table[ident] = spec
    return table


@lru_cache(maxsize=1)
def load_device_table() -> dict[str, DeviceSpec]:
    """The installed table, parsed and validated (cached)."""
    text = resources.files("attnio.symbolic").joinpath(TABLE_RESOURCE).read_text("utf-8")
    return parse_device_table(json.loads(text))


def device_ids() -> list[str]:
    """Ids and aliases, as shown in messages: ``a100-40gb (a100), h100-sxm (h100), ...``."""
    return [dev.id + (f" ({', '.join(dev.aliases)})" if dev.aliases else "")
            for dev in load_device_table().values()]


def find_device(name: str) -> DeviceSpec:
    """The device with this id or alias, case-insensitive.

    Raises
    ------
    InvalidInputError
        Unknown name (the message lists the ids, aliases in parentheses).
    """
    key = str(name).strip().lower()
    for dev in load_device_table().values():
        if key == dev.id or key in dev.aliases:
            return dev
    raise InvalidInputError(f"device={name!r} is unknown; valid devices: {', '.join(device_ids())}")
