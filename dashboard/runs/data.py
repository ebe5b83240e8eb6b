"""Data access for the pages: workloads, simulation runs and sweeps, shared and bounded.

The only module that caches. Runs are keyed by the workload's content hash, the cluster and the
config, so every visitor shares them, in one :class:`~dashboard.runs.store.BoundedStore` per
server capped in MB and by age (``cache_mb``, ``cache_seconds``). What is missing is computed in a
worker process (:mod:`dashboard.runs.worker`) stopped at its limits or when the visitor leaves,
``max_computations`` at once, the next visitors waiting in line (:mod:`dashboard.runs.slots`);
a page holding its results never waits in that line (:mod:`dashboard.runs.parked`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.runs import budget, compute, drawing, parked, slots, warmup, worker
from dashboard.runs.budget import SAMPLE_DIR
from dashboard.runs.compute import Run
from dashboard.runs.results import Bound, Comparison, Workload
from dashboard.runs.runkeys import cluster_hash, config_json, run_key
from dashboard.runs.store import BoundedStore, deep_size
from dashboard.shared import decisions, node_events_table, notices, queue_table, uploads, views
from dashboard.shared.demo import limits, longest_wait
from dashboard.shared.scenario import Scenario
from simcore.analysis.bound import bound_config
from simcore.core import units
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.experiments.sweep import SweepSpec
from simcore.workload import load_cluster, presets, samples

# The cluster a user gets for an uploaded workload unless they choose one: the CLI's default.
DEFAULT_CLUSTER = ClusterSpec.uniform(16, 64, 512, 8)


def sample_names() -> list[str]:
    """Stems of the bundled sample workloads that are present on disk, the dashboard's default first."""
    stems = [Path(name).stem for name, *_ in samples.SAMPLES if (SAMPLE_DIR / name).is_file()]
    return sorted(stems, key=lambda s: (s != samples.DASHBOARD_DEFAULT, s))


@st.cache_data(show_spinner=False, max_entries=16)
def sample_workload(name: str) -> Workload:
    """A bundled sample with the cluster of the preset that generated it (its cluster file if shipped)."""
    entry = next(((f, p, s, o) for f, p, s, o in samples.SAMPLES if Path(f).stem == name), None)
    if entry is None or not (SAMPLE_DIR / entry[0]).is_file():
        raise UserError(f"sample {name!r} not found (available: {', '.join(sample_names())})")
    file_name, preset, seed, overrides = entry
    table, notes = uploads.read_workload_file(SAMPLE_DIR / file_name)
    cluster_file = SAMPLE_DIR / f"{preset}_cluster.yaml"  # shipped for the demo preset
    if cluster_file.is_file():
        cluster = load_cluster(cluster_file).cluster
    else:
        cluster = presets.generate(preset, seed, overrides).cluster
    label = f"sample {file_name} (preset {preset}, seed {seed})"
    return Workload(table, cluster, label, tuple(notes), views.workload_key(table))


def generated_workload(preset: str, seed: int, overrides: tuple[tuple[str, str], ...]) -> Workload:
    """A generated workload, kept in the shared store (checked against the limits before)."""
    key = ("workload", preset, seed, overrides)
    found = _store().get(key)
    if found is not None:
        return found
    gen = presets.generate(preset, seed, dict(overrides))
    label = f"preset {preset}, seed {seed}" + "".join(f", {k}={v}" for k, v in overrides)
    # no notes: the page's one caption already gives the jobs, the cluster and the realised load
    workload = Workload(gen.table, gen.cluster, label, (), views.workload_key(gen.table))
    _store().put(key, workload, deep_size(workload))
    return workload


@st.cache_data(show_spinner=False, max_entries=8)
def uploaded_workload(file_name: str, content: bytes, options: tuple[tuple[str, str], ...]) -> Workload:
    table, notes = uploads.parse_workload_upload(file_name, content, dict(options))
    return Workload(table, None, f"upload {file_name}", tuple(notes), views.workload_key(table))


@st.cache_data(show_spinner=False, max_entries=8)
def uploaded_cluster(file_name: str, content: bytes) -> ClusterSpec:
    return uploads.parse_cluster_upload(file_name, content)


@st.cache_resource(show_spinner=False)
def _shared_store(max_bytes: int, max_age: float) -> BoundedStore:
    return BoundedStore(max_bytes, max_age)


def _store() -> BoundedStore:
    """The results every visitor shares (one per server), sized by the limits in force."""
    lim = limits()
    return _shared_store(lim.cache_mb * 1_000_000, lim.cache_seconds)


