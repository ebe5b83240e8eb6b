"""A sweep's plan: the grid (from a grid file or ``--grid``/``--set``), the seeds, the policies
and the baselines, checked and expanded into points and tasks.

A *point* is one setting of the grid (SimConfig knobs and workload parameters together); a
*task* is (point, seed). Values equal to their default are dropped from a point, and a point's
id (:func:`point_id`, the resume key) is a hash of the source and the point, the same on every
machine. Every problem is a :class:`~simcore.core.errors.UserError` naming the key or value at fault.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from simcore.core.errors import UserError
from simcore.core.knobs import split_assignment
from simcore.core.model import MAX_SEED, SimConfig
from simcore.core.numtext import parse_number, quoted
from simcore.policies.spec import PolicySpec, parse_policies
from simcore.workload import alibaba

MAX_SEEDS = 100_000  # seeds in one sweep
MAX_TASKS = 100_000  # (point, seed) tasks in one sweep: 100,000 workloads is already days of computing
#: the workload source of a sweep that names none
DEFAULT_PRESET = "paper"

#: SimConfig knobs a grid may vary (``seed`` comes from the seed list, ``policy`` from the policy list).
KNOB_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SimConfig) if f.name not in ("policy", "seed"))


@dataclass(frozen=True)
class Source:
    """Where a task's workload comes from.

    ``kind="preset"``: ``name`` is a preset of :mod:`simcore.workload.presets`; workload parameters are
    its overrides and the task's seed is the generator seed. ``kind="alibaba"``: ``name`` is the
    trace directory; workload parameters are the adapter options of :mod:`simcore.workload.alibaba`
    (window, compression, class mapping, cluster size); the seed only feeds the ``random`` policy.
    """

    kind: str
    name: str

    def describe(self) -> str:
        return f"{self.kind} {self.name}"

    def key(self) -> list[str]:
        """What identifies the source in a point's resume key (:func:`point_id`)."""
        return [self.kind, self.name]

    def point_params(self, workload: Mapping[str, Any]) -> dict[str, Any]:
        """The workload parameters a point keeps: those that differ from their defaults (a bad one raises
        UserError naming it)."""
        if self.kind == "preset":
            from simcore.workload.presets import resolve_params

            resolved, base = resolve_params(self.name, workload), resolve_params(self.name)
        else:
            resolved, base = alibaba.source_params(workload)[3], alibaba.source_params({})[3]
            for name in (alibaba.POD_FILE, alibaba.NODE_FILE):
                try:
                    found = (Path(self.name) / name).is_file()
                except OSError as exc:  # a name the system refuses (too long, say) is not found either
                    raise UserError(f"alibaba source: {quoted(self.name)}: {exc.strerror or exc}") from None
                if not found:
                    raise UserError(f"alibaba source: {Path(self.name) / name} not found")
        return {k: v for k, v in workload.items() if resolved[k] != base[k]}


@dataclass(frozen=True)
class SweepSpec:
    source: Source
    points: tuple[tuple[tuple[str, Any], ...], ...]  # each a sorted (name, value) tuple
    seeds: tuple[int, ...]
    policies: tuple[PolicySpec, ...]
    baselines: tuple[str, ...]
    bound: bool = False  # also run the pooled bound (simcore.analysis.bound) on each task's workload

    def tasks(self) -> list[Task]:
        out = []
        for i, point in enumerate(self.points):
            pid = point_id(self.source, point)
            for j, seed in enumerate(self.seeds):
                out.append(Task(self.source, point, pid, seed, self.policies, self.baselines, (i, j), self.bound))
        return out

    @property
    def n_simulations(self) -> int:
        return len(self.points) * len(self.seeds) * (len(self.policies) + self.bound)


@dataclass(frozen=True)
class Task:
    source: Source
    point: tuple[tuple[str, Any], ...]
    point_id: str
    seed: int
    policies: tuple[PolicySpec, ...]
    baselines: tuple[str, ...]
    order: tuple[int, int] = field(default=(0, 0), compare=False)
    bound: bool = False

    @property
    def key(self) -> tuple[str, int]:
        return (self.point_id, self.seed)


def point_id(source: Source, point: Iterable[tuple[str, Any]]) -> str:
    """A short stable id of (source, point): the resume key, the same on every machine."""
    text = json.dumps({"source": source.key(), "point": sorted(point)}, sort_keys=True, default=str)
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
            float(s)
        except ValueError:
            return s  # a choice (checkpoint=none), a list (te_gpu=1,2)
        try:
            value = parse_number(s)
        except ValueError as exc:  # a number no range holds (400 digits, 1e400)
            raise UserError(f"grid value: {exc}") from None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def parse_grid_arg(text: str) -> tuple[str, list[Any]]:
    """``KEY=V1,V2,...`` (or ``KEY=A;B`` when the values themselves hold commas, as list parameters do)."""
    key, sep, values = str(text).partition("=")
    if not sep or not key.strip():
        raise UserError(f"--grid {text!r}: expected KEY=V1,V2,...")
    pair = split_assignment(text)
    if pair is None:
        raise UserError(f"--grid {text!r}: empty value in the list")
    key, values = pair
    parts = values.split(";") if ";" in values else values.split(",")
    if any(not p.strip() for p in parts):
        raise UserError(f"--grid {text!r}: empty value in the list")
    return key, [parse_value(p) for p in parts]


