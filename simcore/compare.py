"""Several policies on one workload, and the compare JSON.

Policies are given as specs (:mod:`simcore.policy_spec`): ``fitgpp:P=1`` and ``fitgpp:P=3``
run side by side on the same jobs, each labelled by its normalised text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from simcore.engine import simulate
from simcore.errors import UserError
from simcore.metrics import compare_summaries, summarize
from simcore.model import ClusterSpec, JobTable, SimConfig
from simcore.policy_spec import parse_policies, parse_policy
from simcore.result import SimResult


@dataclass(frozen=True)
class Configured:
    """A spec's label with the full configuration it runs."""

    label: str
    config: SimConfig


def parse_policy_spec(text: str, base: SimConfig) -> Configured:
    """``name[:KEY=VALUE...]`` on top of the base knobs."""
    spec = parse_policy(text)
    return Configured(spec.label, spec.config(base))


def parse_policy_list(text: str | Iterable[str], base: SimConfig) -> list[Configured]:
    return [Configured(s.label, s.config(base)) for s in parse_policies(text)]


def run_policies(jobs: JobTable, cluster: ClusterSpec, specs: Iterable[Configured]) -> dict[str, SimResult]:
    return {s.label: simulate(jobs, cluster, s.config) for s in specs}


def compare_results(results: Mapping[str, SimResult], baseline: str) -> dict[str, Any]:
    """The compare JSON of DESIGN.md section 6."""
    try:
        return compare_summaries({k: summarize(r) for k, r in results.items()}, baseline)
    except ValueError as e:
        raise UserError(str(e)) from None
