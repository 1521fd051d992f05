"""Summaries from Python (docs/summaries.md): ``summarize``, ``runs`` and
``trend``, as the commands of the same names.

A summary is accepted wherever a trace set is: ``LabeledTrace(trace_dir=
"history.tdsum#baseline")``, or the path itself.
"""
from __future__ import annotations

import os
from typing import List, Optional, Union

from . import _tracediff as _core
from .trace_diff import LabeledTrace, UsageError, _device_code, _pandas, _path_of, _pids

__all__ = ["runs", "summarize", "trend"]

# The columns of tracediff runs --format csv, in its order.
RUNS_COLUMNS = ("name", "created", "ranks", "iterations", "source_bytes", "events", "cpu_us",
                "gpu_us", "source")
# The columns of tracediff trend --format csv.
TREND_COLUMNS = ("name", "run", "counts", "total_us", "change_us")


def summarize(
    trace_dir_or_set,
    path: Union[str, os.PathLike],
    *,
    run: Optional[str] = None,
    replace: bool = False,
    ranks: Optional[Union[int, List[int], str]] = None,
    iterations: Optional[Union[int, List[int], str]] = None,
    device="all",
    threads: int = 0,
    created: Optional[str] = None,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> str:
    """``tracediff summarize SET -o PATH``: adds a trace set (a directory, a
    file, a LabeledTrace, or a summary's run) as one run to the summary at
    ``path`` (created when missing). ``run``: its name (default: the set's
    folder name); ``replace``: replace a run of that name (else TraceError).
    ``ranks``, ``iterations``: what to keep (an int, a list, or "all";
    default all); ``device``: "all", "cpu" or "gpu". ``created``: the time
    recorded, "YYYY-MM-DDTHH:MM:SSZ" (default: now). The file is written
    whole or the run added in one transaction: a failure leaves it as it was.
    Returns the run's name as stored (``run``, or the default). ``ns``: the
    durations' rule the run holds (``--ns``; None: HTA_DISABLE_NS_ROUNDING=1
    in the environment); a comparison under the other rule refuses the run.
    ``pids``: a process id or a list of them (``--pid``): only the events of
    these processes of an Nsight Systems or rocpd export are kept; a Kineto
    JSON trace or a pid the export lacks raise TraceError.
    """
    lt = trace_dir_or_set if isinstance(trace_dir_or_set, LabeledTrace) else None
    src = lt.trace_dir if lt is not None else _path_of(trace_dir_or_set)
    pids = _pids(pids, lt._set.pids if lt is not None else None)  # a LabeledTrace's own
    if src is None:
        raise UsageError(f"Invalid argument type for ({trace_dir_or_set!r}).")
    return _core.summarize(src, os.fspath(path), run=run, replace=bool(replace), ranks=ranks,
                    iterations=iterations, device=_device_code(device, strict=True),
                    threads=threads, created=created, ns=ns, pids=pids)


def runs(path: Union[str, os.PathLike]):
    """``tracediff runs PATH``: the runs of a summary in the order they were
    added, one row each, with the columns of ``tracediff runs --format csv``:
    name, created, ranks, iterations, source_bytes, events, cpu_us, gpu_us,
    source."""
    pd = _pandas()
    infos = _core.runs(os.fspath(path))
    df = pd.DataFrame({c: [r[c] for r in infos] for c in RUNS_COLUMNS},
                      columns=list(RUNS_COLUMNS))
    return df.astype({"name": object, "created": object, "ranks": "int64",
                      "iterations": "int64", "source_bytes": "int64", "events": "int64",
                      "cpu_us": "float64", "gpu_us": "float64", "source": object})


def trend(
    path: Union[str, os.PathLike],
    *,
    device="all",
    top: Optional[int] = None,
    names: Optional[str] = None,
    runs: Optional[Union[str, List[str]]] = None,
    export_image_path: Optional[Union[str, os.PathLike]] = None,
    normalize_names: bool = True,
    short_names: bool = False,
    rename: Optional[List[str]] = None,
):
    """``tracediff trend PATH``: each name's total duration (us) in each run
    of a summary, as ``tracediff trend --format csv``: one row per (name,
    run) with the columns name, run, counts, total_us and change_us (the
    change from the first run). Names by the size of their change from the
    first run to the last, largest first. ``device``: "all", "cpu" or "gpu";
    ``top``: the N names that changed most (default all); ``names``: a
    regex (PCRE2) searched in the name; ``runs``: these runs in this order
    (a list, or "A,B" as the CLI takes them). ``export_image_path``: also
    write the line chart of ``tracediff trend ... -o FILE`` (.svg, .png or
    .pdf; the same bytes as the CLI's SVG), which, like the CLI's, shows the
    10 names that changed most unless ``top`` is given. Names are grouped as
    the command groups them: ``normalize_names`` (on by default, as
    ``--no-normalize-names`` turns off), ``short_names`` and ``rename`` (a
    list of ``'REGEX=REPLACEMENT'`` rules, ``--rename``)."""
    pd = _pandas()
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 0):
        raise UsageError(f"Invalid argument top={top!r} (a number of 0 or more).")
    if isinstance(runs, str):
        runs = [r for r in runs.split(",") if r]
    run_names, name_list, counts, totals = _core.trend(
        os.fspath(path), device=_device_code(device, strict=True), top=top or 0, names=names,
        runs=None if runs is None else list(runs),
        chart=None if export_image_path is None else os.fspath(export_image_path),
        normalize_names=bool(normalize_names), short_names=bool(short_names),
        rename=None if rename is None else list(rename),
    )
    rows = {c: [] for c in TREND_COLUMNS}
    for name, cs, ts in zip(name_list, counts, totals):
        for run, c, t in zip(run_names, cs, ts):
            rows["name"].append(name)
            rows["run"].append(run)
            rows["counts"].append(c)
            rows["total_us"].append(t)
            rows["change_us"].append(t - ts[0])
    df = pd.DataFrame(rows, columns=list(TREND_COLUMNS))
    return df.astype({"name": object, "run": object, "counts": "int64", "total_us": "float64",
                      "change_us": "float64"})
