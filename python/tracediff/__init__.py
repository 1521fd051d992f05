"""tracediff: HTA's TraceDiff, on a fast C library.

Switch from Holistic Trace Analysis by changing one import::

    from hta.analyzers.trace_diff import TraceDiff   # before
    from tracediff import TraceDiff                  # after

The names, signatures, defaults and results (DataFrames and dicts) are those
of HTA's ``TraceDiff``, ``LabeledTrace`` and ``DeviceType``.
"""
from ._tracediff import VERSION as __version__
from .trace_diff import (
    DeviceType,
    LabeledTrace,
    TraceDiff,
    TraceDiffWarning,
    TraceError,
    UsageError,
)

__all__ = [
    "DeviceType",
    "LabeledTrace",
    "TraceDiff",
    "TraceDiffWarning",
    "TraceError",
    "UsageError",
]
