"""Several policies on one workload, trio against a baseline: the one routine behind
``simcore compare``, each sweep task (:mod:`simcore.experiments.sweep.tasks`) and the dashboard's comparisons.

Policies are given as specs (:mod:`simcore.policies.spec`): ``fitgpp:P=1`` and ``fitgpp:P=3``
run side by side on the same jobs, each labelled by its normalised text. Comparing on the very
same jobs is what makes the trio (:data:`simcore.analysis.metrics.TRIO`) a comparison of policies only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from simcore.analysis.metrics import compare_summaries, summarize
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.policies.spec import PolicySpec, parse_policies, parse_policy


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
    return configure(parse_policies(text), base)


def configure(specs: Iterable[PolicySpec], base: SimConfig) -> list[Configured]:
    """Each parsed spec with its full configuration on top of the base knobs."""
    return [Configured(s.label, s.config(base)) for s in specs]


def run_policies(
    jobs: JobTable,
    cluster: ClusterSpec,
    specs: Iterable[Configured],
    on_result: Callable[[str, SimResult], None] | None = None,
) -> dict[str, SimResult]:
    """Every spec on the same jobs and cluster, in the given order (label -> result);
    ``on_result(label, result)`` is called as each one finishes (progress)."""
    results = {}
    for s in specs:
        results[s.label] = simulate(jobs, cluster, s.config)
        if on_result is not None:
            on_result(s.label, results[s.label])
    return results


def compare_from_summaries(summaries: Mapping[str, Mapping[str, Any]], baseline: str) -> dict[str, Any]:
    """The compare JSON of DESIGN.md section 6 from the policies' summaries: every summary and
    each one's trio against ``baseline`` (under ``vs_baseline``)."""
    try:
        return compare_summaries(summaries, baseline)
    except ValueError as e:
        raise UserError(str(e)) from None


def compare_results(results: Mapping[str, SimResult], baseline: str) -> dict[str, Any]:
    """The compare JSON of DESIGN.md section 6 from the policies' results."""
    return compare_from_summaries({k: summarize(r) for k, r in results.items()}, baseline)
