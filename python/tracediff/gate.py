"""``tracediff.check``: the CI gate of ``tracediff check`` from Python.

The gate itself (which names are regressions, in which order, and the
reports) is the C library's ``td_check_*``, which the CLI uses too, so both
always agree.
"""
from __future__ import annotations

import os
import tempfile
from typing import List, Optional, Union

from . import _tracediff as _core
from .trace_diff import (
    LabeledTrace,
    TraceDir,
    UsageError,
    _adapt,
    _by_code,
    _categories,
    _device_code,
    _pandas,
    _stats_kwargs,
)

__all__ = ["CheckResult", "check"]

# td_check_format
_TEXT, _MARKDOWN, _JSON, _JUNIT = 0, 1, 2, 3

# The regressions' columns: the rows of tracediff check --format json.
REGRESSION_COLUMNS = ("name", "control_n", "test_n", "control_mean", "test_mean",
                      "change_pct", "ci_low", "ci_high", "p_value", "q_value",
                      "control_total", "test_total", "verdict")


def _write_whole(path, data: bytes) -> None:
    """Writes data to path whole or not at all: beside it, then renamed."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tracediff-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


class CheckResult:
    """What ``tracediff check`` finds.

    ``passed``: no regression. ``regressions``: a DataFrame of them, most
    significant first (q, then the larger change), with the columns of the
    rows of ``tracediff check --format json``: ``name``, ``control_n``,
    ``test_n``, ``control_mean``, ``test_mean`` (us), ``change_pct``,
    ``ci_low``, ``ci_high`` (the interval of the change of the mean, us),
    ``p_value``, ``q_value``, ``control_total``, ``test_total`` (the name's
    totals in the selection, us) and ``verdict`` (``slower``, or ``new``: only in
    test). ``compared``: names compared, waits apart; ``waits``: names that
    are the CPU waiting for the device, and ``wait_regressions`` those of
    them that got slower (they fail only with ``gate_waits``); ``one_run``:
    per-call samples from one run a side (docs/stats.md);
    ``faster``: those that got faster; ``samples``, ``alpha``,
    ``min_change``, ``max_regression``, ``min_us``, ``control_samples`` and
    ``test_samples``: what was used.
    """

    def __init__(self, gate) -> None:
        pd = _pandas()
        self._gate = gate
        s = gate.summary()
        self.passed: bool = s["passed"]
        self.compared: int = s["compared"]
        self.faster: int = s["faster"]
        self.samples: str = s["samples"]
        self.alpha: float = s["alpha"]
        self.min_change: float = s["min_change"]
        self.max_regression: float = s["max_regression"]
        self.min_us: float = s["min_us"]
        self.control_samples: int = s["control_samples"]
        self.test_samples: int = s["test_samples"]
        self.waits: int = s["waits"]
        self.wait_regressions: int = s["wait_regressions"]
        self.one_run: bool = s["one_run"]
        rows = list(gate.regressions())
        df = pd.DataFrame(rows, columns=list(REGRESSION_COLUMNS))
        df = df.astype({"name": object, "control_n": "int64", "test_n": "int64",
                        "control_mean": "float64", "test_mean": "float64",
                        "change_pct": "float64", "ci_low": "float64", "ci_high": "float64",
                        "p_value": "float64", "q_value": "float64",
                        "control_total": "float64", "test_total": "float64", "verdict": object})
        self.regressions = df

    def _repr_html_(self) -> str:
        """Jupyter's view: the verdict, then the regressions."""
        import html
        verdict = "passed" if self.passed else "FAILED"
        head = (f"<p><b>check {verdict}</b>: {len(self.regressions)} regression"
                f"{'' if len(self.regressions) == 1 else 's'} of {self.compared} compared "
                f"(max_regression {self.max_regression:g}%, alpha {self.alpha:g}, samples "
                f"{html.escape(self.samples)}); {self.faster} faster</p>")
        if self.regressions.empty:
            return head
        return head + self.regressions.to_html(index=False, na_rep="n/a")

    def junit(self, path: Union[str, os.PathLike]) -> None:
        """Writes the JUnit XML of ``tracediff check --junit`` (a testcase per
        compared name, a failure per regression), whole or not at all."""
        _write_whole(path, self._gate.report(_JUNIT))

    def markdown(self) -> str:
        """The report of ``tracediff check --format markdown`` (for a
        pull-request comment)."""
        return self._gate.report(_MARKDOWN).decode("utf-8", "surrogateescape")

    def text(self) -> str:
        """The report ``tracediff check`` prints (its default format)."""
        return self._gate.report(_TEXT).decode("utf-8", "surrogateescape")

    def json(self) -> str:
        """The report of ``tracediff check --format json``."""
        return self._gate.report(_JSON).decode("utf-8", "surrogateescape")

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return (f"CheckResult(passed={self.passed}, regressions={len(self.regressions)}, "
                f"compared={self.compared}, faster={self.faster})")


