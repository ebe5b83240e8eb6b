"""Explore's first run in a browser: the first chart drawn before the rest of the page is sent.

A warm visit's first chart waited on the browser's work on the rest of the page (the sidebar's
widgets, the tabs, the tables, the download buttons and the scripts they load), which arrived
before Plotly's code was in and was rendered first (docs/dashboard.md, "Where a warm visit
waits"). So the session's first run of the page, when its results came from the shared store
without waiting for a computation, sends the title, the workload line, the pooled-bound toggle, the
trio with the percentile chart and then a small component (:func:`answer_when_drawn`), and ends
there. The component's script answers once the first chart's SVG is in the page and a frame has
been painted, or after :data:`ANSWER_AFTER_MS` at the latest; the answer starts the next run, which,
like every run after a session's first, draws the whole page from the store (no computation: the
first run has just put or found its results there).

A run that shows no chart (an upload not given yet, an error, a refusal) or that waited for a
computation (its progress and the sidebar are already drawn) is never held.
"""

from __future__ import annotations

import os

import streamlit as st

from dashboard.shared import keys
from dashboard.shared.keys import Session

#: ``SIMCORE_WHOLE_PAGE=1``: every run sends the whole page, for where no browser runs the answer's
#: script (Streamlit's AppTest: tests/conftest.py sets it for every test but the Chromium ones)
WHOLE_PAGE_ENV = "SIMCORE_WHOLE_PAGE"
#: the longest the rest of the page waits for the first chart (a slow or hidden tab, a chart that fails)
ANSWER_AFTER_MS = 10_000
#: the first Plotly chart drawn: its SVG root (what bench/first_chart.py waits on too)
CHART = ".js-plotly-plot .main-svg"
#: the component's key: its element's class is ``st-key-<KEY>`` (tests/helpers/browser.py waits on it)
KEY = "first_chart_drawn"

# Runs in the visitor's page (Streamlit's components v2: inline, no iframe). Its answer, a trigger
# value, only starts a rerun: the server reads nothing from it.
JS = """
export default function ({ data, setTriggerValue }) {
  let answered = false;
  const answer = () => {
    if (!answered) {
      answered = true;
      setTriggerValue("drawn", true);
    }
  };
  const timer = setTimeout(answer, data.wait_ms);
  // one frame after the SVG is in, so the chart is painted before the rest of the page arrives
  const soon = () => requestAnimationFrame(() => setTimeout(answer, 0));
  const observer = new MutationObserver(() => {
    if (document.querySelector(data.chart)) {
      observer.disconnect();
      soon();
    }
  });
  if (document.querySelector(data.chart)) soon();
  else observer.observe(document.body, { childList: true, subtree: true });
  return () => {
    answered = true;  // unmounted (a rerun started some other way): that run draws the whole page
    observer.disconnect();
    clearTimeout(timer);
  };
}
"""

_answer = st.components.v2.component("explore_first_chart", js=JS)


def first_run(session: Session) -> bool:
    """True on the session's first run of the Explore page (then marked, so once per session)."""
    if keys.EXPLORE_RAN.get(session, False):
        return False
    keys.EXPLORE_RAN.set(session, True)
    return True


def holds(first: bool, waited: bool) -> bool:
    """Whether this run ends after the first chart: the session's ``first`` run, unless it ``waited``
    for a computation or :data:`WHOLE_PAGE_ENV` is 1."""
    return first and not waited and os.environ.get(WHOLE_PAGE_ENV) != "1"


def answer_when_drawn(session: Session, link_warnings: list[str]) -> None:
    """The component that starts the next run once the first chart is drawn (or after
    :data:`ANSWER_AFTER_MS`); that run shows this one's ``link_warnings`` again (:func:`warnings`)."""
    keys.HELD_WARNINGS.set(session, link_warnings)
    _answer(key=KEY, data={"chart": CHART, "wait_ms": ANSWER_AFTER_MS})


def warnings(session: Session, link_warnings: list[str]) -> list[str]:
    """This run's warnings about the link: in the run a held first run's answer starts, the held
    run's (the link was applied by then, so restoring it finds nothing to warn about, and a warning
    the held run showed would vanish when this run draws the page)."""
    held = keys.HELD_WARNINGS.drop(session)
    return link_warnings or held or []
