"""Policies by name. Each is a queue order plus a victim rule (DESIGN.md section 4).

A preemptive policy is a plugin of the evaluator (:mod:`simcore.policies.evaluator`): it writes
its caps, its per-node victim rule and its ordering key; its own knobs are its fields. A
variant of the project's own is added as a new module and a new name here, never by changing
the rules of the paper's six: ``fitdelay`` (beyond the paper) is the first.
"""

from __future__ import annotations

from dataclasses import replace

from simcore.core.knobs import own_knobs, policy_knobs
from simcore.core.model import SimConfig
from simcore.policies import decision
from simcore.policies.base import Candidates, Policy, Preemption, PreemptionView
from simcore.policies.evaluator import PreemptivePolicy, VictimSet, VictimSets
from simcore.policies.fitdelay import FITDELAY
from simcore.policies.fitgpp import FITGPP
from simcore.policies.k8s import K8S
from simcore.policies.lrtp import LRTP
from simcore.policies.random_victims import RANDOM
from simcore.policies.simple import FIFO, PRIORITY

#: the registry, in the order policies are listed; kept by register() together with the two below
POLICIES: dict[str, Policy] = {}
POLICY_HELP: dict[str, str] = {}
#: the knobs that belong to each policy (its own, then every preemptive one's), from simcore.core.knobs
POLICY_KNOBS: dict[str, tuple[str, ...]] = {}


def register(policy: Policy) -> None:
    """Make a policy known by its name to the engine, the CLI, sweeps and the dashboard."""
    if policy.name in POLICIES:
        raise ValueError(f"policy {policy.name!r} is already registered")
    POLICIES[policy.name] = policy
    POLICY_HELP[policy.name] = policy.help
    POLICY_KNOBS[policy.name] = policy_knobs(policy.name, policy.preemptive)


def unregister(name: str) -> None:
    """Forget a registered policy (tests that register one of their own)."""
    for table in (POLICIES, POLICY_HELP, POLICY_KNOBS):
        del table[name]


for _policy in (FIFO, PRIORITY, K8S, LRTP, RANDOM, FITGPP, FITDELAY):
    register(_policy)


def get_policy(name: str, config: SimConfig | None = None) -> Policy:
    """The policy registered as `name`; given a run's config, built with its own knobs' values from it
    (checked where it is built, so a bad value raises ValueError)."""
    try:
        policy = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})") from None
    own = own_knobs(name)
    if config is None or not own:
        return policy
    return replace(policy, **{k: getattr(config, k) for k in own})  # type: ignore[type-var]


__all__ = [
    "POLICIES",
    "decision",
    "POLICY_HELP",
    "POLICY_KNOBS",
    "Candidates",
    "Policy",
    "Preemption",
    "PreemptionView",
    "PreemptivePolicy",
    "VictimSet",
    "VictimSets",
    "get_policy",
    "register",
    "unregister",
]
