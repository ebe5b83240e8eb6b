"""Commands other installed packages add to ``simcore``: the entry point group ``simcore.commands``.

An entry point names a function ``register(subparsers)`` that adds its subcommand, so a command
that needs more than the simulator (``report`` draws Plotly figures with the dashboard's charts)
is found through the installed package metadata, never imported from here: ``simcore`` keeps
running headless without the dashboard, and then says how to get the missing command.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from simcore.core.errors import UserError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "simcore.commands"
#: the commands a plugin of this project provides, and the extra that installs it
KNOWN = {"report": "dashboard"}


def add_plugin_commands(sub: argparse._SubParsersAction, found: Iterable[EntryPoint] | None = None) -> None:
    """Add every plugin's command (the first entry point of a name wins); a known command whose
    plugin is missing or fails to import still parses, and running it says what to install."""
    from importlib.metadata import entry_points  # reading every installed package's metadata: only here

    added: set[str] = set()
    for point in entry_points(group=GROUP) if found is None else found:
        if point.name in added:
            continue
        try:
            register: Callable[[argparse._SubParsersAction], None] = point.load()
        except ImportError as exc:
            _missing(sub, point.name, f"its plugin {point.value} could not be imported ({exc})")
        else:
            register(sub)
        added.add(point.name)
    for name in KNOWN.keys() - added:
        _missing(sub, name, f"no package here provides it (entry point group {GROUP})")


def list_known_commands(sub: argparse._SubParsersAction) -> None:
    """Name the known plugin commands in ``simcore --help`` without looking for them (a command
    named on the command line is looked up: :func:`add_plugin_commands`)."""
    for name, extra in KNOWN.items():
        sub.add_parser(name, help=f"a command of the {extra} extra (simcore {name} --help)", add_help=False)


def _missing(sub: argparse._SubParsersAction, name: str, why: str) -> None:
    extra = KNOWN.get(name, "dashboard")
    message = (
        f"simcore {name} needs the {extra} extra, and {why}: install it with pip install 'simcore[{extra}]' "
        f"(from a checkout: pip install -e '.[{extra}]')"
    )
    parser = sub.add_parser(name, help=f"(not installed: needs the {extra} extra)", add_help=False)
    parser.add_argument("rest", nargs=argparse.REMAINDER)

    def refuse(args: argparse.Namespace) -> int:
        raise UserError(message)

    parser.set_defaults(func=refuse)
