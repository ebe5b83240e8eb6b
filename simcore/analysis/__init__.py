"""What runs mean: metrics, preemption accounting, Gantt segments, the pooled bound, comparisons, what-ifs."""
