"""Tests for `attnio bounds` (attnio.commands.bounds) through attnio.cli.main."""

from __future__ import annotations

import json

import pytest

from attnio.cli import main
from attnio.symbolic.catalogue import CATALOGUE


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(["bounds", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_derived_crossovers(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["--n", "1024", "--d", "128", "--M", "8192"])
    assert report["regime"] == "small-cache"
    assert report["recommended_algorithm"] == "small-cache"
    assert report["crossover"] == {"backward": "d**2", "forward": "d**2", "sparse": "Z_in**2/Z_QK"}
    assert report["crossover_at_instance"] == {"backward": "16384", "forward": "16384",
                                               "sparse": "16384"}
    assert [b["id"] for b in report["bounds"]] == [b.id for b in CATALOGUE]
    first = report["bounds"][0]
    assert {"id", "pass", "kind", "expression", "value", "source"} <= set(first)
    assert "Z_in = n*d" in report["instance_note"]


def test_large_cache_and_crossover(capsys: pytest.CaptureFixture[str]) -> None:
    assert _json(capsys, ["--n", "64", "--d", "8", "--M", "128"])["regime"] == "large-cache"
    report = _json(capsys, ["--n", "64", "--d", "8", "--M", "64"])
    assert report["regime"] == "crossover" and report["recommended_algorithm"] == "flash-attention"


def test_exact_values(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["--n", "8", "--d", "4", "--M", "16"])
    values = {b["id"]: b["value"] for b in report["bounds"]}
    assert values["bwd.tight"] == "96" and values["matmul.hk.lower"] == "64"


def test_device_mode(capsys: pytest.CaptureFixture[str]) -> None:
    report = _json(capsys, ["--n", "4096", "--d", "128", "--device", "a100", "--dtype", "bf16"])
    # issue 34: one M per level, the first boundary's (one SM's registers + shared memory:
    # (262144 + 167936) bytes / 2) — the same M as the per-level table's first row
    assert report["instance"]["M"] == 215040 == report["levels"][0]["capacity_words"]
    assert report["regime"] == "large-cache"
    assert report["device"]["name"] == "a100" and "CUDA" in report["device"]["source"]
    block = _json(capsys, ["--n", "4096", "--d", "128", "--device", "gtx1060", "--dtype", "fp32",
                           "--scope", "block"])
    assert block["regime"] == "small-cache"


def test_table_and_latex(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bounds", "--n", "1024", "--d", "128", "--M", "8192"]) == 0
    out = capsys.readouterr().out
    assert "regime: small-cache" in out and "bwd.tight" in out and "M = d**2" in out
    assert main(["bounds", "--n", "1024", "--d", "128", "--M", "8192", "--latex"]) == 0
    out = capsys.readouterr().out
    assert r"\Theta\left(" in out and r"\begin{tabular}" in out


def test_warning_outside_flash_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bounds", "--n", "4", "--d", "4", "--M", "1000"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning: M=1000" in err


@pytest.mark.parametrize("argv, needle", [
    (["--n", "2.5", "--d", "3", "--M", "4"], "n=2.5 must be a positive integer"),
    (["--n", "-4", "--d", "3", "--M", "4"], "n=-4 must be a positive integer"),
    (["--n", "4", "--d", "0", "--M", "4"], "d=0 must be a positive integer"),
    (["--n", "4", "--d", "3", "--M", "0"], "M=0 must be a positive integer"),
    (["--n", "4", "--d", "3", "--M", "-2"], "M=-2 must be a positive integer"),
    (["--n", "4", "--d", "3", "--M", "x"], "M=x must be a positive integer"),
    (["--n", "4", "--d", "3", "--device", "tpu"], "device='tpu' is unknown"),
    (["--n", "4", "--d", "3", "--device", "a100", "--dtype", "int3"], "dtype='int3' is unknown"),
    (["--n", "4", "--d", "3"], "give exactly one of --M"),
    (["--n", "4", "--d", "3", "--M", "4", "--device", "a100"], "give exactly one of --M"),
    (["--n", "4", "--d", "3", "--M", "4", "--dtype", "bf17"], "dtype='bf17' is unknown"),
])
def test_bad_input_exit_2_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                   needle: str) -> None:
    assert main(["bounds", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and needle in captured.err
    assert "Traceback" not in captured.err


def test_missing_required_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bounds", "--d", "3", "--M", "4"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "required" in err


def test_simulated_ratio_agrees_with_the_simulator(capsys) -> None:
    from attnio.algorithms.simulation import count

    assert main(["bounds", "--n", "4096", "--d", "64", "--M", "2048", "--json"]) == 0
    sim = json.loads(capsys.readouterr().out)["simulated_io_ratio_flash_over_alg6"]
    assert sim["flash1_io"] == count("flash1", "backward", 4096, 64, 2048).io
    assert sim["small_cache_io"] == count("small-cache", "backward", 4096, 64, 2048).io
    assert sim["value_float"] > 1  # below d**2 the real Algorithm 6 moves fewer words
    # M = 128 admits no FlashAttention-1 backward tile at d = 64: no ratio, not an error.
    assert main(["bounds", "--n", "4096", "--d", "64", "--M", "128", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["simulated_io_ratio_flash_over_alg6"] is None



# ---- issue 13: JSON never holds NaN/Infinity; provenance; a LaTeX table that compiles ------

def test_huge_values_are_null_plus_exact_string(capsys: pytest.CaptureFixture[str]) -> None:
    big = str(10**400)
    assert main(["bounds", "--n", big, "--d", "8", "--M", "64", "--json"]) == 0
    text = capsys.readouterr().out
    assert "Infinity" not in text and "NaN" not in text
    report = json.loads(text)
    tight = next(b for b in report["bounds"] if b["id"] == "bwd.tight")
    assert tight["value_float"] is None and tight["value"].startswith("1" + "0" * 50)
    assert report["attnio_version"] and {"sympy", "z3", "networkx", "numpy"} <= set(
        report["versions"])


def test_5001_digits_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bounds", "--n", "9" * 5001, "--d", "8", "--M", "64"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MAX_INT_DIGITS" in err and len(err) <= 301


def _check_tabular(text: str, columns: int) -> list[str]:
    """Structural check of a booktabs tabular: balanced environments and braces, the three
    rules in order, ``columns - 1`` unescaped ``&`` in every row. Returns the rows."""
    import re

    begins = re.findall(r"\\begin\{(\w+)\}", text)
    ends = re.findall(r"\\end\{(\w+)\}", text)
    assert begins == ["tabular"] and ends == ["tabular"]
    body = re.sub(r"\\[\\{}&%$#_]", "", text)  # drop escaped specials before counting
    depth = 0
    for char in body:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0
    assert depth == 0
    from attnio.tables import LATEX_FIT_CLOSE, LATEX_FIT_OPEN

    lines = [line.rstrip("%") for line in text.splitlines() if line and not line.startswith("%")
             and line not in (LATEX_FIT_OPEN, LATEX_FIT_CLOSE)]
    assert lines[1] == r"\toprule" and lines[3] == r"\midrule" and lines[-2] == r"\bottomrule"
    rows = [lines[2], *lines[4:-2]]
    for row in rows:
        assert row.endswith(r" \\"), row
        math_free = re.sub(r"\$[^$]*\$", "", row[:-3])
        assert len(re.findall(r"(?<!\\)&", math_free)) == columns - 1, row
    spec = re.search(r"\\begin\{tabular\}\{((?:[^{}]|\{[^{}]*\})*)\}", text).group(1)
    assert len(re.findall(r"p\{[^}]*\}|[lcr]", spec)) == columns
    return rows


def test_latex_table_structure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bounds", "--n", "4096", "--d", "64", "--M", "2048", "--latex"]) == 0
    rows = _check_tabular(capsys.readouterr().out, 5)
    assert len(rows) == 1 + len(CATALOGUE)
    assert any(r"\& " in row or "&" in row for row in rows)
    assert r"\texttt{bwd.tight}" in rows[1] and "2410.09397" in rows[1]


def test_latex_structure_check_rejects_a_broken_table() -> None:
    """False twin: an unescaped & in a source cell must fail the structural check."""
    from attnio.commands.bounds import bounds_report, latex_table

    broken = latex_table(bounds_report(64, 8, 64)).replace(r"\&", "&", 1)
    if broken == latex_table(bounds_report(64, 8, 64)):  # no escaped & to break: plant one
        lines = latex_table(bounds_report(64, 8, 64)).splitlines()
        lines[5] = lines[5].replace(" & ", " & A & B ", 1)
        broken = "\n".join(lines)
    with pytest.raises(AssertionError):
        _check_tabular(broken, 5)


def test_latex_escape_of_specials() -> None:
    from attnio.commands.bounds import latex_escape

    assert latex_escape("a&b_c%d$e#f{g}~^\\") == (
        r"a\&b\_c\%d\$e\#f\{g\}\textasciitilde{}\textasciicircum{}\textbackslash{}")


def test_latex_file_is_written_safely(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bounds.tex"
    assert main(["bounds", "--n", "64", "--d", "8", "--M", "64", "--latex", str(target)]) == 0
    _check_tabular(target.read_text(), 5)
    target.write_text("mine")
    assert main(["bounds", "--n", "64", "--d", "8", "--M", "64", "--latex", str(target)]) == 2
    assert target.read_text() == "mine"
    assert main(["bounds", "--n", "64", "--d", "8", "--M", "64", "--latex", str(target),
                 "--force"]) == 0
    assert target.read_text().count(r"\toprule") == 1


def test_latex_table_compiles_with_pdflatex(tmp_path) -> None:
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    from attnio.commands.bounds import bounds_report, latex_table

    table = latex_table(bounds_report(10**400, 64, 2048))  # huge values and every escape
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs,graphicx}\\usepackage{amsmath}"
                   "\\usepackage[landscape,margin=1cm]{geometry}\\begin{document}\\tiny\n"
                   + table + "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "t.pdf").stat().st_size > 1000


def test_bounds_mask_reports_masked_and_dense_sparse_values(capsys) -> None:
    """issue 15: --mask adds Z_in, Z_QK, sparse.lower and Z_in**2/Z_QK next to the dense ones."""
    import json

    from attnio.cli import main

    assert main(["bounds", "--n", "4096", "--d", "64", "--M", "4096", "--mask", "causal",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    masked, dense = report["sparse_mask"]["masked"], report["sparse_mask"]["dense"]
    assert (masked["Z_in"], masked["Z_QK"]) == (4096 * 64, 4096 * 4097 // 2)
    assert masked["sparse_class_bound"]["value"] == "131072*sqrt(8194)"
    assert "NOT a lower bound for this mask" in masked["sparse_class_bound"]["scope"]
    assert "sparse_lower_bound" not in masked  # issue 21: the class bound is not per mask
    assert masked["sparse_crossover"]["value"] == "33554432/4097"
    assert dense["sparse_class_bound"]["value"] == "16777216"
    # issue 21: the certified bound of this mask, an exact int per pass
    assert masked["mask_lower_bound"]["forward"]["value"] == 5_693_440  # segment + rest
    assert masked["mask_lower_bound"]["backward"]["claim_id"].startswith("mask.")
    bounds = {b["id"]: b for b in report["bounds"]}
    assert bounds["sparse.lower"]["value"] == dense["sparse_class_bound"]["value"]
    assert main(["bounds", "--n", "64", "--d", "8", "--M", "64", "--mask", "window:4"]) == 0
    out = capsys.readouterr().out
    assert "sparse (window:4): Z_in = 512, Z_QK = 250" in out
    assert "not this mask" in out and "this mask, certified: forward >=" in out


def test_the_dldx_bound_is_marked_as_another_computation(capsys) -> None:  # noqa: ANN001
    """bwd.trivial.lower bounds the dL/dX computation: 832 words at n = 1, d = 16, M = 15,
    while standard attention's backward (dQ, dK, dV) moves 214 — it must say so."""
    from attnio.cli import main
    assert main(["bounds", "--n", "1", "--d", "16", "--M", "15"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("bwd.trivial.lower"))
    assert "†" in line
    assert "† the dL/dX computation only" in out


def test_a_mask_that_keeps_nothing_is_answered_with_one_warning(tmp_path, capsys) -> None:
    """An all-false block mask is legal (Z_QK = 0, every bound of it 0) but rarely meant:
    the answer comes (exit 0) and stderr says so in one line. The twin: a causal mask (it
    keeps entries) prints no warning."""
    pattern = tmp_path / "nothing.json"
    pattern.write_text("[[false, false], [false, false]]")
    base = ["bounds", "--n", "64", "--d", "8", "--M", "64"]
    assert main([*base, "--mask", f"block:32:{pattern}"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["attnio bounds: warning: the mask block:32:2x2 keeps no entry of the 64x64 "
                   "scores (Z_QK = 0): every row of softmax is empty and every bound of this "
                   "mask is 0"]
    assert main([*base, "--mask", "causal"]) == 0
    assert capsys.readouterr().err == ""
