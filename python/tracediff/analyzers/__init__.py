"""Mirrors HTA's package layout (``hta.analyzers.trace_diff``)."""
