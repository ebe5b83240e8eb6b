"""Synthetic workload presets (DESIGN.md section 7): ``paper``, ``demo`` and ``mmc``.

A preset is a named set of parameters plus a generator. Every parameter can be overridden by
name (``--set jobs=8000 --set be_gpu_w=0.3,0.3,0.25,0.15``); values are checked and a bad one
raises :class:`~simcore.core.errors.UserError` naming the parameter, the value and the rule.

Generation is deterministic: numpy ``default_rng(seed)`` drawn in a fixed order, so the same
preset, parameters and seed always give the same table and the same file bytes.

``paper`` / ``demo`` draw, in this order: which jobs are TE (exactly ``round(te_share x jobs)``
of them, at random positions), the GPU count of TE then BE jobs (weighted choice), their
lognormal durations (given by median and sigma, clipped, rounded to whole seconds), CPUs per
GPU ``U{cpu_per_gpu_min..cpu_per_gpu_max}`` and GiB per GPU ``U{mem_per_gpu_min..max}``
(integers, so no job exceeds a node), and finally exponential inter-arrival gaps: the first job
arrives at 0 and the rate is ``load x cluster GPUs / mean(gpu x duration)`` over the sampled jobs,
so the offered GPU load equals ``load`` in expectation. Submit times are rounded to seconds.

``mmc`` is M/M/c-shaped for the Erlang-C check: ``nodes`` one-GPU nodes (1 CPU, 1 GiB), all jobs
BE asking for 1 GPU, 1 CPU and 1 GiB, exponential durations of mean ``mean_s`` and Poisson
arrivals at ``load`` (rate = load x nodes / mean sampled duration); nothing is rounded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.knobs import MAX_SEED
from simcore.core.model import ClusterSpec, JobTable, clock_problems
from simcore.core.numtext import parse_number, quoted
from simcore.workload import offered_load
from simcore.workload.preset_params import (  # noqa: F401 - MAX_JOBS re-exported: the generator's size cap
    DAY,
    DEMO_PARAMS,
    MAX_JOBS,
    MAX_LIST,
    MMC_PARAMS,
    PAPER_GANG_PARAMS,
    PAPER_PARAMS,
    Param,
    Value,
)


@dataclass(frozen=True, eq=False)
class GeneratedWorkload:
    """A generated workload with the cluster it was made for.

    ``offered_load`` is the realised value (see :func:`simcore.workload.offered_load`):
    requested GPU-seconds / (cluster GPUs x (last submit - first submit)).
    ``params`` holds every parameter actually used, overrides applied (JSON-ready).
    """

    preset: str
    seed: int
    table: JobTable
    cluster: ClusterSpec
    params: dict[str, Any]
    offered_load: float

    def summary(self) -> str:
        """One line for the CLI: job counts and the realised offered load."""
        te = int(self.table.is_te.sum())
        workers_per_job = np.asarray(self.table.workers)
        gangs = int(np.sum(workers_per_job > 1))
        workers = f", {gangs} gangs, {int(workers_per_job.sum())} workers" if gangs else ""
        return (
            f"preset {self.preset}, seed {self.seed}: {len(self.table)} jobs ({te} TE, {len(self.table) - te} BE{workers}) "
            f"on {len(self.cluster.nodes)} nodes; realised offered GPU load {fmt.load(self.offered_load)} "
            f"(target {self.params['load']})"
        )


def _generate_paper(p: Mapping[str, Any], rng: np.random.Generator) -> tuple[JobTable, ClusterSpec]:
    is_te, duration, request = _paper_jobs(p, rng)
    return _with_arrivals(p, rng, is_te, duration, request, np.ones(len(is_te), dtype=np.int64))


def _generate_paper_gang(p: Mapping[str, Any], rng: np.random.Generator) -> tuple[JobTable, ClusterSpec]:
    """``paper``'s draws, then the workers (whole-node BE jobs, then which TE jobs are gangs),
    then the arrivals, whose rate counts workers x GPUs x duration."""
    is_te, duration, request = _paper_jobs(p, rng)
    workers = np.ones(len(is_te), dtype=np.int64)
    whole_node = ~is_te & (request[:, 2] == p["node_gpu"])
    choices = np.asarray(p["be_workers"], dtype=np.int64)
    workers[whole_node] = rng.choice(choices, size=int(whole_node.sum()), p=_normalised(p["be_workers_w"]))
    te = np.flatnonzero(is_te)
    gangs = int(round(p["te_gang_share"] * len(te)))
    workers[te[rng.permutation(len(te))[:gangs]]] = p["te_gang_workers"]
    return _with_arrivals(p, rng, is_te, duration, request, workers)


def _paper_jobs(p: Mapping[str, Any], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The class, duration and (per-worker) request of every job of the ``paper`` regime."""
    n = p["jobs"]
    n_te = int(round(p["te_share"] * n))
    is_te = np.zeros(n, dtype=bool)
    is_te[rng.permutation(n)[:n_te]] = True

    gpu = np.empty(n)
    gpu[is_te] = rng.choice(np.asarray(p["te_gpu"], float), size=n_te, p=_normalised(p["te_gpu_w"]))
    gpu[~is_te] = rng.choice(np.asarray(p["be_gpu"], float), size=n - n_te, p=_normalised(p["be_gpu_w"]))

    duration = np.empty(n)
    for mask, cls in ((is_te, "te"), (~is_te, "be")):
        raw = rng.lognormal(math.log(p[f"{cls}_median_s"]), p[f"{cls}_sigma"], size=int(mask.sum()))
        duration[mask] = np.rint(np.clip(raw, p[f"{cls}_min_s"], p[f"{cls}_max_s"]))

    cpu = gpu * rng.integers(p["cpu_per_gpu_min"], p["cpu_per_gpu_max"] + 1, size=n)
    mem = gpu * rng.integers(p["mem_per_gpu_min"], p["mem_per_gpu_max"] + 1, size=n)
    return is_te, duration, np.column_stack([cpu, mem, gpu])


