"""In headless Chromium: the Gantt's Next preemption opens *Why this victim?*, which names the
deciding key value, defines it, and shows what k8s would take on the same state (issue 19).

The expected words are computed here from the engine, independently of the page: the default
scenario's fitgpp run with k8s asked on every view (``simulate(..., same_state="k8s")``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.browser import ARTIFACTS, BROWSER_TESTS, TIMEOUT_MS, settle, wait_idle

from dashboard.shared import gantt_views
from dashboard.shared.decision_text import decision_for
from dashboard.shared.scenario import Scenario
from simcore.engine import simulate
from simcore.policies.glossary import TERMS
from simcore.presets import generate
from simcore.samples import SAMPLES
from simcore.workload import load_cluster

ROOT = Path(__file__).resolve().parent.parent

pytestmark = BROWSER_TESTS
sync_api = pytest.importorskip("playwright.sync_api")


def _first_steps(n: int) -> list[dict]:
    """The decision records of fitgpp's first `n` preemptions, as the Gantt steps through them, on the
    default scenario."""
    scenario = Scenario()
    preset, seed, overrides = next((p, s, o) for f, p, s, o in SAMPLES if f == f"{scenario.sample}.csv")
    gen = generate(preset, seed, overrides)
    cluster = load_cluster(ROOT / "sample_workloads" / f"{preset}_cluster.yaml").cluster  # as the dashboard loads it
    run = simulate(gen.table, cluster, scenario.config("fitgpp"), same_state="k8s")
    steps = gantt_views.preemption_list(run.events_frame).head(n)
    records = [decision_for(run.decisions, chosen) for _, chosen in steps.iterrows()]
    assert all(r is not None for r in records)
    return records  # type: ignore[return-value]


def _wait_idle(page) -> None:
    """The run a click started is over and no element of the previous one is left."""
    wait_idle(page)
    page.wait_for_function("""() => !document.querySelector('[data-stale="true"]')""", timeout=TIMEOUT_MS)


def test_why_this_victim_names_defines_and_compares_on_the_same_state(
    dashboard_server: str, new_page: Callable[..., Any]
) -> None:
    records = _first_steps(5)
    step = next(i for i, r in enumerate(records) if sorted(r["victims"]) != sorted(r["same_state"]["victims"]))
    record = records[step]
    deciding, alt = record["deciding"], record["same_state"]
    label = deciding.replace("_", " ")
    page = new_page(1400, 2400)
    page.goto(f"{dashboard_server}/?tab=Gantt")
    _wait_idle(page)
    page.get_by_role("button", name="Next preemption").wait_for(timeout=TIMEOUT_MS)
    for n in range(step + 1):
        page.get_by_role("button", name="Next preemption").click()
        _wait_idle(page)
        if n == 0:  # the first preemption's decision opens under the Gantt, fitgpp's choice beside k8s's
            page.get_by_text("Why this victim?").wait_for(timeout=TIMEOUT_MS)
            first = page.get_by_text("chosen because").first
            first.wait_for(timeout=TIMEOUT_MS)
            assert "fitgpp took node" in first.inner_text() and "k8s" in first.inner_text()
            page.get_by_text("Why this victim?").scroll_into_view_if_needed()
            settle(page)
            page.screenshot(path=str(ARTIFACTS / "explore-decision.png"), full_page=True)
    words = page.get_by_text("chosen because").first
    words.wait_for(timeout=TIMEOUT_MS)
    page.get_by_text(f"TE job {record['te_job']} needed").first.wait_for(timeout=TIMEOUT_MS)
    text = words.inner_text()
    # the deciding criterion is named, defined and its principle given
    assert f"{label} decided:" in text
    assert f"{label.capitalize()} is {TERMS[deciding].meaning}." in text
    assert f"Principle: {TERMS[deciding].principle}." in text
    # what k8s would take on this very state, beside the chosen set
    taken = ("BE job " if len(alt["victims"]) == 1 else "BE jobs ") + ", ".join(alt["victims"])
    assert (
        f"On the same state (this instant's cluster), k8s would take {taken} on node {alt['node']}: a different choice"
        in text
    )
    assert "In k8s's own run on the same jobs (a second view" in text
    assert not page.locator('[data-testid="stException"]').count()
