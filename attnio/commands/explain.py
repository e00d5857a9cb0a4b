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
from attnio.glossary import GLOSSARY, explain, glossary_markdown, terms
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
    parser.add_argument("--markdown", action="store_true",
                        help="print the whole glossary as Markdown (notes/glossary.md)")
    add_wide_argument(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Handle ``attnio explain``; exit 0, or 2 for an unknown term."""
    if args.markdown:
        print(glossary_markdown(), end="")
        return 0
    if args.term is None:
        for term in terms():
            print(term)
        return 0
    try:
        print(explain(args.term, table_width(args)))
    except KeyError:
        close = difflib.get_close_matches(args.term, list(GLOSSARY), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else "; attnio explain lists them"
        raise InvalidInputError(f"term {describe(args.term, 60)} is not in the glossary"
                                f"{hint}") from None
    return 0
