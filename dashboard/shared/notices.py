"""How the pages tell a visitor something: link notices, errors and progress, as plain text.

Everything that came from a link, a page field or a file is escaped (:mod:`dashboard.shared.plain`)
or shown in a code block, so it can never render as a link, an image or HTML. Errors are
messages, never tracebacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

from dashboard.shared.demo import Limits, Refused, plural, where
from dashboard.shared.plain import md
from simcore.core import fmt
from simcore.core.errors import UserError

#: how to copy a page's link, naming only what its popover shows (the code block's copy button appears on pointing)
COPY_HOW = (
    "Select the address below and copy it, or, with a mouse, point at it and press the copy button that appears "
    "at its right."
)


def link_warnings(warnings: list[str]) -> None:
    """The link parameters that were ignored, one per line, as plain text."""
    if warnings:
        st.warning("Some settings in this link were ignored:", icon=":material/link_off:")
        st.code("\n".join(warnings), language=None, wrap_lines=True)


def error(exc: UserError) -> None:
    """A problem with the visitor's input: the first line as the message, details below it.

    A refusal over a limit puts the local ``simcore`` command in a code block to copy."""
    head, *rest = str(exc).splitlines() or ["error"]
    if isinstance(exc, Refused):
        reason = [line for line in rest if not line.startswith("simcore ")]
        commands = [line for line in rest if line.startswith("simcore ")]
        st.error("\n\n".join(md(line) for line in [head, *reason]), icon=":material/block:")
        st.code("\n".join(commands), language="bash", wrap_lines=True)
        return
    items = [line.strip() for line in rest if line.strip()]
    body = "\n".join([md(head), "", *(f"- {md(line)}" for line in items)]) if items else md(head)
    st.error(body, icon=":material/error:")


@contextmanager
def progress(text: str) -> Iterator[Callable[[float | None], None]]:
    """A progress bar while a worker computes; yields the heartbeat that advances it.

    Drawing the bar is also where Streamlit stops a script whose visitor left or changed a
    setting, so the worker is stopped then too (dashboard/runs/worker.py)."""
    bar = st.empty()
    state = {"done": 0.0}

    def beat(fraction: float | None) -> None:
        if fraction is not None:
            state["done"] = fraction
        bar.progress(state["done"], text=f"{text} {state['done']:.0%}")

    try:
        yield beat
    finally:
        bar.empty()


def line_text(place: int, capacity: int, lim: Limits, expected: float | None = None) -> str:
    """What a visitor waiting for a computation slot reads (``place`` 1 = next), with the wait to expect
    (``expected`` seconds, from the server's last computations; None: none has ended yet)."""
    ahead = "nobody is ahead of you" if place == 1 else f"{plural(place - 1, 'visitor')} ahead of you"
    turns = -(-place // capacity)  # the slots that must free before its turn
    most = fmt.duration(turns * lim.wall_seconds)
    wait = (
        f"Expected wait: about {fmt.duration(expected)}, from how long the last computations took here (at most {most})."
        if expected is not None
        else f"No computation has ended here yet to estimate your wait from; it is at most {most}."
    )
    return (
        f"The server is busy: you are number {place} in line ({ahead}). {where(lim).capitalize()} runs "
        f"{plural(capacity, 'computation')} at once, each stopped after {fmt.duration(lim.run_seconds)} of CPU time "
        f"or {fmt.duration(lim.wall_seconds)} in all, and serves the line in order of arrival. {wait} "
        "Keep this tab open: your computation starts by itself."
    )


@contextmanager
def place_in_line(
    capacity: int, lim: Limits, expected: Callable[[int], float | None] = lambda place: None
) -> Iterator[Callable[[int | None], None]]:
    """A notice of the visitor's place in line while it waits, with the wait ``expected(place)``; yields
    ``show(place)``, and ``show(None)`` takes the notice away (the computation started)."""
    box = st.empty()

    def show(place: int | None) -> None:
        if place is None:
            box.empty()
        else:
            box.info(line_text(place, capacity, lim, expected(place)), icon=":material/hourglass_top:")

    try:
        yield show
    finally:
        box.empty()
