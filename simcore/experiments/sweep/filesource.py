"""A workload file as a sweep source: the jobs of one file (any format the loader reads, gang
traces included) on one cluster, swept over knobs x policies.

The file is read and validated once, in the calling process, so a bad row is reported (file,
row, column) before anything runs, and every task simulates exactly the jobs that were
checksummed. The resume key (:func:`simcore.experiments.sweep.spec.point_id`) holds the file's name, the
sha256 of its bytes, the loading options and the cluster's content: a changed file, option or
cluster never reuses stored rows. Like the Alibaba trace, a file is a fixed workload: the seed
only feeds the ``random`` policy (and ``save_failure``), unless the source resamples it: with
``resample="bootstrap"`` each seed draws the jobs again from the file (:mod:`simcore.workload.resample`),
so the seeds are replicates whose spread is an interval on the file's result.

A file on identical nodes may sweep its cluster's size: the workload parameter ``nodes`` gives that many
nodes of the same shape (:data:`FILE_PARAMS`; a point keeps it even at the cluster's own count, so every
row of such a sweep names its nodes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, Resources
from simcore.experiments.sweep.spec import KNOB_NAMES, Source
from simcore.workload import MAX_NODES, offered_load
from simcore.workload.resample import RESAMPLINGS, bootstrap

#: The source kind of a workload file (``Source.kind``).
FILE_KIND = "file"

#: Row columns naming the workload and cluster of a file source.
FILE_COLUMNS = ("workload", "workload_sha256", "cluster")
#: The workload parameters a file source takes: the number of its (identical) nodes.
FILE_PARAMS = ("nodes",)


@dataclass(frozen=True)
class FileSource(Source):
    """A loaded workload file and its cluster. ``name`` is the path as given; the jobs and the
    cluster travel with every task (they are not part of equality: the digests are)."""

    sha256: str = ""  # of the file's bytes
    options: str = ""  # the loading options, canonical JSON
    cluster_label: str = ""  # the cluster file's name, or the --nodes shorthand
    cluster_digest: str = ""  # sha256 of the cluster's nodes and capacities
    resample: str = ""  # "": the file as it is; "bootstrap": each seed draws the jobs again (module docstring)
    table: JobTable | None = field(default=None, compare=False, repr=False)
    cluster: ClusterSpec | None = field(default=None, compare=False, repr=False)

    @property
    def file_name(self) -> str:
        return Path(self.name).name

    def describe(self) -> str:
        drawn = ", its jobs drawn again for each seed (bootstrap)" if self.resample else ""
        return f"workload file {self.name} (sha256 {self.sha256[:12]}) on {self.cluster_label}{drawn}"

    def key(self) -> list[str]:
        key = [self.kind, self.file_name, self.sha256, self.options, self.cluster_digest]
        return [*key, f"resample={self.resample}"] if self.resample else key

    def node_shape(self) -> Resources | None:
        """The capacity every node of the cluster has, or None when they differ (its size cannot be swept)."""
        assert self.cluster is not None, "FileSource built without its cluster"
        shapes = {n.capacity for n in self.cluster.nodes}
        return next(iter(shapes)) if len(shapes) == 1 else None

    def point_params(self, workload: Mapping[str, Any]) -> dict[str, Any]:
        """A point's own parameters: the cluster's size (``nodes``, kept at any value), only on identical nodes."""
        unknown = sorted(k for k in workload if k not in FILE_PARAMS)
        if unknown:
            raise UserError(
                f"{self.describe()}: unknown knob(s) {', '.join(map(repr, unknown))}; a workload file has no workload "
                f"parameters but its cluster's size, nodes (knobs: {', '.join(KNOB_NAMES)})"
            )
        if "nodes" not in workload:
            return {}
        nodes = workload["nodes"]
        if not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
            raise UserError(f"nodes {nodes!r}: expected a whole number of nodes from 1 to {MAX_NODES:,}")
        if self.node_shape() is None:
            raise UserError(
                f"nodes: {self.describe()} has nodes of different sizes; sweep the size of a cluster of identical "
                "nodes (--nodes with --node-cpu, --node-mem-gb and --node-gpu)"
            )
        return {"nodes": nodes}

    def load(
        self, params: Mapping[str, Any] | None = None, seed: int = 0
    ) -> tuple[JobTable, ClusterSpec, dict[str, Any], float]:
        """(jobs, cluster, row parameters naming them, offered GPU load), as a task of the point's workload
        ``params`` (:data:`FILE_PARAMS`) and ``seed`` needs them."""
        assert self.table is not None and self.cluster is not None, "FileSource built without its jobs"
        table = bootstrap(self.table, seed) if self.resample == "bootstrap" else self.table
        cluster, label = self.cluster, self.cluster_label
        named: dict[str, Any] = {}
        if params and "nodes" in params:
            shape = self.node_shape()
            assert shape is not None, "nodes swept on a cluster of different nodes"
            cluster = ClusterSpec.uniform(int(params["nodes"]), shape.cpu, shape.mem_gb, shape.gpu)
            label, named = cluster_shorthand(cluster), {"nodes": int(params["nodes"])}
        row = dict(zip(FILE_COLUMNS, (self.file_name, self.sha256, label), strict=True))
        if self.resample:
            row["resample"] = self.resample
        return table, cluster, {**row, **named}, offered_load(table, cluster)


def _cluster_content(cluster: ClusterSpec, nodes: list) -> Any:
    """What the cluster digest covers: its nodes, and its down windows when it has some (DESIGN rule 12)."""
    return nodes if cluster.node_events is None else {"nodes": nodes, "node_events": cluster.node_events.rows()}


def file_source(
    path: str | Path,
    data: bytes,
    table: JobTable,
    cluster: ClusterSpec,
    *,
    options: Any = None,
    cluster_label: str | None = None,
    resample: str = "none",
) -> FileSource:
    """The source of ``table``, loaded from ``data`` (the bytes of ``path``) with ``options``
    (anything JSON-serialisable, dataclasses included: what else decided how the bytes became jobs);
    ``resample``: one of :data:`simcore.workload.resample.RESAMPLINGS`."""
    if resample not in RESAMPLINGS:
        raise UserError(f"resample {resample!r}: expected one of {', '.join(RESAMPLINGS)}")
    text = json.dumps(_plain(options), sort_keys=True, default=str)
    nodes = [[n.name, *n.capacity.as_array().tolist()] for n in cluster.nodes]
    return FileSource(
        FILE_KIND,
        str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        options=text,
        cluster_label=cluster_label or cluster_shorthand(cluster),
        cluster_digest=hashlib.sha256(json.dumps(_cluster_content(cluster, nodes)).encode()).hexdigest(),
        resample="" if resample == "none" else resample,
        table=table,
        cluster=cluster,
    )


def cluster_shorthand(cluster: ClusterSpec) -> str:
    """``16 x (64 CPU, 512 GiB, 8 GPU)`` for identical nodes, else ``N nodes``."""
    caps = {tuple(n.capacity.as_array().tolist()) for n in cluster.nodes}
    if len(caps) == 1:
        cpu, mem, gpu = next(iter(caps))
        return f"{len(cluster.nodes)} x ({cpu:g} CPU, {mem:g} GiB, {gpu:g} GPU)"
    return f"{len(cluster.nodes)} nodes"


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