def parse_seeds(value: Any) -> tuple[int, ...]:
    """``10`` (seeds 0..9), ``"3-7"`` (inclusive range), ``"1,4,9"`` or a list; at most
    :data:`MAX_SEEDS` seeds, each at most :data:`~simcore.core.model.MAX_SEED`."""
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
    # a range's own length is a C integer: ask for 2**63 seeds and len() overflows
    count = seeds.stop - seeds.start if isinstance(seeds, range) else len(seeds)
    if count > MAX_SEEDS:
        raise UserError(f"seeds {value!r}: {count} seeds, more than the limit of {MAX_SEEDS}")
    if not seeds or min(seeds) < 0 or len(set(seeds)) != len(seeds):
        raise UserError(f"seeds {value!r}: seeds must be distinct whole numbers >= 0")
    if max(seeds) > MAX_SEED:
        raise UserError(f"seeds {value!r}: {max(seeds)} is above the largest seed, {MAX_SEED}")
    return tuple(seeds)


SPEC_KEYS = ("preset", "alibaba", "set", "grid", "seeds", "policies", "baseline", "bound")


def build_spec(
    *,
    preset: str | None = None,
    alibaba: str | None = None,
    fixed: Mapping[str, Any] | None = None,
    grids: Sequence[Mapping[str, Sequence[Any]]] | Mapping[str, Sequence[Any]] | None = None,
    seeds: Any = 3,
    policies: str | Sequence[str] = "fifo,priority,fitgpp",
    baseline: str | Sequence[str] = "fifo",
    bound: bool = False,
    source: Source | None = None,
) -> SweepSpec:
    """Check everything and expand the grid(s) into points.

    ``grids`` is one mapping (a cartesian product) or a list of them (the union of their
    products, duplicates dropped: one-at-a-time sensitivity curves share their centre point).
    ``fixed`` values apply to every point; a grid key overrides a fixed one. Values equal to
    their default are dropped from a point, so ``grace=30`` and no grace at all are one point
    (one resume key, and never two copies of the same workloads in an average). ``bound``
    adds the pooled bound's row to every task (:mod:`simcore.analysis.bound`). ``source`` is an already
    built source (a workload file: :mod:`simcore.experiments.sweep.filesource`), instead of a preset or the trace."""
    if sum(x is not None and x != "" for x in (preset, alibaba, source)) > 1:
        raise UserError("choose one workload source: a preset, the alibaba trace or a workload file")
    if source is None:
        source = Source("alibaba", str(alibaba)) if alibaba else Source("preset", preset or DEFAULT_PRESET)
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
    if not isinstance(bound, bool):
        raise UserError(f"bound: expected true or false, got {bound!r}")
    return SweepSpec(source, tuple(points), seed_list, pols, bases, bound)


def spec_from_mapping(data: Mapping[str, Any], where: str = "grid file") -> dict[str, Any]:
    """Keyword arguments of :func:`build_spec` from a grid file's mapping (keys :data:`SPEC_KEYS`)."""
    if not isinstance(data, Mapping):
        raise UserError(f"{where}: expected a mapping with keys {', '.join(SPEC_KEYS)}")
    unknown = [k for k in data if k not in SPEC_KEYS]
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(map(str, unknown))} (known: {', '.join(SPEC_KEYS)})")
    out: dict[str, Any] = {}
    for key in ("preset", "alibaba", "seeds", "policies", "baseline", "bound"):
        if key in data:
            out[key] = data[key]
    for key in ("preset", "alibaba"):
        if not isinstance(out.get(key, ""), str):
            raise UserError(f"{where}: '{key}' must be a name, got {quoted(out[key])}")
    for key in ("policies", "baseline"):
        value = out.get(key, "")
        if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
            raise UserError(f"{where}: '{key}' must be a comma-separated text or a list of names, got {quoted(value)}")
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


def split_params(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(SimConfig knobs, workload parameters) of a point's settings."""
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
    knobs, workload = split_params(params)
    try:
        config, default = SimConfig().with_knobs(knobs), SimConfig()
    except ValueError as e:
        raise UserError(str(e)) from None
    kept = {k: v for k, v in knobs.items() if getattr(config, k) != getattr(default, k)}
    return tuple(sorted({**kept, **source.point_params(workload)}.items()))
