"""Visitor text (job ids, node names, file names, policy labels) as plain text in the report.

:func:`text` escapes what the report writes into its own HTML. Plotly draws a figure's text,
hover labels, tick labels and titles as its own small HTML (``<a href>``, ``<b>``, ``<br>``), so
:func:`chart_text` escapes the visitor text a figure is built from; Plotly turns the entities
back into the same characters on screen. (The hosting branch adds ``chart_text`` to
:mod:`dashboard.shared.plain` and makes the shared charts escape visitor text themselves; once
both are merged, the report must give the charts the raw runs, without :func:`chart_run` and
:func:`chart_cluster`, or the text is escaped twice: ``tests/test_report.py`` checks for that.)
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import replace

import pandas as pd

from dashboard.shared.compute import Run
from simcore.model import ClusterSpec


def text(value: object) -> str:
    """``value`` as HTML text (element content or a quoted attribute) that shows exactly its characters."""
    return html.escape(str(value), quote=True)


def chart_text(value: object) -> str:
    """``value`` as text for a Plotly figure: no tag of Plotly's can form from it."""
    return html.escape(str(value), quote=False)


def _escape_columns(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    out = frame.copy()
    for column in columns:
        if column in out:
            out[column] = [
                [chart_text(x) for x in v] if isinstance(v, list | tuple) else chart_text(v) for v in out[column]
            ]
    return out


def chart_run(run: Run) -> Run:
    """A run whose visitor text (job ids, node names) is escaped for the figures."""
    ids = ("job_id", "node", "te_job", "victims", "first_victim", "victim_node")
    return replace(
        run,
        jobs=_escape_columns(run.jobs, ids),
        events=_escape_columns(run.events, ids),
        segments=_escape_columns(run.segments, ids),
        decisions=_escape_columns(run.decisions, ids),
    )


def chart_cluster(cluster: ClusterSpec) -> ClusterSpec:
    """The cluster with its node names escaped for the figures (escaping keeps names distinct)."""
    return ClusterSpec(tuple(replace(node, name=chart_text(node.name)) for node in cluster.nodes))
