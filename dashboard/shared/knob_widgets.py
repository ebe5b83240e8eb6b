"""The knob inputs of the Explore page, derived from the knob metadata (:data:`simcore.core.knobs.KNOBS`).

Each knob gets one widget keyed ``x_k_<knob>``: a select box for a choice, a text input for a
number a browser cannot hold exactly (``s`` may be inf, ``seed`` goes to 2^63 - 1), otherwise
a number input bounded by the knob's range. Label, help, bounds and step come from the
metadata, so a new knob appears here without any page change. Pure: the page passes its
Streamlit module (or a container) to :func:`render`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dashboard.shared import keys
from simcore.core.knobs import KNOBS, Knob, to_text

#: Streamlit number inputs refuse integers beyond what a browser number holds exactly
BROWSER_MAX_INT = 2**53 - 1
#: how every input of a float shows it: 64, 0.85, 1800 (Streamlit's default writes "64.00", "1800.00")
FLOAT_FORMAT = "%g"


def key(name: str) -> str:
    """The widget (session state) key of a knob."""
    return keys.KNOB(name).name


@dataclass(frozen=True)
class KnobWidget:
    """How one knob is shown: ``kind`` is ``select``, ``text`` or ``number``."""

    knob: Knob
    kind: str

    @property
    def key(self) -> str:
        return key(self.knob.name)

    @property
    def label(self) -> str:
        return self.knob.label

    def number_args(self) -> dict[str, Any]:
        """min_value, max_value and step of a number input, all of the knob's type (a float's format too)."""
        r = self.knob.range
        assert r is not None and self.kind == "number"
        if self.knob.kind == "int":
            return {"min_value": int(r.low), "max_value": int(r.high), "step": int(self.knob.step)}
        return {
            "min_value": float(r.low),
            "max_value": float(r.high),
            "step": float(self.knob.step),
            "format": FLOAT_FORMAT,
        }

    def to_widget(self, value: Any) -> Any:
        """A knob value as the widget holds it (text for a text input)."""
        if self.kind == "text":
            return to_text(value)  # 1 rather than 1.0 (preempt_budget), inf as inf
        if self.kind == "number":
            return int(value) if self.knob.kind == "int" else float(value)
        return value


def widget_for(k: Knob) -> KnobWidget:
    if k.kind == "choice":
        return KnobWidget(k, "select")
    assert k.range is not None
    too_big = k.range.high > (BROWSER_MAX_INT if k.kind == "int" else 1e300)  # inf, or a 64-bit seed
    return KnobWidget(k, "text" if too_big or k.range.low_open else "number")


#: knob -> its widget, in the order of :data:`KNOBS`
KNOB_WIDGETS: dict[str, KnobWidget] = {name: widget_for(k) for name, k in KNOBS.items()}


def widget_values(knobs: Mapping[str, Any]) -> dict[str, Any]:
    """The initial widget state for knob values (name -> value, as ``SimConfig.knobs()`` gives)."""
    return {w.key: w.to_widget(w.knob.parse(knobs[name])) for name, w in KNOB_WIDGETS.items() if name in knobs}


def read_widgets(values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Knob values from widget state (checked against the metadata), and one problem per knob
    left at its default because its widget holds a value the knob does not allow."""
    out: dict[str, Any] = {}
    problems: list[str] = []
    for name, w in KNOB_WIDGETS.items():
        if w.key in values:
            try:
                out[name] = w.knob.read(values[w.key])
            except ValueError as exc:
                problems.append(str(exc))
    return out, problems


def render(st: Any) -> None:
    """Draw every knob's widget into ``st`` (the streamlit module or a container)."""
    for w in KNOB_WIDGETS.values():
        help_text = w.knob.help()
        if w.kind == "select":
            st.selectbox(w.label, w.knob.choices, key=w.key, help=help_text)
        elif w.kind == "text":
            st.text_input(w.label, key=w.key, help=help_text)
        else:
            st.number_input(w.label, key=w.key, help=help_text, **w.number_args())
