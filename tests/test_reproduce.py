"""``simcore reproduce --quick``: the document has every required section, and its numbers are
the rows' numbers (recomputed here independently: numpy mean, t-table critical values)."""

from __future__ import annotations

import math
import multiprocessing
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simcore.cli import build_parser
from simcore.experiments import study
from simcore.experiments.study import beyond, prose
from simcore.experiments.study.document import render
from simcore.experiments.study.figures import drawn_by
from simcore.experiments.study.tables import Stat, fmt_val

TRACE = Path(__file__).resolve().parent.parent / study.DEFAULT_TRACE
# one xdist worker runs the module, so the quick study (a module fixture) is computed once
pytestmark = pytest.mark.xdist_group("reproduce")
T975 = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 4: 2.7764451}  # two-sided 95% t critical values


def run(args: list[str]) -> int:
    ns = build_parser("reproduce").parse_args(["reproduce", *args])
    return ns.func(ns)


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("quick")
    assert run(["--quick", "--out-dir", str(out), "--workers", "2", "--no-progress", "--trace", str(TRACE)]) == 0
    return out


def mean_ci_text(values: np.ndarray) -> str:
    """'+x.x% [+lo, +hi]' computed from scratch."""
    n = len(values)
    mean = float(np.mean(values))
    half = T975[n - 1] * float(np.std(values, ddof=1)) / math.sqrt(n)
    return f"{mean:+.1f}% [{mean - half:+.1f}, {mean + half:+.1f}]"


def test_document_sections_and_figures(quick):
    doc = (quick / "RESULTS.md").read_text()
    for heading in [
        "## 1. The headline: trio against FIFO",
        "## 2. Against priority",
        "## 3. Tails, preemptions and lost work",
        "## 4. FitGpp against the other preemptive policies",
        "## 5. Sensitivity",
        "### fitgpp `P`",
        "### fitgpp `s`",
        *(f"### `{key}`" for key in ("grace", "restore", "checkpoint", "backfill", "load", "te_share")),
        "### Across regimes",
        "## 6. The real trace",
        "## 7. Where FitGpp wins, where it does not, and why",
        "## 10. Gang jobs: what preempting a gang costs",
        "## Reproduce",
    ]:
        assert heading in doc, heading
    assert "reconstruction of the paper's approach" in doc and "not the paper's exact algorithm" in doc
    for paper in ("-96.6%", "+18.0%", "+23.9%"):
        assert paper in doc
    assert "**300 jobs** per workload" in doc
    assert "**Where fitgpp wins.**" in doc and "**Where it does not win, or wins nothing.**" in doc
    assert "TE p99 slowdown" in doc and "TE max wait" in doc and "lost work" in doc
    assert "simcore reproduce --quick" in doc
    for policy in ("priority", "k8s", "lrtp", "random", "fitgpp"):
        assert f"| {policy} |" in doc
    figures = re.findall(r"!\[[^\]]*\]\((results/[^)]+\.png)\)", doc)
    assert len(figures) >= 9
    for fig in figures:
        assert (quick / fig).stat().st_size > 1000
        assert (quick / fig).read_bytes()[:4] == b"\x89PNG"


def _render_here(quick: Path, results: Path) -> tuple[str, dict[str, bytes]]:
    """The quick study's document and figures rendered again from its rows into ``results``, the
    figures drawn in this process."""
    for png in results.glob("*.png"):
        png.unlink()
    rows = {
        p.stem.removeprefix("rows_"): pd.read_parquet(p) for p in sorted((quick / "results").glob("rows_*.parquet"))
    }
    trace_rows = {r: rows[f"alibaba_{r}"] for r in ("A", "B") if f"alibaba_{r}" in rows}
    sec8 = beyond.Study(rows["beyond_regimes"], rows["beyond_min_runtime"], {})
    with drawn_by(results, 0) as figs:
        text = render(
            study.QUICK, rows["main"], rows["curves"], trace_rows, results, figs, {"all": 1.0}, "c", 2, None, "", sec8
        )
    return text, {p.name: p.read_bytes() for p in sorted(results.glob("*.png"))}


def test_figures_drawn_in_another_process_are_the_same_bytes(quick, tmp_path):
    """Every figure is the same bytes whether drawn in this process or in others (as the fixture's
    ``--workers 2`` drew them), and the document drawn here links each of them."""
    results = tmp_path / "results"
    shutil.copytree(quick / "results", results, ignore=shutil.ignore_patterns("*.png"))
    text, here = _render_here(quick, results)
    assert len(here) >= 9 and here == {p.name: p.read_bytes() for p in sorted((quick / "results").glob("*.png"))}
    linked = {Path(f).name for f in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)}
    assert linked and linked <= set(here)


def test_a_figure_that_fails_in_another_process_fails_the_same(quick, tmp_path):
    """Drawn elsewhere, a failing figure raises its own error here on leaving (no hang), and the pool
    is gone; drawn here, the same error at once."""
    rows = pd.read_parquet(quick / "results" / "rows_main.parquet")
    errors = []
    for drawers in (0, 1):
        with pytest.raises(FileNotFoundError) as failed, drawn_by(tmp_path / "missing", drawers) as figs:
            figs.trio(rows, ["fifo", "fitgpp"], "fifo")
        errors.append(str(failed.value))
    assert errors[0] == errors[1] and "missing" in errors[0]
    assert not multiprocessing.active_children()


