"""The names of ``hta.analyzers.trace_diff``, for code that imports from there."""
from ..trace_diff import *  # noqa: F401,F403
from ..trace_diff import __all__  # noqa: F401
