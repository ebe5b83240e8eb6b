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

Each name is imported from its module on first use, so ``import simcore`` itself imports nothing
of the simulator (and ``simcore --help`` none of it: :mod:`simcore.cli`).

The engine's per-event modules may run compiled with mypyc; :mod:`simcore.engine` says how and
chooses (``SIMCORE_PURE=1`` runs every module from its ``.py`` file, the reference).
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

#: the public API: each name and the module that defines it. A name is imported on first use
#: (``__getattr__`` below), so ``import simcore`` and ``simcore --help`` import none of the
#: simulator; ``from simcore import simulate`` imports the engine.
_API: dict[str, str] = {
    "DIMS": "simcore.core.model",
    "KNOBS": "simcore.core.knobs",
    "POLICIES": "simcore.policies",
    "ClusterSpec": "simcore.core.model",
    "Job": "simcore.core.model",
    "JobClass": "simcore.core.model",
    "JobTable": "simcore.core.model",
    "Node": "simcore.core.model",
    "Resources": "simcore.core.model",
    "SimConfig": "simcore.core.model",
    "SimResult": "simcore.core.result",
    "compare_results": "simcore.analysis.compare",
    "generate": "simcore.workload.presets",
    "get_policy": "simcore.policies",
    "load_cluster": "simcore.workload",
    "load_workload": "simcore.workload",
    "register": "simcore.policies",
    "run_policies": "simcore.analysis.compare",
    "simulate": "simcore.engine",
    "summarize": "simcore.analysis.metrics",
}
__all__ = list(_API)


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module 'simcore' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(_API[name]), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_API})


if _TYPE_CHECKING:  # the same names for type checkers, which do not run __getattr__
    from simcore.analysis.compare import compare_results, run_policies  # noqa: F401
    from simcore.analysis.metrics import summarize  # noqa: F401
    from simcore.core.knobs import KNOBS  # noqa: F401
    from simcore.core.model import DIMS, ClusterSpec, Job, JobClass, JobTable, Node, Resources, SimConfig  # noqa: F401
    from simcore.core.result import SimResult  # noqa: F401
    from simcore.engine import simulate  # noqa: F401
    from simcore.policies import POLICIES, get_policy, register  # noqa: F401
    from simcore.workload import load_cluster, load_workload  # noqa: F401
    from simcore.workload.presets import generate  # noqa: F401