def test_numbers_equal_a_recomputation_from_the_rows(quick):
    doc = (quick / "RESULTS.md").read_text()
    rows = pd.read_parquet(quick / "results" / "rows_main.parquet")
    assert rows["seed"].nunique() == 3 and (rows["jobs_simulated"] == 300).all()
    for policy in ("fitgpp", "k8s", "priority"):
        mine = rows[rows["policy"] == policy]
        cells = [mean_ci_text(mine[f"{k}_vs_fifo"].to_numpy()) for k in study.PAPER_TRIO]
        assert f"| {policy} | {' | '.join(cells)} |" in doc
        vs_prio = [mean_ci_text(mine[f"{k}_vs_priority"].to_numpy()) for k in study.PAPER_TRIO]
        if policy != "priority":
            assert f"| {policy} | {' | '.join(vs_prio)} |" in doc
    # the trio itself is the percent change against fifo on the same seed
    fifo = rows[rows["policy"] == "fifo"].set_index("seed")["TE_slowdown_p95"]
    fit = rows[rows["policy"] == "fitgpp"].set_index("seed")
    assert np.allclose(fit["TE_p95_slowdown_pct_vs_fifo"], (fit["TE_slowdown_p95"] - fifo) / fifo * 100)
    # a paired difference of section 4
    diff = (
        rows[rows["policy"] == "fitgpp"].set_index("seed")["preemptions"]
        - rows[rows["policy"] == "k8s"].set_index("seed")["preemptions"]
    ).to_numpy(dtype=float)
    assert fmt_val(Stat.of(diff)) in doc.split("## 4.")[1].split("## 5.")[0]


def test_gang_part_from_its_rows(quick):
    """Section 10 runs paper-gang for every policy; its cells are the rows' (recomputed here)."""
    from simcore.policies import POLICIES

    doc = (quick / "RESULTS.md").read_text()
    section = doc.split("## 10. Gang jobs")[1].split("## Reproduce")[0]
    rows = pd.read_parquet(quick / "results" / "rows_gangs.parquet")
    assert (
        set(rows["policy"]) == set(POLICIES) and rows["seed"].nunique() == 3 and (rows["be_workers"] == "1,2,4").all()
    )
    fit = rows[rows["policy"] == "fitgpp"]
    cells = [mean_ci_text(fit[f"{k}_vs_fifo"].to_numpy()) for k in study.PAPER_TRIO]
    assert f"| fitgpp | {' | '.join(cells)} |" in section
    per_preemption = (fit["workers_stopped"] / fit["preemptions"]).to_numpy(dtype=float)
    assert fmt_val(Stat.of(per_preemption)) in section.split("| fitgpp |")[2]  # the cost table's row
    assert "results/grid_gangs.yaml --out " in doc.split("## Reproduce")[1]  # its command, with the others


def test_teams_part_from_its_rows(quick):
    """Section 12 runs teams for every policy at research's three borrow limits; its cells are the rows'."""
    from simcore.experiments.study import teams
    from simcore.policies import POLICIES

    doc = (quick / "RESULTS.md").read_text()
    section = doc.split(teams.HEADING)[1].split("## Reproduce")[0]
    rows = pd.read_parquet(quick / "results" / "rows_teams.parquet")
    assert set(rows["policy"]) == set(POLICIES) and rows["seed"].nunique() == 3
    assert set(rows["borrow_limit"]) == set(teams.LIMITS)
    k8s = rows[(rows["policy"] == "k8s") & (rows["borrow_limit"] == teams.LIMITS[0])]
    cell = fmt_val(Stat.of(k8s["queue_research_BE_slowdown_p95"].to_numpy()))
    assert section.split("| k8s |")[1].splitlines()[0].endswith(f"| {cell} |")
    assert "results/grid_teams.yaml --out " in doc.split("## Reproduce")[1]


def test_trace_part(quick):
    doc = (quick / "RESULTS.md").read_text()
    section = doc.split("## 6.")[1].split("## 7.")[0]
    if not TRACE.is_dir():
        assert "was not found" in section
        return
    assert "### Recipe A" in section and "### Recipe B" in section
    rows = pd.read_parquet(quick / "results" / "rows_alibaba_A.parquet")
    n = int(rows["jobs_simulated"].iloc[0])
    assert f"One workload of **{n} jobs**" in section
    fit = rows[rows["policy"] == "fitgpp"]["TE_p95_slowdown_pct_vs_fifo"].item()
    assert f"| fitgpp | {fit:+.1f}% |" in section


