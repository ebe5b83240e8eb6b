"""Demo mode: the limits of a dashboard hosted in public (docs/hosting.md).

Switched on by the environment variable ``SIMCORE_DEMO=1`` or the Streamlit secrets entry
``simcore_demo = true``. In demo mode every visit's work is bounded by :data:`DEMO`; outside
it (a user's own machine) :data:`LOCAL` applies. Each limit is defined here once and named in
every refusal, together with the ``simcore`` command that runs the same work locally.

The demo's memory at its caps is budgeted here too (:func:`memory_parts`): the server, its
forkserver, the workers, the shared results and what pages drawn at once add, from constants
measured by ``bench/demo_memory.py``; a test keeps the sum within :data:`SERVER_MEMORY_MB`.
"""

from __future__ import annotations

import ast
import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from simcore.core.errors import UserError
from simcore.workload.node_events import MAX_NODE_EVENTS

S = TypeVar("S")
ENV_VAR = "SIMCORE_DEMO"
SECRET_KEY = "simcore_demo"


class Refused(UserError):
    """Over a limit: the message names it and the command that runs the work locally (the pages show
    the command to copy: :func:`dashboard.shared.notices.error`)."""


@dataclass(frozen=True)
class Limits:
    """One set of limits; what each one means is in :data:`MEANING`."""

    demo: bool
    budget: int
    max_jobs: int
    max_nodes: int
    max_seeds: int
    max_policies: int
    max_queues: int
    max_sweep_values: int
    max_node_events: int
    upload_bytes: int
    upload_rows: int
    run_seconds: float
    wall_seconds: float
    max_computations: int
    worker_mb: int
    max_drawing: int
    max_waiting: int
    allow_dask: bool
    max_workers: int
    cache_mb: int
    cache_seconds: float


MEANING: dict[str, str] = {
    "budget": "simulated job-runs one page view may start: jobs x policies x seeds (x sweep values), a gang counting once per worker",
    "max_jobs": "jobs in one workload (generated, sample or uploaded), a gang counting once per worker",
    "max_nodes": "nodes in one cluster (custom, generated, uploaded or a sweep value)",
    "max_seeds": "seeds of one scenario or sweep",
    "max_policies": "policies compared at once",
    "max_queues": "rows of the queues table (teams sharing the cluster)",
    "max_sweep_values": "values of the swept knob",
    "max_node_events": "rows of Explore's node-events table (down windows of nodes); each down window, typed or drawn from `mtbf`, also counts in the budget at what it costs a run",
    "upload_bytes": "size of one uploaded file",
    "upload_rows": "rows parsed from one uploaded file (checked while parsing)",
    "run_seconds": "CPU time one computation may use (its worker process's own seconds on a core): it is stopped past it; a busy server makes a computation slower, not stopped sooner",
    "wall_seconds": "wall-clock limit of one computation, however busy the server: it is stopped past it, so each place in line frees within it",
    "max_computations": "computations the whole server runs at once (every visitor's together); the next ones wait in line",
    "worker_mb": "resident memory of one computation's worker process (MB): it is stopped past it",
    "max_drawing": "pages drawing their charts at once (every visitor's together); the next ones wait a moment",
    "max_waiting": "visitors waiting in line for a computation, each shown its place; past it a visitor is told the server is busy",
    "allow_dask": "a Dask scheduler may be named (never from a link without a click)",
    "max_workers": "local worker processes of one sweep",
    "cache_mb": "size of the results every visitor shares (least recently used dropped first)",
    "cache_seconds": "age after which a shared result is computed again",
}


PER_CORE = ("max_workers", "max_computations", "max_drawing")  # outside demo mode: the machine's core count

