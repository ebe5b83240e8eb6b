"""``simcore sweep`` and ``simcore reproduce``: a grid of runs over seeds, and the reproduction study.

:func:`add_sweep` and :func:`add_reproduce` add their subparser, whose ``func(args) -> int`` runs the command. Errors
meant for users are raised as :class:`~simcore.core.errors.UserError`; the main CLI prints them.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

from simcore.analysis.bound import BOUND_LABEL
from simcore.cli import inputs, queues
from simcore.cli.common import parse_assignments, warn_unschedulable
from simcore.cli.sweep_tables import format_queue_summary, format_summary
from simcore.core.errors import UserError
from simcore.experiments.sweep.executors import default_workers
from simcore.experiments.sweep.spec import DEFAULT_PRESET, KNOB_NAMES
from simcore.io.csvsafe import write_csv
from simcore.workload.presets import PRESETS
from simcore.workload.resample import RESAMPLINGS

SWEEP_EPILOG = """\
examples:
  simcore sweep --preset demo --grid load=0.8,1.0 --grid P=1,2 --seeds 5 \\
      --policies fifo,priority,k8s,fitgpp --out demo_sweep.parquet
  simcore sweep grid.yaml --workers 2 --csv rows.csv --summary-csv summary.csv
  simcore sweep --workload jobs.csv --cluster cluster.yaml --grid grace=30,300 --policies fifo,k8s,fitgpp
  simcore sweep grid.yaml --dask local            # a Dask LocalCluster with --workers processes
  simcore sweep grid.yaml --dask tcp://10.0.0.5:8786   # an existing Dask cluster

grid file (YAML or JSON; every key optional, command-line options override it):
  preset: paper                 # or  alibaba: ../shared/traces/alibaba-gpu-2023
  set: {jobs: 2000}             # fixed values for every point
  grid: {load: [0.8, 1.0], P: [1, 2, 3]}   # cartesian product; a list of such mappings = union
  seeds: 10                     # 10 = seeds 0..9; or "3-7" or [1, 4, 9]
  policies: [fifo, priority, "fitgpp:P=1:s=4"]
  baseline: fifo                # or [fifo, priority]