def test_missing_trace_is_skipped_with_a_message(tmp_path, capsys, monkeypatch):
    # the message needs a document, not the quick plan's figures: one fitgpp variant and one curve
    # (the quick plan itself is the fixture's); --seeds and --jobs still go through the command line
    tiny = replace(study.QUICK, p_values=(1,), s_values=(), curves=(("grace", (30, 300)),))
    monkeypatch.setattr(study, "QUICK", tiny)
    code = run(
        [
            "--quick",
            "--seeds",
            "2",
            "--jobs",
            "40",
            "--out-dir",
            str(tmp_path),
            "--workers",
            "1",
            "--no-progress",
            "--trace",
            str(tmp_path / "no-trace"),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "was not found" in printed and "trio vs fifo, mean [95% CI] over 2 seeds of 40 jobs" in printed
    doc = (tmp_path / "RESULTS.md").read_text()
    assert "was not found" in doc.split("## 6.")[1] and "**40 jobs**" in doc
    assert not list((tmp_path / "results").glob("rows_alibaba*"))


def _frame(columns: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """Rows of one point: ``columns[metric][policy]`` holds the values of seeds 0, 1, ..."""
    rows = []
    for metric, by_policy in columns.items():
        for policy, values in by_policy.items():
            for seed, v in enumerate(values):
                rows.append({"point_id": "p", "seed": seed, "policy": policy, "metric": metric, "v": v})
    long = pd.DataFrame(rows)
    return long.pivot_table(index=["point_id", "seed", "policy"], columns="metric", values="v").reset_index()


def test_comparison_text_follows_the_paired_intervals():
    # fitgpp - k8s per seed: BE p50 -1.0, -1.1, -0.9 (CI -1 +- 4.303 * 0.1 / sqrt 3: below 0);
    # BE p95 -1, -2, -3 (-2 +- 2.48: spans 0); TE p95 +2.0, +2.2, +1.8 (above 0)
    rows = _frame(
        {
            "BE_slowdown_p50": {"fitgpp": [2.0, 2.9, 3.1], "k8s": [3.0, 4.0, 4.0]},
            "BE_slowdown_p95": {"fitgpp": [5.0, 5.0, 5.0], "k8s": [6.0, 7.0, 8.0]},
            "TE_slowdown_p95": {"fitgpp": [3.0, 3.2, 2.8], "k8s": [1.0, 1.0, 1.0]},
        }
    )
    assert prose.comparison_text(rows, ["k8s"]) == (
        "- against **k8s**, fitgpp's BE p50 slowdown is lower (better); BE p95 slowdown: no clear difference; "
        "TE p95 slowdown is higher (worse).\n"
    )
    one_seed = rows[rows["seed"] == 0]
    assert "BE p50 slowdown: not enough seeds to tell" in prose.comparison_text(one_seed, ["k8s"])


def test_headline_text_quotes_the_rows_and_the_paper():
    # fitgpp's trio vs fifo over 2 seeds: TE -90, -92 -> -91 +- 12.706 * sqrt(2) / sqrt(2) = [-103.7, -78.3]
    rows = _frame(
        {
            "TE_p95_slowdown_pct_vs_fifo": {"fitgpp": [-90.0, -92.0]},
            "BE_p50_slowdown_pct_vs_fifo": {"fitgpp": [10.0, 10.0]},
            "BE_p95_slowdown_pct_vs_fifo": {"fitgpp": [20.0, 30.0]},
            "TE_slowdown_p95": {"fitgpp": [1.5, 2.5], "priority": [40.0, 60.0]},
        }
    )
    text = prose.headline_text(rows, 300, 2)
    assert text == (
        "On 300-job workloads (2 seeds), fitgpp changes the TE p95 slowdown by -91.0% [-103.7, -78.3] against FIFO "
        "(paper: -96.6%), the BE median slowdown by +10.0% [+10.0, +10.0] (paper: +18.0%) and the BE p95 slowdown "
        "by +25.0% [-38.5, +88.5] (paper: +23.9%). Priority ordering alone leaves the TE p95 slowdown at "
        "50, 25 times fitgpp's 2.\n"
    )


def test_grids_of_the_quick_plan():
    from simcore.experiments.study import plan
    from simcore.policies import POLICIES

    # P = 2 and s = inf are fitgpp's defaults: those variants are fitgpp itself, not new labels
    main = plan.main_grid(study.QUICK)
    assert main["policies"] == [*POLICIES, "fitgpp:P=1", "fitgpp:P=3", "fitgpp:s=4"]
    assert main["set"] == {"jobs": 300, "nodes": 4} and main["seeds"] == 3
    # each curve leaves out the centre (grace 30, restore 60, on_preempt, greedy, load 1.0, TE share 0.3),
    # which the main sweep's rows provide
    curves = plan.curve_grid(study.QUICK)
    assert curves["grid"] == [
        {"grace": [300]},
        {"restore": [600]},
        {"checkpoint": ["none"]},
        {"backfill": ["none"]},
        {"load": [0.8]},
        {"te_share": [0.5]},
    ]
    assert plan.fitgpp_label("s", float("inf")) == "fitgpp" and plan.fitgpp_label("P", 1000) == "fitgpp:P=1000"
    assert plan.same(1, 1.0) and plan.same("none", "none") and not plan.same(0.5, "0.5x")
