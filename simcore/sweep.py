"""Parameter sweeps: a grid of knobs and workload parameters x seeds x policies.

A *point* is one setting of the grid (SimConfig knobs and workload parameters together). A
*task* is (point, seed): it builds its workload once and runs every policy on it, so the trio
against the baseline and the paired differences compare policies on the very same jobs. A task
returns one small row per policy (knobs, workload parameters, flattened metrics, trio), never the
job records, so results stream back cheaply from any executor.

Executors: the calling process (``workers=1``), a local process pool, or Dask distributed
(``dask="local"`` starts a LocalCluster, ``dask="tcp://host:port"`` joins an existing one).
Rows depend only on the task, and the final table is sorted by the spec's own order (point,
seed, policy), so the same grid gives byte-identical files whatever the executor and worker
count. Wall time is kept out of the rows for that reason; :class:`SweepReport` carries it.

Results are written incrementally: each finished task lands atomically in a part file next to
the output (``OUT.parts/``), and the parts are merged into ``OUT`` (Parquet) at the end. Running
again with the same output skips every task whose rows are already there (resume); a damaged
part is set aside and its task runs again (:mod:`simcore.sweep_store`). Pool workers die with
the sweep's process, even when it is killed (:mod:`simcore.workers`).

Aggregation (:func:`aggregate`, :func:`paired_differences`): mean and a 95% confidence interval
over seeds (Student t, :mod:`simcore.stats`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcore import workers as worker_life
from simcore.csvsafe import write_csv
from simcore.errors import UserError
from simcore.metrics import TRIO_KEYS
from simcore.model import MAX_SEED, SimConfig
from simcore.policy_spec import PolicySpec, parse_policies
from simcore.result import PREEMPT
from simcore.stats import LEVEL, mean_ci, paired_diff
from simcore.sweep_store import ID_COLUMNS, good_parts, load_store, parts_dir, remove_merged, write_atomic

MAX_SEEDS = 100_000  # seeds in one sweep
MAX_TASKS = 100_000  # (point, seed) tasks in one sweep: 100,000 workloads is already days of computing

#: SimConfig knobs a grid may vary (``seed`` comes from the seed list, ``policy`` from the policy list).
KNOB_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SimConfig) if f.name not in ("policy", "seed"))

CLASSES = ("TE", "BE", "all")
STATS = ("mean", "p50", "p90", "p95", "p99")

#: Metric columns of a row, in order (the trio columns ``<trio key>_vs_<baseline>`` follow them).
METRIC_COLUMNS: tuple[str, ...] = (
    "jobs_simulated",
    *(f"{c}_count" for c in CLASSES),
    *(f"{c}_{m}_{s}" for c in CLASSES for m in ("slowdown", "wait", "jct") for s in STATS),
    *(f"{c}_{m}_max" for c in CLASSES for m in ("slowdown", "wait")),
    "preemptions",
    "preempted_jobs",
    "max_preemptions_per_job",
    "victim_gpu_mean",
    "lost_work",
    "gpu_utilization",
    "gpu_useful_utilization",
    "cpu_utilization",
    "makespan",
    "unschedulable",
    "offered_load",
)


# --- specs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where a task's workload comes from.

    ``kind="preset"``: ``name`` is a preset of :mod:`simcore.presets`; workload parameters are
    its overrides and the task's seed is the generator seed. ``kind="alibaba"``: ``name`` is the
    trace directory; workload parameters are the adapter options of :mod:`simcore.alibaba`
    (window, compression, class mapping, cluster size); the seed only feeds the ``random`` policy.
    """

    kind: str
    name: str

    def describe(self) -> str:
        return f"{self.kind} {self.name}"


@dataclass(frozen=True)
class SweepSpec:
    source: Source
    points: tuple[tuple[tuple[str, Any], ...], ...]  # each a sorted (name, value) tuple
    seeds: tuple[int, ...]
    policies: tuple[PolicySpec, ...]
    baselines: tuple[str, ...]

    def tasks(self) -> list[Task]:
        out = []
        for i, point in enumerate(self.points):
            pid = point_id(self.source, point)
            for j, seed in enumerate(self.seeds):
                out.append(Task(self.source, point, pid, seed, self.policies, self.baselines, (i, j)))
        return out

    @property
    def n_simulations(self) -> int:
        return len(self.points) * len(self.seeds) * len(self.policies)


