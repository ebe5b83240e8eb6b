"""The Explore scenario: every setting of the page as one frozen value, and its URL form.

The URL (``st.query_params``) is the shareable copy of the scenario, so only settings that
differ from the defaults are written, and a malformed link never breaks the page: each bad
parameter is dropped with a warning and its default is used. The knobs and the page's numeric
and choice settings are read, written and checked from their metadata (:data:`KNOBS`,
:data:`SETTINGS`); only the list-valued settings have their own converters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from dashboard.shared import keys, knob_widgets, node_events_table, queue_table
from dashboard.shared.demo import LOCAL
from simcore.core.knobs import KNOBS, Knob, KnobRange, split_assignment, to_text
from simcore.core.model import MAX_RESOURCE, SimConfig
from simcore.core.numtext import SHOWN, parse_number, quoted
from simcore.policies.spec import parse_policies
from simcore.workload import MAX_NODES
from simcore.workload.presets import PRESETS
from simcore.workload.samples import DASHBOARD_DEFAULT

SOURCES = ("sample", "generate", "upload")
CLUSTER_MODES = ("workload", "custom", "upload")
DEFAULT_POLICIES = ("fifo", "priority", "k8s", "fitgpp")
MAX_SEEDS = LOCAL.max_seeds  # what a link may ask for; demo mode refuses more than its own limit


def _setting(name: str, kind: str, default: Any, meaning: str, **kw: Any) -> Knob:
    return Knob(name, kind, default, meaning, noun="setting", **kw)


#: The page's own numeric and choice settings, in the scheme of the knobs: URL parsing and
#: defaults come from here. (Demo mode narrows seeds and nodes further: dashboard.shared.demo.)
SETTINGS: dict[str, Knob] = {
    k.name: k
    for k in (
        _setting("source", "choice", "sample", "where the workload comes from", choices=SOURCES),
        _setting("preset", "choice", "demo", "the generator preset", choices=tuple(PRESETS)),
        _setting(
            "seeds",
            "int",
            1,
            "generated workloads: seeds knobs.seed .. knobs.seed + seeds - 1",
            range=KnobRange(1, MAX_SEEDS, whole=True),
        ),
        _setting(
            "cluster",
            "choice",
            "workload",
            "the source's own nodes, a uniform cluster or a node file",
            choices=CLUSTER_MODES,
        ),
        _setting("nodes", "int", 4, "nodes of the uniform cluster", range=KnobRange(1, MAX_NODES, whole=True)),
        _setting("node_cpu", "float", 64.0, "CPU cores per node", range=KnobRange(0, MAX_RESOURCE), step=8.0),
        _setting("node_mem_gb", "float", 512.0, "memory per node (GiB)", range=KnobRange(0, MAX_RESOURCE), step=64.0),
        _setting("node_gpu", "float", 8.0, "GPUs per node", range=KnobRange(0, MAX_RESOURCE)),
    )
}
#: settings written to the URL only (and then always) with a uniform cluster
CLUSTER_SHAPE = ("nodes", "node_cpu", "node_mem_gb", "node_gpu")
#: free-text settings, written as they are
TEXT_FIELDS = ("sample", "baseline", "gantt_policy", "tab", "queues")
#: the Gantt's views by queue a link may ask for (``gantt_queue=colour,group``), in the order it writes them
GANTT_QUEUE_VIEWS = ("colour", "group")

# URL prefixes for open-ended option groups (generator parameters, upload adapter options).
GEN_PREFIX = "g."
UPLOAD_PREFIX = "u."


@dataclass(frozen=True)
class Scenario:
    """Everything Explore needs to reproduce a run, except the bytes of an uploaded file."""

    source: str = SETTINGS["source"].default  # type: ignore[assignment]
    sample: str = DASHBOARD_DEFAULT  # file stem in sample_workloads/
    preset: str = SETTINGS["preset"].default  # type: ignore[assignment]
    gen: tuple[tuple[str, str], ...] = ()  # generator overrides, as the CLI's --set KEY=VALUE
    seeds: int = SETTINGS["seeds"].default  # type: ignore[assignment]
    upload_opts: tuple[tuple[str, str], ...] = ()  # loader options for an uploaded file
    cluster: str = SETTINGS["cluster"].default  # type: ignore[assignment]
    nodes: int = SETTINGS["nodes"].default  # type: ignore[assignment]
    node_cpu: float = SETTINGS["node_cpu"].default  # type: ignore[assignment]
    node_mem_gb: float = SETTINGS["node_mem_gb"].default  # type: ignore[assignment]
    node_gpu: float = SETTINGS["node_gpu"].default  # type: ignore[assignment]
    policies: tuple[str, ...] = DEFAULT_POLICIES
    baseline: str = "fifo"
    knobs: SimConfig = field(default_factory=SimConfig)
    queues: str = ""  # the queues table's canonical text (dashboard.shared.queue_table); "": the workload's own
    gantt_policy: str = ""  # "" = the first preemptive policy chosen
    gantt_window: tuple[float, float] | None = None  # hours; None = the first hours of the run
    gantt_nodes: tuple[str, ...] = ()  # () = the first nodes
    gantt_queue: tuple[str, ...] = ()  # of GANTT_QUEUE_VIEWS, in its order: the Gantt by queue (a run with queues)
    tab: str = "Slowdown"  # the result tab shown
    node_events: tuple[node_events_table.Row, ...] = ()  # the node-events table's rows, as typed

    def config(self, policy: str) -> SimConfig:
        return replace(self.knobs, policy=policy)

    def to_query(self) -> dict[str, str | list[str]]:
        """The URL parameters that differ from the defaults."""
        base = Scenario()
        q: dict[str, str | list[str]] = {}
        for name in (*SETTINGS, *TEXT_FIELDS):
            value = getattr(self, name)
            if (name in CLUSTER_SHAPE and self.cluster == "custom") or (
                name not in CLUSTER_SHAPE and value != getattr(base, name)
            ):
                q[name] = to_text(value)
        if self.policies != base.policies:
            q["policies"] = ",".join(self.policies)
        for name, knob in KNOBS.items():
            value = getattr(self.knobs, name)
            if value != knob.default:
                q[name] = to_text(value)
        for k, v in self.gen:
            q[GEN_PREFIX + k] = v
        for k, v in self.upload_opts:
            q[UPLOAD_PREFIX + k] = v
        if self.gantt_window is not None:
            q["gantt_window"] = f"{_num(self.gantt_window[0])},{_num(self.gantt_window[1])}"
        if self.gantt_nodes:
            q["gantt_nodes"] = ",".join(self.gantt_nodes)
        if self.gantt_queue:
            q["gantt_queue"] = ",".join(self.gantt_queue)
        if self.node_events:
            q["node_events"] = node_events_table.to_link(self.node_events)
        return q

    @classmethod
    def from_query(cls, query: Mapping[str, Any]) -> tuple[Scenario, list[str]]:
        """A scenario from URL parameters, and one warning per parameter that was ignored."""
        warnings: list[str] = []
        values: dict[str, Any] = {}
        knob_values: dict[str, Any] = {}
        gen: list[tuple[str, str]] = []
        upload: list[tuple[str, str]] = []
        for key, raw in query.items():
            text = (raw[-1] if isinstance(raw, list | tuple) and raw else str(raw)).strip()
            try:
                if key.startswith(GEN_PREFIX) and len(key) > len(GEN_PREFIX):
                    gen.append((key[len(GEN_PREFIX) :], text))
                elif key.startswith(UPLOAD_PREFIX) and len(key) > len(UPLOAD_PREFIX):
                    upload.append((key[len(UPLOAD_PREFIX) :], text))
                elif key in KNOBS:
                    knob_values[key] = KNOBS[key].read(text)  # one bad knob does not void the others
                elif key in SETTINGS:
                    values[key] = SETTINGS[key].read(text)
                else:
                    values[key] = _parse_field(key, text)
            except ValueError as exc:
                warnings.append(ignored(key, text, exc))
        try:
            knobs = SimConfig().with_knobs(knob_values)
        except ValueError as exc:
            warnings.append(f"link knobs ignored: {exc}")
            knobs = SimConfig()
        scenario = cls(knobs=knobs, gen=tuple(sorted(gen)), upload_opts=tuple(sorted(upload)), **values)
        kept = tuple((k, v) for k, v in scenario.gen if _gen_ok(scenario.preset, k, v, warnings))
        scenario = replace(scenario, gen=kept)
        if scenario.baseline not in scenario.policies:
            warnings.append(
                f"baseline {quoted(scenario.baseline)} is not among the policies; using {scenario.policies[0]!r}"
            )
            scenario = replace(scenario, baseline=scenario.policies[0])
        return scenario, warnings


def ignored(key: str, text: str, why: object) -> str:
    """The notice of a link parameter ignored, quoting a long name or value shortened."""
    name = key if len(key) <= SHOWN else quoted(key)
    return f"link parameter {name}={quoted(text)} ignored: {why}"


def _gen_ok(preset: str, key: str, text: str, warnings: list[str]) -> bool:
    """Is ``key=text`` a valid parameter of the preset? (If not, say so in ``warnings``.)"""
    from simcore.core.errors import UserError
    from simcore.workload.presets import resolve_params

    try:
        resolve_params(preset, {key: text})
    except UserError as exc:
        warnings.append(ignored(GEN_PREFIX + key, text, exc))
        return False
    return True


def _parse_field(key: str, text: str) -> Any:
    """A list-valued or free-text URL parameter (the others are read from :data:`SETTINGS`)."""
    if key == "policies":
        return parse_policy_names(text)
    if key == "queues":  # a table as the sidebar's: read and checked as a queues file, never evaluated
        return queue_table.canonical(text, LOCAL.max_queues)
    if key in TEXT_FIELDS:
        if key != "gantt_policy" and not text:
            raise ValueError("must not be empty")
        return text
    if key == "gantt_window":
        hours = [parse_number(x) for x in text.split(",")]
        if len(hours) != 2 or not (math.isfinite(hours[0]) and math.isfinite(hours[1]) and 0 <= hours[0] < hours[1]):
            raise ValueError("must be two hours 'start,end' with 0 <= start < end")
        return (hours[0], hours[1])
    if key == "gantt_nodes":
        return tuple(n for n in text.split(",") if n)
    if key == "gantt_queue":
        return gantt_queue_views(text)
    if key == "node_events":
        return node_events_table.from_link(text)
    raise ValueError("unknown parameter")


def gantt_queue_views(text: str) -> tuple[str, ...]:
    """A link's Gantt by queue: ``colour``, ``group`` or both, comma-separated in any order (empty: neither),
    in the order of :data:`GANTT_QUEUE_VIEWS`."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    if any(w not in GANTT_QUEUE_VIEWS for w in words) or len(set(words)) != len(words):
        raise ValueError("must be colour, group or colour,group")
    return tuple(v for v in GANTT_QUEUE_VIEWS if v in words)


