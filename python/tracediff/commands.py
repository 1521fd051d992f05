"""``tracediff info``, ``explain``, ``breakdown``, ``roofline`` and ``report``
as Python calls.

Each runs the library code the command runs and returns what it writes:
``info()``, ``explain()``, ``breakdown()`` and ``roofline()`` the numbers of the command's ``--format
json`` as DataFrames (the JSON's field names are the columns), ``report()``
the same HTML file as ``tracediff report``.
"""
from __future__ import annotations

import html
import json
import os
from typing import Dict, List, Optional, Union

from . import _tracediff as _core
from .trace_diff import (
    LabeledTrace,
    TraceError,
    TraceDiff,
    TraceDir,
    UsageError,
    _adapt,
    _attributed,
    _categories,
    _compare_traces,
    _device_code,
    _ns,
    _pandas,
    _path_of,
    _pids,
    _stats_kwargs,
)

Selection = Optional[Union[int, List[int], str]]


def _open_for(x, threads: int, ns: bool, pids=None, **want):
    """A set of one side, opened with what the command needs and the
    processes asked for (pids, see _pids; a LabeledTrace's path is read
    again when its set lacks them)."""
    if isinstance(x, LabeledTrace):
        s = x._set
        pids = _pids(pids, s.pids)
        has = {"want_attribution": "attributed", "want_breakdown": "breakdown",
               "want_roofline": "roofline", "want_stacks": "stacks"}
        if s.ns == ns and s.pids == pids and all(getattr(s, has[k]) for k in want):
            return s
        path = s.source
    else:
        pids = _pids(pids)
        path = _path_of(x)
        if path is None:
            raise UsageError(f"Invalid argument type for ({x}).")
    return _core.open_sets([path], threads=threads, ns=ns, pids=pids, **want)[0]


def _label(x, given: Optional[str], default: str) -> str:
    if given is not None:
        if not isinstance(given, str) or not given:
            raise UsageError(f"Invalid argument label={given!r} (expected a non-empty string).")
        return given
    return x.label if isinstance(x, LabeledTrace) else default


class Breakdown:
    """Where the step time went (``tracediff breakdown``; docs/breakdown.md).

    ``ranks``: one row per side and rank, the ``ranks`` objects of the JSON
    (``rank``, ``iterations``, ``step_us``, ``kernel_time_us``, ``busy_us``,
    ``idle_us``, ``compute_us``, ``non_compute_us``, ``exposed_comm_us``,
    ``comm_comp_overlap_pct``, ``kernel_types``, ``idle_by_stream``,
    ``sync_wait_us``, ``slowest``, ``straggler``, ``notes``) after ``side``
    (``control``/``test``) and ``label``. ``diff``: one row per metric
    (index ``metric``): ``control``, ``test``, ``diff``, ``pct`` and, with
    3 samples a side, ``n_control``, ``n_test``, ``p``, ``q``, ``verdict``.
    ``waterfall``: ``component``, ``control_us``, ``test_us``, ``diff_us``.
    ``samples``, ``notes`` and ``paths``: per side. ``json``: the command's
    JSON, parsed. In Jupyter it shows as the diff and the waterfall."""

    def __init__(self, text: str) -> None:
        pd = _pandas()
        d = json.loads(text)
        self.json: dict = d
        rows = []
        for side in ("control", "test"):
            for r in d[side]["ranks"]:
                rows.append({"side": side, "label": d[side]["label"], **r})
        cols = ["side", "label", "rank", "iterations", "step_us", "kernel_time_us", "busy_us",
                "idle_us", "compute_us", "non_compute_us", "exposed_comm_us",
                "comm_comp_overlap_pct", "kernel_types", "idle_by_stream", "sync_wait_us",
                "slowest", "straggler", "notes"]
        ranks = pd.DataFrame(rows, columns=cols)
        self.ranks = ranks.astype({c: "float64" for c in cols[4:12] + ["sync_wait_us"]})
        diff = pd.DataFrame.from_dict(d["diff"], orient="index")
        diff.index.name = "metric"
        for c in ("n_control", "n_test"):
            if c in diff.columns:
                diff[c] = diff[c].astype("Int64")
        self.diff = diff
        self.waterfall = pd.DataFrame(d["waterfall"],
                                      columns=["component", "control_us", "test_us", "diff_us"])
        self.labels: Dict[str, str] = {s: d[s]["label"] for s in ("control", "test")}
        self.paths: Dict[str, str] = {s: d[s]["path"] for s in ("control", "test")}
        self.samples: Dict[str, int] = {s: d[s]["samples"] for s in ("control", "test")}
        self.notes: Dict[str, List[str]] = {s: d[s]["notes"] for s in ("control", "test")}

    def __repr__(self) -> str:
        return (f"Breakdown({self.labels['control']!r} {self.samples['control']} samples, "
                f"{self.labels['test']!r} {self.samples['test']} samples)\n"
                + self.diff.to_string())

    def _repr_html_(self) -> str:
        c, t = self.labels["control"], self.labels["test"]
        head = (f"<p><b>breakdown</b>: {html.escape(c)} ({self.samples['control']} samples) "
                f"vs {html.escape(t)} ({self.samples['test']} samples)</p>")
        notes = "".join(f"<li>{html.escape(n)}</li>" for s in ("control", "test")
                        for n in self.notes[s])
        return (head + self.diff.to_html(na_rep="n/a") + "<p><b>waterfall</b></p>"
                + self.waterfall.to_html(index=False)
                + (f"<ul>{notes}</ul>" if notes else ""))


