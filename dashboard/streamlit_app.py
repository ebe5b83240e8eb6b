"""Entry point of the what-if explorer: page config and navigation (`streamlit run` this file, or
`python -m dashboard`, which runs it warmed: dashboard/__main__.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

# Streamlit puts this file's folder on sys.path, not the project root: make `dashboard` and
# `simcore` importable when the project is not pip-installed (Streamlit Community Cloud).
ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# Under `streamlit run` the first script run starts these; `python -m dashboard` (make run) has done
# both before serving, and they are no-ops here.
if __name__ == "__main__":  # a script run, not a worker process re-reading its parent's main module
    from dashboard.runs import worker

    worker.start()  # the simulator's imports in the forkserver run while this process imports the pages
    from dashboard.runs import data

    data.warm_default()  # the default scenario's runs, shipped or computed, in the background once per process

# a bundled file: a Material icon as page_icon is fetched from fonts.gstatic.com by every visitor
ICON = str(Path(__file__).resolve().parent / "static" / "favicon.png")
st.set_page_config(page_title="TE/BE preemption explorer", page_icon=ICON, layout="wide")

pages = [
    st.Page("app_pages/explore.py", title="Explore", icon=":material/compare_arrows:", default=True),
    st.Page("app_pages/sweep.py", title="Sweep", icon=":material/show_chart:", url_path="sweep"),
    st.Page("app_pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
]
st.navigation(pages).run()
