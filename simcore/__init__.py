"""simcore: a discrete-event simulator of a deep-learning cluster running TE and BE jobs
under pluggable scheduling and preemption policies (see DESIGN.md).

The public API, in the order of a run (config -> simulate -> records -> summary)::

    from simcore import ClusterSpec, SimConfig, load_workload, simulate, summarize

    jobs = load_workload("sample_workloads/demo.csv").table
    cluster = ClusterSpec.uniform(4, cpu=64, mem_gb=512, gpu=8)
    result = simulate(jobs, cluster, SimConfig(policy="fitgpp", P=1))
    print(summarize(result)["classes"]["TE"]["slowdown"]["p95"])

- the model: :class:`SimConfig` (frozen knobs; :data:`KNOBS` defines each knob once),
  :class:`ClusterSpec`, :class:`JobTable`;
- workloads: :func:`load_workload`, :func:`load_cluster` (validated files), :func:`generate`
  (the synthetic presets);
- a run: :func:`simulate` returns a :class:`SimResult` (append-only job, event and decision
  records); :func:`summarize` turns it into the flat per-run summary every consumer reads;
- policies: :data:`POLICIES` (the registry, by name), :func:`get_policy`, :func:`register`;
- several policies on one workload, trio against a baseline: :func:`run_policies`,
  :func:`compare_results`.

The engine's per-event modules may run compiled with mypyc; :mod:`simcore.engine` says how and
chooses (``SIMCORE_PURE=1`` runs every module from its ``.py`` file, the reference).
"""

from simcore.compare import compare_results, run_policies
from simcore.engine import simulate
from simcore.knobs import KNOBS
from simcore.metrics import summarize
from simcore.model import DIMS, ClusterSpec, Job, JobClass, JobTable, Node, Resources, SimConfig
from simcore.policies import POLICIES, get_policy, register
from simcore.presets import generate
from simcore.result import SimResult
from simcore.workload import load_cluster, load_workload

__all__ = [
    "DIMS",
    "KNOBS",
    "POLICIES",
    "ClusterSpec",
    "Job",
    "JobClass",
    "JobTable",
    "Node",
    "Resources",
    "SimConfig",
    "SimResult",
    "compare_results",
    "generate",
    "get_policy",
    "load_cluster",
    "load_workload",
    "register",
    "run_policies",
    "simulate",
    "summarize",
]
