"""Every table the pages show goes through :func:`show`: one rule for the numbers in it.

The frames come from the pure builders (:mod:`dashboard.shared.views` and the pages' views modules);
here every float is rounded as :func:`simcore.core.fmt.short` shows numbers (three significant digits,
at most three decimals) and every instant column (:func:`dashboard.shared.views.instants`) is drawn as
the Gantt's axis reads time, ``day 12 08:52:07``. Both stay values, not text, so a column still sorts
by its numbers and its instants (text would sort ``day 10`` before ``day 2``). A long text column is as
wide as its longest text, never cut (the table scrolls sideways).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboard.shared import views

#: an instant as Streamlit's grid writes it (momentJS: the day of the year, from views.ORIGIN on 1 January)
DAY_CLOCK = "[day] DDD HH:mm:ss"
#: a text column with a longer text gets the width of its longest one (shorter ones fit Streamlit's default)
WHOLE_TEXT = 20


def show(frame: pd.DataFrame, column_config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    """``st.dataframe`` of ``frame`` as people read it (:func:`dashboard.shared.views.readable`), the index
    hidden and the page's width taken unless ``kwargs`` say otherwise; returns what ``st.dataframe`` returns
    (a selection, with ``on_select``)."""
    config: dict[str, Any] = {}
    for name, dtype in frame.dtypes.items():
        if pd.api.types.is_datetime64_any_dtype(dtype):
            config[str(name)] = st.column_config.DatetimeColumn(format=DAY_CLOCK)
        elif not pd.api.types.is_numeric_dtype(dtype):  # a text column as wide as its longest text: never cut
            texts = [t for t in frame[name] if isinstance(t, str)]
            if max(map(len, texts), default=0) > WHOLE_TEXT:
                config[str(name)] = st.column_config.TextColumn(width=views.text_width(texts, str(name)))
    config.update(column_config or {})
    kwargs = {"hide_index": True, "width": "stretch", **kwargs}
    return st.dataframe(views.readable(frame), column_config=config, **kwargs)
