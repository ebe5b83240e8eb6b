"""Write the shipped runs of the default Explore scenario, ``dashboard/shipped/default_runs.npz``
(:mod:`dashboard.runs.shipped` reads them): ``python -m dashboard.runs.ship`` simulates the scenario the
warm-up would and writes their records. Run it when ``tests/test_shipped.py`` says the file is stale."""

from __future__ import annotations

import sys

from dashboard.runs import shipped, warmup
from simcore.analysis.compare import Configured, run_policies


def main() -> int:
    """Simulate the default scenario and write its runs to :data:`shipped.FILE`."""
    with warmup.outside_runtime():
        from dashboard.runs import data  # its cached functions are defined here: without the bare-cache warning

        default = data.default_scenario()
    if default is None:
        print("the default sample is not in sample_workloads/: nothing to ship", file=sys.stderr)
        return 1
    keys, (table, cluster, configs, _extra) = warmup.work(*default)
    results = run_policies(table, cluster, [Configured(str(i), c) for i, c in enumerate(configs)])
    shipped.FILE.parent.mkdir(exist_ok=True)
    shipped.FILE.write_bytes(shipped.encode(keys, list(results.values())))
    print(f"wrote {shipped.FILE} ({shipped.FILE.stat().st_size:,} bytes, {len(keys)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
