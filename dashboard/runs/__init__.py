"""The dashboard's run machinery: limits, execution in a child process, the shared store, warm start.

A page asks :mod:`~dashboard.runs.data` for a comparison (or a bound, a sweep, decision records,
a what-if); the call path, one screen:

    page --> budget.check_*            refuse work over the hosting limits (shared/demo.py), naming them
         --> data.compare / bound / sweep_rows / ...   the one cache
               store.get(runkeys.run_key(...))          shared by every visitor, bounded in bytes and age
               parked.serve_parked / now_or_park        a computation beside a held comparison waits
                                                        for the page's next run instead
               drawing.page_released                    the page gives back its drawing place meanwhile
               data._compute:
                 store.claim                            a second visitor waits for the same computation
                 slots.turn                             a few computations at a time, the rest in line
                 worker.run_within(limits, compute.X)   in a child process stopped at its limits or
                                                        when the visitor leaves (compute.py simulates)
                 store.put                              what came back, counted in bytes
         <-- results.Comparison / Bound / Workload      frozen values; held.py keeps weak references
                                                        for what the page leaves for later

At start-up (``python -m dashboard``) or at the first script run, ``data.warm_default`` ->
``warmup.start`` puts the default scenario's runs in the store: read from
``dashboard/shipped/default_runs.npz`` (``shipped.py``; ``python -m dashboard.runs.ship`` writes it)
or computed as above. This package imports ``dashboard.shared`` and ``simcore``; nothing in
``dashboard.shared`` imports it (``tests/test_architecture.py``).
"""
