"""The Sweep page's views and charts."""
