"""What the AppTest tests share: the entry point, the bundled demo upload, the check that a page
rendered without an error, and a drawn figure read back by its traces."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from .paths import APP, ROOT

__all__ = ["APP", "DEMO", "ROOT", "assert_clean", "chart_spec", "decode_arrays"]

DEMO = (ROOT / "sample_workloads" / "demo.csv").read_bytes()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def decode_arrays(value: object) -> object:
    """Plotly's JSON writes numeric arrays as {"dtype", "bdata" (base64)}: back to lists."""
    import base64

    import numpy as np

    if isinstance(value, dict) and set(value) >= {"dtype", "bdata"}:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, dict):
        return {k: decode_arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_arrays(v) for v in value]
    return value


def chart_spec(at: AppTest, key: str) -> dict:
    """The figure drawn under ``key``, with its arrays decoded."""
    return decode_arrays(json.loads(next(c for c in at.get("plotly_chart") if c.key == key).proto.spec))
