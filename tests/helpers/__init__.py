"""Plain helper functions shared by the tests (the one home for them; fixtures live in
tests/conftest.py): scenario builders and event-log comparison (``logs``), an independent
replay of the events frame (``replay``), two naive reference simulations (``reference``) and
the hypothesis strategies (``strategies``).

Everything here is written from DESIGN.md alone, never from the engine's code, so that the
tests built on it can disagree with the engine.
"""

from .logs import Event, assert_events, assert_jobs, canonical, cluster_of, events_of, job, prop_cluster, run, te
from .reference import Ambiguous, canonical_decisions, place, reference_nonpreemptive, reference_simulate
from .replay import Replay, Segment, expected_lost_work, progress, queue_key, replay, save_failures
from .strategies import POLICIES, clusters, configs, contended, gang_workloads, workloads
from .waiting import HANG_SECONDS, wait_until

__all__ = [
    "HANG_SECONDS",
    "POLICIES",
    "Ambiguous",
    "Event",
    "Replay",
    "Segment",
    "assert_events",
    "assert_jobs",
    "canonical",
    "canonical_decisions",
    "cluster_of",
    "clusters",
    "configs",
    "contended",
    "events_of",
    "gang_workloads",
    "expected_lost_work",
    "job",
    "place",
    "prop_cluster",
    "progress",
    "queue_key",
    "reference_nonpreemptive",
    "reference_simulate",
    "replay",
    "run",
    "save_failures",
    "te",
    "wait_until",
    "workloads",
]
