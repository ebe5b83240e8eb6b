"""Policies by name. Each is a queue order plus a victim rule (DESIGN.md section 4).

A variant of the project's own is added as a new module and a new name here, never by
changing the rules of the paper's six: ``fitdelay`` (beyond the paper) is the first.
"""

from __future__ import annotations

from simcore.policies import decision
from simcore.policies.base import Candidates, Policy, Preemption, PreemptionView
from simcore.policies.fitdelay import FITDELAY
from simcore.policies.fitgpp import FITGPP
from simcore.policies.k8s import K8S
from simcore.policies.lrtp import LRTP
from simcore.policies.random_victims import RANDOM
from simcore.policies.simple import FIFO, PRIORITY

POLICIES: dict[str, Policy] = {p.name: p for p in (FIFO, PRIORITY, K8S, LRTP, RANDOM, FITGPP, FITDELAY)}
POLICY_HELP: dict[str, str] = {name: p.help for name, p in POLICIES.items()}
#: the knobs that belong to each policy; min_runtime belongs to every preemptive one
PREEMPTIVE_KNOBS = ("min_runtime",)
POLICY_KNOBS: dict[str, tuple[str, ...]] = {
    name: (*getattr(p, "knobs", ()), *(PREEMPTIVE_KNOBS if p.preemptive else ())) for name, p in POLICIES.items()
}


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})") from None


__all__ = ["POLICIES", "decision", "POLICY_HELP", "POLICY_KNOBS", "Candidates", "Policy", "Preemption", "PreemptionView", "get_policy"]