@dataclass(frozen=True)
class Task:
    source: Source
    point: tuple[tuple[str, Any], ...]
    point_id: str
    seed: int
    policies: tuple[PolicySpec, ...]
    baselines: tuple[str, ...]
    order: tuple[int, int] = field(default=(0, 0), compare=False)

    @property
    def key(self) -> tuple[str, int]:
        return (self.point_id, self.seed)


def point_id(source: Source, point: Iterable[tuple[str, Any]]) -> str:
    """A short stable id of (source, point): the resume key, the same on every machine."""
    text = json.dumps({"source": [source.kind, source.name], "point": sorted(point)}, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


def parse_value(text: Any) -> Any:
    """A grid value from text: whole numbers as int, other numbers as float, else the text.

    Normalising here makes ``load=1`` and ``load=1.0`` the same point (same resume key)."""
    if isinstance(text, bool):
        raise UserError(f"value {text!r}: booleans are not grid values")
    if isinstance(text, (list, tuple)):
        return ",".join(str(parse_value(x)) for x in text)
    if isinstance(text, (int, float)):
        value: Any = text
    else:
        s = str(text).strip()
        if not s:
            raise UserError("empty grid value")
        try:
            value = float(s)
        except ValueError:
            return s
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def parse_grid_arg(text: str) -> tuple[str, list[Any]]:
    """``KEY=V1,V2,...`` (or ``KEY=A;B`` when the values themselves hold commas, as list parameters do)."""
    key, sep, values = str(text).partition("=")
    key = key.strip()
    if not sep or not key:
        raise UserError(f"--grid {text!r}: expected KEY=V1,V2,...")
    parts = values.split(";") if ";" in values else values.split(",")
    if not values.strip() or any(not p.strip() for p in parts):
        raise UserError(f"--grid {text!r}: empty value in the list")
    return key, [parse_value(p) for p in parts]


def parse_seeds(value: Any) -> tuple[int, ...]:
    """``10`` (seeds 0..9), ``"3-7"`` (inclusive range), ``"1,4,9"`` or a list; at most
    :data:`MAX_SEEDS` seeds, each at most :data:`~simcore.model.MAX_SEED`."""
    try:
        if isinstance(value, bool):
            raise ValueError
        text = str(value).strip()
        if isinstance(value, (list, tuple)):
            seeds: tuple[int, ...] | range = tuple(int(str(v)) for v in value)
        elif "-" in text:
            lo, hi = (int(x) for x in text.split("-", 1))
            if hi < lo:
                raise ValueError
            seeds = range(lo, hi + 1)  # a range object: its length is known before anything is built
        elif "," in text:
            seeds = tuple(int(x) for x in text.split(",") if x.strip())
        else:
            count = int(text)
            if count < 1:
                raise ValueError
            seeds = range(count)
    except ValueError:
        raise UserError(
            f"seeds {value!r}: expected a count >= 1 (10 = seeds 0..9), a range (3-7) or a list (1,4,9) of whole numbers >= 0"
        ) from None
    if len(seeds) > MAX_SEEDS:
        raise UserError(f"seeds {value!r}: {len(seeds)} seeds, more than the limit of {MAX_SEEDS}")
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise UserError(f"seeds {value!r}: seeds must be distinct whole numbers >= 0")
    if max(seeds) > MAX_SEED:
        raise UserError(f"seeds {value!r}: {max(seeds)} is above the largest seed, {MAX_SEED}")
    return tuple(seeds)


SPEC_KEYS = ("preset", "alibaba", "set", "grid", "seeds", "policies", "baseline")


def build_spec(
    *,
    preset: str | None = None,
    alibaba: str | None = None,
    fixed: Mapping[str, Any] | None = None,
    grids: Sequence[Mapping[str, Sequence[Any]]] | Mapping[str, Sequence[Any]] | None = None,
    seeds: Any = 3,
    policies: str | Sequence[str] = "fifo,priority,fitgpp",
    baseline: str | Sequence[str] = "fifo",
) -> SweepSpec:
    """Check everything and expand the grid(s) into points.

    ``grids`` is one mapping (a cartesian product) or a list of them (the union of their
    products, duplicates dropped: one-at-a-time sensitivity curves share their centre point).
    ``fixed`` values apply to every point; a grid key overrides a fixed one. Values equal to
    their default are dropped from a point, so ``grace=30`` and no grace at all are one point
    (one resume key, and never two copies of the same workloads in an average)."""
    if preset and alibaba:
        raise UserError("choose one workload source: a preset or the alibaba trace, not both")
    source = Source("alibaba", str(alibaba)) if alibaba else Source("preset", preset or "paper")
    fixed = {str(k): parse_value(v) for k, v in (fixed or {}).items()}
    grid_list = [grids] if isinstance(grids, Mapping) or grids is None else list(grids)
    seed_list = parse_seeds(seeds)
    points: list[tuple[tuple[str, Any], ...]] = []
    seen: set[tuple[tuple[str, Any], ...]] = set()
    for grid in grid_list:
        grid = dict(grid or {})
        for key, values in grid.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise UserError(f"grid {key}: expected a non-empty list of values, got {values!r}")
        # counted before expanding: a few long axes multiply to more tasks than any machine runs
        upto = len(points) + math.prod(len(v) for v in grid.values())
        if upto * len(seed_list) > MAX_TASKS:
            raise UserError(
                f"grid: up to {upto} points x {len(seed_list)} seeds = {upto * len(seed_list)} tasks, "
                f"above the limit of {MAX_TASKS} tasks"
            )
        keys = list(grid)
        for combo in itertools.product(*(grid[k] for k in keys)):
            params = {**fixed, **{k: parse_value(v) for k, v in zip(keys, combo, strict=True)}}
            point = _canonical_point(source, params)
            if point not in seen:
                seen.add(point)
                points.append(point)
    pols = parse_policies(policies)
    bases = tuple(b.strip() for b in (baseline.split(",") if isinstance(baseline, str) else baseline) if b.strip())
    labels = [p.label for p in pols]
    for b in bases:
        if b not in labels:
            raise UserError(f"baseline {b!r} is not among the policies ({', '.join(labels)})")
    return SweepSpec(source, tuple(points), seed_list, pols, bases)


def spec_from_mapping(data: Mapping[str, Any], where: str = "grid file") -> dict[str, Any]:
    """Keyword arguments of :func:`build_spec` from a grid file's mapping (keys :data:`SPEC_KEYS`)."""
    if not isinstance(data, Mapping):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(SPEC_KEYS)}")
    unknown = [k for k in data if k not in SPEC_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(map(str, unknown))} (known: {', '.join(SPEC_KEYS)})")
    out: dict[str, Any] = {}
    for key in ("preset", "alibaba", "seeds", "policies"):
        if key in data:
            out[key] = data[key]
    if "baseline" in data:
        out["baseline"] = data["baseline"]
    if "set" in data:
        if not isinstance(data["set"], Mapping):
            raise UserError(f"{where}: 'set' must be a mapping KEY: VALUE")
        out["fixed"] = dict(data["set"])
    if "grid" in data:
        grid = data["grid"]
        grids = [grid] if isinstance(grid, Mapping) else grid
        if not isinstance(grids, list) or not all(isinstance(g, Mapping) for g in grids):
            raise UserError(f"{where}: 'grid' must be a mapping KEY: [values] or a list of such mappings")
        out["grids"] = grids
    return out