def parse_policy_names(text: str) -> tuple[str, ...]:
    """A URL's comma-separated policy list: known names without knobs, each once, at least one."""
    specs = parse_policies(list(dict.fromkeys(p.strip() for p in text.split(","))))
    if any(s.knobs for s in specs):
        raise ValueError("per-policy knobs are set with the knob widgets, not in the policy list")
    return tuple(s.name for s in specs)


def _num(value: Any) -> str:
    """Short text for a number (8 rather than 8.0), kept as is for other values."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# --- widgets <-> scenario -------------------------------------------------------------------
# Widget keys are dashboard.shared.keys' (knobs: keys.KNOB, loader options: keys.UPLOAD_OPTION).
# The generator's three main parameters get their own inputs, the rest are KEY=VALUE lines.

MAIN_GEN_PARAMS = ("jobs", "load", "te_share")


def gen_defaults(preset: str) -> dict[str, Any]:
    """Default values of a preset's parameters ({} for an unknown preset)."""
    from simcore.workload.presets import PRESETS

    spec = PRESETS.get(preset)
    return {name: p.default for name, p in spec.params.items()} if spec else {}


def gen_fields(preset: str) -> list[str]:
    """The generator parameters of ``preset`` that get their own input: the main ones it has as a
    single number (the ``teams`` preset's ``te_share`` is a list, one per team: a KEY=VALUE line)."""
    from simcore.workload.presets import PRESETS

    params = PRESETS[preset].params if preset in PRESETS else {}
    return [name for name in MAIN_GEN_PARAMS if name in params and params[name].kind != "list"]