""" + textwrap.fill(
    f"Keys are SimConfig knobs ({', '.join(KNOB_NAMES)}) or workload parameters (the preset's, e.g. jobs, "
    "load, te_share, nodes). Re-running with the same --out skips the (point, seed) tasks already stored there.",
    width=96,
)


def add_sweep(subparsers: argparse._SubParsersAction, help: str) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sweep",
        help=help,
        description="Run every (grid point, seed) task: generate its workload once, run every policy on it, "
        "and store one row per policy (knobs, metrics, trio vs the baseline) in Parquet.",
        epilog=SWEEP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("grid_file", nargs="?", help="YAML or JSON grid file (format below)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", help=f"synthetic workload preset ({', '.join(PRESETS)}; default {DEFAULT_PRESET})")
    src.add_argument("--alibaba", metavar="DIR", help="the Alibaba GPU trace directory as the workload source")
    src.add_argument(
        "--workload",
        metavar="FILE",
        help="a workload file as the source (any format compare reads, gangs and traces included), with the "
        "cluster options below; default 1 seed (a file is fixed: the seed feeds only random and save_failure)",
    )
    p.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="a grid axis (repeatable); use ';' between values that contain commas",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a fixed value for every point (repeatable)"
    )
    p.add_argument("--seeds", help="10 = seeds 0..9 (default 3); or a range 3-7; or a list 1,4,9")
    p.add_argument(
        "--policies", help="comma-separated, with per-policy knobs as fitgpp:P=1:s=4 (default fifo,priority,fitgpp)"
    )
    p.add_argument("--baseline", help="baseline policy label(s) for the trio, comma-separated (default fifo)")
    p.add_argument(
        "--bound",
        action="store_true",
        default=None,
        help=f"also run the pooled bound ({BOUND_LABEL!r}: one node with the cluster's resources, k8s, "
        "no grace or restore) on every workload; its rows have bound = true",
    )
    p.add_argument(
        "--out", default="sweep.parquet", help="Parquet file of rows; re-running resumes it (default sweep.parquet)"
    )
    p.add_argument("--csv", metavar="FILE", help="also write every row as CSV")
    p.add_argument(
        "--summary-csv", metavar="FILE", help="write mean and 95%% CI over seeds per point, policy and metric"
    )
    p.add_argument("--paired-csv", metavar="FILE", help="write paired differences vs the baseline (mean and 95%% CI)")
    p.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help=f"local processes (default: the cores this process may use, here {default_workers()})",
    )
    p.add_argument(
        "--dask", metavar="local|tcp://HOST:PORT", help="run on Dask: a LocalCluster, or an existing scheduler"
    )
    p.add_argument(
        "--resample",
        choices=RESAMPLINGS,
        help="with --workload: none (default: the file as it is) or bootstrap (each seed draws the file's jobs "
        "again with replacement, so the seeds give an interval on the file's result)",
    )
    p.add_argument("--limit", type=int, metavar="K", help="run at most K tasks now (the rest on a later run)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    file_options = inputs.add_workload_file_options(p) + inputs.add_cluster_options(p) + queues.add_queues_option(p)
    p.set_defaults(func=run_sweep_command, file_options=file_options)
    return p


def spec_from_args(args: argparse.Namespace) -> Any:
    from simcore.experiments import sweep

    kw: dict[str, Any] = sweep.load_spec_file(args.grid_file) if args.grid_file else {}
    if args.preset:
        kw.pop("alibaba", None)
        kw["preset"] = args.preset
    if args.alibaba:
        kw.pop("preset", None)
        kw["alibaba"] = args.alibaba
    if args.workload:
        named = [f"{k} {kw[k]}" for k in ("preset", "alibaba") if kw.get(k)]
        if named:
            raise UserError(f"--workload: the grid file already names a workload source ({named[0]}); remove one")
        kw["source"] = file_source_from_args(args)
        kw.setdefault("seeds", 1)
    else:
        given = [a.option_strings[0] for a in args.file_options if getattr(args, a.dest) != a.default]
        given += ["--resample"] if args.resample is not None else []
        if given:
            raise UserError(f"{', '.join(given)}: only with --workload FILE (a preset or the trace brings its own)")
    kw["fixed"] = {**kw.get("fixed", {}), **parse_assignments(args.set)}
    axes = dict(sweep.parse_grid_arg(g) for g in args.grid)
    grids = kw.get("grids") or [{}]
    for g in grids:
        clash = sorted(set(g) & set(axes))
        if clash:
            raise UserError(f"--grid {', '.join(clash)}: already an axis in the grid file")
    kw["grids"] = [{**g, **axes} for g in grids]
    for name in ("seeds", "policies", "baseline", "bound"):
        if getattr(args, name) is not None:
            kw[name] = getattr(args, name)
    return sweep.build_spec(**kw)


def file_source_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~simcore.experiments.sweep.filesource.FileSource` of ``--workload`` and the cluster
    options, loaded and checked as ``simcore compare`` does (same notes, same errors)."""
    from simcore.core import units
    from simcore.experiments.sweep.filesource import file_source
    from simcore.workload.readers import read_source

    data, _ = read_source(args.workload, None, args.max_bytes)
    loaded, notes = inputs.loaded_workload_from_args(args, data)
    table = loaded.table
    cluster = queues.queues_from_args(args, loaded, inputs.cluster_from_args(args, notes), notes)
    rounding = units.rounding_note(table.request, cluster.capacity_matrix())
    for note in [*notes, *([rounding] if rounding else [])]:
        print(note if note.startswith("warning: ") else f"note: {note}", file=sys.stderr)
    from simcore.workload.fit import schedulable

    ok, reasons = schedulable(table, cluster)
    warn_unschedulable([str(x) for x in table.job_id[~ok]], reasons)
    options: dict[str, Any] = {
        "format": args.format,
        "drop_invalid": args.drop_invalid,
        "alibaba": inputs.alibaba_options_from_args(args),
        "trace": inputs.trace_options_from_args(args),
    }
    if cluster.queues is not None:  # the queues decide the results too: part of the source's key
        options["queues"] = [{"queue": q.name, **q.as_json()} for q in cluster.queues.queues]
    cluster_file = args.cluster or args.cluster_trace
    label = Path(cluster_file).name if cluster_file else None
    resample = args.resample or "none"
    return file_source(args.workload, data, table, cluster, options=options, cluster_label=label, resample=resample)


