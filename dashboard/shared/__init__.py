"""Modules every page uses: data and state, hosting limits, shared views and charts."""
