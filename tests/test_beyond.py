"""Section 8 of RESULTS.md (:mod:`simcore.experiments.study.beyond`) on a tiny plan: every cell is the rows' number, recomputed
here independently (numpy mean, t-table critical value), and every verdict follows its interval."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from simcore.experiments.study import QUICK, beyond
from simcore.experiments.study.figures import Figures
from simcore.experiments.study.run import RunOptions, run_beyond, run_grid

# one xdist worker runs the module, so the tiny study (a module fixture) is computed once
pytestmark = pytest.mark.xdist_group("beyond")
T975 = {1: 12.7062047, 2: 4.3026527}  # two-sided 95% Student t critical values


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    results = tmp_path_factory.mktemp("beyond") / "results"
    results.mkdir()
    plan = QUICK.with_overrides(main_seeds=2, jobs=150, nodes=2)
    kw = RunOptions(workers=1, dask=None, progress=None, resume=False)
    main_grid = {
        "preset": "paper",
        "set": {"jobs": plan.jobs, "nodes": plan.nodes},
        "seeds": plan.main_seeds,
        "policies": ["fifo", *beyond.PREEMPTIVE],
        "baseline": ["fifo"],
    }
    main, _ = run_grid(main_grid, "main", results, **kw)
    study = run_beyond(plan, results, lambda _: None, kw)
    text = beyond.section(plan, study, main, None, Figures(results))
    return text, study, main, results


def ci_text(values: np.ndarray) -> str:
    n, mean = len(values), float(np.mean(values))
    half = T975[n - 1] * float(np.std(values, ddof=1)) / math.sqrt(n)
    return f"{mean:.3g} [{mean - half:.3g}, {mean + half:.3g}]"


def _row(text: str, first_cell: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| {first_cell} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def _paired(rows: pd.DataFrame, a: str, b: str, metric: str) -> np.ndarray:
    x = rows[rows["policy"] == a].sort_values("seed")[metric].to_numpy(dtype=float)
    y = rows[rows["policy"] == b].sort_values("seed")[metric].to_numpy(dtype=float)
    return x - y


def test_sections_figures_and_grids(tiny):
    text, study, _, results = tiny
    for heading in ["## 8. Beyond the paper", "### Criteria", "### Absolute values per regime", "### `min_runtime`"]:
        assert heading in text
    for name in (
        "sensitivity_min_runtime.png",
        "sensitivity_min_runtime_checkpoint_none.png",
        *(f"grid_{g}.yaml" for g in study.grids),
        *(f"rows_{g}.parquet" for g in study.grids),
    ):
        assert (results / name).is_file(), name
    assert "n/a" not in text  # every policy has rows at every min_runtime, in both modes
    assert "Alibaba recipe A" not in text  # no trace given: the regime is left out, not invented


def test_criteria_cells_are_the_rows_paired_differences(tiny):
    text, study, _, _ = tiny
    none = study.regimes[study.regimes["checkpoint"] == "none"]
    cells = _row(text, "checkpoint = none")
    assert cells[2] == ci_text(_paired(none, "fitdelay", "fitgpp", "BE_slowdown_p50"))
    assert cells[3] == ci_text(_paired(none, "fitdelay", "fitgpp", "BE_slowdown_p95"))
    lost = _paired(none, "fitdelay", "k8s", "lost_work")
    assert cells[6].startswith(ci_text(lost))
    assert ("(**at most k8s**)" in cells[6]) == (lost.mean() <= 0)
    te = _paired(none, "fitdelay", "fitgpp", "TE_slowdown_p95")
    scale = 100 / none.loc[none["policy"] == "fitgpp", "TE_slowdown_p95"].mean()
    assert cells[1].startswith(ci_text(te * scale) + "%")


def test_verdicts_follow_the_intervals(tiny):
    text, study, main, _ = tiny
    frames = beyond.regime_frames(study, main, None)
    for label, rows in frames.items():
        c = beyond.check(label, rows)
        cells = _row(text, label)
        be50 = _paired(rows, "fitdelay", "fitgpp", "BE_slowdown_p50")
        be95 = _paired(rows, "fitdelay", "fitgpp", "BE_slowdown_p95")
        half50 = T975[len(be50) - 1] * be50.std(ddof=1) / math.sqrt(len(be50))
        half95 = T975[len(be95) - 1] * be95.std(ddof=1) / math.sqrt(len(be95))
        better = be50.mean() + half50 < 0 and be95.mean() + half95 < 0
        worse = be50.mean() - half50 > 0 or be95.mean() - half95 > 0
        assert c.be_better == better and c.be_not_worse == (not worse), label
        assert (cells[4] == "**yes**") == (not worse)
        if label in beyond.MUST_WIN and not better:
            assert re.search(rf"\*{re.escape(label)}\*: BE is (not measurably better|worse)", text)


def test_min_runtime_table_holds_every_policy_and_value(tiny):
    text, study, main, _ = tiny
    for mode in beyond.MIN_RUNTIME_MODES:
        frame = beyond.min_runtime_frame(study, main, mode)
        assert sorted(frame["min_runtime"].unique()) == list(beyond.MIN_RUNTIMES)
        for p in beyond.PREEMPTIVE:
            for v in beyond.MIN_RUNTIMES:
                at = frame[(frame["policy"] == p) & (frame["min_runtime"] == v)]
                assert len(at) == study.min_runtime["seed"].nunique(), (mode, p, v)
    none = beyond.min_runtime_frame(study, main, "none")
    k8s = none[none["policy"] == "k8s"]
    lost = [k8s[k8s["min_runtime"] == v].sort_values("seed")["lost_work"].to_numpy(dtype=float) for v in (3600, 0)]
    sentence = next(
        line
        for line in text.splitlines()
        if line.startswith("min_runtime = 3600 s minus 0 s, paired by seed (checkpoint = none)")
    )
    assert f"lost work {ci_text(lost[0] - lost[1])} s; lrtp" in sentence
