"""Parameter sweeps: a grid of knobs and workload parameters x seeds x policies.

A *point* is one setting of the grid (SimConfig knobs and workload parameters together). A
*task* is (point, seed): it builds its workload once and runs every policy on it, so the trio
against the baseline and the paired differences compare policies on the very same jobs.

One concern per module:

- :mod:`~simcore.experiments.sweep.spec`: the grid file / ``--grid`` parsing and the plan (points, seeds,
  policies, baselines, tasks);
- :mod:`~simcore.experiments.sweep.tasks`: running one task, one flat row per policy;
- :mod:`~simcore.experiments.sweep.executors`: the calling process, a local process pool or Dask;
- :mod:`~simcore.experiments.sweep.store`: the resumable Parquet part files;
- :mod:`~simcore.experiments.sweep.runner`: :func:`run_sweep`, which ties the four together;
- :mod:`~simcore.experiments.sweep.summary`: mean and confidence interval over seeds, paired differences.

The trace as a workload source and its recipes live with the adapter (:mod:`simcore.workload.alibaba`).
"""

from simcore.analysis.metrics import CLASSES
from simcore.experiments.sweep.executors import default_workers, execute
from simcore.experiments.sweep.runner import SweepReport, read_rows, run_sweep, run_sweeps
from simcore.experiments.sweep.spec import (
    KNOB_NAMES,
    MAX_SEEDS,
    MAX_TASKS,
    SPEC_KEYS,
    Source,
    SweepSpec,
    Task,
    build_spec,
    load_spec_file,
    parse_grid_arg,
    parse_seeds,
    parse_value,
    point_id,
    spec_from_mapping,
)
from simcore.experiments.sweep.store import ID_COLUMNS, parts_dir
from simcore.experiments.sweep.summary import aggregate, metric_columns, paired_differences, varying_columns
from simcore.experiments.sweep.tasks import METRIC_COLUMNS, run_task, run_tasks

__all__ = [
    "CLASSES",
    "ID_COLUMNS",
    "KNOB_NAMES",
    "MAX_SEEDS",
    "MAX_TASKS",
    "METRIC_COLUMNS",
    "SPEC_KEYS",
    "Source",
    "SweepReport",
    "SweepSpec",
    "Task",
    "aggregate",
    "build_spec",
    "default_workers",
    "execute",
    "load_spec_file",
    "metric_columns",
    "paired_differences",
    "parse_grid_arg",
    "parse_seeds",
    "parse_value",
    "parts_dir",
    "point_id",
    "read_rows",
    "run_sweep",
    "run_sweeps",
    "run_task",
    "run_tasks",
    "spec_from_mapping",
    "varying_columns",
]