def _with_arrivals(
    p: Mapping[str, Any],
    rng: np.random.Generator,
    is_te: np.ndarray,
    duration: np.ndarray,
    request: np.ndarray,
    workers: np.ndarray,
) -> tuple[JobTable, ClusterSpec]:
    """Poisson arrivals at the rate that offers ``load`` GPU-seconds (workers x GPUs x duration)."""
    cluster = ClusterSpec.uniform(p["nodes"], p["node_cpu"], p["node_mem_gb"], p["node_gpu"])
    rate = p["load"] * p["nodes"] * p["node_gpu"] / float(np.mean(workers * request[:, 2] * duration))
    submit = np.rint(_arrivals(rng, rate, len(is_te)))
    return _table(submit, duration, request, is_te, workers), cluster


def _generate_mmc(p: Mapping[str, Any], rng: np.random.Generator) -> tuple[JobTable, ClusterSpec]:
    n = p["jobs"]
    duration = rng.exponential(p["mean_s"], size=n)
    rate = p["load"] * p["nodes"] / float(np.mean(duration))
    submit = _arrivals(rng, rate, n)
    cluster = ClusterSpec.uniform(p["nodes"], 1, 1, 1)
    return _table(submit, duration, np.ones((n, 3)), np.zeros(n, dtype=bool)), cluster


def _arrivals(rng: np.random.Generator, rate: float, n: int) -> np.ndarray:
    """Poisson arrival times, the first at 0 (n - 1 exponential gaps of mean 1 / rate)."""
    return np.concatenate([[0.0], np.cumsum(rng.exponential(1.0 / rate, size=n - 1))])


def _table(
    submit: np.ndarray, duration: np.ndarray, request: np.ndarray, is_te: np.ndarray, workers: np.ndarray | None = None
) -> JobTable:
    return JobTable(
        job_id=np.array([str(i) for i in range(len(submit))], dtype=object),
        submit_time=submit.astype(float),
        duration=duration.astype(float),
        request=request.astype(float),
        is_te=is_te,
        workers=workers,
    )


def _normalised(weights: Sequence[float]) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    return w / w.sum()


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    params: dict[str, Param]
    build: Callable[[Mapping[str, Any], np.random.Generator], tuple[JobTable, ClusterSpec]]


PRESETS: dict[str, Preset] = {
    "paper": Preset(
        "paper",
        "busy 16-node cluster whose BE work is mostly whole-node training (the paper's regime)",
        PAPER_PARAMS,
        _generate_paper,
    ),
    "demo": Preset(
        "demo", "the paper regime on 4 nodes with 400 jobs: instant in the dashboard", DEMO_PARAMS, _generate_paper
    ),
    "paper-gang": Preset(
        "paper-gang",
        "the paper regime with distributed training: whole-node BE jobs of 1, 2 or 4 workers, a few 2-worker TE gangs",
        PAPER_GANG_PARAMS,
        _generate_paper_gang,
    ),
    "mmc": Preset(
        "mmc", "M/M/c-shaped: one-GPU nodes, exponential durations, for the Erlang-C check", MMC_PARAMS, _generate_mmc
    ),
}


