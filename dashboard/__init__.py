"""The Streamlit what-if explorer: pages in app_pages/, pure charts and frames, one cached data module."""
