"""Policy specs: a policy name with its own knobs, written ``name[:KEY=VALUE]...`` (``fitgpp:P=1:s=4``).

The one parser behind ``run --policy``, ``compare --policies``, ``sweep --policies``, the
reproduction study and the dashboard. A spec's label is its normalised text (no spaces around
names, keys or values: ``fitgpp: P=1`` and ``fitgpp:P=1`` are the same spec), and it names the
policy in tables, rows and JSON, so ``fitgpp:P=1`` and ``fitgpp:P=3`` can be compared side by side
on the same workload. Its knobs override the base knobs for that policy only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from simcore.core.errors import UserError
from simcore.core.knobs import split_assignment
from simcore.core.model import SimConfig
from simcore.core.numtext import quoted
from simcore.policies import POLICIES, Policy, get_policy


@dataclass(frozen=True)
class PolicySpec:
    label: str
    name: str
    knobs: tuple[tuple[str, str], ...] = ()

    def config(self, base: SimConfig) -> SimConfig:
        """The base knobs with this policy and its own knobs on top."""
        try:
            return replace(base.with_knobs(dict(self.knobs)), policy=self.name)
        except ValueError as e:
            raise UserError(f"policy {quoted(self.label)}: {e}") from None

    def policy(self, base: SimConfig) -> Policy:
        """The policy itself, built with its own knobs (checked where it is built) from :meth:`config`."""
        config = self.config(base)
        try:
            return get_policy(self.name, config)
        except ValueError as e:
            raise UserError(f"policy {quoted(self.label)}: {e}") from None


def parse_policy(text: str) -> PolicySpec:
    """One spec; its knobs are checked against the defaults here, so a typo fails before any run."""
    parts = [p.strip() for p in str(text).strip().split(":")]
    name = parts[0]
    if not name:
        raise UserError(f"policy {quoted(text)}: empty policy name")
    if name not in POLICIES:
        raise UserError(f"policy {quoted(text)}: unknown policy {quoted(name)} (known: {', '.join(POLICIES)})")
    knobs = []
    for part in parts[1:]:
        pair = split_assignment(part)
        if pair is None:
            raise UserError(f"policy {quoted(text)}: {quoted(part)} is not KEY=VALUE")
        knobs.append(pair)
    spec = PolicySpec(":".join([name, *(f"{k}={v}" for k, v in knobs)]), name, tuple(knobs))
    spec.policy(SimConfig())
    return spec


def parse_policies(value: str | Iterable[str]) -> tuple[PolicySpec, ...]:
    """A comma-separated list (or a sequence) of specs: at least one, no label twice."""
    items = value.split(",") if isinstance(value, str) else list(value)
    specs = tuple(parse_policy(p) for p in items if str(p).strip())
    if not specs:
        raise UserError("policies: the list is empty")
    labels = [p.label for p in specs]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise UserError(f"policies: {', '.join(dupes)} listed twice")
    return specs
