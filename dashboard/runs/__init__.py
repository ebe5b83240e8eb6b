"""The dashboard's run machinery: limits, execution in workers, the shared store, warm start."""