def run_sweep_command(args: argparse.Namespace) -> int:
    from simcore.experiments import sweep

    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.limit is not None and args.limit < 0:
        raise UserError("--limit must be at least 0")
    spec = spec_from_args(args)
    executor = f"dask {args.dask}" if args.dask else f"{args.workers} local process(es)"
    print(
        f"sweep: {len(spec.points)} point(s) x {len(spec.seeds)} seed(s) = {len(spec.tasks())} task(s), "
        f"{len(spec.policies)} policies each ({spec.n_simulations} simulations); source {spec.source.describe()}; "
        f"executor {executor}"
    )
    resampled = bool(getattr(spec.source, "resample", ""))
    if spec.source.kind == "file" and len(spec.seeds) > 1 and not resampled:
        print(
            "note: a workload file is fixed: the seed feeds only the random policy and save_failure, "
            "so every other policy gives the same rows for every seed"
        )
    report = sweep.run_sweep(
        spec,
        args.out,
        workers=args.workers,
        dask=args.dask,
        progress=not args.no_progress,
        csv=args.csv,
        limit=args.limit,
        log=lambda note: print(f"warning: {note}", file=sys.stderr),
    )
    rate = f"{report.simulations_per_second:.2f} simulations/s" if report.simulations else "nothing to run"
    print(
        f"ran {report.ran_tasks} task(s) ({report.simulations} simulations) in {report.wall_seconds:.1f} s: {rate}; "
        f"{report.skipped_tasks} task(s) already stored; rows in {args.out}" + (f" and {args.csv}" if args.csv else "")
    )
    missing = len(spec.tasks()) - report.skipped_tasks - report.ran_tasks
    if missing:
        print(f"{missing} task(s) still to run: run the same command again to resume")
    rows = report.rows
    if rows.empty:
        return 0
    agg = sweep.aggregate(rows)
    if args.summary_csv:
        write_csv(agg, args.summary_csv)
    if args.paired_csv:
        write_csv(sweep.paired_differences(rows, spec.baselines[0]), args.paired_csv)
    print(format_summary(agg, spec.baselines[0], resampled))
    per_queue = format_queue_summary(agg, resampled)
    if per_queue:
        print(f"\n{per_queue}")
    return 0


def add_reproduce(subparsers: argparse._SubParsersAction, help: str) -> argparse.ArgumentParser:
    from simcore.experiments import study

    p = subparsers.add_parser(
        "reproduce",
        help=help,
        description=study.DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--quick", action="store_true", help="a small version (few seeds and jobs) for tests and a first look"
    )
    p.add_argument(
        "--seeds",
        type=int,
        help=f"seeds of the main study (default {study.FULL.main_seeds}; quick {study.QUICK.main_seeds})",
    )
    p.add_argument("--curve-seeds", type=int, help=f"seeds per sensitivity point (default {study.FULL.curve_seeds})")
    p.add_argument("--jobs", type=int, help=f"jobs per synthetic workload (default {study.FULL.jobs})")
    p.add_argument(
        "--trace",
        default=None,
        help=f"Alibaba trace directory (default {study.DEFAULT_TRACE}, relative to the repo root)",
    )
    p.add_argument("--out-dir", default="docs", help="where RESULTS.md and results/ go (default docs)")
    p.add_argument(
        "--workers",
        type=int,
        default=default_workers(),
        help=f"local processes (default: the cores this process may use, here {default_workers()})",
    )
    p.add_argument("--dask", metavar="local|tcp://HOST:PORT", help="run the sweeps on Dask")
    p.add_argument("--resume", action="store_true", help="keep the rows of an interrupted run (default: start afresh)")
    p.add_argument(
        "--no-progress", action="store_true", help="no progress on stderr (section, run k of n, elapsed, ETA)"
    )
    p.set_defaults(func=run_reproduce_command)
    return p


def run_reproduce_command(args: argparse.Namespace) -> int:
    from simcore.experiments import study

    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    plan = study.QUICK if args.quick else study.FULL
    plan = plan.with_overrides(main_seeds=args.seeds, curve_seeds=args.curve_seeds, jobs=args.jobs)
    given = [
        ("--quick", args.quick),
        ("--seeds", args.seeds),
        ("--curve-seeds", args.curve_seeds),
        ("--jobs", args.jobs),
        ("--trace", args.trace),
        ("--out-dir", None if args.out_dir == "docs" else args.out_dir),
        ("--workers", args.workers),
        ("--dask", args.dask),
    ]
    command = " ".join(
        ["simcore reproduce", *(k if v is True else f"{k} {v}" for k, v in given if v not in (None, False))]
    )
    doc = study.reproduce(
        plan,
        out_dir=Path(args.out_dir),
        trace=Path(args.trace) if args.trace else None,
        workers=args.workers,
        dask=args.dask,
        progress=not args.no_progress,
        resume=args.resume,
        command=command,
        log=print,
    )
    print(f"wrote {doc}")
    return 0
