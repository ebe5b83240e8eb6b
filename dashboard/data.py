"""Data access for the pages: workloads and simulation runs, cached.

This is the only module that uses ``st.cache_data``. Runs are keyed by the workload's content
hash, the cluster and the config, so the same jobs reached through a sample, a generator or
an upload share one cached result; the large objects themselves are passed as ``_``-prefixed
arguments, which Streamlit does not hash.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboard import uploads, views
from dashboard.scenario import Scenario
from simcore import metrics, presets, units
from simcore.engine import simulate
from simcore.errors import UserError
from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.workload import load_cluster

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / "sample_workloads"
# The cluster a user gets for an uploaded workload unless they choose one: the CLI's default.
DEFAULT_CLUSTER = ClusterSpec.uniform(16, 64, 512, 8)
CACHE_RUNS = 128  # bounded: a run of a large trace holds tens of MB of frames


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs ready to simulate, the cluster they come with (if any) and what to tell the user."""

    table: JobTable
    cluster: ClusterSpec | None
    label: str
    notes: tuple[str, ...]
    key: str  # content hash of the jobs


@dataclass(frozen=True, eq=False)
class Run:
    """One policy on one workload: its summary and the frames the charts need."""

    policy: str
    summary: dict[str, Any]
    jobs: pd.DataFrame
    events: pd.DataFrame
    segments: pd.DataFrame
    util: pd.DataFrame
    queue: pd.DataFrame


def sample_names() -> list[str]:
    """Stems of the bundled sample workloads that are present on disk, the demo first."""
    stems = [Path(name).stem for name, *_ in presets.SAMPLES if (SAMPLE_DIR / name).is_file()]
    return sorted(stems, key=lambda s: (s != "demo", s))


@st.cache_data(show_spinner=False, max_entries=16)
def sample_workload(name: str) -> Workload:
    """A bundled sample with the cluster of the preset that generated it (its cluster file if shipped)."""
    entry = next(((f, p, s, o) for f, p, s, o in presets.SAMPLES if Path(f).stem == name), None)
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


@st.cache_data(show_spinner=False, max_entries=64)
def generated_workload(preset: str, seed: int, overrides: tuple[tuple[str, str], ...]) -> Workload:
    gen = presets.generate(preset, seed, dict(overrides))
    label = f"preset {preset}, seed {seed}" + "".join(f", {k}={v}" for k, v in overrides)
    notes = (gen.summary(),)
    return Workload(gen.table, gen.cluster, label, notes, views.workload_key(gen.table))


@st.cache_data(show_spinner=False, max_entries=8)
def uploaded_workload(file_name: str, content: bytes, options: tuple[tuple[str, str], ...]) -> Workload:
    table, notes = uploads.parse_workload_upload(file_name, content, dict(options))
    return Workload(table, None, f"upload {file_name}", tuple(notes), views.workload_key(table))


@st.cache_data(show_spinner=False, max_entries=8)
def uploaded_cluster(file_name: str, content: bytes) -> ClusterSpec:
    return uploads.parse_cluster_upload(file_name, content)


@st.cache_data(show_spinner=False, max_entries=CACHE_RUNS)
def run(workload_key: str, _table: JobTable, cluster_key: str, _cluster: ClusterSpec, config_json: str) -> Run:
    """Simulate one config; cached by (workload hash, cluster, config)."""
    config = SimConfig(**json.loads(config_json))
    result = simulate(_table, _cluster, config)
    return Run(
        policy=config.policy,
        summary=metrics.summarize(result),
        jobs=result.jobs_frame,
        events=result.events_frame,
        segments=metrics.segments(result),
        util=metrics.utilization_over_time(result),
        queue=metrics.queue_length_over_time(result),
    )


@st.cache_data(show_spinner=False, max_entries=1024)
def run_summary(
    workload_key: str, _table: JobTable, cluster_key: str, _cluster: ClusterSpec, config_json: str
) -> dict[str, Any]:
    """Only the summary of one config (extra seeds need no frames); same key as :func:`run`."""
    config = SimConfig(**json.loads(config_json))
    return metrics.summarize(simulate(_table, _cluster, config))


def config_json(config: SimConfig) -> str:
    """A canonical text of a config: the cache key of its runs."""
    return json.dumps(asdict(config), sort_keys=True)  # inf is written as Infinity and read back


def run_workload(workload: Workload, cluster: ClusterSpec, config: SimConfig) -> Run:
    return run(workload.key, workload.table, views.cluster_key(cluster), cluster, config_json(config))


def summarize_workload(workload: Workload, cluster: ClusterSpec, config: SimConfig) -> dict[str, Any]:
    return run_summary(workload.key, workload.table, views.cluster_key(cluster), cluster, config_json(config))


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every policy of a scenario on its workload(s): full runs for the first seed, summaries
    for all seeds (the trio's spread)."""

    workload: Workload
    cluster: ClusterSpec
    runs: dict[str, Run]
    seed_summaries: list[dict[str, dict[str, Any]]]  # per seed: policy -> summary
    seeds: list[int]


def load_workload(scenario: Scenario, upload: tuple[str, bytes] | None, seed: int | None = None) -> Workload:
    """The scenario's workload (for ``seed`` when generated); raises UserError for bad input."""
    if scenario.source == "sample":
        wl = sample_workload(scenario.sample)
    elif scenario.source == "generate":
        wl = generated_workload(scenario.preset, scenario.knobs.seed if seed is None else seed, scenario.gen)
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
    return cluster


def compare(
    scenario: Scenario,
    workload: Workload,
    cluster: ClusterSpec,
    on_step: Callable[[float], None] | None = None,
) -> Comparison:
    """Run every policy; for a generated workload with several seeds, also the other seeds."""
    base_seed = scenario.knobs.seed
    seeds = [base_seed + i for i in range(scenario.seeds)] if scenario.source == "generate" else [base_seed]
    steps = len(seeds) * len(scenario.policies)
    runs = {}
    for i, policy in enumerate(scenario.policies):
        runs[policy] = run_workload(workload, cluster, scenario.config(policy))
        if on_step:
            on_step((i + 1) / steps)
    per_seed = [{p: r.summary for p, r in runs.items()}]
    for k, seed in enumerate(seeds[1:], start=1):
        wl = load_workload(scenario, None, seed)
        cl = resolve_cluster(scenario, wl, None) if scenario.cluster != "upload" else cluster
        summaries = {}
        for i, policy in enumerate(scenario.policies):
            summaries[policy] = summarize_workload(wl, cl, replace(scenario.config(policy), seed=seed))
            if on_step:
                on_step((k * len(scenario.policies) + i + 1) / steps)
        per_seed.append(summaries)
    return Comparison(workload, cluster, runs, per_seed, seeds)


def trios(comparison: Comparison, baseline: str) -> list[dict[str, dict[str, float | None]]]:
    """Per seed, the trio of every policy against the baseline."""
    return [
        {p: metrics.trio(s, per_seed[baseline]) for p, s in per_seed.items()} for per_seed in comparison.seed_summaries
    ]