DEMO = Limits(
    demo=True,
    budget=200_000,
    max_jobs=20_000,
    max_nodes=256,
    max_seeds=5,
    max_policies=6,
    max_queues=8,
    max_sweep_values=6,
    max_node_events=100,  # a class's maintenance plan or failure drill, not a trace of failures
    upload_bytes=10_000_000,
    upload_rows=100_000,
    run_seconds=60.0,  # the worst comparison the caps allow takes 21 s on the pure-Python engine (bench/comparison_cost.py)
    wall_seconds=600.0,  # ten times run_seconds: a computation sharing its core with nine others still finishes
    max_computations=2,  # two worker processes on a 2-core, 2 GB server (memory_parts)
    worker_mb=320,  # a comparison at max_jobs x max_policies peaks at 254 MB (bench/demo_memory.py)
    max_drawing=2,  # a drawing takes seconds; two cores draw two at a time anyway
    max_waiting=40,  # waiting costs no process; each slot frees within wall_seconds
    allow_dask=False,
    max_workers=1,  # a sweep runs in its computation's own worker: a pool would add a forkserver and processes
    cache_mb=200,  # one comparison at max_jobs x max_policies (171.5 MB) fits: memory_parts
    cache_seconds=3600.0,
)
LOCAL = Limits(
    demo=False,
    budget=5_000_000,  # minutes of simulation; larger studies belong to `simcore sweep`
    max_jobs=250_000,  # the mmc preset's 200,000 fit; a run's frames are about 0.4 kB per job
    max_nodes=100_000,
    max_seeds=10,
    max_policies=12,
    max_queues=100,
    max_sweep_values=12,
    max_node_events=MAX_NODE_EVENTS,  # a node-events file's own limit
    upload_bytes=200_000_000,
    upload_rows=5_000_000,
    run_seconds=1800.0,
    wall_seconds=3600.0,
    max_computations=max(1, os.cpu_count() or 1),
    worker_mb=0,  # no limit: the user's own machine
    max_drawing=max(1, os.cpu_count() or 1),
    max_waiting=100,
    allow_dask=True,
    max_workers=max(1, os.cpu_count() or 1),
    cache_mb=2048,
    cache_seconds=6 * 3600.0,
)


def where(lim: Limits) -> str:
    """Whose limits these are, as a visitor reads it: "this demo" (demo mode) or "the dashboard"."""
    return "this demo" if lim.demo else "the dashboard"


def plural(count: int, noun: str) -> str:
    """``1 visitor``, ``2 visitors`` (``noun`` singular; counts written with thousands separators)."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def reach(lim: Limits) -> str:
    """What a visitor may run here, in words, never the limits' code names."""
    return (
        f"{where(lim).capitalize()} runs up to {lim.max_jobs:,} jobs on up to {lim.max_nodes:,} nodes, "
        f"{lim.max_policies} policies and {lim.max_seeds} seeds at once (a sweep: {lim.max_sweep_values} values); "
        "more runs with the simcore command on your own machine, which the page names when it refuses."
    )


#: link parameters a limit bounds (both pages' links): parameter -> (what it counts, the limit). A value the
#: page can take but a limit here cannot is refused when the page runs, with the command that runs it
#: elsewhere (dashboard.runs.budget); one the page cannot take at all is ignored with a notice (in_range_here).
LINK_LIMITS: dict[str, tuple[str, str]] = {
    "seeds": ("seeds", "max_seeds"),
    "nodes": ("nodes", "max_nodes"),
    "g.nodes": ("nodes", "max_nodes"),
    "g.jobs": ("jobs", "max_jobs"),
}


#: a link parser's notice of a parameter it ignored (dashboard.shared.scenario, dashboard.sweep.sweeps)
IGNORED = re.compile(r"link parameter (?P<key>[\w.]+)=(?P<text>'.*') ignored: ")


def in_range_here(notice: str, lim: Limits) -> str:
    """A link parser's notice of an ignored parameter (:data:`IGNORED`), its reason replaced by the range a
    limit in force here allows (``this demo runs 1 to 20,000 jobs``: the command line's "1 to 10000000" is
    not what this page runs) when the parameter is one a limit bounds (:data:`LINK_LIMITS`) and its value
    is outside that range; any other notice as it is."""
    found = IGNORED.match(notice)
    what, limit = LINK_LIMITS.get(found["key"], ("", "")) if found else ("", "")
    if not found or not limit:
        return notice
    most = getattr(lim, limit)
    try:
        value = float(ast.literal_eval(found["text"]))
    except ValueError:
        return notice  # not a number: the parser's own reason says so
    if 1 <= value <= most:
        return notice
    return f"{found.group(0)}{where(lim)} runs 1 to {most:,} {what}"


def vetted(
    parse: Callable[[Mapping[str, Any]], tuple[S, list[str]]], lim: Limits
) -> Callable[[Mapping[str, Any]], tuple[S, list[str]]]:
    """A page's link parser whose notices quote the ranges in force here (:func:`in_range_here`)."""

    def read(query: Mapping[str, Any]) -> tuple[S, list[str]]:
        settings, notices = parse(query)
        return settings, [in_range_here(notice, lim) for notice in notices]

    return read


