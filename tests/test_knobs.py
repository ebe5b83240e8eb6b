"""The knob metadata (simcore/core/knobs.py) is the one source: SimConfig validation, ``--set``
parsing, the dashboard's link and widgets, the CLI help and docs/knobs.md all agree with it."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

import pytest
from helpers.paths import ROOT

from dashboard.shared import knob_widgets
from dashboard.shared.scenario import SETTINGS, Scenario, from_widgets, widget_values
from simcore.cli import build_parser, knobs_doc
from simcore.cli.common import config_from_args, knob_epilog
from simcore.core import knobs
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS, PREEMPTIVE, Knob, KnobRange, format_limit, policy_knobs, to_text
from simcore.core.model import SimConfig
from simcore.policies import POLICIES, POLICY_KNOBS
from simcore.workload.presets import PRESETS

NUMERIC = sorted(name for name, k in KNOBS.items() if k.range is not None)
CHOICE = sorted(name for name, k in KNOBS.items() if k.range is None)


def test_simconfig_has_exactly_the_knobs_with_their_defaults() -> None:
    assert [f.name for f in fields(SimConfig)] == ["policy", *KNOBS]
    config = SimConfig()
    for name, k in KNOBS.items():
        value = getattr(config, name)
        assert value == k.default and type(value) is type(k.default), name
        k.check(value)  # the default is allowed
        assert {"int": "int", "float": "float", "choice": "str"}[k.kind] == next(
            f.type for f in fields(SimConfig) if f.name == name
        )


def _beyond(r: KnobRange) -> list[float]:
    """Values just outside a range (and NaN)."""
    below = r.low if r.low_open else (r.low - 1 if r.whole else math.nextafter(r.low, -math.inf))
    above = [] if math.isinf(r.high) else [r.high + 1 if r.whole else r.high * 2]
    return [below, *above, math.nan]


@pytest.mark.parametrize("name", NUMERIC)
def test_out_of_range_is_refused_naming_the_knob_and_its_range(name: str) -> None:
    r = KNOBS[name].range
    assert r is not None
    for value in _beyond(r):
        with pytest.raises(ValueError) as caught:
            SimConfig(**{name: value})
        message = str(caught.value)
        assert message.startswith(f"knob {name}: must be ")
        assert f"{'>' if r.low_open else '>='} {format_limit(r.low)}" in message
        assert ("inf = no cap" if math.isinf(r.high) else f"<= {format_limit(r.high)}") in message
    # both ends are inside (an open end: the next representable value)
    low = r.low + 1 if r.low_open and r.whole else math.nextafter(r.low, math.inf) if r.low_open else r.low
    assert getattr(SimConfig().with_knobs({name: repr(low)}), name) == low
    assert getattr(SimConfig().with_knobs({name: to_text(r.high)}), name) == r.high


@pytest.mark.parametrize("name", CHOICE)
def test_a_choice_outside_the_list_is_refused_with_the_list(name: str) -> None:
    with pytest.raises(ValueError, match=f"^knob {name}: must be one of {', '.join(KNOBS[name].choices)}$"):
        SimConfig().with_knobs({name: "nope"})
    for choice in KNOBS[name].choices:
        assert getattr(SimConfig().with_knobs({name: choice}), name) == choice


def _texts(k: Knob) -> list[str]:
    """Values a user may type for a knob: good ones (ends, default, inside) and bad ones."""
    if k.range is None:
        return [*k.choices, "nope", "", k.choices[0].upper()]
    r = k.range
    texts = [to_text(k.default), to_text(r.high), "abc", "", "nan", "-1", "1.5", "1e3", " 7 ", "inf"]
    texts += [repr(x) for x in _beyond(r)] + [to_text(r.low)]
    if r.whole:
        texts += [str(2**63), str(2**63 - 1), "1e400", "2.0"]
    return texts


def _by_metadata(k: Knob, text: str) -> Any:
    try:
        return k.read(text)
    except ValueError:
        return "refused"


def _by_cli(name: str, text: str) -> Any:
    args = build_parser().parse_args(["run", "w.csv", "--set", f"{name}={text}"])
    try:
        return getattr(config_from_args(args), name)
    except UserError:
        return "refused"


def _by_link(name: str, text: str) -> Any:
    scenario, warnings = Scenario.from_query({name: text})
    if warnings:
        assert len(warnings) == 1 and warnings[0].startswith(f"link parameter {name}=")
        assert getattr(scenario.knobs, name) == KNOBS[name].default  # the default is kept
        return "refused"
    return getattr(scenario.knobs, name)


@pytest.mark.parametrize("name", list(KNOBS))
def test_cli_set_and_dashboard_links_read_every_knob_as_the_metadata_does(name: str) -> None:
    k = KNOBS[name]
    seen = set()
    for text in _texts(k):
        expected = _by_metadata(k, text)
        if text.strip() == "":  # an empty --set value is refused before the knob is read
            assert _by_link(name, text) == expected == "refused"
            continue
        assert _by_cli(name, text) == expected, text
        assert _by_link(name, text) == expected, text
        seen.add(expected == "refused")
    assert seen == {True, False}  # both accepted and refused values were tried


@pytest.mark.parametrize("name", list(KNOBS))
def test_a_link_carries_every_knob_and_keeps_its_parameter_name(name: str) -> None:
    k = KNOBS[name]
    value: Any = k.choices[-1] if k.range is None else (k.range.high if k.kind == "float" else k.range.high - 1)
    if k.kind == "float" and math.isinf(value):
        value = 4.0 if k.range.whole else 4.5  # preempt_budget is whole (or inf)
    scenario = Scenario(knobs=SimConfig(**{name: value}))
    query = scenario.to_query()
    assert query == {name: to_text(value)}  # only the changed knob, under its own name
    back, warnings = Scenario.from_query(query)
    assert warnings == [] and back == scenario


def test_one_bad_knob_in_a_link_leaves_the_others() -> None:
    scenario, warnings = Scenario.from_query({"P": "-1", "grace": "10", "s": "0"})
    assert scenario.knobs.grace == 10 and scenario.knobs.P == 2 and math.isinf(scenario.knobs.s)
    assert len(warnings) == 2 and "knob P: must be an integer >= 0" in warnings[0] and "knob s:" in warnings[1]


class _Recorder:
    """Stands in for streamlit: records each widget call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, kind: str) -> Any:
        return lambda label, *args, **kw: self.calls.append((kind, label, {"args": args, **kw}))


