r"""The phase diagram of the backward pass (Thm 1.1 of arXiv 2410.09397) in exponent space.

With :math:`n = d^{\beta}` and :math:`M = d^{\alpha}`, every term :math:`n^a d^b M^c` of a bound
grows like :math:`d^{a\beta + b + c\alpha}`, so the dominant term of

.. math::

    Q_{\mathrm{bwd}}(n, d, M) = \Theta\!\left(\min\left\{\frac{n^2 d^2 + n d^3}{M},
    \frac{n^2 d + n d^2}{\sqrt{M}}\right\}\right)

is constant on polygons of the :math:`(\alpha, \beta)` plane. The admissible region is
:math:`1 \le \alpha \le 1 + \beta` (i.e. d ≤ M ≤ n·d).

Examples
--------
>>> data = PhaseDiagram(alphas=(1.0, 3.0), betas=(1.0, 3.0),
...                     dominant_term=(("n²d/√M", "n²d²/M"),) * 2,
...                     algorithm=(("small-cache", "flash1"),) * 2, crossover_alpha=2.0)
>>> fig = plot_phase_diagram(data)  # add path="phase.png" to save it
>>> fig.axes[0].get_title(), fig.axes[1].get_title()
('dominant term of Thm 1.1', 'algorithm the theory picks')
>>> data.label_at(2.5, 2.0)
('n²d²/M', 'flash1')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import sympy as sp

from attnio.algorithms.registry import get_algorithm
from attnio.exceptions import InvalidInputError
from attnio.reporting.figure_quality import place_legend
from attnio.reporting.style import BACKGROUND_GID, algorithm_label, new_figure, save_png
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.dominance import growth_exponent
from attnio.symbolic.symbols import M as M_sym
from attnio.symbolic.symbols import alpha, beta
from attnio.symbolic.symbols import d as d_sym
from attnio.symbolic.symbols import n as n_sym

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["PhaseDiagram", "phase_diagram_data", "plot_phase_diagram", "FLASH_REGION",
           "label_regions", "Polygon"]

#: A convex polygon of the (α, β) plane: its vertices in order.
Polygon = tuple[tuple[float, float], ...]

#: The picked-algorithm label of the large-cache region (FlashAttention-1 and -2 share
#: ``bwd.flash1.upper``).
FLASH_REGION = "FlashAttention backward"


@dataclass(frozen=True, slots=True)
class PhaseDiagram:
    """Regions of the exponent plane coloured by a label.

    ``dominant_term[i][j]`` and ``algorithm[i][j]`` belong to ``betas[i]`` (rows) and
    ``alphas[j]`` (columns). ``crossover_alpha`` is log_d of the derived crossover (2 for
    M = d²).
    """

    alphas: tuple[float, ...]
    betas: tuple[float, ...]
    dominant_term: tuple[tuple[str, ...], ...]
    algorithm: tuple[tuple[str, ...], ...]
    crossover_alpha: float
    title: str = "Attention backward, Thm 1.1 (arXiv 2410.09397)"
    #: Per panel (dominant term, picked algorithm): each label's region of the admissible
    #: window as exact polygons ((α, β) vertices), from the closed-form exponents
    #: (:func:`label_regions`). Empty: the panels are drawn from the grid of labels instead.
    regions: tuple[Mapping[str, tuple[Polygon, ...]], ...] = ()

    def label_at(self, alpha: float, beta: float) -> tuple[str, str]:
        """``(dominant term, picked algorithm)`` at the grid point nearest to (α, β).

        >>> PhaseDiagram((1.0, 3.0), (2.0,), (("a", "b"),), (("x", "y"),), 2.0).label_at(2.9, 2)
        ('b', 'y')
        """
        j = min(range(len(self.alphas)), key=lambda j: abs(self.alphas[j] - alpha))
        i = min(range(len(self.betas)), key=lambda i: abs(self.betas[i] - beta))
        return self.dominant_term[i][j], self.algorithm[i][j]


def plot_phase_diagram(data: PhaseDiagram, path: str | Path | None = None) -> "Figure":
    r"""Draw the exponent-space phase diagram: dominant term (left) and picked algorithm (right).

    Parameters
    ----------
    data : PhaseDiagram
        The labelled grid (from :func:`phase_diagram_data`).
    path : str or Path, optional
        Where to save the PNG.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels; the admissible region :math:`1 \le \alpha \le 1 + \beta` is outlined and
        its complement hatched; the crossover :math:`\alpha = \log_d M^\ast` is dashed (named
        in the legend). With ``data.regions`` (what :func:`phase_diagram_data` returns) each
        label's region is drawn as exact polygons; without, from the grid of labels.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    from matplotlib.patches import Polygon as MplPolygon

    fig = new_figure(12.0, 5.0)
    panels = (("dominant term of Thm 1.1", data.dominant_term),
              ("algorithm the theory picks", data.algorithm))
    # Warm colours for the small-cache labels (sorted first), cool ones for the large-cache.
    palettes = (["#fdae61", "#d7191c", "#abd9e9", "#2c7bb6", "#ffffbf", "#a6d96a"],
                ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f"])
    alphas, betas = np.asarray(data.alphas, float), np.asarray(data.betas, float)
    legends: list[list[Any]] = []
    a_lo, a_hi, b_lo, b_hi = alphas.min(), alphas.max(), betas.min(), betas.max()
    for k, ((subtitle, grid), palette) in enumerate(zip(panels, palettes)):
        ax = fig.add_subplot(1, 2, k + 1)
        labels = sorted({label for row in grid for label in row}, key=_label_order)
        index = {label: i for i, label in enumerate(labels)}
        cmap = ListedColormap(palette[: len(labels)])
        if data.regions:
            # exact regions: straight boundaries, no grid staircase
            for label, polygons in data.regions[k].items():
                for polygon in polygons:
                    ax.add_patch(MplPolygon(polygon, closed=True, facecolor=cmap(index[label]),
                                            edgecolor="none", label="_region"))
        else:
            values = np.array([[index[label] for label in row] for row in grid], dtype=float)
            ax.imshow(values, origin="lower", aspect="auto", cmap=cmap, vmin=-0.5,
                      vmax=len(labels) - 0.5, extent=(a_lo, a_hi, b_lo, b_hi),
                      interpolation="nearest")
        # Inadmissible: alpha < 1 (M < d) or alpha > 1 + beta (M > n d), hatched (a marked
        # region, not data: the legend may lie on it).
        hatch: dict[str, Any] = dict(facecolor="white", alpha=0.75, edgecolor="#444444",
                                     hatch="//", lw=0, gid=BACKGROUND_GID)
        beta_fine = np.linspace(b_lo, b_hi, 200)
        left_edge = np.full_like(beta_fine, min(1.0, a_hi))
        right_edge = np.clip(1.0 + beta_fine, a_lo, a_hi)
        ax.fill_betweenx(beta_fine, a_lo, left_edge, where=left_edge > a_lo, **hatch)
        ax.fill_betweenx(beta_fine, right_edge, a_hi, where=right_edge < a_hi, **hatch)
        ax.plot([1.0, 1.0], [b_lo, b_hi], color="black", lw=1.2)
        beta_line = np.linspace(b_lo, b_hi, 2)
        ax.plot(1.0 + beta_line, beta_line, color="black", lw=1.2)
        crossover_line = ax.axvline(data.crossover_alpha, color="black", ls="--", lw=1.5,
                                    label=f"crossover M = {_power_of_d(data.crossover_alpha)}")
        ax.set_xlim(a_lo, a_hi)
        ax.set_ylim(b_lo, b_hi)
        ax.set_xlabel("α = log_d M   (fast memory M = d^α words)")
        ax.set_ylabel("β = log_d n   (sequence length n = d^β)")
        ax.set_title(subtitle)
        # Only labels visible somewhere admissible go in the legend (strict interior: a label
        # that occurs only on the boundary lines is not visible).
        eps = 1e-9 + 0.5 * (a_hi - a_lo) / max(len(alphas) - 1, 1)
        admissible = ((alphas[None, :] > 1.0 + eps) & (alphas[None, :] < 1.0 + betas[:, None] - eps))
        shown = {label for i, row in enumerate(grid) for j, label in enumerate(row)
                 if admissible[i, j]}
        handles: list[Any] = [Patch(facecolor=cmap(i), edgecolor="black", label=label)
                   for i, label in enumerate(labels) if label in shown]
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="//",
                             label="inadmissible (M < d or M > n·d)"))
        handles.append(crossover_line)
        legends.append(handles)
    fig.suptitle(data.title)
    for ax, handles in zip(fig.axes, legends):  # last: the layout is final
        place_legend(ax, handles=handles, fontsize=8, framealpha=0.9)
    return save_png(fig, path)