def params_markdown_table() -> str:
    """The generator parameters as Markdown tables for docs/knobs.md: one table per set of
    presets sharing their parameters (``paper`` and ``demo`` differ only in defaults)."""
    groups: dict[tuple[tuple[str, str, str], ...], list[Preset]] = {}
    for preset in PRESETS.values():
        shape = tuple((p.name, p.help, p.range_text()) for p in preset.params.values())
        groups.setdefault(shape, []).append(preset)
    out = []
    for shape, members in groups.items():
        names = [m.name for m in members]
        out.append(f"Preset{'s' if len(names) > 1 else ''} {', '.join(f'`{n}`' for n in names)}:\n")
        out.append("| parameter | " + " | ".join(f"`{n}` default" for n in names) + " | allowed | meaning |")
        out.append("|---|" + "---|" * len(names) + "---|---|")
        for name, meaning, allowed in shape:
            defaults = [_default_text(m.params[name].default) for m in members]
            out.append(f"| `{name}` | {' | '.join(defaults)} | {allowed} | {meaning} |")
        out.append("")
    return "\n".join(out)


def _default_text(value: Value) -> str:
    if value is None:
        return "(derived)"
    return fmt.settings(value) if isinstance(value, tuple) else fmt.setting(value)


def resolve_params(preset: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The preset's parameters with ``overrides`` applied (strings are parsed), all checked.

    Raises :class:`UserError` for an unknown preset or parameter and for any bad value."""
    if preset not in PRESETS:
        raise UserError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    spec = PRESETS[preset].params
    values: dict[str, Any] = {name: param.default for name, param in spec.items()}
    for name, raw in (overrides or {}).items():
        if name not in spec:
            raise UserError(f"preset {preset}: unknown parameter {name!r} (known: {', '.join(spec)})")
        values[name] = _parse(spec[name], raw)
    for name, param in spec.items():
        if values[name] is not None:
            _check_bounds(param, values[name])
    if "be_max_s" in values and values["be_max_s"] is None:
        values["be_max_s"] = max(3 * DAY, 6 * values["be_median_s"])
    if preset != "mmc":
        _check_paper(values)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}


def _parse(param: Param, raw: Any) -> Value:
    """Read one value: numbers as given or from text (:func:`~simcore.core.numtext.parse_number`); lists
    from sequences or ``"1,2,4"``."""
    if param.kind != "list":
        try:
            return parse_number(raw, whole=param.kind == "int")
        except ValueError as exc:
            raise UserError(f"parameter {param.name}: {exc}") from None
    try:
        items = raw.split(",") if isinstance(raw, str) else list(raw)
        return tuple(float(parse_number(x)) for x in items)
    except (ValueError, TypeError) as exc:
        why = f" ({exc})" if isinstance(exc, ValueError) else ""
        raise UserError(
            f"parameter {param.name}: {quoted(raw)} is not a comma-separated list of numbers{why}"
        ) from None


def _check_bounds(param: Param, value: Value) -> None:
    items = value if isinstance(value, tuple) else (value,)
    if param.kind == "list" and not items:
        raise UserError(f"parameter {param.name}: the list is empty")
    if len(items) > MAX_LIST:
        raise UserError(f"parameter {param.name}: {len(items)} values, more than the limit of {MAX_LIST}")
    for x in items:
        assert x is not None
        if not math.isfinite(x):
            raise UserError(f"parameter {param.name}: {x} is not a finite number")
        if not param.range.contains(x):
            span = param.range_text().split("each ")[-1]
            raise UserError(
                f"parameter {param.name}: {x:g} is out of range ({'each value ' if param.kind == 'list' else ''}{span})"
            )


def _check_paper(v: Mapping[str, Any]) -> None:
    """Rules that tie parameters together."""
    for cls in ("te", "be"):
        gpus, weights = v[f"{cls}_gpu"], v[f"{cls}_gpu_w"]
        if len(gpus) != len(weights):
            raise UserError(
                f"parameter {cls}_gpu_w: {len(weights)} weights for {len(gpus)} GPU counts in {cls}_gpu (lengths must match)"
            )
        if not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
            raise UserError(
                f"parameter {cls}_gpu_w: weights {fmt.settings(weights)} sum to {sum(weights):g} (they must sum to 1)"
            )
        if v[f"{cls}_min_s"] > v[f"{cls}_max_s"]:
            raise UserError(
                f"parameter {cls}_min_s: {v[f'{cls}_min_s']:g} is above {cls}_max_s = {v[f'{cls}_max_s']:g} "
                "(the clip range is empty)"
            )
        biggest = max(g for g, w in zip(gpus, weights, strict=True) if w > 0)
        for what, per, cap in (
            ("GPUs", 1, "node_gpu"),
            ("CPU cores", v["cpu_per_gpu_max"], "node_cpu"),
            ("GiB", v["mem_per_gpu_max"], "node_mem_gb"),
        ):
            if biggest * per > v[cap]:
                raise UserError(
                    f"parameter {cls}_gpu: a {biggest:g}-GPU job asks for up to {biggest * per:g} {what}, "
                    f"more than {cap} = {v[cap]:g} (no node could run it)"
                )
    for dim in ("cpu", "mem"):
        lo, hi = v[f"{dim}_per_gpu_min"], v[f"{dim}_per_gpu_max"]
        if lo > hi:
            raise UserError(f"parameter {dim}_per_gpu_min: {lo} is above {dim}_per_gpu_max = {hi} (the range is empty)")
    if "be_workers" in v:
        _check_gangs(v)


def _check_gangs(v: Mapping[str, Any]) -> None:
    """``paper-gang``: every gang must fit on the empty cluster (DESIGN-gangs point 1)."""
    counts, weights = v["be_workers"], v["be_workers_w"]
    if len(counts) != len(weights):
        raise UserError(
            f"parameter be_workers_w: {len(weights)} weights for {len(counts)} worker counts in be_workers (lengths must match)"
        )
    if not math.isclose(sum(weights), 1.0, abs_tol=1e-6):
        raise UserError(
            f"parameter be_workers_w: weights {fmt.settings(weights)} sum to {sum(weights):g} (they must sum to 1)"
        )
    if any(not float(c).is_integer() for c in counts):
        raise UserError(f"parameter be_workers: {fmt.settings(counts)} are not all whole numbers")
    widest = max(c for c, w in zip(counts, weights, strict=True) if w > 0)
    if widest > v["nodes"]:
        raise UserError(
            f"parameter be_workers: a {widest:g}-worker BE job needs {widest:g} whole nodes, more than nodes = {v['nodes']}"
        )
    if v["te_gang_share"] > 0:
        g = max(x for x, w in zip(v["te_gpu"], v["te_gpu_w"], strict=True) if w > 0)
        room = min(
            v["node_gpu"] / g, v["node_cpu"] / (g * v["cpu_per_gpu_max"]), v["node_mem_gb"] / (g * v["mem_per_gpu_max"])
        )
        if v["nodes"] * math.floor(room) < v["te_gang_workers"]:
            raise UserError(
                f"parameter te_gang_workers: {v['te_gang_workers']} workers of up to {g:g} GPUs do not fit on "
                f"{v['nodes']} nodes (each holds {math.floor(room)} of them)"
            )


def mean_workers(params: Mapping[str, Any]) -> float:
    """Workers per job expected from a preset's resolved parameters (1 for presets without gangs):
    what a budget counts before the workload is drawn."""
    if "be_workers" not in params:
        return 1.0
    be_w = _normalised(params["be_gpu_w"])
    whole = float(sum(w for g, w in zip(params["be_gpu"], be_w, strict=True) if g == params["node_gpu"]))
    be_mean = float(np.dot(params["be_workers"], _normalised(params["be_workers_w"])))
    te_extra = params["te_gang_share"] * (params["te_gang_workers"] - 1)
    share = params["te_share"]
    return share * (1 + te_extra) + (1 - share) * (1 + whole * (be_mean - 1))


def generate(preset: str, seed: int, overrides: Mapping[str, Any] | None = None) -> GeneratedWorkload:
    """Generate the workload of ``preset`` with ``seed`` and parameter ``overrides``.

    Same preset, parameters and seed give the same table (and the same file bytes through
    :func:`simcore.workload.write_workload`)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UserError(f"seed: {seed!r} is not a whole number >= 0")
    if seed > MAX_SEED:
        raise UserError(f"seed: {seed} is above the limit of {MAX_SEED}")
    params = resolve_params(preset, overrides)
    table, cluster = PRESETS[preset].build(params, np.random.default_rng(int(seed)))
    beyond, unseen = clock_problems(table.submit_time, table.duration)
    if beyond.any() or unseen.any():
        # a workload file with such a job would be refused, so a generated one is too
        what = "reaches 2^53 s" if beyond.any() else "has a duration below the clock's resolution at its submit time"
        raise UserError(
            f"preset {preset}, seed {seed}: job {table.job_id[np.flatnonzero(beyond | unseen)[0]]} {what}, "
            "which float64 times cannot hold: raise load or shorten the durations"
        )
    return GeneratedWorkload(preset, int(seed), table, cluster, params, offered_load(table, cluster))
