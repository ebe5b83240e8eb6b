"""Several policies on one workload: policy specs like ``fitgpp:P=1:s=4`` and the compare JSON.

A spec is a policy name with optional per-policy knobs after colons; its text is its label
in tables and JSON, so ``fitgpp:P=1`` and ``fitgpp:P=3`` can be compared side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from simcore.engine import simulate
from simcore.errors import UserError
from simcore.metrics import compare_summaries, summarize
from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.policies import POLICIES
from simcore.result import SimResult


@dataclass(frozen=True)
class PolicySpec:
    label: str
    config: SimConfig


def parse_policy_spec(text: str, base: SimConfig) -> PolicySpec:
    """``name[:KEY=VALUE...]`` on top of the base knobs."""
    label = text.strip()
    name, *pairs = label.split(":")
    if name not in POLICIES:
        raise UserError(f"unknown policy {name!r} in {label!r} (known: {', '.join(POLICIES)})")
    knobs: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"policy {label!r}: {pair!r} is not KEY=VALUE")
        knobs[key.strip()] = value.strip()
    try:
        return PolicySpec(label, replace(base.with_knobs(knobs), policy=name))
    except ValueError as e:
        raise UserError(f"policy {label!r}: {e}") from None


def parse_policy_list(text: str | Iterable[str], base: SimConfig) -> list[PolicySpec]:
    items = [t for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]
    if not items:
        raise UserError("no policy given")
    specs = [parse_policy_spec(t, base) for t in items]
    labels = [s.label for s in specs]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise UserError(f"policy listed twice: {', '.join(sorted(dup))}")
    return specs


def run_policies(jobs: JobTable, cluster: ClusterSpec, specs: Iterable[PolicySpec]) -> dict[str, SimResult]:
    return {s.label: simulate(jobs, cluster, s.config) for s in specs}


def compare_results(results: Mapping[str, SimResult], baseline: str) -> dict[str, Any]:
    """The compare JSON of DESIGN.md section 6."""
    try:
        return compare_summaries({k: summarize(r) for k, r in results.items()}, baseline)
    except ValueError as e:
        raise UserError(str(e)) from None
