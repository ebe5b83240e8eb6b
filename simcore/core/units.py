"""Integer resource units: how the simulator counts CPU, memory and GPUs internally.

Users give resources in cores, GiB and GPUs (floats; see :mod:`simcore.core.model`). Inside a
run they are counted in integer units, as Kubernetes does: CPU in millicores, memory in MiB,
GPUs in thousandths. Each request and capacity is rounded to the nearest unit (ties to
even: numpy ``rint``) when a run starts, so every sum and difference of resources is exact
and "fits" is an exact comparison. A normalised quantity is (an integer difference) x
(1 / capacity), with 1/capacity computed once per node and dimension (0 for a zero
capacity); "rounded to 1e-9" means ``rint(value x 1e9)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcore.core.errors import UserError
from simcore.core.model import DIMS

#: units per user unit, in DIMS order: millicores per core, MiB per GiB, thousandths per GPU
SCALE = np.array([1000.0, 1024.0, 1000.0])
UNIT_NAMES = ("millicores", "MiB", "thousandths of a GPU")
#: the largest capacity in units: integers up to 2**53 are exact in float64, so normalised
#: quantities and metrics see them unchanged, and int64 sums of a node's jobs never overflow
MAX_UNITS = 2**53
#: a request above every possible capacity (it is unschedulable) is counted as this
TOO_BIG = MAX_UNITS + 1
#: "rounded to 1e-9": rint(value x NORM_SCALE)
NORM_SCALE = 1e9


def _scaled(values: np.ndarray) -> np.ndarray:
    return np.rint(np.asarray(values, dtype=float).reshape(-1, 3) * SCALE)


def requests(values: np.ndarray) -> np.ndarray:
    """(n x 3) requests in user units -> int64 units; a request above every possible
    capacity becomes :data:`TOO_BIG` (such a job is unschedulable anyway)."""
    scaled = _scaled(values)
    big = scaled > MAX_UNITS
    out = np.where(big, 0.0, scaled).astype(np.int64)
    out[big] = TOO_BIG  # set as an integer: 2**53 + 1 has no float64
    return out


def capacities(values: np.ndarray, names: list[str] | None = None) -> np.ndarray:
    """(nodes x 3) capacities in user units -> int64 units; refuses one above :data:`MAX_UNITS`."""
    units = _scaled(values)
    bad = np.argwhere(units > MAX_UNITS)
    if len(bad):
        k, d = (int(x) for x in bad[0])
        node = names[k] if names else f"node {k}"
        limit = MAX_UNITS / SCALE[d]
        raise UserError(
            f"{node}: {DIMS[d]} capacity {float(values[k][d]):g} is above the largest supported ({limit:.4g})"
        )
    return units.astype(np.int64)


def rounded(values: np.ndarray) -> np.ndarray:
    """The values (user units, n x 3) the simulator actually uses: each rounded to its unit."""
    return _scaled(values) / SCALE


def inverse(cap_units: np.ndarray) -> np.ndarray:
    """1 / capacity per node and dimension (per unit), 0 where the capacity is 0."""
    safe = np.where(cap_units > 0, cap_units, 1)
    return np.where(cap_units > 0, 1.0 / safe, 0.0)


def count_rounded(values: np.ndarray) -> int:
    """How many of the values change when rounded to whole units."""
    v = np.asarray(values, dtype=float).reshape(-1, 3)
    return int(np.count_nonzero(rounded(v) != v))


def rounding_note(requests: np.ndarray, capacities: np.ndarray | None = None) -> str | None:
    """A note for the user when rounding to whole units changed some values, else None."""
    n_req = count_rounded(requests)
    n_cap = 0 if capacities is None else count_rounded(capacities)
    if n_req + n_cap == 0:
        return None
    parts = [
        f"{n} {what}{'s' if n != 1 else ''}"
        for n, what in ((n_req, "job request value"), (n_cap, "node capacity value"))
        if n
    ]
    return (
        f"{' and '.join(parts)} rounded to whole units (CPU to {UNIT_NAMES[0]}, memory to {UNIT_NAMES[1]}, "
        f"GPUs to {UNIT_NAMES[2]}; nearest, ties to even): the simulation uses the rounded values"
    )


def norm_round(values: np.ndarray | float) -> np.ndarray:
    """Normalised quantities "rounded to 1e-9", as integer-valued floats: rint(value x 1e9)."""
    return np.rint(np.multiply(values, NORM_SCALE))


def l1(diff: np.ndarray, inv_cap: np.ndarray) -> np.ndarray:
    """Per row, the sum over dimensions (in the order cpu, mem, gpu) of |diff| x inv_cap."""
    a = np.abs(diff * inv_cap)
    return a[..., 0] + a[..., 1] + a[..., 2]


def l1_one(diff: Sequence[int], inv_cap: Sequence[float]) -> float:
    """:func:`l1` of one row of Python numbers: the same products, absolute values and sum in the same
    order, so the same double (searches over a few sets; a numpy call costs more than the sum)."""
    return abs(diff[0] * inv_cap[0]) + abs(diff[1] * inv_cap[1]) + abs(diff[2] * inv_cap[2])


def norm_round_one(value: float) -> float:
    """:func:`norm_round` of one Python float: ``round`` ties to even, as ``rint`` does."""
    return float(round(value * NORM_SCALE))