@st.cache_resource(show_spinner=False)
def _shared_slots(capacity: int, max_waiting: int, store_id: int, _results: BoundedStore) -> slots.ComputeSlots:
    return slots.ComputeSlots(capacity, max_waiting, room=_results.has_room)


def _slots() -> slots.ComputeSlots:
    """The computation slots of this server (one line for every visitor), sized by the limits;
    a computation starts only while the shared store has room (:meth:`BoundedStore.has_room`)."""
    lim = limits()
    store = _store()  # one line per store: its gate reads that store
    return _shared_slots(lim.max_computations, lim.max_waiting, id(store), store)


@st.cache_resource(show_spinner=False)
def drawing_places(capacity: int) -> drawing.Places:
    """This server's ``max_drawing`` places (:func:`dashboard.runs.drawing.page_turn`)."""
    return drawing.Places(capacity)


def _compute(
    keys: tuple[Hashable, ...],
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    heartbeat: Callable[[float | None], None],
    command: str,
    ticket: slots.Ticket | None = None,
) -> list[Any] | None:
    """Compute the values of ``keys`` with ``fn(*args)`` in a worker process and store each,
    in turn with every other visitor's computations (``max_computations`` at once).

    Returns None when another visitor was computing the same keys: they are in the store now
    (or that computation stopped), so look again. Only one visitor computes a set of keys; it
    claims them before it waits in line, so the others wait for it and take no place (a running
    ``ticket`` from :func:`parked.now_or_park`: claimed already, its slot held)."""
    lim = limits()

    def beat(fraction: float | None) -> None:
        if not drawing.visitor_present():
            raise worker.Cancelled
        heartbeat(fraction)

    store = _store()
    flight = None if ticket is not None else store.claim(keys)
    if flight is not None:
        deadline = time.monotonic() + longest_wait(lim)
        while not flight.wait(worker.POLL_SECONDS):
            if time.monotonic() > deadline:
                raise worker.TimedOut(f"still waiting after {longest_wait(lim):g} s", wall=True)
            beat(None)
        return None
    line = _slots()
    try:
        with notices.place_in_line(line.capacity, lim, line.expected_wait) as show:

            def waiting(place: int) -> None:
                show(place)
                beat(None)  # the visitor may leave the line as well

            with slots.turn(line, waiting, worker.POLL_SECONDS, ticket) as mine:
                show(None)

                def running(fraction: float | None) -> None:
                    line.touch(mine)
                    beat(fraction)

                values = worker.run_within(lim, fn, args, running)

        for key, value in zip(keys, values, strict=True):
            store.put(key, value, deep_size(value))
        return values
    except slots.Full:
        raise budget.busy(lim, line.running, line.waiting, command) from None
    finally:
        store.release(keys)


def load_workload(scenario: Scenario, upload: tuple[str, bytes] | None) -> Workload:
    """The scenario's workload (its first seed when generated); raises UserError for bad input."""
    if scenario.source == "sample":
        wl = sample_workload(scenario.sample)
    elif scenario.source == "generate":
        wl = generated_workload(scenario.preset, scenario.knobs.seed, scenario.gen)
    elif upload is None:
        raise UserError("upload a workload file in the sidebar")
    else:
        wl = uploaded_workload(upload[0], upload[1], scenario.upload_opts)
    # the simulator counts resources in whole units: say so when a request was rounded
    rounding = units.rounding_note(wl.table.request)
    return replace(wl, notes=(*wl.notes, rounding)) if rounding else wl


def resolve_cluster(scenario: Scenario, workload: Workload, upload: tuple[str, bytes] | None) -> ClusterSpec:
    if scenario.cluster == "custom":
        try:
            cluster = ClusterSpec.uniform(scenario.nodes, scenario.node_cpu, scenario.node_mem_gb, scenario.node_gpu)
        except ValueError as exc:
            raise UserError(f"cluster: {exc}") from None
    elif scenario.cluster == "upload":
        if upload is None:
            raise UserError("upload a cluster file in the sidebar")
        cluster = uploaded_cluster(upload[0], upload[1])
    else:
        cluster = workload.cluster or DEFAULT_CLUSTER
    units.capacities(cluster.capacity_matrix(), cluster.names)  # a UserError here, not in a run
    # the sidebar's node-events table, checked as a node-events file is (a UserError naming row and column)
    cluster = cluster.with_node_events(node_events_table.check(scenario.node_events, cluster))
    own = workload.cluster.queues if workload.cluster is not None else None
    return cluster.with_queues(queue_table.queues_for(scenario.queues, own, workload.table, workload.label))