def widget_values(s: Scenario) -> dict[str, Any]:
    """The initial state of every Explore widget for a scenario."""
    gen = dict(s.gen)
    defaults = gen_defaults(s.preset)
    values: dict[str, Any] = {
        keys.SOURCE.name: s.source,
        keys.SAMPLE.name: s.sample,
        keys.PRESET.name: s.preset,
        keys.SEEDS.name: s.seeds,
        keys.GEN_MORE.name: "\n".join(f"{k}={v}" for k, v in s.gen if k not in gen_fields(s.preset)),
        keys.CLUSTER.name: s.cluster,
        keys.NODES.name: s.nodes,
        keys.NODE_CPU.name: s.node_cpu,
        keys.NODE_MEM_GB.name: s.node_mem_gb,
        keys.NODE_GPU.name: s.node_gpu,
        keys.POLICIES.name: list(s.policies),
        keys.BASELINE.name: s.baseline,
        keys.TAB.name: s.tab,
        keys.NODE_EVENTS.name: s.node_events,
        keys.QUEUES.name: s.queues,
    }
    for name in gen_fields(s.preset):
        values[keys.GEN_PARAM(name).name] = _as_number(gen.get(name, defaults[name]))
    values.update(knob_widgets.widget_values(s.knobs.knobs()))
    for name, value in s.upload_opts:
        values[keys.UPLOAD_OPTION(name).name] = value
    return values


