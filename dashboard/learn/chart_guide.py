"""Learn's "How to read the charts", written from the constants the charts are drawn with (colours,
patterns, lanes, the spread over seeds), so the text cannot describe charts that are gone."""

from __future__ import annotations

from dashboard.shared.chart_style import LOG_STEPS, SLOWDOWN_FLOOR
from dashboard.shared.gantt_charts import (
    COLOR_NAMES,
    GANTT_CLASS_COLORS,
    GANTT_KINDS,
    GANTT_LOST,
    MARKS,
    PATTERN_NAMES,
    down_words,
)
from simcore.analysis.gantt import CPU_LANE
from simcore.analysis.stats import BOOTSTRAP_NAME
from simcore.core import fmt


def color_name(kind: str) -> str:
    """The Gantt's colour of a class (TE, BE) or of a kind of segment (restore, grace), in words."""
    return COLOR_NAMES[GANTT_CLASS_COLORS[kind] if kind in GANTT_CLASS_COLORS else GANTT_KINDS[kind][0]]


def pattern_name(kind: str) -> str:
    return PATTERN_NAMES[GANTT_KINDS[kind][1]]


def chart_guide() -> str:
    """The section's Markdown."""
    ticks = ", ".join(fmt.tick(step * 10**decade) for decade in (0, 1) for step in LOG_STEPS)
    floor = fmt.tick(SLOWDOWN_FLOOR)
    return f"""
- **Log axes** carry major ticks only ({ticks}, ...) and run from the data; a slowdown axis starts at
  {floor} at the lowest (a slowdown is never below {floor}).
- **Trio cards**: the absolute slowdown of each policy, and under it the change against the baseline
  (green = better, red = worse, grey = no change to one decimal). With several seeds, the mean over
  seeds and, in brackets, its {BOOTSTRAP_NAME}.
- **Slowdown CDF** (log x, from {floor}): for each slowdown on the x axis, the fraction of jobs at or
  below it. A curve further left and higher is better; the right end is the tail the p95/p99 describe.
- **Percentile bars** (log y, growing from {floor}): p50, p95 and p99 side by side per policy and class;
  with several seeds a bar is the mean and its whisker runs from the lowest to the highest seed. The
  table below gives the numbers.
- **Gantt**: each node is a block of lanes, one lane per GPU (CPU-only jobs share a `{CPU_LANE}` lane
  under their node); a job covers the lanes it holds, {color_name("TE")} for TE (drawn on top),
  {color_name("BE")} for BE. A restarted job restoring its checkpoint is {color_name("restore")} with
  {pattern_name("restore")}, a preempted job's grace period {color_name("grace")} with
  {pattern_name("grace")}, a periodic checkpoint's pause (with a `checkpoint_cost`) {color_name("checkpoint")}
  with {pattern_name("checkpoint")}, and a black × marks the preemption signal. A node that is down is
  covered across all its lanes: {down_words("failure")} for a failure, {down_words("maintenance")} for
  maintenance; {MARKS["fail"][2]} marks a job its node's failure stopped, {MARKS["drain"][2]} a
  maintenance drain's signal. In a lesson's Gantt the end of an interrupted bar whose work was thrown
  away (its lost work) is covered with {PATTERN_NAMES[GANTT_LOST[0]]}. Choose the policy, time window and
  nodes; a large run shows a window.
- **Utilisation and queue**: GPU utilisation and pending TE / BE jobs over time, per policy.
  A pending-TE line that stays at zero is what preemption buys; BE jobs pay for it in the queue.
- **Sweep lines**: a metric against one knob per policy, the mean over seeds with whiskers = its
  {BOOTSTRAP_NAME}.
- **Pareto scatter**: TE p95 against BE p95 slowdown, one point per (policy, knob value); points
  on the dotted front are not beaten on both at once.
"""
