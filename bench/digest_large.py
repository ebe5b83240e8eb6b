"""Digests of runs on large clusters, to prove an engine change leaves them unchanged.

``record_outputs.py`` covers the outputs, on clusters of 16 nodes at most; from 256 nodes on the
engine takes other paths (placement over the open nodes). This runs ``simulate`` on 300 and
1,000 nodes (``paper``, ``paper-gang`` and a cluster of three node shapes; fitgpp, fifo, k8s and
strict FIFO; best, worst and first fit) and prints one digest per run of every event, start,
finish and loss array. Usage:

    python bench/digest_large.py [JOBS] > OUT     # JOBS per run, default 6000
    diff BEFORE_OUT AFTER_OUT                     # run once on each tree, compare
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

from simcore.core.model import ClusterSpec, Node, Resources, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.workload.presets import generate

PLACEMENTS = ("best_fit", "worst_fit", "first_fit")
SHAPES = ((64, 512, 8), (32, 256, 4), (96, 768, 8))  # (cpu, mem GB, gpu) of the mixed cluster


def digest(r: SimResult) -> str:
    """A short hash of every per-event and per-job array of a result."""
    h = hashlib.sha256()
    arrays = (r.ev_time, r.ev_job, r.ev_code, r.ev_node, r.first_start, r.finish, r.lost_work, r.preemptions)
    for a in (*arrays, r.signal_lost, r.nominations):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main(jobs: int) -> None:
    for preset, nodes in (("paper", 1000), ("paper", 300), ("paper-gang", 300)):
        wl = generate(preset, 0, {"jobs": jobs, "nodes": nodes})
        for policy in ("fitgpp", "fifo", "k8s"):
            for placement in PLACEMENTS:
                if (preset, nodes) == ("paper", 1000) and policy != "fitgpp" and placement != "best_fit":
                    continue  # the slowest cluster: every placement under one policy only
                result = simulate(wl.table, wl.cluster, SimConfig(policy=policy, placement=placement))
                print(f"{preset}-{nodes}-{policy}-{placement}", digest(result), flush=True)
    wl = generate("paper", 1, {"jobs": jobs, "nodes": 300})
    mixed = ClusterSpec(tuple(Node(f"n{k}", Resources(*SHAPES[k % 3])) for k in range(300)))
    for placement in PLACEMENTS:
        for name, config in (
            ("fitgpp", SimConfig(policy="fitgpp", placement=placement)),
            ("strict", SimConfig(policy="fifo", placement=placement, backfill="none")),
        ):
            print(f"mixed-300-{name}-{placement}", digest(simulate(wl.table, mixed, config)), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6000)
