"""Text to Alibaba adapter options (simcore.workload.alibaba.recipes), the one parser the CLI and the sweep source share."""

from __future__ import annotations

import pytest

from simcore.cli import build_parser
from simcore.cli.inputs import alibaba_options_from_args
from simcore.core.errors import UserError
from simcore.workload import alibaba
from simcore.workload.alibaba import DAY, AlibabaOptions


def test_every_adapter_option_has_one_kind():
    kinds = alibaba.recipes.TIME_OPTIONS + alibaba.recipes.NUMBER_OPTIONS
    kinds += alibaba.recipes.FLAG_OPTIONS + alibaba.recipes.TEXT_OPTIONS
    assert sorted(kinds) == sorted(alibaba.OPTION_NAMES) and len(set(kinds)) == len(kinds)


def test_text_values_become_the_options():
    got = alibaba.options_from_values(
        {
            "window_start": "137d",
            "window_end": "12902960",
            "max_duration": "1d",
            "compress": "8.09",
            "include_running": "0",
            "keep_cpu_only": "true",
            "te_max_gpu": "2",
            "class_map": "qos",
        }
    )
    assert got == AlibabaOptions(
        window_start=137 * DAY,
        window_end=12902960.0,
        max_duration=DAY,
        compress=8.09,
        include_running=False,
        keep_cpu_only=True,
        te_max_gpu=2.0,
        class_map="qos",
    )
    # blank or None times are "not set"; what is not given keeps the adapter's default
    assert alibaba.options_from_values({"window_start": " ", "max_duration": None}) == AlibabaOptions()


@pytest.mark.parametrize(
    ("values", "label", "message"),
    [
        ({"compress": "fast"}, alibaba.cli_flag, "--compress: 'fast' is not a number"),
        ({"compress": "fast"}, str, "compress: 'fast' is not a number"),
        ({"window_start": "day 3"}, alibaba.cli_flag, "--window-start: 'day 3' is not a time"),
        ({"include_running": "2"}, str, "include_running: '2' is not 0 or 1"),
        ({"te_max_gpu": True}, str, "te_max_gpu: True is not a number"),
        ({"windowstart": "1d"}, str, "unknown Alibaba option(s) windowstart"),
        ({"compress": "0"}, str, "--compress: 0.0 must be a number > 0"),  # the adapter's own check
    ],
)
def test_bad_values_name_the_option_as_the_caller_spells_it(values, label, message):
    with pytest.raises(UserError) as err:
        alibaba.options_from_values(values, label)
    assert str(err.value).startswith(message)


def test_the_cli_options_go_through_the_same_parser():
    args = build_parser().parse_args(
        [
            "compare",
            "pods.csv",
            "--class-map",
            "qos",
            "--te-max-hours",
            "3",
            "--window-start",
            "1d",
            "--max-duration",
            "7200",
            "--no-include-running",
            "--keep-cpu-only",
            "--compress",
            "4",
        ]
    )
    text = {
        "class_map": "qos",
        "te_max_hours": "3",
        "window_start": "1d",
        "max_duration": "7200",
        "include_running": "0",
        "keep_cpu_only": "1",
        "compress": "4",
    }
    assert alibaba_options_from_args(args) == alibaba.options_from_values(text)
    assert alibaba_options_from_args(build_parser().parse_args(["compare", "pods.csv"])) == AlibabaOptions()


def test_sweep_source_parameters():
    options, nodes, per_node, resolved = alibaba.source_params({"window_start": "137d", "window_days": 2, "nodes": 7})
    assert options == AlibabaOptions(window_start=137 * DAY, window_end=139 * DAY)
    assert (nodes, per_node) == (7, 8.0)
    assert resolved == {**alibaba.SOURCE_PARAMS, "window_start": "137d", "window_days": 2, "nodes": 7}
    # recipe B: consecutive windows of equal length from day 115 to the end of the trace
    starts = alibaba.recipe_b_windows(3)
    length = alibaba.recipe_b_window_days(3)
    assert starts[0] == "115d" and len(starts) == 3
    days = [float(s[:-1]) for s in starts]
    # start days are written with 4 significant digits (126.4d), so they sit within 0.05 d of the exact split
    assert days[1] - days[0] == pytest.approx(length, abs=0.05)
    assert days[2] + length == pytest.approx(alibaba.TRACE_END_DAY, abs=0.05)
    for recipe in alibaba.RECIPES.values():  # the recipes are valid source parameters
        assert alibaba.source_params(recipe)[1] == recipe["nodes"]