def breakdown(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    *,
    hta_scope: bool = False,
    control_label: Optional[str] = None,
    test_label: Optional[str] = None,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> Breakdown:
    """``tracediff breakdown CONTROL TEST``: per side and rank the step time
    and the GPU's kernel, busy, idle, compute, non-compute and exposed
    communication time (HTA's TraceAnalysis numbers), the diff of the sides
    and a waterfall from control's step time to test's. The selection's
    defaults are the command's: every rank, and the steady iterations of a
    side with 2 or more steps. ``hta_scope``: ``--hta-scope``. The sets are
    read from the traces (a summary does not keep what this needs)."""
    ns_ = _ns(ns)
    sets = [_open_for(x, threads, ns_, pids, want_breakdown=True) for x in (control, test)]
    labels = (_label(control, control_label, "control"), _label(test, test_label, "test"))
    return Breakdown(_core.breakdown(sets[0], sets[1], control_rank, test_rank, control_iteration,
                                     test_iteration, hta_scope=bool(hta_scope),
                                     control_label=labels[0], test_label=labels[1]))


def _set_name(x) -> str:
    """The last part of a side's path (its folder or file), as the report
    names a side without a label (src/present/report_html.c, set_name)."""
    p = x.trace_dir if isinstance(x, LabeledTrace) else _path_of(x)
    if p is None:
        return ""
    while len(p) > 1 and p.endswith("/"):
        p = p[:-1]
    return p[p.rfind("/") + 1:]


def _report_labels(control, test, control_label, test_label):
    """The report's labels: those given, a LabeledTrace's own, else the
    sets' names when they differ (else ``control`` and ``test``), as the
    command's report names its sides."""
    names = [_set_name(control), _set_name(test)]
    named = all(0 < len(n.encode("utf-8", "surrogateescape")) < 256 for n in names) and \
        names[0] != names[1]
    out = []
    for x, given, name, default in ((control, control_label, names[0], "control"),
                                    (test, test_label, names[1], "test")):
        if given is not None or isinstance(x, LabeledTrace):
            out.append(_label(x, given, default))
        else:
            out.append(name if named else default)
    return out[0], out[1]


def report(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    path: Union[str, os.PathLike],
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    device_type="all",
    use_short_name: bool = False,
    *,
    control_label: Optional[str] = None,
    test_label: Optional[str] = None,
    **options,
) -> None:
    """``tracediff report CONTROL TEST -o PATH``: one self-contained HTML
    page (both sides, headline numbers, both charts, the sortable table,
    the ops_diff lists, the notes), written whole or not at all. The rows
    and options are ``TraceDiff.compare_traces``'s (``stats``,
    ``per_iteration``, ``categories``, ``no_python``, ``normalize_names``,
    ``hta_strict``, ``ns``, ``threads``; ``sort``, ``top``, ``include``,
    ``exclude``, ``ascending`` pick the charts' rows, as for the command);
    the labels default to the command's, the sets' names (the last part of
    each path; ``control`` and ``test`` when they are the same), or a
    LabeledTrace's own label. Names are folded by default, as
    the command folds them (``normalize_names=False`` keeps them)."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise UsageError(f"path must be a file name, not {type(path).__name__}")
    for bad in ("by",):
        if options.get(bad) is not None:
            raise UsageError(f"report: {bad}= is not an option of tracediff report")
    labels = _report_labels(control, test, control_label, test_label)
    # Names folded by default, as the command does (normalize_names=False:
    # HTA's names as they are).
    options.setdefault("normalize_names", True)
    _compare_traces(TraceDiff, control, test, control_rank, test_rank, control_iteration,
                    test_iteration, device_type, use_short_name, control_label=labels[0],
                    test_label=labels[1], report=os.fspath(path), **options)


def info(
    trace_set: Union[LabeledTrace, TraceDir],
    *,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> dict:
    """``tracediff info SET --format json``: what a trace set holds, as a
    dict with the JSON's keys: ``path``, ``durations`` (``hta-rounded`` or
    ``ns``), ``iterations`` (a list), ``files`` (a DataFrame, one row per
    file, the JSON's fields as columns: ``path``, ``rank``,
    ``compression``, ``file_bytes``, ``json_bytes``, ``events_total``,
    ``events_counted``, ``events_cpu``, ``events_gpu``, ``events_stream0``,
    ``events_no_launch``, ``events_skipped``, ``steps``, ``rounded``,
    ``decimal_timestamps``, ``device``, and for other profilers' files
    ``format`` and ``rank_from``), ``categories`` (a DataFrame indexed by
    ``category``: ``categories``, the counted events, and ``category_us``,
    their time) and ``attribution`` (the JSON's dict)."""
    pd = _pandas()
    s = _open_for(trace_set, threads, _ns(ns), pids, want_attribution=True)
    d = json.loads(_core.info(s))
    cols = ["path", "rank", "compression", "file_bytes", "json_bytes", "events_total",
            "events_counted", "events_cpu", "events_gpu", "events_stream0", "events_no_launch",
            "events_skipped", "steps", "rounded", "decimal_timestamps", "device"]
    cols += [c for f in d["files"] for c in f if c not in cols]
    d["files"] = pd.DataFrame(d["files"], columns=cols)
    cats = list(d["categories"])
    d["categories"] = pd.DataFrame(
        {"categories": pd.Series([d["categories"][c] for c in cats], dtype="int64"),
         "category_us": pd.Series([d["category_us"].get(c) for c in cats], dtype="float64")},
    ).set_axis(pd.Index(cats, name="category", dtype=object))
    d["category_us"] = d["categories"]["category_us"]
    return d


_EXPLAIN_BY = {None: 1, "op": 1, "top-op": 2, "top_op": 2, "annotation": 3}


def explain(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    name: str,
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    device_type="all",
    use_short_name: bool = False,
    *,
    by: Optional[str] = None,
    categories: Optional[Union[str, List[str]]] = None,
    no_python: bool = False,
    normalize_names: bool = False,
    hta_strict: bool = False,
    sort: Optional[str] = None,
    ascending: bool = False,
    top: Optional[int] = None,
    include: Optional[str] = None,
    exclude: Optional[str] = None,
    control_label: Optional[str] = None,
    test_label: Optional[str] = None,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> dict:
    """``tracediff explain CONTROL TEST NAME --format json``: the GPU
    kernels one op (``by="op"``, the default; ``"top-op"``, ``"annotation"``)
    launched, per kernel name on each side, beside the op's own CPU time.
    A dict with the JSON's keys: the key (``op``, ``top_op`` or
    ``annotation``) naming the op; ``control`` and ``test``: ``calls``,
    ``cpu_time`` and ``gpu_time`` (us); ``kernels``: a DataFrame of the
    JSON's kernel rows (its field names as columns), the largest change of
    duration first unless ``sort``. A name in neither selection raises
    TraceError, its message listing the five nearest names (edit distance,
    as the command's) and the sides they are on."""
    pd = _pandas()
    if not isinstance(name, str) or not name:
        raise UsageError(f"Invalid argument name={name!r} (an op name such as 'aten::mm').")
    if by not in _EXPLAIN_BY:
        raise UsageError(f"Invalid argument by={by!r} (expected 'op', 'top-op' or "
                         "'annotation').")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise UsageError(f"Invalid argument top={top!r} (expected a count of rows, 1 or more).")
    cats, exclude_cats = _categories(categories, no_python)
    ctl, tst = _adapt(control, test, threads, ns, attribution=True, pids=pids)
    _attributed(ctl, threads)
    _attributed(tst, threads)
    labels = (_label(control, control_label, "control"), _label(test, test_label, "test"))
    text = _core.explain(ctl._set, tst._set, control_rank, test_rank, control_iteration,
                         test_iteration, _device_code(device_type), bool(use_short_name),
                         bool(hta_strict), cats, exclude_cats, bool(normalize_names),
                         name=name, by=_EXPLAIN_BY[by], sort=sort, ascending=bool(ascending),
                         top=top or 0, include=include, exclude=exclude, labels=labels)
    if not isinstance(text, str):
        # The nearest keys, as tracediff explain lists them (td_diff_closest).
        what = {1: "op", 2: "top op", 3: "annotation"}[_EXPLAIN_BY[by]]
        near = ", ".join(f"{k} ({('both', labels[0], labels[1])[s]})" for k, s in text)
        msg = (f"explain: no {what} named {name!r} in either selection"
               f"{'; closest: ' + near if near else ''} (names as "
               f"compare_traces(by={by or 'op'!r}) shows them)")
        err = TraceError(msg)
        err.message, err.file, err.path, err.offset, err.code = msg, None, None, None, None
        raise err
    d = json.loads(text)
    rows = d["kernels"]
    d["kernels"] = pd.DataFrame(rows, columns=list(rows[0]) if rows else None)
    return d


def _flatten_sides(rows: List[dict]) -> List[dict]:
    """control/test sub-objects as control_FIELD and test_FIELD columns, a
    row's statistics (``--stats``) as stats_FIELD."""
    out = []
    for r in rows:
        flat = {}
        for k, v in r.items():
            if k in ("control", "test", "stats") and isinstance(v, dict):
                flat.update({f"{k}_{f}": x for f, x in v.items()})
            else:
                flat[k] = v
        out.append(flat)
    return out


def roofline(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    *,
    control_gpu: Optional[str] = None,
    test_gpu: Optional[str] = None,
    by: str = "op",
    stats: bool = False,
    samples: Optional[str] = None,
    alpha: Optional[float] = None,
    min_change: Optional[float] = None,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> dict:
    """``tracediff roofline CONTROL TEST --format json`` (traces recorded
    with ``record_shapes=True``; docs/roofline.md): a dict with the JSON's
    keys. ``rows`` (``by="op"``) or ``classes`` (``by="class"``): a
    DataFrame, one row per JSON row, its fields as columns and each side's
    object flattened to ``control_FIELD``/``test_FIELD`` (``control_flops``,
    ``test_time_us``, ...); ``coverage``: a DataFrame indexed by side
    (``modelled_pct``, ``busy_us``, ``modelled_us``, ``unmodelled_us``,
    ``unmodelled``); ``gpus`` and ``notes``: the JSON's dicts.
    ``control_gpu``/``test_gpu``: ``--control-gpu``/``--test-gpu``.
    ``stats=True`` (``--stats``, with ``samples``, ``alpha``, ``min_change``
    as ``--samples``, ``--alpha``, ``--min-change``, docs/stats.md): each
    row's statistics and verdict (``by="op"``), the JSON's ``stats``
    object of a row flattened to ``stats_FIELD`` columns (``stats_samples``,
    ``stats_q_value``, ``stats_verdict``, ...)."""
    pd = _pandas()
    if by not in ("op", "class"):
        raise UsageError(f"Invalid argument by={by!r} (expected 'op' or 'class').")
    ns_ = _ns(ns)
    sets = [_open_for(x, threads, ns_, pids, want_roofline=True, want_attribution=True)
            for x in (control, test)]
    d = json.loads(_core.roofline(sets[0], sets[1], control_rank, test_rank, control_iteration,
                                  test_iteration, control_gpu=control_gpu, test_gpu=test_gpu,
                                  by_class=by == "class", stats=bool(stats),
                                  **_stats_kwargs(samples, alpha, min_change)))
    key = "classes" if by == "class" else "rows"
    d[key] = pd.DataFrame(_flatten_sides(d[key]))
    cov = d["coverage"]
    d["coverage"] = pd.DataFrame([cov["control"], cov["test"]],
                                 index=pd.Index(["control", "test"], name="side"))
    return d


def stacks(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    *,
    by: str = "stack",
    device: str = "gpu",
    threads: int = 0,
    ns: Optional[bool] = None,
    **options,
):
    """The GPU time of each call stack (``by="stack"``: the python_function,
    user_annotation and cpu_op frames around each launch, then the kernel,
    joined by ``;`` as ``tracediff compare --format folded`` writes them) or
    of each module (``by="module"``, ``--by module``), side by side: the
    DataFrame of ``compare_traces(..., by=by)``, indexed by ``stack`` or
    ``module``. Traces recorded with ``with_stack=True`` (docs/stacks.md).
    ``device="cpu"`` (``--device cpu``): the CPU stacks instead, each host
    event under the frames around it, valued at its own duration.
    ``options``: compare_traces's keywords (``normalize_names``, ``stats``,
    ``sort``, ``top``, ...)."""
    if by not in ("stack", "module"):
        raise UsageError(f"Invalid argument by={by!r} (expected 'stack' or 'module').")
    if not isinstance(device, str) or device.lower() not in ("gpu", "cpu"):
        raise UsageError(f"Invalid argument device={device!r} (expected 'gpu' or 'cpu').")
    return _compare_traces(TraceDiff, control, test, control_rank, test_rank, control_iteration,
                           test_iteration, device.upper(), False, by=by, threads=threads, ns=ns,
                           **options)


def visualize_flame_diff(
    control: Union[LabeledTrace, TraceDir],
    test: Union[LabeledTrace, TraceDir],
    export_image_path: Union[str, os.PathLike],
    control_rank: Selection = None,
    test_rank: Selection = None,
    control_iteration: Selection = None,
    test_iteration: Selection = None,
    *,
    side: Optional[str] = None,
    min_change: Optional[float] = None,
    width: int = 0,
    normalize_names: bool = True,
    hta_strict: bool = False,
    control_label: Optional[str] = None,
    test_label: Optional[str] = None,
    threads: int = 0,
    ns: Optional[bool] = None,
    pids: Optional[Union[int, List[int]]] = None,
) -> None:
    """``tracediff plot flame CONTROL TEST -o FILE``: the differential flame
    graph of the GPU call stacks (width: test time; colour: the change;
    docs/stacks.md), written whole to ``export_image_path`` (.svg, .png or
    .pdf; the same bytes as the command's SVG). ``side``: None (the
    difference), ``"control"`` or ``"test"`` (``--side``); ``min_change``:
    ``--min-change``, in percent; ``width``: ``--width`` in px (0: the
    default). Names are folded as the command folds them
    (``normalize_names=False``: ``--no-normalize-names``)."""
    sides = {None: 0, "control": 1, "test": 2}
    if side not in sides:
        raise UsageError(f"Invalid argument side={side!r} (expected None, 'control' or 'test').")
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise UsageError(f"Invalid argument width={width!r} (a width in px, 0 for the default).")
    ctl, tst = _adapt(control, test, threads, ns, pids=pids)
    _attributed(ctl, threads, stacks=True)
    _attributed(tst, threads, stacks=True)
    labels = (_label(control, control_label, "control"), _label(test, test_label, "test"))
    _core.flame(ctl._set, tst._set, control_rank, test_rank, control_iteration, test_iteration,
                0, False, bool(hta_strict), None, False, bool(normalize_names), 0, 0.0,
                min_change, path=os.fspath(export_image_path), labels=labels,
                side=sides[side], width=width)


# Text cells a spreadsheet would take for a formula (the CLI's --csv-safe,
# src/present/out_text.c), and the columns whose words are tracediff's own.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_OWN_WORDS = {"counts_change_categories", "verdict", "category", "side", "section"}


def csv_safe(df):
    """A copy of ``df`` to write for a spreadsheet, as ``--csv-safe`` writes
    CSV: a text cell (a name in the index or a column, a label in a column
    name) that starts with ``=``, ``+``, ``-``, ``@``, TAB or CR gets a
    leading ``'``, which Excel and LibreOffice show instead of evaluating it
    as a formula. Numbers are never touched, nor tracediff's own words (the
    ``+``, ``-``, ``=`` of ``counts_change_categories``)::

        tracediff.csv_safe(TraceDiff.compare_traces(a, b)).to_csv("diff.csv")
    """
    pd = _pandas()
    if not isinstance(df, pd.DataFrame):
        raise UsageError(f"csv_safe takes a DataFrame, not {type(df).__name__}")

    def fix(v):
        return "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v

    out = df.copy()
    for c in out.columns:
        if c not in _OWN_WORDS and out[c].dtype == object:
            out[c] = out[c].map(fix)
    if out.index.dtype == object:
        out.index = out.index.map(fix).rename(out.index.name)
    out.columns = [fix(c) if isinstance(c, str) else c for c in out.columns]
    return out
