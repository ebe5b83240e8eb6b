"""The Sweep page's session rules: results only after the button, and a Dask address a link
offers but may not set. Like :mod:`dashboard.shared.state` (whose rules it follows: the session
is a mapping, keys from :mod:`dashboard.shared.keys`), it is tested on a plain dict; it sits beside
the settings it keeps because shared modules never import a page's own modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from dashboard.shared import keys
from dashboard.shared.demo import Limits
from dashboard.shared.keys import Session
from dashboard.sweep import sweeps


def sweep_from_link(session: Session, query: Mapping[str, Any], lim: Limits) -> tuple[sweeps.SweepSettings, list[str]]:
    """A link's settings, less what a link may not decide (a Dask address is only offered)."""
    settings, warnings = sweeps.SweepSettings.from_query(query)
    settings, vetted, offered = sweeps.vet_link(settings, lim)
    keys.DASK_OFFERED.set(session, offered)
    return settings, warnings + vetted


def dask_offered(session: Session, lim: Limits) -> str:
    """The Dask address a link offered, while the visitor has not accepted it ("" if none)."""
    return (keys.DASK_OFFERED.maybe(session) or "") if lim.allow_dask else ""


def accept_dask(session: Session) -> None:
    keys.S_DASK.set(session, keys.DASK_OFFERED.maybe(session) or "")
    keys.DASK_OFFERED.set(session, None)


def sweep_settings(session: Session, current: sweeps.SweepSettings, clicked: bool, lim: Limits) -> sweeps.SweepSettings:
    """The sweep to show: results only for the settings last run, so a changed knob waits for
    the button; a Dask scheduler or worker count only where the operator may name them."""
    if not lim.allow_dask:  # never from the session either: only the operator may name a scheduler
        current = replace(current, workers=0, dask="")
    if clicked:
        keys.SWEEP_RAN_FOR.set(session, current)
    return replace(current, run=keys.SWEEP_RAN_FOR.maybe(session) == current)


def knob_values_reset(session: Session) -> None:
    """A newly chosen sweep knob starts from its own default values (an upload's cluster size: none, so the
    page offers sizes around the one its workload is busy on, :func:`dashboard.sweep.sweeps.sized_values`)."""
    knob = keys.S_KNOB.read(session)
    upload = keys.S_SOURCE.get(session, "preset") == "upload"
    keys.S_VALUES.set(session, "" if upload and knob == "nodes" else sweeps.SWEEP_KNOBS[knob][0])


def source_changed(session: Session) -> None:
    """A newly chosen workload source keeps a knob it can sweep, else takes its first; the values start afresh
    when the knob changed or is the cluster's size (whose values differ between a preset and an upload)."""
    offered = sweeps.UPLOAD_KNOBS if keys.S_SOURCE.read(session) == "upload" else tuple(sweeps.SWEEP_KNOBS)
    knob = keys.S_KNOB.get(session, sweeps.SweepSettings.knob)
    if knob not in offered:
        keys.S_KNOB.set(session, offered[0])
    if knob not in offered or knob == "nodes":
        knob_values_reset(session)