def _label_order(label: str) -> tuple[int, str]:
    # Small-cache labels first, so the colours read left-to-right like the plane.
    small = "√" in label or "small" in label or "Algorithm 6" in label
    return (0 if small else 1, label)


def _power_of_d(x: float) -> str:
    superscripts = {1: "", 2: "²", 3: "³"}
    if float(x).is_integer() and int(x) in superscripts:
        return "d" + superscripts[int(x)]
    return f"d^{x:g}"


def phase_diagram_data(
    alpha_range: tuple[float, float] = (0.5, 4.0),
    beta_range: tuple[float, float] = (0.5, 3.0),
    steps: int = 141,
) -> PhaseDiagram:
    r"""Label the (α, β) plane by the dominant term of Thm 1.1 and by the picked algorithm.

    The dominant term and the picked algorithm come from :mod:`attnio.symbolic`: the growth
    exponents of the catalogue's ``bwd.tight`` branches (the dominant term is the monomial of
    the smaller branch with the largest exponent) and of the two backward upper bounds
    ``bwd.flash1.upper`` and ``bwd.alg6.upper`` (the algorithm with the smaller exponent;
    FlashAttention on ties). The crossover line is log_d of the derived crossover.

    Parameters
    ----------
    alpha_range, beta_range : (float, float)
        The window of the plane (α = log_d M, β = log_d n).
    steps : int
        Grid points per axis (≥ 2).

    Returns
    -------
    PhaseDiagram
    """
    if steps < 2:
        raise InvalidInputError(f"steps={steps} must be at least 2")
    alphas = np.linspace(alpha_range[0], alpha_range[1], steps)
    betas = np.linspace(beta_range[0], beta_range[1], steps)
    A, B = np.meshgrid(alphas, betas)  # rows: beta, columns: alpha

    def on_grid(bound_or_expr: Any) -> Any:
        exponent = growth_exponent(bound_or_expr).expr
        return np.broadcast_to(
            np.asarray(sp.lambdify((alpha, beta), exponent, "numpy")(A, B), dtype=float), A.shape)

    # Dominant term: the smaller branch of Thm 1.1, then its fastest-growing monomial.
    tight = get_bound("bwd.tight")
    branch_exponents = np.stack([on_grid(b) for b in tight.branches])
    chosen_branch = np.argmin(branch_exponents, axis=0)
    term_labels: list[list[str]] = []
    term_exponents = []
    for branch in tight.branches:
        terms = sp.Add.make_args(sp.expand(branch))
        term_labels.append([_monomial_label(t) for t in terms])
        term_exponents.append(np.stack([on_grid(t) for t in terms]))
    dominant = [[term_labels[chosen_branch[i, j]][
                    int(np.argmax(term_exponents[chosen_branch[i, j]][:, i, j]))]
                 for j in range(steps)] for i in range(steps)]
    # Picked algorithm: the backward upper bound with the smaller exponent (FlashAttention on
    # a tie, i.e. on the crossover line itself).
    # The bound ids and the small-cache label come from the algorithm registry; FlashAttention-1
    # and -2 share one bound, so their region is named after both.
    flash = on_grid(get_algorithm("flash1").bound_id("backward"))
    alg6 = on_grid(get_algorithm("small-cache").bound_id("backward"))
    picked = np.where(alg6 < flash - 1e-12, algorithm_label("small-cache", "backward"),
                      FLASH_REGION)
    crossover_alpha = float(growth_exponent(crossover(tight).solution).expr)
    window = (float(alphas[0]), float(alphas[-1]), float(betas[0]), float(betas[-1]))
    # The same decisions as the grid, as exact regions: the dominant term is monomial t of
    # branch i where t is the largest of branch i and branch i is the smaller branch
    # (branch i's largest term ≤ some term s of the other branch); the small-cache algorithm
    # is picked where all of its terms stay below some term of FlashAttention's bound.
    branch_terms = [[_linear_exponent(t) for t in sp.Add.make_args(sp.expand(b))]
                    for b in tight.branches]
    term_regions: dict[str, list[Polygon]] = {}
    for i, terms in enumerate(branch_terms):
        others = [t for j, ts in enumerate(branch_terms) if j != i for t in ts]
        for t, label in zip(terms, term_labels[i]):
            term_regions.setdefault(label, []).extend(label_regions(
                window, [_minus(t, u) for u in terms], [[_minus(s, t)] for s in others]))
    flash_terms = _bound_terms(get_algorithm("flash1").bound_id("backward"))
    alg6_terms = _bound_terms(get_algorithm("small-cache").bound_id("backward"))
    algorithm_regions = {
        algorithm_label("small-cache", "backward"): label_regions(
            window, [], [[_minus(f, a) for a in alg6_terms] for f in flash_terms]),
        FLASH_REGION: label_regions(
            window, [], [[_minus(a, f) for f in flash_terms] for a in alg6_terms]),
    }
    return PhaseDiagram(
        alphas=tuple(float(a) for a in alphas), betas=tuple(float(b) for b in betas),
        dominant_term=tuple(tuple(row) for row in dominant),
        algorithm=tuple(tuple(str(x) for x in row) for row in picked),
        crossover_alpha=crossover_alpha,
        regions=({label: tuple(polys) for label, polys in term_regions.items() if polys},
                 {label: tuple(polys) for label, polys in algorithm_regions.items() if polys}),
    )


