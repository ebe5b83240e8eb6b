"""A computation a page asks for while it holds its results, parked so that no page waits in line
holding them (docs/hosting.md "Demo mode").

A page drawing a comparison may need one more computation beside it (a what-if, the pooled bound,
the decision records). If that computation cannot start at once (every slot taken, or another
visitor computing it), waiting for it inside this script run would keep the whole comparison in
memory for as long as the wait, beyond the shared store's bound. So the page parks it here
(:func:`now_or_park`: its keys and its worker call, no result) and ends its script run; the next
run serves it first (:func:`serve_parked`, from :func:`dashboard.runs.data.compare`), before it
holds anything, and hands its values on (:func:`served`) to the run that asked, which reads the
comparison again from the store (or computes it again) and draws.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.runs import budget, slots
from dashboard.runs.store import BoundedStore
from dashboard.shared import keys
from dashboard.shared.demo import limits
from simcore.core.errors import UserError


@dataclass(frozen=True)
class Request:
    """A parked computation: ``fn(*args)`` gives the values of ``keys`` (:func:`dashboard.runs.data._compute`)."""

    keys: tuple[Hashable, ...]
    fn: Callable[..., Any]
    args: tuple[Any, ...]  # the workload's table, the cluster, a config: never a run
    command: str  # the local ``simcore`` command a refusal names


def now_or_park(store: BoundedStore, line: slots.ComputeSlots, request: Request) -> slots.Ticket:
    """A running slot for ``request``, its keys claimed in ``store``, if it can start at once; else it is
    parked and the script run ends here, letting go of the results the page holds: the next run
    computes it first (:func:`serve_parked`), holding none, then draws again."""
    if store.claim(request.keys) is None:
        try:
            ticket = line.enter()
        except slots.Full:
            store.release(request.keys)
            raise budget.busy(limits(), line.running, line.waiting, request.command) from None
        if ticket.running:
            return ticket
        line.leave(ticket)
        store.release(request.keys)
    st.session_state[keys.PARKED.name] = request
    st.rerun()


def serve_parked(store: BoundedStore, compute: Callable[[Request], list[Any] | None]) -> None:
    """The computation this page parked in its last run, computed now with ``compute`` (it waits in
    line: None when another visitor computed it meanwhile) while the page holds no result, its values
    (or its failure) handed to this run; a visitor who changed a setting meanwhile costs one
    computation no page reads. The values served to an earlier run are dropped."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return  # outside a page (the launcher's warm-up): no session, nothing parked
    session = st.session_state
    session.pop(keys.SERVED.name, None)
    request: Request | None = session.pop(keys.PARKED.name, None)
    if request is None:
        return
    try:
        values = [store.get(k) for k in request.keys]
        while any(v is None for v in values):  # all of them, unless another visitor's computation is under way
            values = compute(request) or [store.get(k) for k in request.keys]
        served: list[Any] = values
    except UserError as exc:  # shown by the page that asked, without the frames it was raised in
        served = [exc.with_traceback(None)] * len(request.keys)
    session[keys.SERVED.name] = dict(zip(request.keys, served, strict=True))


def served(key: Hashable) -> Any | None:
    """The value served for ``key``, taken out (a page reads each value once per run, so a value the
    store did not keep is not held by the session afterwards), None if none; raises the failure
    served instead."""
    found = st.session_state.get(keys.SERVED.name)
    if not found or key not in found:
        return None
    value = found.pop(key)
    if isinstance(value, BaseException):
        raise value
    return value
