"""The Learn page: its text, numbers and step-through lessons."""
