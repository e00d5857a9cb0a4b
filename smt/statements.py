r"""Statements as sympy terms: declared domains and the parser of ``attnio prove``'s text.

The z3-free part of the proof kernel (:mod:`attnio.smt.kernel`): a symbol's domain comes from
its declaration (:func:`declared_domain`, :func:`symbol_for`), never from its name; a
statement's text is parsed by :func:`parse_statement` with a fixed namespace of functions
(connectives kept as written, so that definedness is judged on the statement as typed), the
caps of :mod:`attnio.smt.term_limits` checked before any term is built. Importing this module
imports no solver (``attnio bounds`` uses it without z3).
"""

from __future__ import annotations

import re
from tokenize import TokenError
from typing import Any, Iterable, Mapping, Sequence

import sympy as sp

from attnio.exceptions import InvalidInputError
from attnio.smt.definedness import as_written
from attnio.smt.term_limits import checked_namespace, validate_number_literals

__all__ = ["DOMAINS", "declared_domain", "declared_domains", "symbol_for", "parse_statement",
           "statement_text", "value_text"]

#: The domains a symbol may be declared in.
DOMAINS = ("real", "positive", "nonnegative", "integer", "positive-integer",
           "nonnegative-integer")


_MAX_STATEMENT_CHARS = 20_000

DOMAIN_ASSUMPTIONS = {
    "real": {"real": True},
    "positive": {"positive": True},
    "nonnegative": {"nonnegative": True},
    "integer": {"integer": True},
    "positive-integer": {"positive": True, "integer": True},
    "nonnegative-integer": {"nonnegative": True, "integer": True},
}


def declared_domain(sym: sp.Symbol) -> str | None:
    """The domain a sympy symbol's own assumptions declare, or ``None`` if they declare none.

    >>> declared_domain(sp.Symbol("M", positive=True, integer=True))
    'positive-integer'
    >>> declared_domain(sp.Symbol("M")) is None      # the name "M" means nothing
    True
    """
    if sym.is_integer:
        if sym.is_positive:
            return "positive-integer"
        return "nonnegative-integer" if sym.is_nonnegative else "integer"
    if sym.is_positive:
        return "positive"
    if sym.is_nonnegative:
        return "nonnegative"
    return "real" if sym.is_real else None


def declared_domains(expressions: Iterable[sp.Basic], what: str = "symbol"
                     ) -> dict[sp.Symbol, str]:
    """Every free symbol of ``expressions`` (sorted by name) with its declared domain; a
    symbol that declares none is refused, naming it (never guessed from its name).

    >>> n = sp.Symbol("n", positive=True, integer=True)
    >>> declared_domains([n + 1])
    {n: 'positive-integer'}
    >>> declared_domains([sp.Symbol("x") > 0], "exponent symbol")
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: exponent symbol x declares no domain (give it sympy assumptions)
    """
    symbols = sorted(set().union(*(e.free_symbols for e in expressions)), key=str)
    domains: dict[sp.Symbol, str] = {}
    for sym in symbols:
        domain = declared_domain(sym)
        if domain is None:
            raise InvalidInputError(f"{what} {sym} declares no domain (give it sympy assumptions)")
        domains[sym] = domain
    return domains


def symbol_for(name: str, domain: str) -> sp.Symbol:
    """A sympy symbol named ``name`` whose assumptions declare ``domain``."""
    if domain not in DOMAINS:
        raise InvalidInputError(f"domain {domain!r} of {name!r} must be one of {', '.join(DOMAINS)}")
    return sp.Symbol(name, **DOMAIN_ASSUMPTIONS[domain])


# ------------------------------------------------------------------------------- parsing
_ALLOWED_TEXT = re.compile(r"^[A-Za-z0-9_ \t\n+\-*/().,<>=!&|~^]*$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_FUNCTIONS: dict[str, Any] = {
    name: getattr(sp, name) for name in (
        "And", "Or", "Not", "Implies", "Equivalent", "Xor", "Min", "Max", "sqrt", "root",
        "Rational", "Integer", "Abs", "Piecewise", "floor", "ceiling", "pi", "E", "cos", "sin",
        "tan", "exp", "log", "true", "false",
    )
}
_FUNCTIONS.update({"True": sp.true, "False": sp.false})
# Spellings researchers type: ln is log, log2 and log10 are log(a, 2) and log(a, 10).
_FUNCTIONS.update({
    "ln": lambda a, **_: sp.log(a, evaluate=False),
    "log2": lambda a, **_: sp.log(a, 2, evaluate=False),
    "log10": lambda a, **_: sp.log(a, 10, evaluate=False),
})
# Connectives stay as written: sympy would fold Or(1/x > 0, 1/x <= 0) to True — hiding
# that the statement is undefined at x = 0 — and decide Xor(x > 0, x <= 0) itself.
_FUNCTIONS.update({
    cls.__name__: (lambda c: lambda *args, **_: as_written(c, *args))(cls)
    for cls in (sp.And, sp.Or, sp.Not, sp.Implies, sp.Equivalent, sp.Xor)})
