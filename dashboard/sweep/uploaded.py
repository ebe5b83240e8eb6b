"""An uploaded workload file as the Sweep page's source (pure): its jobs on identical nodes, each seed a
bootstrap of its jobs (:mod:`simcore.workload.resample`), so every point of the sweep has an interval from
resampling the visitor's own workload; the cluster sized from it unless the visitor sets one.
"""

from __future__ import annotations

from dashboard.shared import uploads
from dashboard.shared.sizing import TARGET_LOAD
from dashboard.sweep.sweeps import SweepSettings
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable
from simcore.experiments.sweep.filesource import FileSource, file_source
from simcore.workload import nodes_for_load

#: how the seeds of an uploaded file differ: each draws the file's jobs again (simcore.workload.resample)
RESAMPLE = "bootstrap"


def sized_nodes(table: JobTable, gpu: float) -> int:
    """The nodes of ``gpu`` GPUs that give the workload an offered GPU load of about
    :data:`dashboard.shared.sizing.TARGET_LOAD` (at least 1)."""
    return max(nodes_for_load(table, gpu, TARGET_LOAD), 1)


def sized_values(nodes: int) -> str:
    """Cluster sizes around ``nodes`` (the size a workload is busy on): 3/4, 1, 5/4 and 3/2 of it."""
    return fmt.settings(dict.fromkeys(max(round(nodes * f), 1) for f in (0.75, 1.0, 1.25, 1.5)))


def upload_source(file_name: str, content: bytes, table: JobTable, settings: SweepSettings, nodes: int) -> FileSource:
    """The sweep's source of an uploaded file: its jobs on ``nodes`` identical nodes of the settings' shape,
    each seed a bootstrap of its jobs (:data:`RESAMPLE`)."""
    try:
        cluster = ClusterSpec.uniform(nodes, *settings.shape())
    except ValueError as exc:
        raise UserError(f"cluster: {exc}") from None
    options = {**uploads.UPLOAD_DEFAULTS, **dict(settings.upload_opts)}
    return file_source(file_name, content, table, cluster, options=options, resample=RESAMPLE)


def source_args(settings: SweepSettings, file_name: str, nodes: int) -> list[str]:
    """The ``simcore sweep`` options naming the sweep's workload: its preset, or the uploaded file with its
    loader options, its cluster and its resampling."""
    if settings.source == "preset":
        return ["--preset", settings.preset]
    shape = [
        ("--node-cpu", settings.node_cpu),
        ("--node-mem-gb", settings.node_mem_gb),
        ("--node-gpu", settings.node_gpu),
    ]
    return [
        *("--workload", file_name, *uploads.loader_flags(dict(settings.upload_opts))),
        *("--nodes", str(nodes), *(x for flag, v in shape for x in (flag, fmt.setting(v)))),
        *("--resample", RESAMPLE),
    ]


def cluster_words(settings: SweepSettings, cluster_label: str) -> str:
    """The cluster the caption names: its nodes' shape when their number is the knob, else the cluster."""
    if settings.knob != "nodes":
        return cluster_label
    cpu, mem, gpu = (fmt.setting(x) for x in settings.shape())
    return f"identical nodes ({cpu} CPU, {mem} GiB, {gpu} GPU)"
