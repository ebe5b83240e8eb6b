"""Knob metadata: every setting of a run, declared once (DESIGN.md section 6).

A :class:`Knob` holds a setting's name, type, default, allowed values, one-line meaning and
the policies that read it. Everything else is derived from :data:`KNOBS`: the fields and
validation of :class:`~simcore.core.model.SimConfig`, each policy's own knobs (its fields, their
defaults and range checks, and the registry's list, :func:`policy_knobs`), ``--set KEY=VALUE``
parsing and the CLI help, the dashboard's URL parameters and widgets, and the table in
docs/knobs.md (:mod:`simcore.cli.knobs_doc`). Adding a knob is one entry here plus its field on
``SimConfig`` (and on the policy that reads it, when ``used_by`` names one).

The same :class:`KnobRange` states the bounds of the generator parameters
(:mod:`simcore.workload.presets`) and of the dashboard's own numeric settings, so every range in the
project is written and checked the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from simcore.core.numtext import parse_number, quoted

#: The longest duration a setting may give (the knobs grace, restore, checkpoint_interval, tau; a
#: generator's durations), about 31.7 years: every derived time and slowdown then stays finite.
MAX_SECONDS = 1e9
#: The largest seed: what a Parquet int64 column (sweep rows) holds.
MAX_SEED = 2**63 - 1

CHECKPOINT_MODES = ("on_preempt", "periodic", "none")
BACKFILL_MODES = ("greedy", "none")
PLACEMENTS = ("best_fit", "first_fit", "worst_fit")

#: ``Knob.used_by`` of an engine mechanism every policy runs under
EVERY_POLICY = "every policy"
#: ``Knob.used_by`` of a knob every preemptive policy reads (the engine's candidate filter)
PREEMPTIVE = "every preemptive policy"


def format_limit(x: float) -> str:
    """1e9 as ``1e9``, 1000000 as ``1000000``, 0.001 as ``0.001``."""
    if isinstance(x, int):
        return str(x)
    if x.is_integer() and abs(x) < 1e7:
        return str(int(x))
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


@dataclass(frozen=True)
class KnobRange:
    """The allowed values of a number: ``low`` to ``high`` (``low`` excluded when ``low_open``);
    ``high = inf`` allows inf itself (``s``: no cap); ``whole`` asks for an integer."""

    low: float
    high: float
    low_open: bool = False
    whole: bool = False

    def text(self) -> str:
        """The range as the help and docs/knobs.md state it (``0 to 1e9``, ``> 0, or inf``)."""
        low, high = format_limit(self.low), format_limit(self.high)
        if math.isinf(self.high):
            whole = "a whole number " if self.whole else ""
            return f"{whole}> {low}, or inf" if self.low_open else f"{whole}>= {low}, or inf"
        return f"> {low} and <= {high}" if self.low_open else f"{low} to {high}"

    def contains(self, value: float) -> bool:
        low_ok = value > self.low if self.low_open else value >= self.low
        # an int is whole as it is (float() of a huge one overflows); inf = no cap
        whole_ok = not self.whole or isinstance(value, int) or float(value).is_integer() or math.isinf(value)
        return low_ok and value <= self.high and whole_ok

    def rule(self, value: float) -> str | None:
        """None when ``value`` is allowed, else the rule it breaks: ``must be ... (got ...)``."""
        if self.contains(value):
            return None
        if math.isinf(self.high):
            kind = "a whole number" if self.whole else "a number"
            rule = f"{kind} {'>' if self.low_open else '>='} {format_limit(self.low)} (inf = no cap)"
        else:
            kind = "an integer" if self.whole else "a finite number"
            rule = f"{kind} >= {format_limit(self.low)} and <= {format_limit(self.high)}"
        return f"must be {rule} (got {quoted(value)})"

    def check(self, name: str, value: float) -> None:
        """Nothing when ``value`` is allowed, else ``ValueError("knob NAME: must be ... (got ...)")``."""
        broken = self.rule(value)
        if broken:
            raise ValueError(f"knob {name}: {broken}")


@dataclass(frozen=True)
class Knob:
    """One setting: ``kind`` is ``int``, ``float`` or ``choice``; a number has a ``range``, a
    choice its ``choices``. ``meaning`` is the one-line help without default and range (those
    are added from the fields); ``default_note`` explains a special default (``inf = no cap``).
    ``unit`` and ``step`` shape the dashboard's input."""

    name: str
    kind: str
    default: int | float | str
    meaning: str
    range: KnobRange | None = None
    choices: tuple[str, ...] = ()
    used_by: str | tuple[str, ...] = EVERY_POLICY
    default_note: str = ""
    unit: str = ""
    step: float = 1.0
    noun: str = "knob"  # how messages call it: "knob P: ...", "setting nodes: ..."
    title: str = ""  # a few words of the meaning, shown with the name wherever the name is shown
    #: left out of a run's recorded knobs (summary JSON, sweep rows) while at its default, so that a
    #: knob added later leaves the outputs of every run that does not set it byte-identical
    quiet: bool = False

    def __post_init__(self) -> None:
        if self.kind == "choice":
            assert self.choices and self.default in self.choices, self.name
        else:
            assert self.kind in ("int", "float") and self.range is not None, self.name
            assert self.range.contains(self.default), self.name  # type: ignore[arg-type]

    @property
    def scope(self) -> str:
        """Who reads it, in words: ``fitgpp only``, ``fitgpp and fitdelay``, ``every policy``."""
        if isinstance(self.used_by, str):
            return self.used_by
        return f"{self.used_by[0]} only" if len(self.used_by) == 1 else " and ".join(self.used_by)

    @property
    def label(self) -> str:
        """The name with its meaning and unit, as pages show it: ``max preemptions per BE job (P)``,
        ``grace period (grace, s)``."""
        inside = f"{self.name}, {self.unit}" if self.unit else self.name
        return f"{self.title} ({inside})" if self.title else inside

    def default_text(self) -> str:
        """The default as a user writes it (``30``, ``inf``, ``on_preempt``)."""
        return to_text(self.default)

    def help(self) -> str:
        """The one-line help of the CLI and the dashboard, with default and range."""
        scope = "" if self.used_by == EVERY_POLICY else f"{self.scope}: "
        note = f" = {self.default_note}" if self.default_note else ""
        bounds = f"; {self.range.text()}" if self.range else ""
        return f"{scope}{self.meaning} (default {self.default_text()}{note}{bounds})"

    def parse(self, value: Any) -> int | float | str:
        """A value from text (``--set``, a link, a form) or from a value, typed but not yet
        range-checked (:func:`~simcore.core.numtext.parse_number`); ``ValueError("knob NAME: ...")``
        when it is not of the knob's type."""
        if self.kind == "choice":
            return str(value).strip()
        try:
            return parse_number(value, whole=self.kind == "int")
        except ValueError as exc:
            raise ValueError(f"{self.noun} {self.name}: {exc}") from None

    def check(self, value: Any) -> None:
        """``ValueError("knob NAME: must be ... (got ...)")`` when ``value`` is not allowed."""
        broken = self.range.rule(value) if self.range is not None else None
        if self.range is None and value not in self.choices:
            broken = f"must be one of {', '.join(self.choices)}"
        if broken:
            raise ValueError(f"{self.noun} {self.name}: {broken}")

    def read(self, value: Any) -> int | float | str:
        """:meth:`parse` then :meth:`check`: the value a run uses, or a ValueError."""
        typed = self.parse(value)
        self.check(typed)
        return typed


