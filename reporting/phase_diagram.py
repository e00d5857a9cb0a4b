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
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from attnio.algorithms.registry import get_algorithm
from attnio.exceptions import InvalidInputError
from attnio.reporting.style import algorithm_label, new_figure, save_png
from attnio.symbolic.catalogue import get_bound
from attnio.symbolic.crossovers import crossover
from attnio.symbolic.dominance import growth_exponent
from attnio.symbolic.symbols import M as M_sym
from attnio.symbolic.symbols import alpha, beta
from attnio.symbolic.symbols import d as d_sym
from attnio.symbolic.symbols import n as n_sym

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["PhaseDiagram", "phase_diagram_data", "plot_phase_diagram", "FLASH_REGION"]

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
        its complement hatched; the crossover :math:`\alpha = \log_d M^\ast` is dashed.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    fig = new_figure(12.0, 5.0)
    panels = (("dominant term of Thm 1.1", data.dominant_term),
              ("algorithm the theory picks", data.algorithm))
    # Warm colours for the small-cache labels (sorted first), cool ones for the large-cache.
    palettes = (["#fdae61", "#d7191c", "#abd9e9", "#2c7bb6", "#ffffbf", "#a6d96a"],
                ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f"])
    alphas, betas = np.asarray(data.alphas, float), np.asarray(data.betas, float)
    a_lo, a_hi, b_lo, b_hi = alphas.min(), alphas.max(), betas.min(), betas.max()
    for k, ((subtitle, grid), palette) in enumerate(zip(panels, palettes)):
        ax = fig.add_subplot(1, 2, k + 1)
        labels = sorted({label for row in grid for label in row}, key=_label_order)
        index = {label: i for i, label in enumerate(labels)}
        values = np.array([[index[label] for label in row] for row in grid], dtype=float)
        cmap = ListedColormap(palette[: len(labels)])
        ax.imshow(values, origin="lower", aspect="auto", cmap=cmap, vmin=-0.5,
                  vmax=len(labels) - 0.5, extent=(a_lo, a_hi, b_lo, b_hi), interpolation="nearest")
        # Inadmissible: alpha < 1 (M < d) or alpha > 1 + beta (M > n d), hatched.
        hatch: dict[str, Any] = dict(facecolor="white", alpha=0.75, edgecolor="#444444", hatch="//", lw=0)
        beta_fine = np.linspace(b_lo, b_hi, 200)
        left_edge = np.full_like(beta_fine, min(1.0, a_hi))
        right_edge = np.clip(1.0 + beta_fine, a_lo, a_hi)
        ax.fill_betweenx(beta_fine, a_lo, left_edge, where=left_edge > a_lo, **hatch)
        ax.fill_betweenx(beta_fine, right_edge, a_hi, where=right_edge < a_hi, **hatch)
        ax.plot([1.0, 1.0], [b_lo, b_hi], color="black", lw=1.2)
        beta_line = np.linspace(b_lo, b_hi, 2)
        ax.plot(1.0 + beta_line, beta_line, color="black", lw=1.2)
        ax.axvline(data.crossover_alpha, color="black", ls="--", lw=1.5)
        ax.text(data.crossover_alpha + 0.03, b_hi - 0.05 * (b_hi - b_lo),
                f"crossover M = {_power_of_d(data.crossover_alpha)}", fontsize=9, va="top")
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
        handles = [Patch(facecolor=cmap(i), edgecolor="black", label=label)
                   for i, label in enumerate(labels) if label in shown]
        handles.append(Patch(facecolor="white", edgecolor="#444444", hatch="//",
                             label="inadmissible (M < d or M > n·d)"))
        ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)
    fig.suptitle(data.title)
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
    return PhaseDiagram(
        alphas=tuple(float(a) for a in alphas), betas=tuple(float(b) for b in betas),
        dominant_term=tuple(tuple(row) for row in dominant),
        algorithm=tuple(tuple(str(x) for x in row) for row in picked),
        crossover_alpha=crossover_alpha,
    )


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
