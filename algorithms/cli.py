"""`attnio simulate` — placeholder until its issue lands."""

from __future__ import annotations

import argparse

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("simulate", help="(not implemented yet)")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    print("attnio simulate: not implemented yet")
    return 1