# The functions that evaluate their arguments: built through term_limits' checks.
_EVALUATING = ("Min", "Max", "sqrt", "root", "Rational", "Integer", "Abs", "Piecewise", "floor",
               "ceiling", "cos", "sin", "tan", "exp", "log", "ln", "log2", "log10")
# Implication arrows people type for Implies (a SyntaxError, or a character refused, without
# this hint).
_ARROWS = ("=>", "->", "⇒", "→", "⟹")
# A decimal literal, scientific notation included (read as an exact rational, not a word).
_DECIMAL = re.compile(r"(?<![A-Za-z_0-9])\d+\.?\d*(?:[eE][+-]?\d+)?|(?<![A-Za-z_0-9])\.\d+(?:[eE][+-]?\d+)?")
# Relations stay unevaluated, so that sympy never decides a statement before the kernel does.
_FUNCTIONS.update({
    name: (lambda rel: lambda a, b, **_: rel(a, b, evaluate=False))(getattr(sp, name))
    for name in ("Eq", "Ne", "Le", "Lt", "Ge", "Gt")
})


def parse_statement(text: str, domains: Mapping[str, str]) -> tuple[sp.Basic, dict[sp.Symbol, str]]:
    """Parse a statement in sympy syntax with every symbol declared in ``domains``.

    Returns the unevaluated statement and ``{symbol: domain}``. Relations stay unevaluated,
    so the solvers — not sympy's sign rules — decide them. Decimals are exact: ``0.1`` is
    read as ``1/10`` (sympy's ``rationalize``), never as the binary float nearest to it.
    Scientific notation is exact too: ``1e308*10`` is ``10**309``. ``True`` and ``False`` are
    the boolean constants inside a statement (``Piecewise((x, x > 0), (-x, True))``); a
    statement that *is* a constant (``true``) is refused: it has no relation to prove.
    ``^`` is refused: in sympy syntax it is exclusive-or, not a power; so are the arrows
    ``=>``, ``->`` and ``⇒`` (write ``Implies(A, B)``). ``ln`` is ``log``, ``log2`` and
    ``log10`` the logarithms ``log(a, 2)`` and ``log(a, 10)``. Exponents, root
    indices, constants and number literals are capped while the terms are built
    (:mod:`attnio.smt.term_limits`: ``n**(10**8)`` and ``root(n, 10**9)`` are input
    errors naming the exponent and the cap, never a polynomial of that degree), and a
    constant exponent is stored as the exact rational it is (``n**(1/3)``).

    Raises
    ------
    InvalidInputError
        Characters outside arithmetic and logic, a name that is not a symbol, an undeclared
        symbol, an unsupported function, a bad domain, a malformed or oversized number, an
        exponent or root index beyond the caps, ``Min()`` / ``Max()`` without arguments, or
        a statement that is not a relation or a boolean combination (a constant included).

    Examples
    --------
    >>> s, doms = parse_statement("Implies(M >= d**2, d/sqrt(M) <= 1)",
    ...                           {"M": "positive", "d": "positive-integer"})
    >>> s
    Implies(M >= d**2, d/(sqrt(M)) <= 1)
    >>> parse_statement("x > 0", {})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: symbol 'x' is not declared: add --var x:DOMAIN (one of real, positive, nonnegative, integer, positive-integer, nonnegative-integer)
    >>> parse_statement("Eq(0.1 + 0.2, 0.3)", {})[0]
    Eq(1/10 + 1/5, 3/10)
    >>> parse_statement("x > 1 => x > 0", {"x": "real"})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: STATEMENT uses '=>': write an implication as Implies(A, B), e.g. Implies(x > 1, x**2 > 1)
    >>> parse_statement("log2(8) <= ln(x)", {"x": "positive"})[0]
    log(8, 2) <= log(x)
    >>> parse_statement("2^3 >= 8", {})
    Traceback (most recent call last):
    ...
    attnio.exceptions.InvalidInputError: STATEMENT uses '^', which is exclusive-or in sympy syntax: write powers as ** (2**3), exclusive-or as Xor(a, b)
    """
    from sympy.parsing.sympy_parser import parse_expr, rationalize, standard_transformations

    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("STATEMENT must be a non-empty string")
    if len(text) > _MAX_STATEMENT_CHARS:
        raise InvalidInputError(f"STATEMENT has {len(text)} characters; the limit is "
                                f"{_MAX_STATEMENT_CHARS}")
    arrow = next((a for a in _ARROWS if a in text), None)
    if arrow is not None:
        raise InvalidInputError(f"STATEMENT uses {arrow!r}: write an implication as "
                                "Implies(A, B), e.g. Implies(x > 1, x**2 > 1)")
    bad = sorted(set(ch for ch in text if not _ALLOWED_TEXT.match(ch)))
    if bad or "__" in text:
        shown = "".join(bad[:10]) or "__"
        raise InvalidInputError(f"STATEMENT contains characters outside sympy arithmetic and "
                                f"logic: {shown!r}")
    if text.count("(") > 2_000:
        raise InvalidInputError("STATEMENT nests more than 2000 parentheses")
    if "^" in text:
        raise InvalidInputError("STATEMENT uses '^', which is exclusive-or in sympy syntax: "
                                "write powers as ** (2**3), exclusive-or as Xor(a, b)")
    validate_number_literals(text)
    declared: dict[sp.Symbol, str] = {}
    local: dict[str, Any] = {}
    for name, dom in domains.items():
        if not _NAME.match(name):
            raise InvalidInputError(f"variable name {name!r} must be letters, digits and _")
        sym = symbol_for(name, dom)
        declared[sym] = dom
        local[name] = sym
    known_names = set(_FUNCTIONS) | set(local)
    unnumbered = _DECIMAL.sub(" ", text)
    for found in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", unnumbered):
        word = found.group()
        if word not in known_names and unnumbered[found.end():].lstrip().startswith("("):
            raise InvalidInputError(
                f"function {word!r} is not supported: the functions are "
                f"{', '.join(sorted(n for n, f in _FUNCTIONS.items() if not isinstance(f, sp.Basic)))}")
        if word not in known_names:
            raise InvalidInputError(
                f"symbol {word!r} is not declared: add --var {word}:DOMAIN (one of "
                f"{', '.join(DOMAINS)})")
    # The user's words are restricted above to declared symbols and _FUNCTIONS; the wider
    # sympy namespace is only for the code parse_expr generates (Add, Mul, Pow, Integer, ...).
    global_dict: dict[str, Any] = {name: getattr(sp, name) for name in sp.__all__}
    global_dict.update(_FUNCTIONS, __builtins__={})
    global_dict.update(checked_namespace({name: _FUNCTIONS[name] for name in _EVALUATING}))
    try:
        statement = parse_expr(text, local_dict=local, global_dict=global_dict,
                               transformations=(*standard_transformations, rationalize),
                               evaluate=False)
    except InvalidInputError:
        raise
    except (SyntaxError, TypeError, ValueError, AttributeError, RecursionError, NameError,
            sp.SympifyError, TokenError) as exc:
        raise InvalidInputError(f"STATEMENT is not valid sympy syntax: "
                                f"{type(exc).__name__}: {_short(str(exc))}") from None
    if statement in (sp.true, sp.false) or isinstance(statement, bool):
        raise InvalidInputError(f"STATEMENT {_short(text, 40)!r} is the constant "
                                f"{str(bool(statement)).lower()}: it has no relation to prove; "
                                "write a relation (n >= 1) or a combination of relations")
    if not isinstance(statement, sp.logic.boolalg.Boolean) or isinstance(statement, sp.Symbol):
        raise InvalidInputError(f"STATEMENT must be a relation or a boolean combination of "
                                f"relations, not {type(statement).__name__}")
    return statement, declared


