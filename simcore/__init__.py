"""simcore: a discrete-event simulator of a deep-learning cluster running TE and BE jobs
under pluggable scheduling and preemption policies (see DESIGN.md)."""

from simcore.model import DIMS, ClusterSpec, Job, JobClass, JobTable, Node, Resources, SimConfig

__all__ = ["DIMS", "ClusterSpec", "Job", "JobClass", "JobTable", "Node", "Resources", "SimConfig"]