def check(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    *,
    control_rank: Optional[Union[int, List[int], str]] = None,
    test_rank: Optional[Union[int, List[int], str]] = None,
    control_iteration: Optional[Union[int, List[int], str]] = None,
    test_iteration: Optional[Union[int, List[int], str]] = None,
    device="all",
    short_names: bool = False,
    categories: Optional[Union[str, List[str]]] = None,
    no_python: bool = False,
    normalize_names: bool = True,
    rename: Optional[List[str]] = None,
    hta_strict: bool = False,
    samples: Optional[str] = None,
    alpha: Optional[float] = None,
    min_change: Optional[float] = None,
    max_regression: float = 5,
    min_us: float = 0,
    gate_waits: bool = False,
    allow_new: bool = False,
    max_step_regression: Optional[float] = None,
    by: Optional[str] = None,
    include: Optional[str] = None,
    exclude: Optional[str] = None,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> CheckResult:
    """``tracediff check CONTROL TEST``: compares both sides with statistics
    and finds the regressions (verdict slower, and a change of at least
    ``max_regression`` percent). Every option is the CLI's, by the same name
    (``--control-rank`` is ``control_rank``, ``--cat`` is ``categories``...).
    Sets are paths (a directory, a file, ``FILE.tdsum[#RUN]``) or
    LabeledTraces. A side whose selection has no events raises TraceError.
    ``ns``: the durations' rule, as ``TraceDiff.compare_traces``'s.
    ``by``, ``include``, ``exclude``: ``--by``, ``--include``, ``--exclude``
    (only the rows whose name the regexes keep are compared).
    ``normalize_names``: on by default, as the command folds names that
    differ only by noise (``False`` is ``--no-normalize-names``).
    """
    for name, v in (("max_regression", max_regression), ("min_us", min_us)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
            raise UsageError(f"Invalid argument {name}={v!r} (a number of 0 or more).")
    cats, exclude_cats = _categories(categories, no_python)
    sk = _stats_kwargs(samples, alpha, min_change)
    if max_step_regression is not None and (
            isinstance(max_step_regression, bool)
            or not isinstance(max_step_regression, (int, float)) or not max_step_regression >= 0):
        raise UsageError(f"Invalid argument max_step_regression={max_step_regression!r} "
                         "(a number of 0 or more).")
    for name, v in (("include", include), ("exclude", exclude)):
        if v is not None and not isinstance(v, str):
            raise UsageError(f"Invalid argument {name}={v!r} (a regular expression).")
    by_code = _by_code(by)

    def _rules(r):
        if isinstance(r, str):
            raise UsageError("Invalid argument rename (a list of 'REGEX=REPLACEMENT' rules).")
        return list(r)
    # Opened with attribution: the waits are measured as ops are attributed.
    ctl, tst = _adapt(control, test, threads, ns, attribution=True, pids=pids)
    gate = _core.check(
        ctl._set, tst._set, control_rank, test_rank, control_iteration, test_iteration,
        _device_code(device, strict=True), bool(short_names), bool(hta_strict), cats, exclude_cats,
        bool(normalize_names), max_regression=float(max_regression), min_us=float(min_us),
        gate_waits=bool(gate_waits), allow_new=bool(allow_new),
        max_step_regression=None if max_step_regression is None else float(max_step_regression),
        by=by_code, include=include, exclude=exclude, **sk,
        **({} if rename is None else {"rename": _rules(rename)}),
    )
    return CheckResult(gate)
