"""A workload file as a sweep source: the jobs of one file (any format the loader reads, gang
traces included) on one cluster, swept over knobs x policies.

The file is read and validated once, in the calling process, so a bad row is reported (file,
row, column) before anything runs, and every task simulates exactly the jobs that were
checksummed. The resume key (:func:`simcore.experiments.sweep.spec.point_id`) holds the file's name, the
sha256 of its bytes, the loading options and the cluster's content: a changed file, option or
cluster never reuses stored rows. Like the Alibaba trace, a file is a fixed workload: the seed
only feeds the ``random`` policy (and ``save_failure``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simcore.core.model import ClusterSpec, JobTable
from simcore.experiments.sweep.spec import Source
from simcore.workload import offered_load

#: The source kind of a workload file (``Source.kind``).
FILE_KIND = "file"

#: Row columns naming the workload and cluster of a file source.
FILE_COLUMNS = ("workload", "workload_sha256", "cluster")


@dataclass(frozen=True)
class FileSource(Source):
    """A loaded workload file and its cluster. ``name`` is the path as given; the jobs and the
    cluster travel with every task (they are not part of equality: the digests are)."""

    sha256: str = ""  # of the file's bytes
    options: str = ""  # the loading options, canonical JSON
    cluster_label: str = ""  # the cluster file's name, or the --nodes shorthand
    cluster_digest: str = ""  # sha256 of the cluster's nodes and capacities
    table: JobTable | None = field(default=None, compare=False, repr=False)
    cluster: ClusterSpec | None = field(default=None, compare=False, repr=False)

    @property
    def file_name(self) -> str:
        return Path(self.name).name

    def describe(self) -> str:
        return f"workload file {self.name} (sha256 {self.sha256[:12]}) on {self.cluster_label}"

    def key(self) -> list[str]:
        return [self.kind, self.file_name, self.sha256, self.options, self.cluster_digest]

    def load(self) -> tuple[JobTable, ClusterSpec, dict[str, Any], float]:
        """(jobs, cluster, row parameters naming them, offered GPU load), as a task needs them."""
        assert self.table is not None and self.cluster is not None, "FileSource built without its jobs"
        params = dict(zip(FILE_COLUMNS, (self.file_name, self.sha256, self.cluster_label), strict=True))
        return self.table, self.cluster, params, offered_load(self.table, self.cluster)


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
) -> FileSource:
    """The source of ``table``, loaded from ``data`` (the bytes of ``path``) with ``options``
    (anything JSON-serialisable, dataclasses included: what else decided how the bytes became jobs)."""
    text = json.dumps(_plain(options), sort_keys=True, default=str)
    nodes = [[n.name, *n.capacity.as_array().tolist()] for n in cluster.nodes]
    return FileSource(
        FILE_KIND,
        str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        options=text,
        cluster_label=cluster_label or cluster_shorthand(cluster),
        cluster_digest=hashlib.sha256(json.dumps(_cluster_content(cluster, nodes)).encode()).hexdigest(),
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