#: A linear function c0 + ca·α + cb·β of the exponent plane, as (c0, ca, cb).
Linear = tuple[float, float, float]


def _linear_exponent(term: Any) -> Linear:
    """The growth exponent of a monomial, c0 + ca·α + cb·β (exact rationals as floats)."""
    expr = sp.expand(growth_exponent(term).expr)
    poly = sp.Poly(expr, alpha, beta)
    if poly.total_degree() > 1:  # pragma: no cover - monomials have linear exponents
        raise InvalidInputError(f"the exponent {expr} of {term} is not linear in α, β")
    return (float(poly.coeff_monomial(1)), float(poly.coeff_monomial(alpha)),
            float(poly.coeff_monomial(beta)))


def _bound_terms(bound_id: str) -> list[Linear]:
    return [_linear_exponent(t) for t in sp.Add.make_args(sp.expand(get_bound(bound_id).expr))]


def _minus(f: Linear, g: Linear) -> Linear:
    return (f[0] - g[0], f[1] - g[1], f[2] - g[2])


def label_regions(window: tuple[float, float, float, float], always: Sequence[Linear],
                  any_of: Sequence[Sequence[Linear]]) -> list[Polygon]:
    r"""The admissible part of the window where every ``always`` half-plane holds and, for
    some group of ``any_of``, every half-plane of the group holds, as convex polygons.

    A half-plane is a linear function :math:`c_0 + c_lphalpha + c_etaeta \ge 0`
    (``(c0, ca, cb)``); the window is ``(α_lo, α_hi, β_lo, β_hi)``; admissible is
    :math:`1 \le lpha \le 1 + eta` (d ≤ M ≤ n·d). Each polygon is the window clipped by
    its half-planes (Sutherland–Hodgman), so boundaries are exact lines, not grid steps.

    >>> label_regions((0.0, 4.0, 0.0, 3.0), [(-2.0, 1.0, 0.0)], [[]])  # α ≥ 2, admissible
    [((2.0, 1.0), (4.0, 3.0), (2.0, 3.0))]
    """
    a_lo, a_hi, b_lo, b_hi = window
    box: list[tuple[float, float]] = [(a_lo, b_lo), (a_hi, b_lo), (a_hi, b_hi), (a_lo, b_hi)]
    admissible: list[Linear] = [(-1.0, 1.0, 0.0), (1.0, -1.0, 1.0)]
    out = []
    for group in any_of:
        polygon = box
        for plane in (*admissible, *always, *group):
            polygon = _clip(polygon, plane)
        vertices = [(round(a, 12) + 0.0, round(b, 12) + 0.0) for a, b in polygon]
        vertices = [v for k, v in enumerate(vertices) if v != vertices[k - 1]]
        if _area(vertices) > 1e-9:
            out.append(tuple(vertices))
    return out