def from_widgets(
    values: Mapping[str, Any], base: Scenario, upload_defaults: Mapping[str, str]
) -> tuple[Scenario, list[str]]:
    """The scenario the widgets show, and the problems found (each leaves its default).

    Loader options equal to ``upload_defaults`` are left out, so they stay out of the URL."""
    problems: list[str] = []
    preset = str(keys.PRESET.get(values, base.preset))
    defaults = gen_defaults(preset)
    gen: dict[str, str] = {}
    for name in gen_fields(preset):
        key = keys.GEN_PARAM(name)
        if key.name in values and _as_number(key.read(values)) != _as_number(defaults[name]):
            gen[name] = _num(_as_number(key.read(values)))
    for line in str(keys.GEN_MORE.get(values, "")).splitlines():
        if not line.strip():
            continue
        pair = split_assignment(line)
        if pair is None:
            problems.append(f"generator parameter line {quoted(line.strip())} is not KEY=VALUE")
            continue
        gen[pair[0]] = pair[1]
    knobs, knob_problems = knob_widgets.read_widgets(values)
    problems.extend(knob_problems)
    config = SimConfig().with_knobs(knobs)
    policies = tuple(keys.POLICIES.maybe(values) or ())
    if not policies:
        problems.append("choose at least one policy; using the defaults")
        policies = DEFAULT_POLICIES
    baseline = str(keys.BASELINE.get(values, base.baseline))
    if baseline not in policies:
        baseline = policies[0]
    queues = str(keys.QUEUES.get(values, base.queues))
    try:
        queues = queue_table.canonical(queues, LOCAL.max_queues)
    except ValueError as exc:
        problems.append(f"{exc}\n\nThe queues in use are the last ones without a problem.")
        queues = base.queues
    given = ((name, str(keys.UPLOAD_OPTION(name).read(values))) for name in keys.UPLOAD_OPTION.names(values))
    upload = tuple(sorted((name, text) for name, text in given if text != upload_defaults.get(name)))
    scenario = replace(
        base,
        source=str(keys.SOURCE.get(values, base.source)),
        sample=str(keys.SAMPLE.get(values, base.sample)),
        preset=preset,
        gen=tuple(sorted(gen.items())),
        seeds=int(keys.SEEDS.get(values, base.seeds)),
        upload_opts=upload,
        cluster=str(keys.CLUSTER.get(values, base.cluster)),
        nodes=int(keys.NODES.get(values, base.nodes)),
        node_cpu=float(keys.NODE_CPU.get(values, base.node_cpu)),
        node_mem_gb=float(keys.NODE_MEM_GB.get(values, base.node_mem_gb)),
        node_gpu=float(keys.NODE_GPU.get(values, base.node_gpu)),
        policies=policies,
        baseline=baseline,
        knobs=config,
        tab=str(keys.TAB.get(values, base.tab)),
        node_events=tuple(keys.NODE_EVENTS.get(values, base.node_events)),
        queues=queues,
    )
    return scenario, problems


def _as_number(value: Any) -> float | int:
    x = float(value)
    return int(x) if x.is_integer() else x
