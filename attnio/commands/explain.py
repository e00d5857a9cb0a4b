"""``attnio explain [TERM]``: what a word printed by attnio means (:mod:`attnio.glossary`).

Usage::

    attnio explain io/LB
    attnio explain "segment products"
    attnio explain            # every term, one per line

An unknown term is exit 2 with one line naming the closest terms.

>>> from attnio.cli import main
>>> main(["explain", "io/own O(·)"])  # doctest: +ELLIPSIS
io/own O(·) — `attnio simulate`: counted io ÷ the algorithm's own upper-bound formula from the
...
0
"""

from __future__ import annotations

import argparse
import difflib

from attnio.exceptions import InvalidInputError
from attnio.flags import add_wide_argument, table_width
from attnio.glossary import GLOSSARY, explain, glossary_markdown, lookup, terms
from attnio.output import print_document
from attnio.validation import describe

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``explain`` subcommand."""
    parser = subparsers.add_parser(
        "explain", help="what a word printed by attnio means (the glossary)",
        description="Define a term printed by attnio's tables and verdicts; without TERM, "
                    "list every term.")
    term = parser.add_argument("term", nargs="?", metavar="TERM",
                               help="a column header or word")
    term.complete_values = terms()  # type: ignore[attr-defined]  # one-word terms complete
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true",
                     help="print the whole glossary as Markdown (notes/glossary.md)")
    out.add_argument("--json", action="store_true",
                     help="print {term: definition} (one term, or every term) as JSON")
    add_wide_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Handle ``attnio explain``; exit 0, or 2 for an unknown term."""
    if args.markdown:
        print(glossary_markdown(), end="")
        return 0
    if args.json:
        chosen = terms() if args.term is None else [_found(args.term)]
        print_document("explain", "computed", {"terms": {t: GLOSSARY[t] for t in chosen}})
        return 0
    if args.term is None:
        for term in terms():
            print(term)
        return 0
    print(explain(_found(args.term), table_width(args)))
    return 0


def _found(term: str) -> str:
    """The glossary term ``term`` names; InvalidInputError (exit 2) with close terms if none."""
    found = lookup(term)
    if found is None:
        close = difflib.get_close_matches(term, list(GLOSSARY), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else "; attnio explain lists them"
        raise InvalidInputError(f"term {describe(term, 60)} is not in the glossary{hint}")
    return found