def _clip(polygon: list[tuple[float, float]], plane: Linear) -> list[tuple[float, float]]:
    """``polygon`` ∩ {plane ≥ 0} (one Sutherland–Hodgman step)."""
    def value(p: tuple[float, float]) -> float:
        return plane[0] + plane[1] * p[0] + plane[2] * p[1]

    out: list[tuple[float, float]] = []
    for k, p in enumerate(polygon):
        q = polygon[(k + 1) % len(polygon)]
        vp, vq = value(p), value(q)
        if vp >= 0:
            out.append(p)
        if (vp >= 0) != (vq >= 0):
            t = vp / (vp - vq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _area(polygon: list[tuple[float, float]]) -> float:
    return 0.5 * abs(sum(p[0] * q[1] - q[0] * p[1]
                         for p, q in zip(polygon, polygon[1:] + polygon[:1]))) if polygon else 0.0


def _monomial_label(term: Any) -> str:
    """``d**2*n**2/M`` → ``n²d²/M`` (a monomial in n, d, M as a reader writes it)."""
    powers = term.as_powers_dict()
    superscript = {1: "", 2: "²", 3: "³", 4: "⁴"}

    def factor(symbol: Any, name: str) -> str:
        e = powers.get(symbol, 0)
        return "" if e == 0 else name + superscript.get(int(e), f"^{e}")

    numerator = factor(n_sym, "n") + factor(d_sym, "d")
    e_M = -powers.get(M_sym, 0)
    denominator = {0: "", 1: "/M"}.get(e_M, "/√M" if e_M == sp.Rational(1, 2) else f"/M^{e_M}")
    return (numerator or "1") + denominator


# --------------------------------------------------------------------------------------------