def load_spec_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML or JSON grid file (see docs/sweep.md for the format)."""
    import yaml

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise UserError(f"grid file {p}: {e.strerror or e}") from None
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as e:
        raise UserError(f"grid file {p}: not valid {'JSON' if p.suffix.lower() == '.json' else 'YAML'}: {e}") from None
    return spec_from_mapping(data, f"grid file {p}")


def _split(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    knobs = {k: v for k, v in params.items() if k in KNOB_NAMES}
    workload = {k: v for k, v in params.items() if k not in KNOB_NAMES}
    return knobs, workload


def _canonical_point(source: Source, params: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Check a point and drop the values that equal their defaults; sorted (name, value) pairs."""
    if "seed" in params:
        raise UserError(
            "'seed' cannot be a grid or set key: give the seeds with --seeds (or 'seeds:' in the grid file)"
        )
    if "policy" in params:
        raise UserError("'policy' cannot be a grid or set key: give the policies with --policies")
    knobs, workload = _split(params)
    try:
        config, default = SimConfig().with_knobs(knobs), SimConfig()
    except ValueError as e:
        raise UserError(str(e)) from None
    kept = {k: v for k, v in knobs.items() if getattr(config, k) != getattr(default, k)}
    if source.kind == "preset":
        from simcore.presets import resolve_params

        resolved, base = resolve_params(source.name, workload), resolve_params(source.name)
    else:
        resolved, base = _alibaba_params(workload)[3], _alibaba_params({})[3]
        for name in (POD_FILE, NODE_FILE):
            if not (Path(source.name) / name).is_file():
                raise UserError(f"alibaba source: {Path(source.name) / name} not found")
    kept.update({k: v for k, v in workload.items() if resolved[k] != base[k]})
    return tuple(sorted(kept.items()))


