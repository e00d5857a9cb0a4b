"""Shared by the tests of the claim modules of attnio.proofs."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``entry`` runs once per default-tier claim and once per false twin of
    the claim module its file mirrors (``tests/proofs/test_<name>.py`` →
    ``attnio.proofs.<name>``: its ``CLAIMS`` and ``FALSE_TWINS``), each case named by the
    claim's id — one selection for every claim module's test of its verdicts
    (:meth:`attnio.proofs.registry.Claim.as_declared`).
    (A test that takes ``deep_claim`` runs once per deep-tier claim of that module.)"""
    wanted = {"entry", "deep_claim"} & set(metafunc.fixturenames)
    if not wanted:
        return
    name = Path(str(metafunc.module.__file__)).stem.removeprefix("test_")
    module = importlib.import_module(f"attnio.proofs.{name}")
    if "entry" in wanted:
        entries = [c for c in module.CLAIMS if c.tier == "default"] + list(module.FALSE_TWINS)
        metafunc.parametrize("entry", entries, ids=lambda c: c.id)
    if "deep_claim" in wanted:
        deep = [c for c in module.CLAIMS if c.tier == "deep"]
        metafunc.parametrize("deep_claim", deep, ids=lambda c: c.id)