def test_each_knob_gets_one_widget_described_by_its_metadata() -> None:
    st = _Recorder()
    knob_widgets.render(st)
    assert [kw["key"] for _, _, kw in st.calls] == [f"x_k_{n}" for n in KNOBS]
    for (kind, label, kw), k in zip(st.calls, KNOBS.values(), strict=True):
        assert kw["help"] == k.help() and label == k.label and f"({k.name}" in label and (k.unit in label)
        if k.kind == "choice":
            assert kind == "selectbox" and kw["args"] == (k.choices,)
        elif kind == "number_input":
            assert k.range is not None and not k.range.low_open
            assert (kw["min_value"], kw["max_value"], kw["step"]) == (k.range.low, k.range.high, k.step)
            assert {type(kw["min_value"]), type(kw["max_value"]), type(kw["step"])} == {type(k.default)}
        else:  # a number a browser input cannot hold: inf (s) or a 64-bit seed
            assert kind == "text_input" and k.range is not None
            assert math.isinf(k.range.high) or k.range.high > knob_widgets.BROWSER_MAX_INT


def test_widgets_round_trip_every_knob_and_refuse_what_the_metadata_refuses() -> None:
    changed = SimConfig(grace=5.0, checkpoint="periodic", P=7, s=2.5, seed=2**63 - 1, placement="worst_fit")
    values = widget_values(Scenario(knobs=changed))
    back, problems = from_widgets(values, Scenario(), {})
    assert problems == [] and back.knobs == changed
    for name, k in KNOBS.items():
        bad = "nope" if k.range is None else repr(_beyond(k.range)[0])
        back, problems = from_widgets({**values, f"x_k_{name}": bad}, Scenario(), {})
        assert len(problems) == 1 and problems[0].startswith(f"knob {name}: ")
        assert getattr(back.knobs, name) == k.default  # left at its default, the others kept
        assert all(getattr(back.knobs, n) == getattr(changed, n) for n in KNOBS if n != name)