def _short(text: str, width: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def point_text(point: Mapping[sp.Symbol, sp.Expr]) -> dict[str, str]:
    return {str(k): value_text(v) for k, v in sorted(point.items(), key=lambda kv: str(kv[0]))}


def value_text(value: sp.Expr) -> str:
    """An exact value as a person writes it: a real algebraic number of degree at most 4 (z3's
    models arrive as ``CRootOf``) as radicals when sympy finds them, else its ``CRootOf``.
    The radical is the root only if it lies in a rational interval where the polynomial has
    exactly one real root (``Poly.count_roots``): exact, never a numerical match.

    >>> x = sp.Dummy("x")
    >>> value_text(sp.CRootOf(x**2 - 2*x - 1, 1)), value_text(sp.Rational(3, 4))
    ('1 + sqrt(2)', '3/4')
    >>> value_text(sp.CRootOf(x**5 - x - 1, 0))       # no radicals exist
    'CRootOf(_x**5 - _x - 1, 0)'
    """
    if not isinstance(value, sp.CRootOf):
        return str(value)
    try:
        return str(_as_radical(value))
    except Exception:   # a display helper never decides anything: the CRootOf is exact too
        return str(value)


def _as_radical(value: sp.CRootOf) -> sp.Expr:
    from attnio.smt.exact_eval import sign_of

    poly = value.poly
    if poly.degree() > 4:
        return value
    width = sp.Rational(1, 10 ** 30)
    centre = value.eval_rational(dx=width / 4, dy=width / 4)
    lo, hi = centre - width, centre + width
    if poly.count_roots(lo, hi) != 1:
        return value
    for root in sp.roots(poly, multiple=True):
        if root.has(sp.I) or root.has(sp.CRootOf):
            continue
        if sign_of(root - lo) == 1 and sign_of(hi - root) == 1:
            return root
    return value


class _StatementPrinter(sp.printing.str.StrPrinter):
    """sympy's printer with the connectives as the calls ``attnio prove`` parses (``And(a,
    b)``, not ``a & b``, which Python reads with other precedences)."""

    def _connective(self, e: sp.Basic) -> str:
        return f"{type(e).__name__}({', '.join(self._print(a) for a in e.args)})"

    _print_And = _print_Or = _print_Not = _print_Implies = _print_Xor = _connective
    _print_Equivalent = _connective

    def _print_BooleanTrue(self, e: sp.Basic) -> str:
        return "True"

    def _print_BooleanFalse(self, e: sp.Basic) -> str:
        return "False"


def statement_text(e: sp.Basic) -> str:
    """A condition or statement as ``attnio prove`` reads it back: its arithmetic evaluated
    (``x - 1*1`` → ``x - 1``), its relations and connectives kept as they are (sympy must not
    decide them) and printed as calls (``And(x > 0, Ne(log(x), 0))``).

    >>> x = sp.Symbol("x", real=True)
    >>> statement_text(sp.And(x - 1 >= 0, sp.Ne(x, 3), evaluate=False))
    'And(Ne(x, 3), x - 1 >= 0)'
    >>> statement_text(sp.Implies(x > 0, as_written(sp.Not, x < -1)))
    'Implies(x > 0, Not(x < -1))'
    """
    def rebuild(node: sp.Basic) -> sp.Basic:
        if isinstance(node, sp.core.relational.Relational):
            return node.func(rebuild(node.lhs), rebuild(node.rhs), evaluate=False)
        if isinstance(node, sp.logic.boolalg.BooleanFunction):
            return as_written(node.func, *(rebuild(a) for a in node.args))
        if isinstance(node, sp.Expr) and node.args:
            return node.func(*(rebuild(a) for a in node.args))
        return node
    try:
        return _StatementPrinter().doprint(rebuild(e))
    except Exception:   # a display helper never decides anything: fall back to the raw form
        return _StatementPrinter().doprint(e)


def detail_suffix(notes: Sequence[str], subs: Sequence[str]) -> str:
    parts = list(subs) + list(notes)
    return f" ({'; '.join(parts)})" if parts else ""


def drop_domain_facts(defined: sp.Basic, doms: Mapping[sp.Symbol, str]) -> sp.Basic:
    """``defined`` without the conjuncts sympy's assumptions prove from the *declared*
    domains alone (``exp(x) > 0``, ``M >= 0`` for a positive M): each symbol is replaced by a
    dummy carrying exactly its declared domain's assumptions, never its own flags."""
    dummies = {sym: sp.Dummy(str(sym), **DOMAIN_ASSUMPTIONS[dom]) for sym, dom in doms.items()}
    parts = defined.args if isinstance(defined, sp.And) else (defined,)
    kept = []
    for part in parts:
        if isinstance(part, sp.core.relational.Relational):
            try:
                folded = part.func(part.lhs.xreplace(dummies), part.rhs.xreplace(dummies))
            except TypeError:   # sympy cannot order the sides: keep the condition
                folded = None
            if folded is sp.true:
                continue
        kept.append(part)
    if len(kept) == len(parts):
        return defined
    return sp.true if not kept else kept[0] if len(kept) == 1 else sp.And(*kept, evaluate=False)


def domains_of(statement: sp.Basic, hypotheses: Sequence[sp.Basic],
                domains: Mapping[Any, str] | None) -> dict[sp.Symbol, str]:
    given: dict[str, str] = {}
    for key, dom in (domains or {}).items():
        if dom not in DOMAINS:
            raise InvalidInputError(f"domain {dom!r} of {key} must be one of {', '.join(DOMAINS)}")
        given[str(key)] = dom
    out: dict[sp.Symbol, str] = {}
    free = set(statement.free_symbols).union(*(h.free_symbols for h in hypotheses))
    for sym in sorted(free, key=str):
        found = given.get(str(sym)) or declared_domain(sym)
        if found is None:
            raise InvalidInputError(
                f"symbol {sym} has no declared domain: declare it (e.g. positive=True, or "
                f"--var {sym}:DOMAIN with DOMAIN one of {', '.join(DOMAINS)})")
        out[sym] = found
    return out
