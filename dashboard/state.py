"""Keeps a page's widgets, the session and the URL in step.

The URL is the shareable copy of the settings. Widget state is (re)filled from it when the
widgets are new (first load, or back from another page) or when the URL changed from outside
(a link from the Learn page, the browser's back button). Navigating between pages may clear the
URL, so the last settings are also kept in the session and used when the URL is empty.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlencode

import streamlit as st

S = TypeVar("S")


def restore(
    page: str,
    probe_key: str,
    parse: Callable[[Mapping[str, Any]], tuple[S, list[str]]],
    widget_values: Callable[[S], dict[str, Any]],
) -> list[str]:
    """Fill the widget state of ``page`` from the URL or the session when needed.

    ``probe_key`` is a widget key that exists once the page's widgets have been drawn.
    Returns the warnings about ignored URL parameters."""
    query = st.query_params.to_dict()
    last_query = st.session_state.get(f"_{page}_query")
    last_settings = st.session_state.get(f"_{page}_settings")
    fresh = probe_key not in st.session_state
    if fresh and not query and last_settings is not None:
        settings, warnings = last_settings, []
    elif fresh or (last_query is not None and query != last_query):
        settings, warnings = parse(query)
    else:
        return []
    for key, value in widget_values(settings).items():
        st.session_state[key] = value
    return warnings


def publish(page: str, settings: Any, query: dict[str, str | list[str]]) -> None:
    """Write the settings to the URL (when they changed) and remember them in the session."""
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)
    st.session_state[f"_{page}_query"] = query
    st.session_state[f"_{page}_settings"] = settings


def widget_state(prefix: str = "x_") -> dict[str, Any]:
    """The current values of the widgets whose key starts with ``prefix``."""
    return {k: v for k, v in st.session_state.items() if isinstance(k, str) and k.startswith(prefix)}


def title_with_link(title: str, query: Mapping[str, Any], caption: str) -> None:
    """The page title with a "Copy link" popover holding the URL that restores the settings."""
    head, share = st.columns([5, 1], vertical_alignment="bottom")
    head.title(title)
    with share.popover("Copy link", icon=":material/link:", width="stretch"):
        st.caption(caption)
        st.code(f"{st.context.url or ''}?{urlencode(query, doseq=True)}", language=None, wrap_lines=True)
