"""The order the suite hands tests out in (``helpers.order``): every named long test exists, and
the sort puts them first without moving anything else."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from helpers.order import LONG_FIRST, long_first
from helpers.paths import ROOT


@dataclass
class Item:
    nodeid: str


def test_every_long_test_named_is_a_test_function_of_its_module() -> None:
    """A renamed or removed test would silently drop out of the order: each name must resolve."""
    assert len(set(LONG_FIRST)) == len(LONG_FIRST)
    for name in LONG_FIRST:
        path, _, function = name.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert function in defined, name


def test_long_tests_come_first_in_their_order_and_the_rest_keep_theirs() -> None:
    first, second = LONG_FIRST[0], LONG_FIRST[1]
    items = [Item("tests/test_a.py::x"), Item(f"{second}[p1]"), Item("tests/test_b.py::y"), Item(first)]
    items.append(Item(f"{second}[p0]"))
    assert [i.nodeid for i in long_first(items)] == [
        first,
        f"{second}[p1]",
        f"{second}[p0]",
        "tests/test_a.py::x",
        "tests/test_b.py::y",
    ]