def longest_wait(lim: Limits) -> float:
    """A bound on how long a computation another visitor claimed can take: its wait in line
    (each slot frees within ``wall_seconds``) and its own run."""
    turns = math.ceil((lim.max_waiting + lim.max_computations) / lim.max_computations)
    return (turns + 1) * (lim.wall_seconds + 10)


def _truthy(value: object) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def demo_mode() -> bool:
    """Is demo mode on (environment variable first, then the Streamlit secrets entry)?"""
    if _truthy(os.environ.get(ENV_VAR, "")):
        return True
    try:
        import streamlit as st

        return _truthy(st.secrets.get(SECRET_KEY, False))
    except Exception:  # no secrets file, or not running under Streamlit: not in demo mode
        return False


def limits() -> Limits:
    """The limits in force for this server."""
    return DEMO if demo_mode() else LOCAL


def limits_table() -> str:
    """The limits as the Markdown table in docs/hosting.md "Limits" (a test keeps them equal)."""
    rows = ["| limit | demo mode | otherwise | what it bounds |", "|---|---|---|---|"]
    for name, meaning in MEANING.items():
        local = "one per CPU core" if name in PER_CORE else _text(getattr(LOCAL, name))
        local = "no limit" if name == "worker_mb" and not LOCAL.worker_mb else local
        rows.append(f"| `{name}` | {_text(getattr(DEMO, name))} | {local} | {meaning} |")
    return "\n".join(rows)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else str(value)


# --- memory at the caps (docs/hosting.md "Memory at the caps") -----------------------------------
# Measured with bench/demo_memory.py and bench/load_dashboard.py (resident sizes, MB), rounded up.
SERVER_MEMORY_MB = 2000  # the hosted demo's machine
SERVER_MB = 250  # the server process after its first visit (210 measured), with room for open sessions
FORKSERVER_MB = 135  # the forkserver every worker forks from (120 measured) and the resource tracker (13)
WORKER_BASE_MB = 120  # a worker before it simulates: what it shares with the forkserver, counted again
WORKER_KB_PER_JOB = 7.5  # a worker's growth per job of the one simulation it holds at a time (254 MB at 20,000)
RESULT_BYTES_PER_JOB_RUN = 2000  # one policy's run as the server holds it, per job (deep_size; 1,650 measured)
DRAW_MB = 40  # one page's open tab drawn at max_jobs x max_policies: the Gantt grew the server by 34.7 MB at most


def comparison_worker_mb(lim: Limits) -> float:
    """A worker's peak for a comparison at ``max_jobs``: it holds one simulation at a time
    (:func:`dashboard.runs.compute.comparison`), so the number of policies does not count."""
    return WORKER_BASE_MB + WORKER_KB_PER_JOB * lim.max_jobs / 1000


def result_mb(lim: Limits) -> float:
    """The largest result one computation brings back: every policy's run of a workload at ``max_jobs``."""
    return lim.max_jobs * lim.max_policies * RESULT_BYTES_PER_JOB_RUN / 1e6


def memory_parts(lim: Limits) -> dict[str, float]:
    """The server's memory at its worst under ``lim``, part by part (MB; docs/hosting.md). Every
    worker is stopped past ``worker_mb`` and runs a sweep in its own process (``max_workers`` = 1)."""
    return {
        "the server after its first visit": SERVER_MB,
        "the forkserver and the resource tracker": FORKSERVER_MB,
        "`max_computations` x `worker_mb`": lim.max_computations * lim.worker_mb,
        "`cache_mb`: the shared results, those pages still hold included": lim.cache_mb,
        "`max_computations` x one result beyond the store (arriving, or held by its page)": lim.max_computations
        * result_mb(lim),
        "`max_drawing` x one page drawn": lim.max_drawing * DRAW_MB,
    }


def memory_table(lim: Limits = DEMO) -> str:
    """The budget as the Markdown table in docs/hosting.md (a test keeps them equal)."""
    parts = memory_parts(lim)
    rows = ["| part | MB |", "|---|---|", *(f"| {name} | {mb:,.0f} |" for name, mb in parts.items())]
    rows.append(f"| **worst case** (the aim: {SERVER_MEMORY_MB:,}) | **{sum(parts.values()):,.0f}** |")
    return "\n".join(rows)
