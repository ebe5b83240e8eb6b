"""Interruptions by cause on Explore (issue 35): the Preemptions tab's table and the "Was it worth it?"
chart read the runs' own accounting by cause (simcore.analysis.interruptions.by_cause), every number
written by simcore.core.fmt; runs without down time show neither."""

from __future__ import annotations

import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from streamlit.testing.v1 import AppTest

from dashboard.explore import charts, interruption_views
from simcore.analysis.interruptions import COSTS, FIELDS
from simcore.core.result import CAUSES


def _flat(scale: float) -> dict[str, float]:
    """A run's by-cause fields: cause i's count i + 1, its costs (i + 1) x scale hours each."""
    out: dict[str, float] = {}
    for i, cause in enumerate(CAUSES):
        out[f"{cause}_count"] = i + 1
        for cost in COSTS:
            out[f"{cause}_{cost}"] = (i + 1) * scale * 3600.0
    return {**out, "node_hours_down": 5.0 * scale, "wasted_node_down": 0}


def test_the_cause_table_has_a_row_per_policy_and_cause_in_gpu_hours() -> None:
    table = interruption_views.cause_table({"fifo": _flat(1.0), "k8s": _flat(2.0), "plain": {"preemptions": 3}})
    assert table["policy"].tolist() == ["fifo"] * 3 + ["k8s"] * 3  # the run without down time is left out
    assert table["cause"].tolist()[:3] == ["preemption", "maintenance drain", "node failure"]
    assert table["interruptions"].tolist() == [1, 2, 3, 1, 2, 3]
    assert table["lost work (GPU-h)"].tolist() == [1.0, 2.0, 3.0, 2.0, 4.0, 6.0]
    assert interruption_views.node_hours_down({"fifo": _flat(1.0), "k8s": _flat(2.0)}) == 10.0
    assert interruption_views.cause_table({"plain": {"preemptions": 3}}).empty
    assert set(FIELDS) >= {f"{c}_{m}" for c in CAUSES for m in ("count", *COSTS)}  # the fields the table reads


def test_the_cost_chart_stacks_lost_grace_and_restore_per_cause_mean_over_seeds() -> None:
    costs = interruption_views.cost_by_cause([{"fifo": _flat(1.0)}, {"fifo": _flat(3.0)}])
    # per seed a cause costs 3 x (i + 1) x scale hours (lost + grace + restore): the mean of scales 1 and 3 is 2
    assert costs["gpu_hours"].tolist() == [6.0, 12.0, 18.0] and costs["n"].tolist() == [2, 2, 2]
    figure = charts.cause_figure(costs)
    assert [t.name for t in figure.data] == ["preemption", "maintenance drain", "node failure"]
    assert [list(t.x) for t in figure.data] == [[6.0], [12.0], [18.0]] and figure.layout.barmode == "stack"


@pytest.mark.parametrize("tab", ["Preemptions", "Was it worth it?"])
def test_the_tabs_show_the_runs_own_accounting_by_cause(tab: str) -> None:
    from simcore.analysis.interruptions import by_cause

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"node_events": "demo-0,3600,7200,failure\ndemo-1,20000,30000,maintenance", "tab": tab})
    at.run()
    assert_clean(at)
    from dashboard.runs import data
    from dashboard.shared.scenario import Scenario

    scenario, _ = Scenario.from_query(dict(at.query_params))
    workload = data.sample_workload(scenario.sample)
    cluster = data.resolve_cluster(scenario, workload, None)
    from simcore.engine import simulate

    expected = {p: by_cause(simulate(workload.table, cluster, scenario.config(p))) for p in scenario.policies}
    if tab == "Preemptions":
        table = next(d.value for d in at.main.dataframe if "cause" in d.value.columns)
        for row in table.to_dict("records"):
            cause = {v: k for k, v in interruption_views.CAUSE_NAMES.items()}[row["cause"]]
            assert row["interruptions"] == expected[row["policy"]][cause]["count"]
            assert row["lost work (GPU-h)"] == pytest.approx(expected[row["policy"]][cause]["gpu_seconds_lost"] / 3600)
        assert expected["fifo"]["drain"]["count"] == 1  # the maintenance window drained one job
    else:
        spec = chart_spec(at, "worth_causes")
        failure = next(t for t in spec["data"] if t["name"] == "node failure")
        for policy, hours in zip(failure["y"], failure["x"], strict=True):
            assert hours == pytest.approx(sum(expected[policy]["failure"][c] for c in COSTS) / 3600)


def test_runs_without_down_time_show_no_cause_table() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"tab": "Preemptions"})
    at.run()
    assert_clean(at)
    assert not any("cause" in d.value.columns for d in at.main.dataframe)
    assert "Interruptions by cause" not in [m.value.strip("*") for m in at.markdown]