def fetch(
    keys: list[Hashable],
    work: Callable[[list[int]], tuple[Callable[..., Any], tuple[Any, ...]]],
    heartbeat: Callable[[float | None], None],
    command: str = "",
    beside: bool = False,
) -> list[Any]:
    """The values of ``keys``: from the store, the missing ones computed together in one worker
    process by ``work(missing positions)``, which gives the worker function (yielding a value per
    missing key, in order) and its arguments; ``command``: the local command a refusal names.
    ``beside``: the page holds its comparison, so it never waits (:mod:`.parked`)."""
    while True:
        store = _store()
        values = [store.get(k) for k in keys]
        if beside:  # a computation parked by the run before this one was served to it
            values = [parked.served(k) if v is None else v for k, v in zip(keys, values, strict=True)]
        missing = [i for i, v in enumerate(values) if v is None]
        if not missing:
            return values
        fn, args = work(missing)
        wanted = tuple(keys[i] for i in missing)
        ticket = parked.now_or_park(store, _slots(), parked.Request(wanted, fn, args, command)) if beside else None
        # a page drawing gives its drawing place back while it waits for a computation
        with drawing.page_released(drawing_places(limits().max_drawing)):
            computed = _compute(wanted, fn, args, heartbeat, command, ticket)
        if computed is not None:
            for i, value in zip(missing, computed, strict=True):
                values[i] = value
            return values


