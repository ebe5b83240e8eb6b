"""The keys of runs in the shared store (:mod:`dashboard.runs.data`): the same workload content,
cluster and configuration give the same key, however the workload was reached."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable
from dataclasses import asdict

from dashboard.runs.results import Workload
from dashboard.shared import views
from simcore.core.model import ClusterSpec, SimConfig


def config_json(config: SimConfig) -> str:
    """A canonical text of a config: the cache key of its runs. The quiet knobs (``Knob.quiet``)
    are in it only when set, as in a run's recorded knobs, so a default config keeps its key."""
    quiet = set(config.knobs()) - set(config.recorded_knobs())
    values = {k: v for k, v in asdict(config).items() if k not in quiet}
    return json.dumps(values, sort_keys=True)  # inf is written as Infinity and read back


def cluster_hash(cluster: ClusterSpec) -> str:
    return hashlib.sha256(views.cluster_key(cluster).encode()).hexdigest()[:20]


def run_key(workload: Workload, cluster_id: str, config: SimConfig) -> Hashable:
    """The key of one policy's run on the first (or only) workload of a scenario."""
    return ("run", workload.key, cluster_id, config_json(config))