# --- running one task ----------------------------------------------------------------------


def run_task(task: Task) -> list[dict[str, Any]]:
    """Build the task's workload once, run every policy on it, return one row per policy."""
    from simcore.engine import simulate
    from simcore.metrics import summarize, trio

    knobs, wparams = _split(dict(task.point))
    table, cluster, params, offered = _load_workload(task.source, wparams, task.seed)
    base = SimConfig(seed=task.seed).with_knobs(knobs)
    summaries: dict[str, dict[str, Any]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for pol in task.policies:
        config = pol.config(base)
        result = simulate(table, cluster, config)
        summary = summarize(result)
        summaries[pol.label] = summary
        row: dict[str, Any] = {"point_id": task.point_id, "seed": task.seed, "policy": pol.label}
        row.update({k: _cell(v) for k, v in config.knobs().items() if k != "seed"})
        row.update({k: _cell(v) for k, v in params.items() if k != "seed"})
        row.update(_flatten(summary, result))
        row["offered_load"] = float(offered)
        rows[pol.label] = row
    for label, row in rows.items():
        for b in task.baselines:
            t = trio(summaries[label], summaries[b])
            for k in TRIO_KEYS:
                row[f"{k}_vs_{b}"] = _num(t.get(k))
    return [rows[p.label] for p in task.policies]


def _load_workload(source: Source, params: Mapping[str, Any], seed: int) -> tuple[Any, Any, dict[str, Any], float]:
    if source.kind == "preset":
        from simcore.presets import generate

        gen = generate(source.name, seed, params)
        return gen.table, gen.cluster, gen.params, gen.offered_load
    return _load_alibaba(source.name, params)


def _flatten(summary: Mapping[str, Any], result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"jobs_simulated": len(result.jobs)}
    classes = summary["classes"]
    for c in CLASSES:
        out[f"{c}_count"] = int(classes[c]["count"])
    for c in CLASSES:
        for m in ("slowdown", "wait", "jct"):
            stats = classes[c].get(m) or {}
            for s in STATS:
                out[f"{c}_{m}_{s}"] = _num(stats.get(s))
    # the summary has no maxima; the issue asks for the worst TE wait, so take it from the records
    jobs = result.jobs
    wait = np.asarray(result.first_start) - jobs.submit_time
    slowdown = np.asarray(result.slowdown)
    for c, mask in (("TE", jobs.is_te), ("BE", ~jobs.is_te), ("all", np.ones(len(jobs), dtype=bool))):
        out[f"{c}_slowdown_max"] = float(slowdown[mask].max()) if mask.any() else math.nan
        out[f"{c}_wait_max"] = float(wait[mask].max()) if mask.any() else math.nan
    pre = np.asarray(result.preemptions)
    out["preemptions"] = int(summary["preemptions"])
    out["preempted_jobs"] = int((pre > 0).sum())
    out["max_preemptions_per_job"] = int(pre.max()) if len(pre) else 0
    # the size of the jobs a policy picks as victims is what separates the victim rules
    victims = np.asarray(result.ev_job)[np.asarray(result.ev_code) == PREEMPT]
    out["victim_gpu_mean"] = float(jobs.request[victims, 2].mean()) if len(victims) else math.nan
    for k in ("lost_work", "gpu_utilization", "gpu_useful_utilization", "cpu_utilization", "makespan"):
        out[k] = _num(summary[k])
    out["unschedulable"] = len(summary["unschedulable"])
    return out


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


def _cell(v: Any) -> Any:
    """A parameter value as a Parquet-friendly scalar (lists as their comma-separated text)."""
    if isinstance(v, (list, tuple)):
        return ",".join(f"{x:g}" if isinstance(x, float) else str(x) for x in v)
    if v == "inf":
        return math.inf
    return v


# --- executors -------------------------------------------------------------------------------


def execute(tasks: Sequence[Task], workers: int = 1, dask: str | None = None) -> Iterator[list[dict[str, Any]]]:
    """Run tasks, yielding each task's rows as it finishes (completion order)."""
    if not tasks:
        return
    if dask:
        yield from _execute_dask(tasks, workers, dask)
    elif workers <= 1 or len(tasks) == 1:
        for t in tasks:
            yield run_task(t)
    else:
        # forkserver: workers start clean (no inherited threads, e.g. tqdm's monitor); the server
        # imports the simulator once and every worker forks from it warm (0.1 s instead of ~1 s each)
        context = get_context("forkserver")
        context.set_forkserver_preload(
            ["simcore.sweep", "simcore.engine", "simcore.metrics", "simcore.presets", "simcore.workers"]
        )
        # workers die with this process, even when it is killed (SIGKILL leaves no time to stop them)
        pool = ProcessPoolExecutor(
            max_workers=min(workers, len(tasks)),
            mp_context=context,
            initializer=worker_life.die_with,
            initargs=(os.getpid(),),
        )
        try:
            futures = [pool.submit(run_task, t) for t in tasks]
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _execute_dask(tasks: Sequence[Task], workers: int, address: str) -> Iterator[list[dict[str, Any]]]:
    try:
        import logging

        from dask.distributed import Client, LocalCluster
        from dask.distributed import as_completed as dask_completed
    except ImportError:
        raise UserError("--dask needs dask.distributed: pip install 'simcore[dask]'") from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
        )
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=30)
        except OSError as e:
            raise UserError(f"--dask {address}: cannot reach the scheduler ({e})") from None
    try:
        # pure=False: identical tasks would otherwise be merged by key (harmless, but a task is a unit of work)
        futures = client.map(run_task, list(tasks), pure=False)
        for fut in dask_completed(futures):
            yield fut.result()
            fut.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --- the sweep with incremental, resumable output ----------------------------------------------


