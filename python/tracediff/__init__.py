"""tracediff: HTA's TraceDiff, on a fast C library.

Switch from Holistic Trace Analysis by changing one import::

    from hta.analyzers.trace_diff import TraceDiff   # before
    from tracediff import TraceDiff                  # after

The names, signatures, defaults and results (DataFrames and dicts) are those
of HTA's ``TraceDiff``, ``LabeledTrace`` and ``DeviceType``.

Beyond HTA, as the CLI's commands: ``compare_traces(..., stats=True)``
(``compare --stats``), ``check`` (the CI gate, a ``CheckResult``), and the
summaries: ``summarize``, ``runs`` and ``trend``; ``breakdown`` (where the
step time went) and ``report`` (the HTML report); ``csv_safe`` (a frame to
write for a spreadsheet, as ``--csv-safe``).
"""
from ._tracediff import VERSION as __version__
from .commands import (Breakdown, breakdown, csv_safe, explain, info, report, roofline, stacks,
                       visualize_flame_diff)
from .gate import CheckResult, check
from .summaries import runs, summarize, trend
from .trace_diff import (
    DeviceType,
    LabeledTrace,
    TraceDiff,
    TraceDiffWarning,
    TraceError,
    UsageError,
)

__all__ = [
    "Breakdown",
    "CheckResult",
    "DeviceType",
    "LabeledTrace",
    "TraceDiff",
    "TraceDiffWarning",
    "TraceError",
    "UsageError",
    "breakdown",
    "check",
    "csv_safe",
    "explain",
    "info",
    "report",
    "roofline",
    "runs",
    "stacks",
    "summarize",
    "trend",
    "visualize_flame_diff",
]
