"""``simcore reproduce``: the paper's claim re-measured over many seeds and regimes.

Runs three families of sweeps (:mod:`simcore.experiments.sweep`) and writes ``docs/RESULTS.md`` with
tables, PNG figures (``docs/results/``), the grid files that were run and the exact commands:

1. *main*: the ``paper`` preset over many seeds for every registered policy, plus fitgpp with
   other ``P`` and ``s`` values (per-policy knobs, so those curves are paired on the same
   workloads); the trio against fifo and against priority with 95% confidence intervals;
2. *curves*: one knob or workload parameter at a time away from the preset's centre (grace,
   restore, checkpoint mode, backfill, load, TE share) for the baselines and fitgpp;
3. *trace*: the Alibaba GPU trace 2023, recipes A and B of the workloads issue, if present;

and section 8, our ``fitdelay`` and ``min_runtime`` (:mod:`simcore.experiments.study.beyond`).

Every number in the document is computed from the stored rows (``docs/results/rows_*.parquet``),
so a test can recompute it. FitGpp is our reconstruction of the paper's approach, not the
paper's exact algorithm, and the document says so.

Modules, one concern each: :mod:`~simcore.experiments.study.plan` (what is run), :mod:`~simcore.experiments.study.run`
(running it), :mod:`~simcore.experiments.study.tables` (the numbers), :mod:`~simcore.experiments.study.prose` (the
generated sentences), :mod:`~simcore.experiments.study.figures`, :mod:`~simcore.experiments.study.document` (RESULTS.md).
"""

from simcore.experiments.study.plan import DEFAULT_TRACE, DESCRIPTION, FULL, NAIVE, PAPER_TRIO, QUICK, Plan
from simcore.experiments.study.run import reproduce
from simcore.experiments.study.tables import Stat, paired, stat

__all__ = [
    "DEFAULT_TRACE",
    "DESCRIPTION",
    "FULL",
    "NAIVE",
    "PAPER_TRIO",
    "QUICK",
    "Plan",
    "Stat",
    "paired",
    "reproduce",
    "stat",
]
