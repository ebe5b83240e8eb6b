"""The Sweep page's checkpoint advisor (layout only): which checkpoint interval a policy's interruptions call
for, on the page's preset, jobs and seeds (issue 35).

One policy runs with ``checkpoint = periodic`` at each interval given (:func:`dashboard.runs.compute.advice`,
in a worker, shared like every computation), after the button, within the limits
(:func:`dashboard.runs.budget.check_advice`: every interval on every seed, and the random failures at their
cost). The chart marks the simulated best and Young/Daly's interval
(:mod:`dashboard.sweep.advice_charts`); the settings are :mod:`dashboard.sweep.advice_views`'.
"""

from __future__ import annotations

import streamlit as st

from dashboard.runs import budget, compute, data, worker
from dashboard.shared import keys, knob_widgets, notices
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.demo import Limits
from dashboard.sweep import advice_charts, advice_views, sweep_state
from dashboard.sweep.sweeps import SOURCE_LABELS, SweepSettings
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS


def show(sweep: SweepSettings, lim: Limits) -> None:
    """The advisor's expander: its settings, its button and, once run, its chart, verdict and table."""
    session = st.session_state
    sweep_state.advice_defaults(session, sweep.policies)
    ran = keys.ADVICE_RAN_FOR.maybe(session) is not None
    with st.expander("Checkpoint advisor: which interval do the interruptions call for?", expanded=ran):
        if sweep.source != "preset":
            st.caption(
                f"The advisor runs on a preset (Workload: {SOURCE_LABELS['preset']} in the sidebar). For your own "
                "file, run `simcore checkpoint-advice FILE --policy NAME --set checkpoint_cost=... --set mtbf=...` "
                "on your machine (docs/cli.md)."
            )
            return
        st.caption(
            f"One policy on the sidebar's preset (**{sweep.preset}**), jobs and seeds ({sweep.seeds}), with "
            "`checkpoint = periodic` at each interval below: the BE slowdown and the work lost per interval, the "
            "best found beside Young/Daly's sqrt(2 x checkpoint cost x M), M the BE jobs' run time per "
            "interruption (preemptions and node failures together). As `simcore checkpoint-advice`; not in the "
            "page's link."
        )
        left, mid, right = st.columns(3)
        left.selectbox("Policy", sweep.policies, key=keys.ADV_POLICY.name)
        left.text_input("Checkpoint intervals (s, comma-separated)", key=keys.ADV_INTERVALS.name)
        for where, name in ((mid, "checkpoint_cost"), (mid, "repair"), (right, "mtbf")):
            # shown as Explore shows the knob (mtbf as text: inf, no random failures, is a value)
            widget, key = knob_widgets.widget_for(KNOBS[name]), advice_views.KNOB_KEYS[name]
            if widget.kind == "text":
                where.text_input(widget.label, key=key.name, help=widget.knob.help())
            else:
                where.number_input(widget.label, key=key.name, help=widget.knob.help(), **widget.number_args())
        clicked = right.button("Run the advisor", icon=":material/play_arrow:", width="stretch")
        try:
            settings = advice_views.read(session, sweep.preset, sweep.jobs, sweep.seeds)
        except UserError as exc:
            notices.error(exc)
            return
        if not sweep_state.advice_to_show(session, settings, clicked):
            st.info("Set the cost and the failures, then press **Run the advisor**.", icon=":material/tune:")
            return
        _advice(settings, lim)


def _advice(settings: advice_views.AdviceSettings, lim: Limits) -> None:
    gen, intervals = settings.gen(), settings.intervals
    command = budget.advice_command(settings.preset, gen, settings.seeds, settings.policy, settings.knobs(), intervals)
    try:
        budget.check_advice(settings.preset, gen, settings.seeds, len(intervals), 0, lim, command)
        first = data.generated_workload(settings.preset, 0, gen)  # the random failures' count needs its horizon
        assert first.cluster is not None  # a preset's workload comes with its cluster
        windows = budget.random_windows(first.table, len(first.cluster.nodes), settings.mtbf, settings.repair)
        budget.check_advice(settings.preset, gen, settings.seeds, len(intervals), windows, lim, command)
        args = (settings.preset, gen, settings.seeds, settings.config(), intervals)
        with notices.progress("Running the advisor...") as heartbeat:
            advice = data.computed(("advice", repr(settings)), compute.advice, args, heartbeat, command)
    except worker.TimedOut as exc:
        notices.error(budget.timed_out("The checkpoint advisor", lim, command, exc.wall))
        return
    except UserError as exc:
        notices.error(exc)
        return
    except worker.Cancelled:
        st.stop()
    st.plotly_chart(advice_charts.advice_figure(advice), config=PLOT_CONFIG, key="advice")
    st.markdown(advice_views.verdict(advice))
    st.dataframe(advice_views.table(advice), hide_index=True, width="stretch")
    st.caption(f"{advice.runs} runs. The same advice locally: `{command}`")