def compare(
    scenario: Scenario,
    workload: Workload,
    cluster: ClusterSpec,
    heartbeat: Callable[[float | None], None],
    command: str,
) -> Comparison:
    """Run every policy; for a generated workload with several seeds, also the other seeds.

    ``command`` is the local ``simcore`` command named if the run is stopped at the time limit."""
    parked.serve_parked(_store(), lambda r: _compute(r.keys, r.fn, r.args, heartbeat, r.command))
    base_seed = scenario.knobs.seed
    seeds = [base_seed + i for i in range(scenario.seeds)] if scenario.source == "generate" else [base_seed]
    policies = scenario.policies
    cluster_id = cluster_hash(cluster)
    configs = [scenario.config(p) for p in policies]
    keys: list[Hashable] = [run_key(workload, cluster_id, c) for c in configs]
    # further seeds are keyed by what generates them (same preset, seed and parameters: same jobs)
    extra_cluster = None if scenario.cluster == "workload" else cluster
    # a further seed on its own cluster: that cluster with the table's down windows and queues, if any (in the
    # key by their rows)
    where = ("own", scenario.node_events, scenario.queues) if extra_cluster is None else cluster_id
    queues = cluster.queues if scenario.queues else None  # else each seed's own
    for seed in seeds[1:]:
        keys += [("summary", scenario.preset, seed, scenario.gen, where, config_json(c)) for c in configs]

    def work(missing: list[int]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        todo = set(missing)
        first = tuple(c for i, c in enumerate(configs) if i in todo)
        extra = []
        for k, seed in enumerate(seeds[1:], start=1):
            wanted = tuple(c for i, c in enumerate(configs) if k * len(configs) + i in todo)
            if wanted:
                seed_work = compute.SeedWork(scenario.preset, seed, scenario.gen, extra_cluster, wanted)
                extra.append(replace(seed_work, node_events=cluster.node_events, queues=queues))
        return compute.comparison, (workload.table, cluster, first, tuple(extra))

    try:
        values = fetch(keys, work, heartbeat, command)
    except worker.TimedOut as exc:
        raise budget.timed_out("This comparison", limits(), command, exc.wall) from None
    n = len(policies)
    runs = dict(zip(policies, values[:n], strict=True))
    further = [dict(zip(policies, values[k * n : (k + 1) * n], strict=True)) for k in range(1, len(seeds))]
    per_seed = [{p: r.summary for p, r in runs.items()}, *({p: x.summary for p, x in s.items()} for s in further)]
    flats = [{p: r.flat for p, r in runs.items()}, *({p: x.flat for p, x in s.items()} for s in further)]
    return Comparison(workload, cluster, runs, per_seed, flats, seeds)


def default_scenario() -> tuple[Scenario, Workload, ClusterSpec] | None:
    """The default Explore scenario, its workload and cluster; None when its sample is not shipped."""
    scenario = Scenario()
    if scenario.sample not in sample_names():
        return None
    workload = sample_workload(scenario.sample)
    return scenario, workload, resolve_cluster(scenario, workload, None)


@st.cache_resource(show_spinner=False)
def warm_default() -> threading.Thread | None:
    """The default Explore scenario's runs, read from the shipped file or computed, in the background
    once per server process (:mod:`dashboard.runs.warmup`); nothing when its sample is not shipped."""
    default = default_scenario()
    return None if default is None else warmup.start(*warmup.work(*default), _store(), _slots(), limits())


def bound(scenario: Scenario, comparison: Comparison, heartbeat: Callable[[float | None], None], command: str) -> Bound:
    """The pooled bound (:mod:`simcore.analysis.bound`) on the comparison's workload(s), with the scenario's
    knobs; the jobs the real cluster cannot hold are left out, as in the policies' runs."""
    config = bound_config(scenario.config(scenario.baseline))
    cluster_id = cluster_hash(comparison.cluster)
    seeds = comparison.seeds
    extra_cluster = None if scenario.cluster == "workload" else comparison.cluster
    where = "own" if extra_cluster is None else cluster_id
    keys: list[Hashable] = [("bound", comparison.workload.key, cluster_id, config_json(config))]
    keys += [("bound-summary", scenario.preset, seed, scenario.gen, where, config_json(config)) for seed in seeds[1:]]
    left_out = [tuple(s[scenario.baseline]["unschedulable"]) for s in comparison.seed_summaries]

    def work(missing: list[int]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        more = [i for i in missing if i > 0]
        extra = tuple(
            compute.BoundSeed(scenario.preset, seeds[i], scenario.gen, extra_cluster, left_out[i]) for i in more
        )
        first = left_out[0] if 0 in missing else None
        return compute.bound, (comparison.workload.table, comparison.cluster, config, first, extra)

    try:
        values = fetch(keys, work, heartbeat, command, beside=True)
    except worker.TimedOut as exc:
        raise budget.timed_out("The pooled bound", limits(), command, exc.wall) from None
    return Bound(values[0], [values[0].flat, *(x.flat for x in values[1:])])


def sweep_rows(
    spec: SweepSpec, workers: int, dask: str, heartbeat: Callable[[float | None], None], command: str
) -> pd.DataFrame:
    """The rows of a sweep, computed once for every visitor (the rows do not depend on the
    executor or the worker count, so neither is part of the key)."""
    try:
        return fetch([("sweep", repr(spec))], lambda _: (compute.sweep, (spec, workers, dask)), heartbeat, command)[0]
    except worker.TimedOut as exc:
        raise budget.timed_out("This sweep", limits(), command, exc.wall) from None


def stored_sweep(spec: SweepSpec) -> pd.DataFrame | None:
    """The rows of a sweep if some visitor has already run it (nothing is computed)."""
    return _store().get(("sweep", repr(spec)))


def lesson_runs(
    table: JobTable,
    variants: Mapping[str, tuple[ClusterSpec, SimConfig]],
    heartbeat: Callable[[float | None], None],
) -> dict[str, Run]:
    """A full run per variant of a Learn lesson (its jobs, and each variant's cluster and config by label,
    from :mod:`dashboard.learn.lessons`), computed in a worker process and shared like every other run."""
    pairs = list(variants.values())
    workload = views.workload_key(table)
    keys: list[Hashable] = [("run", workload, cluster_hash(cl), config_json(c)) for cl, c in pairs]

    def work(missing: list[int]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return compute.variants, (table, tuple(pairs[i] for i in missing))

    values = fetch(keys, work, heartbeat)
    return dict(zip(variants, values, strict=True))


def computed(
    key: Hashable,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    heartbeat: Callable[[float | None], None],
    command: str = "",
    beside: bool = False,
) -> Any:
    """``fn(*args)`` (a module-level function of a page section, e.g. a Learn exercise drawn from a
    seed, or a what-if ``beside`` the comparison the page holds), computed in a worker process on
    first use and shared under ``key``."""
    return fetch([key], lambda _missing: (compute.alone, (fn, args)), heartbeat, command, beside)[0]


def decision_records(
    workload: Workload,
    cluster: ClusterSpec,
    runs: tuple[decisions.Recorded, ...],
    heartbeat: Callable[[float | None], None],
    beside: bool = False,
) -> list[tuple[dict[str, Any], ...]]:
    """The decision records of each run on the workload (:mod:`dashboard.shared.decisions`),
    computed in a worker process on first use and shared; ``beside``: asked by a page drawing the
    comparison (:func:`fetch`), not by a download built outside a script run."""
    cluster_id = cluster_hash(cluster)
    keys: list[Hashable] = [("decisions", workload.key, cluster_id, config_json(c), other) for c, other in runs]

    def work(missing: list[int]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return decisions.records, (workload.table, cluster, tuple(runs[i] for i in missing))

    return fetch(keys, work, heartbeat, beside=beside)