def to_text(value: Any) -> str:
    """A knob value as text that :meth:`Knob.parse` reads back to the same value: ``8`` rather
    than ``8.0``, ``inf``, the shortest repr of other floats."""
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value.is_integer() and abs(value) < 2.0**53:
            return str(int(value))
        return repr(value)
    return str(value)


def split_assignment(text: str) -> tuple[str, str] | None:
    """``"KEY=VALUE"`` as ``(key, value)``, both stripped (the value may hold more ``=``); None when
    it is not one: no ``=``, or an empty key or value. The one reader of KEY=VALUE text: ``--set``,
    ``--grid``, a policy spec's knobs, the dashboard's generator lines."""
    key, sep, value = str(text).partition("=")
    key, value = key.strip(), value.strip()
    return (key, value) if sep and key and value else None


def _knobs(*ks: Knob) -> dict[str, Knob]:
    return {k.name: k for k in ks}


#: Every knob of a run, in the order help, widgets and docs list them. No value in range can make
#: a time, a metric or a JSON number non-finite.
KNOBS: dict[str, Knob] = _knobs(
    Knob(
        "grace",
        "float",
        30.0,
        "seconds a preempted job keeps its resources to checkpoint",
        KnobRange(0, MAX_SECONDS),
        unit="s",
        step=10.0,
        title="grace period",
    ),
    Knob(
        "checkpoint",
        "choice",
        "on_preempt",
        "on_preempt (no loss), periodic (keep whole intervals) or none (restart from 0)",
        choices=CHECKPOINT_MODES,
        title="checkpointing",
    ),
    Knob(
        "checkpoint_interval",
        "float",
        1800.0,
        "seconds between periodic checkpoints",
        KnobRange(0.001, MAX_SECONDS),
        unit="s",
        step=300.0,
        title="checkpoint interval",
    ),
    Knob(
        "checkpoint_cost",
        "float",
        0.0,
        "with checkpoint periodic: seconds each checkpoint pauses progress, holding the resources; a "
        "checkpoint counts once its pause is over",
        KnobRange(0, MAX_SECONDS),
        unit="s",
        step=10.0,
        title="checkpoint cost",
        quiet=True,
    ),
    Knob(
        "restore",
        "float",
        60.0,
        "seconds of restoring on every start after a preemption",
        KnobRange(0, MAX_SECONDS),
        unit="s",
        step=10.0,
        title="restore time",
    ),
    Knob(
        "backfill",
        "choice",
        "greedy",
        "greedy (skip jobs that do not fit) or none (strict head-of-line)",
        choices=BACKFILL_MODES,
        title="backfill",
    ),
    Knob(
        "placement",
        "choice",
        "best_fit",
        "best_fit, first_fit or worst_fit node choice",
        choices=PLACEMENTS,
        title="node placement",
    ),
    Knob(
        "P",
        "int",
        2,
        "max preemptions per BE job (fitdelay: with checkpoint on_preempt and saves that never fail only)",
        KnobRange(0, 1_000_000, whole=True),
        used_by=("fitgpp", "fitdelay"),
        title="max preemptions per BE job",
    ),
    Knob(
        "s",
        "float",
        math.inf,
        "victim dominant share at most s x the TE job's",
        KnobRange(0, math.inf, low_open=True),
        used_by=("fitgpp", "fitdelay"),
        default_note="no cap",
        title="max victim share",
    ),
    Knob(
        "reentry",
        "float",
        1800.0,
        "with checkpoint periodic (or on_preempt with saves that may fail): seconds of expected wait to get back "
        "in per unit of normalised room its victims give up",
        KnobRange(0, MAX_SECONDS),
        used_by=("fitdelay",),
        unit="s",
        step=600.0,
        title="re-entry cost",
    ),
    Knob(
        "tau",
        "float",
        0.0,
        "bounded-slowdown threshold in seconds",
        KnobRange(0, MAX_SECONDS),
        default_note="plain slowdown",
        unit="s",
        step=60.0,
        title="bounded-slowdown threshold",
    ),
    Knob(
        "min_runtime",
        "float",
        0.0,
        "a BE job is a victim candidate only once its current run segment (restore included) has lasted "
        "this many seconds",
        KnobRange(0, MAX_SECONDS),
        used_by=PREEMPTIVE,
        default_note="no exemption",
        unit="s",
        step=600.0,
        title="minimum run before preemption",
    ),
    Knob(
        "save_time",
        "float",
        0.0,
        "with checkpoint on_preempt: seconds the save on a preemption signal needs; longer than grace, it fails",
        KnobRange(0, MAX_SECONDS),
        unit="s",
        step=10.0,
        title="save time",
    ),
    Knob(
        "save_failure",
        "float",
        0.0,
        "with checkpoint on_preempt: probability that the save on a preemption signal fails (drawn from seed, "
        "in signal order); a failed save loses the work since the job's last successful save or start",
        KnobRange(0, 1),
        step=0.05,
        title="save failure probability",
    ),
    Knob(
        "preempt_budget",
        "float",
        math.inf,
        "at most this many preemption decisions in any rolling hour; past it a TE job waits",
        KnobRange(0, math.inf, whole=True),
        used_by=PREEMPTIVE,
        default_note="no budget",
        title="preemptions per hour",
    ),
    Knob(
        "mtbf",
        "float",
        math.inf,
        "mean up time of a node between random failures (exponential, a seeded stream per node)",
        KnobRange(0, math.inf, low_open=True),
        default_note="no random failures",
        unit="s",
        step=3600.0,
        title="mean time between failures",
        quiet=True,
    ),
    Knob(
        "repair",
        "float",
        3600.0,
        "seconds a node stays down after each random failure (mtbf)",
        KnobRange(0.001, MAX_SECONDS),
        unit="s",
        step=600.0,
        title="repair time",
        quiet=True,
    ),
    Knob(
        "seed",
        "int",
        0,
        "seed of the random policy, of the saves' draws (save_failure) and of generators",
        KnobRange(0, MAX_SEED, whole=True),
        title="random seed",
    ),
)


