"""A bare Streamlit page with as many Plotly charts as the default Explore page draws (two):
the yardstick of bench/first_chart.py. Not part of the product."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="bare", layout="wide")
st.title("Two Plotly charts")
x = np.linspace(1, 100, 300)
st.plotly_chart(go.Figure(go.Bar(x=["a", "b", "c", "d"], y=[4, 3, 2, 1])), key="bars")
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.log(x), mode="lines")), key="lines")