def test_the_policies_knobs_are_the_ones_the_metadata_names() -> None:
    for name, policy in POLICIES.items():
        assert POLICY_KNOBS[name] == policy_knobs(name, policy.preemptive), name
    assert policy_knobs("fitgpp", True) == ("P", "s", "min_runtime", "preempt_budget")
    assert [k.name for k in KNOBS.values() if k.used_by == PREEMPTIVE] == ["min_runtime", "preempt_budget"]
    for k in KNOBS.values():
        if isinstance(k.used_by, tuple):
            assert set(k.used_by) <= set(POLICIES) and k.help().startswith(f"{k.scope}: ")


def test_cli_help_lists_every_knob_with_its_help() -> None:
    epilog = knob_epilog()
    for k in KNOBS.values():
        assert f"  {k.name:<20} {k.help()}" in epilog.splitlines()
        assert f"(default {k.default_text()}" in k.help()
        if k.range is not None:
            assert k.help().endswith(f"; {k.range.text()})")


def test_the_page_settings_use_the_same_scheme() -> None:
    base = Scenario()
    for name, k in SETTINGS.items():
        assert getattr(base, name) == k.default, name
    scenario, warnings = Scenario.from_query({"nodes": "1e9", "node_gpu": "nan", "seeds": "0", "cluster": "x"})
    assert scenario == base
    assert [w.split("=")[0] for w in warnings] == [
        f"link parameter {n}" for n in ("nodes", "node_gpu", "seeds", "cluster")
    ]
    assert "setting nodes: must be an integer >= 1 and <= 100000 (got 1000000000)" in warnings[0]
    custom = Scenario(cluster="custom", nodes=6, node_gpu=0.5)
    assert custom.to_query() == {
        "cluster": "custom",
        "nodes": "6",
        "node_cpu": "64",
        "node_mem_gb": "512",
        "node_gpu": "0.5",
    }
    assert Scenario.from_query(custom.to_query()) == (custom, [])


def test_generator_parameters_state_and_enforce_their_ranges_like_knobs() -> None:
    for preset in PRESETS.values():
        for p in preset.params.values():
            assert p.range.text() in p.range_text()
            assert p.range.contains(p.range.low) != p.range.low_open and p.range.contains(p.range.high)


def test_docs_knobs_md_is_the_table_generated_from_the_metadata() -> None:
    text = (ROOT / "docs" / "knobs.md").read_text()
    assert knobs_doc.regenerate_doc(text) == text, "docs/knobs.md is stale: run python -m simcore.cli.knobs_doc"
    for k in KNOBS.values():
        assert f"| `{k.name}` |" in text and k.meaning in text
    with pytest.raises(ValueError, match="markers"):
        knobs_doc.regenerate_doc("no markers here")


def test_a_link_with_a_64_bit_seed_opens_the_page_and_keeps_the_seed() -> None:
    """A browser number input holds integers up to 2^53 - 1 only (Streamlit refuses more), so the
    seed, valid up to 2^63 - 1, is a text input: such a link once broke the page."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "streamlit_app.py"), default_timeout=120)
    at.query_params.update(seed=str(2**63 - 1), s="2.5")
    at.run()
    assert not at.exception and not at.error
    assert at.text_input(key="x_k_seed").value == str(2**63 - 1) and at.text_input(key="x_k_s").value == "2.5"
    assert dict(at.query_params)["seed"] in (str(2**63 - 1), [str(2**63 - 1)])


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("P=1", ("P", "1")),
        ("  grace = 30 ", ("grace", "30")),
        ("te_gpu=1,2;4", ("te_gpu", "1,2;4")),
        ("name=a=b", ("name", "a=b")),  # the first '=' splits; the value keeps the rest
        ("grace", None),
        ("=30", None),
        ("grace=", None),
        (" = ", None),
    ],
)
def test_one_reader_of_key_value_text(text, pair):
    assert knobs.split_assignment(text) == pair


def test_every_key_value_reader_refuses_the_same_text():
    from simcore.cli.common import parse_assignments
    from simcore.core.errors import UserError
    from simcore.experiments.sweep.spec import parse_grid_arg
    from simcore.policies.spec import parse_policy

    for bad in ("grace", "=30", "grace="):
        with pytest.raises(UserError, match="expected KEY=VALUE"):
            parse_assignments([bad])
        with pytest.raises(UserError, match="is not KEY=VALUE"):
            parse_policy(f"fitgpp:{bad}")
        with pytest.raises(UserError, match=r"--grid"):
            parse_grid_arg(bad)
