"""The dashboard's Sweep page over a gang workload (the paper-gang generator, DESIGN section 7)."""

from __future__ import annotations

from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.runs import data
from dashboard.sweep import sweeps


def test_sweep_page_runs_paper_gang_and_its_rows_price_gang_preemptions() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(
        run="1", preset="paper-gang", knob="load", values="0.8,1.2", seeds="2", workers="1", policies="fifo,fitgpp",
        jobs="150",
    )  # fmt: skip
    at.switch_page("app_pages/sweep.py").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert at.selectbox(key="s_preset").value == "paper-gang"
    settings, _ = sweeps.SweepSettings.from_query(dict(at.query_params))
    rows = data.stored_sweep(settings.spec())  # the rows the page drew, in the server's shared store
    assert rows is not None
    assert sorted(set(rows["policy"])) == ["fifo", "fitgpp"] and len(rows) == 2 * 2 * 2
    fitgpp = rows[rows["policy"] == "fitgpp"]
    assert (fitgpp["preemption_decisions"] > 0).all() and (rows.loc[rows["policy"] == "fifo", "preemptions"] == 0).all()
