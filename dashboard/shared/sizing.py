"""The cluster an uploaded workload runs on (an upload brings no cluster): stated beside the upload,
with a cluster of the same nodes sized from the workload, and a warning when the load is so low that
every policy gives the same result. Pure: the page shows the texts and applies the proposal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dashboard.shared import keys
from simcore.analysis.metrics import TRIO
from simcore.core import fmt
from simcore.core.model import ClusterSpec, JobTable
from simcore.workload import nodes_for_load, offered_load

TARGET_LOAD = 0.9  # busy enough that jobs queue and policies differ, not so busy that the queue only grows


@dataclass(frozen=True)
class Proposal:
    """``nodes`` nodes of the cluster's own node shape, giving the workload ``load``."""

    nodes: int
    cpu: float
    mem_gb: float
    gpu: float
    load: float

    def widgets(self) -> dict[str, Any]:
        """Explore's sidebar values that select this cluster ("uniform nodes"), by widget key."""
        return {
            keys.CLUSTER.name: "custom",
            keys.NODES.name: self.nodes,
            keys.NODE_CPU.name: self.cpu,
            keys.NODE_MEM_GB.name: self.mem_gb,
            keys.NODE_GPU.name: self.gpu,
        }


def describe(cluster: ClusterSpec) -> str:
    """``16 nodes x (64 CPU, 512 GiB, 8 GPU)`` for a uniform cluster, the totals otherwise."""
    caps = {node.capacity for node in cluster.nodes}
    total = cluster.total()
    if len(caps) == 1:
        cap = caps.pop()
        return f"{len(cluster.nodes)} nodes x ({fmt.setting(cap.cpu)} CPU, {fmt.setting(cap.mem_gb)} GiB, {fmt.setting(cap.gpu)} GPU)"
    return f"{len(cluster.nodes)} nodes ({fmt.setting(total.cpu)} CPU, {fmt.setting(total.mem_gb)} GiB, {fmt.setting(total.gpu)} GPU in all)"


def propose(table: JobTable, cluster: ClusterSpec) -> Proposal | None:
    """Nodes shaped like ``cluster``'s first node, as many as give an offered GPU load of about
    :data:`TARGET_LOAD`; None when the workload asks for no GPU time or the count would not change."""
    cap = cluster.nodes[0].capacity
    nodes = nodes_for_load(table, cap.gpu, TARGET_LOAD)
    if nodes == len(cluster.nodes) or offered_load(table, cluster) == 0.0:
        return None
    sized = ClusterSpec.uniform(nodes, cap.cpu, cap.mem_gb, cap.gpu)
    return Proposal(nodes, cap.cpu, cap.mem_gb, cap.gpu, offered_load(table, sized))


def cluster_notice(cluster: ClusterSpec, load: float, proposal: Proposal | None) -> str:
    """What the page says beside an upload run on the default cluster."""
    text = (
        f"An uploaded file brings no cluster: it runs on the default one, {describe(cluster)}, "
        f"which gives it an offered GPU load of {fmt.load(load)}."
    )
    if proposal is not None:
        text += (
            f" Sized from the workload: {proposal.nodes} such nodes give an offered GPU load of "
            f"{fmt.load(proposal.load)} (target {fmt.setting(TARGET_LOAD)})."
        )
    return text


def all_equal(flats: Mapping[str, Mapping[str, Any]], policies: Sequence[str]) -> bool:
    """Do all of several policies give the same trio (every policy's slowdowns equal; policy ->
    flat record)?"""
    values = {tuple(flats[p][f"{cls}_slowdown_{stat}"] for cls, stat in TRIO.values()) for p in policies}
    return len(policies) > 1 and len(values) == 1


def equal_warning(load: float) -> str:
    return (
        f"Every policy gives the same result: at an offered GPU load of {fmt.load(load)} jobs hardly wait, so "
        "there is nothing for a policy to decide. Use fewer nodes (Cluster) or a busier workload to see them differ."
    )
