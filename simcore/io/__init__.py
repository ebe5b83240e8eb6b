"""Reading and writing files: CSV cells, streamed JSON, Parquet pages."""
