"""Where the tests find the project: its root and the dashboard's entry point."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "streamlit_app.py")
