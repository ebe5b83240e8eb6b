"""The model and its units: frozen descriptions, knobs, integer units, errors, number formats, run records."""
