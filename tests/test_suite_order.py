"""The order the suite hands tests out in and which tests are ``slow`` (``helpers.order``): every
named long test exists, the sort puts them first without moving anything else, and the threshold
decides the mark."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from helpers.order import LONG, SLOW_SECONDS, is_slow, long_first
from helpers.paths import ROOT


@dataclass
class Item:
    nodeid: str


def test_every_long_test_named_is_a_test_module_or_a_test_function_of_its_module() -> None:
    """A renamed or removed test would silently drop out of the order and the slow mark: each name
    must resolve; the seconds are in order, longest first."""
    names = [name for name, _seconds in LONG]
    assert len(set(names)) == len(names)
    assert [s for _n, s in LONG] == sorted((s for _n, s in LONG), reverse=True)
    for name in names:
        path, _, function = name.partition("::")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        if function:
            defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            assert function.partition("[")[0] in defined, name


def test_long_tests_come_first_in_their_order_and_the_rest_keep_theirs() -> None:
    (first, _), (second, _) = LONG[0], LONG[1]  # a module, then a test with parameters
    assert "::" not in first and "[" not in second
    items = [Item("tests/test_a.py::x"), Item(f"{second}[p1]"), Item("tests/test_b.py::y"), Item(f"{first}::t")]
    items.append(Item(f"{second}[p0]"))
    assert [i.nodeid for i in long_first(items)] == [
        f"{first}::t",
        f"{second}[p1]",
        f"{second}[p0]",
        "tests/test_a.py::x",
        "tests/test_b.py::y",
    ]


def test_slow_is_the_threshold_on_the_entry_that_covers_a_test() -> None:
    """A module's entry covers each of its tests, a name each of its parameters, a name with its
    parameters that one alone; below the threshold, or in no entry, a test is not slow."""
    seconds = dict(LONG)
    module = next(n for n, s in LONG if "::" not in n and s >= SLOW_SECONDS)
    assert is_slow(f"{module}::any_test_in_it[3]")
    named = next(n for n, s in LONG if "::" in n and "[" not in n and s >= SLOW_SECONDS)
    assert is_slow(named) and is_slow(f"{named}[a-b]")
    dask, pool = "tests/test_sweep.py::test_executors_give_identical_rows[dask]", "[pool]"
    assert seconds[dask] >= SLOW_SECONDS > seconds[dask.replace("[dask]", pool)]
    assert is_slow(dask) and not is_slow(dask.replace("[dask]", pool))
    assert not is_slow(dask.replace("[dask]", "[other]"))
    quick = next(n for n, s in LONG if s < SLOW_SECONDS)
    assert not is_slow(quick) and not is_slow("tests/test_a.py::x")
