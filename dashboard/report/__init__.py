"""The shareable report: one self-contained HTML file of a scenario (``simcore report`` and Explore's button)."""