@dataclass
class SweepReport:
    rows: pd.DataFrame  # this spec's rows (all of them, resumed ones included), in spec order
    ran_tasks: int
    skipped_tasks: int
    simulations: int  # run now (ran_tasks x policies)
    wall_seconds: float  # of the tasks run now, executor start-up included
    notes: list[str] = field(default_factory=list)  # part files set aside as damaged

    @property
    def simulations_per_second(self) -> float:
        return self.simulations / self.wall_seconds if self.simulations and self.wall_seconds > 0 else math.nan


def read_rows(out: str | Path) -> pd.DataFrame:
    """Every row stored for ``out``: the merged Parquet file plus the good part files (bad
    parts are set aside, see :mod:`simcore.sweep_store`; :func:`run_sweep` reports them)."""
    return load_store(out, METRIC_COLUMNS)[0]


def run_sweep(
    spec: SweepSpec,
    out: str | Path | None = None,
    *,
    workers: int = 1,
    dask: str | None = None,
    progress: bool = False,
    csv: str | Path | None = None,
    limit: int | None = None,
    on_task: Callable[[Task], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> SweepReport:
    """Run the tasks of ``spec`` not yet stored in ``out`` and merge everything into ``out``.

    ``limit`` runs at most that many tasks (the rest stay to do: resume later). Without ``out``
    nothing is written and nothing is skipped. Part files set aside as damaged are reported
    through ``log`` as soon as they are found, and listed in :attr:`SweepReport.notes`."""
    from tqdm import tqdm

    out_path = Path(out) if out is not None else None
    tasks = spec.tasks()
    labels = [p.label for p in spec.policies]
    stored, notes = pd.DataFrame(columns=list(ID_COLUMNS)), list[str]()
    if out_path is not None:
        stored, notes = load_store(out_path, METRIC_COLUMNS)
    if log is not None:
        for note in notes:
            log(note)
    done = _done_tasks(stored, labels)
    todo = [t for t in tasks if t.key not in done]
    skipped = len(tasks) - len(todo)
    if limit is not None:
        todo = todo[:limit]
    new_rows: list[dict[str, Any]] = []
    parts = parts_dir(out_path) if out_path is not None else None
    if parts is not None and todo:
        parts.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    bar = tqdm(total=len(todo), unit="task", desc="sweep", disable=not progress, leave=False)
    try:
        by_key = {t.key: t for t in todo}
        for rows in execute(todo, workers=workers, dask=dask):
            task = by_key[(rows[0]["point_id"], rows[0]["seed"])]
            new_rows.extend(rows)
            if parts is not None:
                write_atomic(pd.DataFrame(rows), parts / f"{task.point_id}-{task.seed}.parquet")
            if on_task is not None:
                on_task(task)
            bar.update(1)
    finally:
        bar.close()
    wall = time.perf_counter() - start
    fresh = pd.DataFrame(new_rows)
    merged = stored if not new_rows else fresh if stored.empty else pd.concat([stored, fresh], ignore_index=True)
    merged = merged.drop_duplicates(subset=list(ID_COLUMNS), keep="last")
    merged = _sort(merged, spec)
    if out_path is not None and (new_rows or good_parts(out_path)):
        write_atomic(merged, out_path)
        remove_merged(out_path)
    if csv is not None:
        write_csv(merged, csv)
    mine = merged[merged["point_id"].isin({t.point_id for t in tasks}) & merged["policy"].isin(labels)]
    mine = mine[mine["seed"].isin(spec.seeds)].reset_index(drop=True)
    return SweepReport(mine, len(todo), skipped, len(todo) * len(labels), wall, notes)


def _done_tasks(stored: pd.DataFrame, labels: Sequence[str]) -> set[tuple[str, int]]:
    if stored.empty:
        return set()
    have = stored[stored["policy"].isin(labels)].groupby(["point_id", "seed"])["policy"].nunique()
    complete = have[have == len(labels)].index
    return {(str(p), int(s)) for p, s in zip(complete.get_level_values(0), complete.get_level_values(1), strict=True)}


def _sort(df: pd.DataFrame, spec: SweepSpec) -> pd.DataFrame:
    """Spec order (point, seed, policy) first; rows of other specs keep their stored order after."""
    pindex = {point_id(spec.source, p): i for i, p in enumerate(spec.points)}
    order = pd.DataFrame(
        {
            "p": df["point_id"].map(pindex),
            "s": df["seed"].map({s: i for i, s in enumerate(spec.seeds)}),
            "l": df["policy"].map({p.label: i for i, p in enumerate(spec.policies)}),
        }
    )
    order["other"] = order.isna().any(axis=1)
    order["pos"] = np.arange(len(df))
    order.loc[order["other"], ["p", "s", "l"]] = 0
    keys = order.sort_values(["other", "p", "s", "l", "pos"], kind="stable").index
    return df.loc[keys].reset_index(drop=True)


# --- aggregation -----------------------------------------------------------------------------


def metric_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c in METRIC_COLUMNS or any(c.startswith(f"{k}_vs_") for k in TRIO_KEYS)]


def varying_columns(df: pd.DataFrame) -> list[str]:
    """Parameter columns whose value differs between points (the grid's axes).

    Read from each point's first row, so a knob set by one policy label (``fitgpp:P=1``) does
    not count as an axis."""
    skip = set(ID_COLUMNS) | set(metric_columns(df))
    first = df.drop_duplicates("point_id")
    return [c for c in df.columns if c not in skip and first[c].astype(str).nunique() > 1]


def aggregate(
    rows: pd.DataFrame, metrics: Sequence[str] | None = None, over: str = "seed", level: float = LEVEL
) -> pd.DataFrame:
    """Mean and CI over the replicates for each setting, policy and metric, in long form:
    ``<grid axes>, policy, metric, n, mean, sd, ci_low, ci_high``.

    The replicates are the seeds; ``over`` may name a grid axis instead (the trace windows of
    a real-trace study), which is then averaged over like the seeds."""
    metrics = list(metrics) if metrics is not None else metric_columns(rows)
    axes = [c for c in varying_columns(rows) if c != over]
    records = []
    for key, g in rows.groupby([*axes, "policy"], sort=False, dropna=False):
        head = dict(zip([*axes, "policy"], key, strict=True))
        for m in metrics:
            n, mean, sd, lo, hi = mean_ci(g[m].to_numpy(dtype=float), level)
            records.append({**head, "metric": m, "n": n, "mean": mean, "sd": sd, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame.from_records(
        records, columns=[*axes, "policy", "metric", "n", "mean", "sd", "ci_low", "ci_high"]
    )


def paired_differences(
    rows: pd.DataFrame, baseline: str, metrics: Sequence[str] | None = None, over: str = "seed", level: float = LEVEL
) -> pd.DataFrame:
    """Policy minus ``baseline`` on the same workload (same point and seed), mean and CI over
    the replicates (``over`` as in :func:`aggregate`).

    Pairing removes the workload-to-workload noise that dominates single runs, so a CI that
    excludes 0 says the policies differ on this kind of workload."""
    metrics = list(metrics) if metrics is not None else [m for m in metric_columns(rows) if "_vs_" not in m]
    axes = [c for c in varying_columns(rows) if c != over]
    base = rows[rows["policy"] == baseline].set_index(["point_id", "seed"])
    if base.empty:
        raise UserError(f"paired differences: no rows for the baseline policy {baseline!r}")
    records = []
    for key, g in rows[rows["policy"] != baseline].groupby([*axes, "policy"], sort=False, dropna=False):
        g = g.set_index(["point_id", "seed"])
        head = {**dict(zip([*axes, "policy"], key, strict=True)), "baseline": baseline}
        for m in metrics:
            n, mean, sd, lo, hi = mean_ci(paired_diff(g[m], base[m]), level)
            records.append({**head, "metric": m, "n": n, "mean_diff": mean, "sd": sd, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame.from_records(
        records, columns=[*axes, "policy", "baseline", "metric", "n", "mean_diff", "sd", "ci_low", "ci_high"]
    )


# --- the real trace ----------------------------------------------------------------------------

POD_FILE = "openb_pod_list_default.csv"
NODE_FILE = "openb_node_list_gpu_node.csv"

#: Workload parameters of the ``alibaba`` source and their defaults (None = not set).
ALIBABA_PARAMS: dict[str, Any] = {
    "window_start": 0,  # trace time: seconds, or days with a d suffix ("137d")
    "window_days": None,  # window length in days (None = to the end of the trace)
    "max_duration": None,  # leave out pods that ran longer: seconds or "1d"
    "compress": 1.0,  # divide arrival times by this
    "include_running": 1,  # pods running at the window start enter at t = 0 (1) or not (0)
    "class_map": "size",
    "te_max_gpu": 1.0,
    "te_max_hours": 1.0,
    "gpu_accounting": "whole",
    "nodes": 8,  # the first N nodes of the trace's node list with gpu_per_node GPUs
    "gpu_per_node": 8,
}

#: Recipes A and B of the workloads issue (trace README: loaded small clusters, whole GPUs).
ALIBABA_RECIPES: dict[str, dict[str, Any]] = {
    "A": {"window_start": "137d", "nodes": 7},
    "B": {"window_start": "115d", "max_duration": "1d", "nodes": 8, "compress": 8.09},
}
ALIBABA_RECIPE_DOC = {
    "A": "the last 12.3 days of the trace (from day 137, pods already running at day 137 enter at t = 0 with "
    "their remaining time), real time, on the first 7 of the trace's 8-GPU nodes (offered GPU load about 0.87)",
    "B": "GPU pods from day 115 on that ran at most one day, arrival times divided by k = 8.09 "
    "(= 0.9 x 8 x 8 / 7.12: offered load about 0.9 on average) on the first 8 of the trace's 8-GPU nodes, "
    "cut into consecutive windows of equal length",
}
TRACE_END_DAY = 149.34  # last timestamp of the pod list (12902960 s)


def recipe_b_windows(count: int, first_day: float = 115.0) -> list[str]:
    """Start days of ``count`` equal consecutive windows from ``first_day`` to the trace's end."""
    length = (TRACE_END_DAY - first_day) / count
    return [f"{first_day + i * length:.4g}d" for i in range(count)]


def recipe_b_window_days(count: int, first_day: float = 115.0) -> float:
    return round((TRACE_END_DAY - first_day) / count, 4)


def _alibaba_params(params: Mapping[str, Any]) -> tuple[Any, int, float, dict[str, Any]]:
    """(AlibabaOptions, nodes, GPUs per node, resolved parameters) for the ``alibaba`` source."""
    from simcore.alibaba import DAY, AlibabaOptions, parse_trace_time

    unknown = [k for k in params if k not in ALIBABA_PARAMS]
    if unknown:
        raise UserError(
            f"alibaba source: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(ALIBABA_PARAMS)})"
        )
    p = {**ALIBABA_PARAMS, **params}
    try:
        start = parse_trace_time(p["window_start"], "window_start")
        end = None if p["window_days"] is None else start + float(p["window_days"]) * DAY
        longest = None if p["max_duration"] is None else parse_trace_time(p["max_duration"], "max_duration")
        options = AlibabaOptions(
            class_map=str(p["class_map"]),
            te_max_gpu=float(p["te_max_gpu"]),
            te_max_hours=float(p["te_max_hours"]),
            gpu_accounting=str(p["gpu_accounting"]),
            window_start=start,
            window_end=end,
            include_running=bool(int(p["include_running"])),
            compress=float(p["compress"]),
            max_duration=longest,
        )
        nodes, per_node = int(p["nodes"]), float(p["gpu_per_node"])
    except (TypeError, ValueError) as e:
        raise UserError(f"alibaba source: {e}") from None
    if nodes < 1:
        raise UserError(f"alibaba source: nodes {nodes} must be at least 1")
    resolved = {k: (str(v) if k in ("window_start", "max_duration") and v is not None else v) for k, v in p.items()}
    return options, nodes, per_node, resolved


def _load_alibaba(trace_dir: str, params: Mapping[str, Any]) -> tuple[Any, Any, dict[str, Any], float]:
    from simcore.workload import load_cluster, load_workload, offered_load

    options, nodes, per_node, resolved = _alibaba_params(params)
    base = Path(trace_dir)
    jobs = load_workload(base / POD_FILE, fmt="alibaba", alibaba_options=options).table
    cluster = load_cluster(base / NODE_FILE, gpu_per_node=per_node, first_n=nodes).cluster
    return jobs, cluster, resolved, offered_load(jobs, cluster)