def knob(name: str) -> Knob:
    """The knob called ``name``; ``ValueError`` listing the known names otherwise."""
    try:
        return KNOBS[name]
    except KeyError:
        raise ValueError(f"unknown knob {name!r} (known: {', '.join(KNOBS)})") from None


def parse_knob(name: str, value: Any) -> Any:
    """``--set name=value``: the typed value (not yet range-checked), or a ValueError."""
    return knob(name).parse(value)


def check_knobs(values: Mapping[str, Any]) -> None:
    """Check every knob in ``values`` (name -> typed value) against its range or choices."""
    for name, value in values.items():
        KNOBS[name].check(value)


def default(name: str) -> Any:
    """The default of knob ``name``: what SimConfig's field and a policy's own field start from."""
    return KNOBS[name].default


def own_knobs(policy: str) -> tuple[str, ...]:
    """The knobs only some policies read that name ``policy`` (each a field of that policy)."""
    return tuple(k.name for k in KNOBS.values() if isinstance(k.used_by, tuple) and policy in k.used_by)


def policy_knobs(policy: str, preemptive: bool) -> tuple[str, ...]:
    """The knobs that belong to one policy: its own, then those of every preemptive one."""
    shared = [k.name for k in KNOBS.values() if k.used_by == PREEMPTIVE] if preemptive else []
    return (*own_knobs(policy), *shared)


def help_lines(names: Iterable[str] | None = None, width: int = 20) -> list[str]:
    """``  name   help`` lines for the CLI's help."""
    return [f"  {k.name:<{width}} {k.help()}" for k in (KNOBS[n] for n in (names or KNOBS))]


#: knob -> allowed range, for every numeric knob (derived from :data:`KNOBS`)
KNOB_RANGES: dict[str, KnobRange] = {k.name: k.range for k in KNOBS.values() if k.range is not None}
#: knob -> one-line help with its default and range (derived from :data:`KNOBS`)
KNOB_HELP: dict[str, str] = {k.name: k.help() for k in KNOBS.values()}
