"""HTA's ``TraceDiff``, ``LabeledTrace`` and ``DeviceType`` over the C library.

The same names, signatures, defaults and results as
``hta.analyzers.trace_diff`` (``hta.trace_diff`` in recent HTA), so that
switching is one import. The traces are read by the C library (all files at
once, with the GIL released), not by pandas; only the summary rows become a
DataFrame.

Beyond HTA (keyword-only, so HTA calls are unaffected):

- ``hta_strict=True``: HTA's own rule for device events on stream 0 (they get
  no iteration and drop out; the default gives them their launch's iteration,
  as HTA documents). See docs/numbers.md.
- ``threads=N``: files read at once (default: one per core).
- ``stats=True`` (with ``samples=``, ``alpha=``, ``min_change=``): the
  statistics columns of ``tracediff compare --stats`` (docs/stats.md).
- ``per_iteration=``, ``by=``, ``categories=``, ``no_python=``,
  ``normalize_names=``: ``tracediff compare``'s ``--per-iteration``, ``--by``,
  ``--cat``, ``--no-python`` and ``--normalize-names``.
- Paths may name one trace file as well as a directory; a set with no
  ``ProfilerStep`` at all is compared whole (HTA refuses), with a warning.
- Anything left out of a comparison (device events with no launch found,
  stream-0 events under ``hta_strict``) is announced with a
  ``TraceDiffWarning``.
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
import warnings
from enum import Enum
from typing import Dict, List, Optional, Union

from . import _tracediff as _core

# pandas and numpy are imported on first use, so that importing tracediff
# (to open sets, read ranks and iterations, draw charts) does not need them.
np = None
pd = None


def _pandas():
    global np, pd
    if pd is None:
        import numpy
        import pandas

        np, pd = numpy, pandas
    return pd

TraceError = _core.TraceError
UsageError = _core.UsageError

__all__ = [
    "DeviceType",
    "LabeledTrace",
    "TraceDiff",
    "TraceDiffWarning",
    "TraceDir",
    "TraceError",
    "UsageError",
]

TraceDir = str


class TraceDiffWarning(UserWarning):
    """Something about a comparison the user should know (nothing is left out silently)."""


class DeviceType(Enum):
    CPU = 1
    GPU = 2
    ALL = 3


# td_device: 0 all, 1 cpu, 2 gpu
_DEVICE = {"ALL": 0, "CPU": 1, "GPU": 2}


def _device_code(device_type, strict: bool = False) -> int:
    # HTA's own DeviceType (or ours) by its name; like HTA, an enum member
    # that is neither CPU nor GPU means both. A string must be "cpu", "gpu"
    # or "all" (any case); with strict, so must an enum's name.
    if isinstance(device_type, str) or strict:
        name = getattr(device_type, "name", device_type)
        code = _DEVICE.get(name.upper()) if isinstance(name, str) else None
        if code is None:
            raise UsageError(
                f"Invalid argument device={device_type!r} (expected 'cpu', 'gpu', 'all' "
                "or a DeviceType)."
            )
        return code
    name = getattr(device_type, "name", None)
    return _DEVICE.get(name.upper(), 0) if isinstance(name, str) else 0


# td_samples: 0 auto, 1 iteration, 2 call
_SAMPLES = {"auto": 0, "iteration": 1, "call": 2}


def _samples_code(samples) -> int:
    if samples is None:
        return 0
    code = _SAMPLES.get(samples) if isinstance(samples, str) else None
    if code is None:
        raise UsageError(
            f"Invalid argument samples={samples!r} (expected 'iteration', 'call' or 'auto')."
        )
    return code


def _stats_kwargs(samples, alpha, min_change) -> dict:
    """The statistics options of the C core, checked as the CLI checks them."""
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))
                              or not 0 < alpha < 1):
        raise UsageError(f"Invalid argument alpha={alpha!r} (a number above 0 and below 1, "
                         "e.g. 0.05).")
    return dict(samples=_samples_code(samples), alpha=0.0 if alpha is None else float(alpha),
                min_change=None if min_change is None else float(min_change))


def _categories(categories, no_python: bool):
    """(categories, exclude_categories) as --cat and --no-python set them."""
    if categories is not None and no_python:
        raise UsageError("no_python: not with categories (list the categories to keep instead)")
    if no_python:
        return "python_function", True
    if categories is None:
        return None, False
    if not isinstance(categories, str):
        categories = ",".join(categories)
    if not categories.strip(","):
        raise UsageError(f"Invalid argument categories={categories!r} (expected categories, "
                         "e.g. 'cpu_op,kernel').")
    return categories, False


# td_by: what a row is, as tracediff compare --by names it.
_BY = {"kernel": 0, "op": 1, "top-op": 2, "top_op": 2, "annotation": 3, "class": 4,
       "module": 5, "stack": 6}


def _by_code(by) -> int:
    code = _BY.get(by) if isinstance(by, str) or by is None else None
    if by is None:
        return 0
    if code is None:
        raise UsageError(f"Invalid argument by={by!r} (expected 'kernel', 'op', 'top-op', "
                         "'annotation', 'class', 'module' or 'stack').")
    return code


def _attributed(lt: "LabeledTrace", threads: int, stacks: bool = False,
                breakdown: bool = False, roofline: bool = False) -> None:
    """Reopens a LabeledTrace's set with attribution (what launched each GPU
    event), which ``by`` needs, with stacks when asked (``by="module"`` or
    ``"stack"``), with breakdown the breakdown's records (the report's
    headline) and with roofline the ops' input shapes (the report's "Why"
    section), unless it has them; kept for later calls."""
    if not lt._set.attributed or (stacks and not lt._set.stacks) or \
            (breakdown and not lt._set.breakdown) or (roofline and not lt._set.roofline):
        lt._set = _core.open_sets([lt._set.source], threads=threads, want_attribution=True,
                                  want_stacks=stacks or lt._set.stacks,
                                  want_breakdown=breakdown or lt._set.breakdown,
                                  want_roofline=roofline or lt._set.roofline,
                                  ns=lt._set.ns, pids=lt._set.pids)[0]


def _with_tree(lt: "LabeledTrace", threads: int, python_frames: bool = False) -> None:
    """Reopens a LabeledTrace's set with its call trees (``match="tree"``),
    holding the python_function frames or not as ``python_frames`` asks
    (``--python-frames``), unless it has them so; kept for later calls."""
    if not lt._set.tree or lt._set.python_frames != python_frames:
        lt._set = _core.open_sets([lt._set.source], threads=threads,
                                  want_attribution=lt._set.attributed,
                                  want_stacks=lt._set.stacks, want_tree=True,
                                  python_frames=python_frames,
                                  ns=lt._set.ns, pids=lt._set.pids)[0]


_TREE_COLUMNS = ["lca", "path", "control_us", "test_us", "change_pct", "control_count",
                 "test_count", "control_kernels", "test_kernels", "control_input_dims",
                 "test_input_dims", "control_input_types", "test_input_types"]


def _tree_match(control, test, control_rank, test_rank, control_iteration, test_iteration,
                threads, ns, stats, samples, alpha, min_change, pids=None, python_frames=False):
    """compare_traces(match="tree"): the LCA rows of ``tracediff compare
    --match tree --format json`` (with ``--python-frames`` when
    ``python_frames``), with its field names."""
    _pandas()
    ctl, tst = _adapt(control, test, threads, ns, pids=pids)
    _with_tree(ctl, threads, python_frames)
    _with_tree(tst, threads, python_frames)
    sk = _stats_kwargs(samples, alpha, min_change)
    rows, summary, notes, st = _core.tree_match(
        ctl._set, tst._set, control_rank, test_rank, control_iteration, test_iteration,
        stats=bool(stats), **sk)
    cols = list(_TREE_COLUMNS)
    if rows and len(rows[0]) > len(cols):
        cols += [k for k in rows[0] if k not in cols]
    df = pd.DataFrame(rows, columns=cols)
    df.attrs["summary"] = summary
    df.attrs["notes"] = notes
    for n in notes:
        warnings.warn(n, TraceDiffWarning, stacklevel=3)
    if st is not None:
        df.attrs["stats"] = st
    return df


def _with_rule(lt: "LabeledTrace", ns: bool, threads: int, pids=None) -> None:
    """Reopens a LabeledTrace's set under the duration rule asked for (ns:
    the traces' own resolution, else HTA's rounding) and with the processes
    asked for (pids, when given) unless it has them; a summary made under
    the other rule raises TraceError naming it."""
    pids = _pids(pids, lt._set.pids)
    if lt._set.ns != ns or lt._set.pids != pids:
        lt._set = _core.open_sets([lt._set.source], threads=threads,
                                  want_attribution=lt._set.attributed,
                                  want_stacks=lt._set.stacks, ns=ns, pids=pids)[0]


def _pids(pids, have=None):
    """pids= of a call as the sets hold it: a tuple of process ids, or the
    set's own (``have``) when not given. Read only the events of these
    processes of each Nsight Systems or rocpd export, as ``tracediff
    --pid``; a Kineto or rocprofv3 JSON trace or a summary refuses them
    (TraceError naming the file), as the command does."""
    if pids is None:
        return have
    if isinstance(pids, int) and not isinstance(pids, bool):
        return (pids,)
    if isinstance(pids, (str, bytes)) or not hasattr(pids, "__iter__"):
        raise UsageError(f"Invalid argument pids={pids!r} (a process id or a list of them).")
    return tuple(pids)


def _ns(ns: Optional[bool]) -> bool:
    """The rule of a call: ``ns`` as given, else HTA's switch in the
    environment (exactly ``HTA_DISABLE_NS_ROUNDING=1``, as HTA reads it)."""
    if ns is None:
        return os.environ.get("HTA_DISABLE_NS_ROUNDING") == "1"
    return bool(ns)


def _path_of(x) -> Optional[str]:
    if isinstance(x, (str, bytes, os.PathLike)):
        return os.fsdecode(x)
    # An HTA Trace object: read its directory again with the C library.
    p = getattr(x, "trace_path", None)
    return os.fsdecode(p) if isinstance(p, (str, bytes, os.PathLike)) else None


class LabeledTrace:
    """A trace set with a label; the label prefixes the columns of
    ``TraceDiff.compare_traces``. The traces are read once, here.

    ``LabeledTrace(label="base", trace_dir="runs/base")``; ``trace_dir`` may
    also be one trace file. ``t`` may be an HTA ``Trace`` (its trace
    directory is read) or a path.
    """

    def __init__(
        self,
        label: Optional[str] = None,
        t=None,
        trace_dir: Optional[str] = None,
        *,
        threads: int = 0,
        ns: Optional[bool] = None,
        pids: Optional[Union[int, List[int]]] = None,
        _set=None,
    ) -> None:
        self.label: str = label if label else f"t{random.randint(0, 10)}"
        self.t = t  # HTA's Trace when one was given (this class reads the traces itself)
        self._sym: Optional[Dict[str, int]] = None
        if _set is not None:
            self._set = _set
            return
        path = _path_of(t) if t is not None else None
        if path is None and trace_dir is not None:
            path = _path_of(trace_dir)
        if path is None:
            raise UsageError(
                "either a trace object or a valid trace dir must be provided in "
                "LabeledTrace.__init__()"
            )
        self._set = _core.open_sets([path], threads=threads, ns=_ns(ns), pids=_pids(pids))[0]

    @property
    def trace_dir(self) -> str:
        return self._set.path

    def ranks(self) -> List[int]:
        """All ranks of the set, sorted."""
        return self._set.ranks()

    def iterations(self) -> List[int]:
        """All iterations (ProfilerStep numbers) of the set, sorted."""
        return self._set.iterations()

    def files(self) -> List[dict]:
        """Per trace file (by rank): path, rank, sizes and event counts."""
        return self._set.files()

    # HTA's symbol table: every name and category of the events read so far
    # (the first use reads all of them), an id each, stable for the trace.
    def _symbols(self) -> Dict[str, int]:
        if self._sym is None:
            self._sym = {}
            self._set.events(self.ranks(), self.iterations(), 0, self._sym)
            for it in self.iterations():
                self._sym.setdefault(f"ProfilerStep#{it}", len(self._sym))
        return self._sym

    @property
    def s_map(self) -> "pd.Series":
        """HTA's symbol map: symbol -> id (int64)."""
        _pandas()
        sym = self._symbols()
        return pd.Series(list(sym.values()), index=list(sym.keys()), dtype=np.int64)

    @property
    def s_tab(self) -> "pd.Series":
        """HTA's symbol table: id -> symbol."""
        _pandas()
        return pd.Series(list(self._symbols().keys()), dtype=object)

    @property
    def iteration_df(self) -> "pd.DataFrame":
        """HTA's iterations: ``symbol`` (``ProfilerStep#N``), ``id`` (its
        symbol id) and ``iteration`` (N), one row per iteration."""
        _pandas()
        sym = self._symbols()
        its = self.iterations()
        names = [f"ProfilerStep#{i}" for i in its]
        return pd.DataFrame({"symbol": pd.Series(names, dtype=object),
                             "id": np.array([sym[n] for n in names], dtype=np.int64),
                             "iteration": np.array(its, dtype=np.int64)})

    def _selection(self, what: str, given, have: List[int]) -> List[int]:
        # HTA's defaults, checks and messages (extract_ops).
        if given is None:
            if not have:
                if what == "iteration":
                    return []  # no ProfilerStep: the whole trace, as compare_traces
                raise UsageError(f"Trace {self.label} doesn't have any {what}.")
            return have[:1]
        if isinstance(given, int) and not isinstance(given, bool):
            picked = [given]
        elif isinstance(given, list):
            picked = given
        else:
            raise UsageError(f"Invalid type for argument `{what}` {given}.")
        for v in picked:
            if v not in have:
                shown = given if what == "rank" else v
                raise UsageError(f"Invalid argument {what}={shown}.")
        return picked

    def extract_ops(
        self,
        rank: Optional[Union[int, List[int]]] = None,
        iteration: Optional[Union[int, List[int]]] = None,
        device_type: DeviceType = DeviceType.ALL,
    ) -> "pd.DataFrame":
        """The rows of HTA's trace frame for some ranks and iterations
        (default: the lowest of each) on a device (``DeviceType.CPU``,
        ``GPU`` or ``ALL``), in file order, with HTA's columns and dtypes:
        ``index`` (the event's position in ``traceEvents``, also the frame's
        index), ``cat`` and ``name`` (ids into ``s_tab``), ``pid``, ``tid``,
        ``ts``, ``dur``, the args HTA keeps (``stream``, ``correlation``,
        ``bytes``, ``memory_bw_gbps``, ..., ``out_split_size``),
        ``index_correlation``, ``iteration`` and ``end``; with several ranks,
        ``rank`` and ``idx`` first and a fresh index, as HTA's concat. Each
        integer column has the smallest type holding its values over the
        whole file, as HTA's downcast. The trace files are read again for
        this (td_file_event_rows), keeping only the rows selected."""
        _pandas()
        ranks = self._selection("rank", rank, self.ranks())
        iters = self._selection("iteration", iteration, self.iterations())
        by_rank = {f["rank"]: f["path"] for f in self.files()}
        frames = [self._rows(by_rank[r], iters, _device_code(device_type)) for r in ranks]
        if len(frames) == 1:
            return frames[0][0]
        df = pd.concat([f for f, _, _ in frames], axis=0, keys=self.ranks(),
                       names=["rank", "idx"]).reset_index()
        # HTA selects after the concat: a row's label is its place among
        # every row of the ranks before it and its own file's rows.
        base, labels = 0, []
        for _, pos, kept in frames:
            labels.append(np.asarray(pos, dtype=np.int64) + base)
            base += kept
        df.index = pd.Index(np.concatenate(labels), dtype=np.int64)
        return df

    def _rows(self, path: str, iters: List[int], device: int):
        """One file's rows as HTA's Trace frame holds them (see extract_ops),
        their places among the file's rows HTA keeps, and how many it keeps."""
        sym = self._symbols()
        cols, info = _core.event_rows(path, self._set.ns, [a[1] for a in _HTA_ARGS], iters or None,
                                      device)
        if info["other_key"]:
            raise UsageError(f"extract_ops: {path}: its events have a key "
                             f"{info['other_key']!r}, which HTA keeps as a column of its own; "
                             "only Kineto's keys are read")
        n = len(cols["index"])
        data = {"index": _int_column(cols["index"], info["index"])}
        keys = info["keys"]
        rounded = info["rounded"]
        ts_none = keys["ts"]["none"] > 0
        gap = ts_none or keys["dur"]["none"] > 0  # rows of the whole file with no end

        def ids(values):
            return np.array([sym.setdefault(v, len(sym)) for v in values], dtype=np.int64)

        for name in sorted(("cat", "name", "pid", "tid", "ts", "dur"),
                           key=lambda k: info["order"][("cat", "name", "pid", "tid", "ts",
                                                        "dur").index(k)]):
            if info["order"][("cat", "name", "pid", "tid", "ts", "dur").index(name)] < 0:
                continue
            if name in ("cat", "name"):
                data[name] = ids(cols[name])
            elif rounded and name == "ts":
                data[name] = _float_column(cols[name]) if ts_none else \
                    _int_column(cols[name], keys[name])
            elif rounded and name == "dur":
                data[name] = _float_column(cols[name]) if gap else \
                    _int_column(cols[name], keys[name])
            else:
                data[name] = _key_column(cols[name], keys[name])
        if rounded:
            data["end"] = None  # placed here, as HTA's rounding adds it; filled below
        if info["has_args"]:
            for (col, _raw, default), values, k in zip(_HTA_ARGS, info["arg_values"],
                                                       info["args"]):
                if col == "stream":
                    data[col] = _int_column(cols["stream"], info["stream"])
                else:
                    data[col] = _arg_column(values, k, default)
            data["index_correlation"] = _int_column(cols["index_correlation"],
                                                    info["index_correlation"])
        if info["iteration_unset"]:
            data["iteration"] = _float_column(cols["iteration"])
        else:
            data["iteration"] = _int_column(cols["iteration"], info["iteration"])
        ts, dur = data.get("ts"), data.get("dur")
        if ts is not None and dur is not None:
            data["end"] = (ts.astype(np.int64) + dur.astype(np.int64)
                           if ts.dtype.kind == "i" and dur.dtype.kind == "i"
                           else ts.astype(np.float64) + dur.astype(np.float64))
        else:
            data.pop("end", None)
        df = pd.DataFrame(data, index=pd.Index(cols["index"], dtype=np.int64))
        assert len(df) == n
        return df, cols["row"], info["kept"]

    def get_ops_summary(self, ops: "pd.DataFrame") -> "pd.DataFrame":
        """Counts and total durations of ``ops`` (an ``extract_ops`` result,
        perhaps filtered further) per category and name, as HTA's: columns
        ``cat``, ``name``, ``short_name``, ``counts``, ``total_duration``,
        ``cat_id``, ``name_id``, one row per (cat, name) in id order."""
        _pandas()
        tab = self.s_tab
        df = ops[["cat", "name", "dur"]].groupby(["cat", "name"]).aggregate(["count", "sum"])
        df.columns = ["_".join(col).rstrip("_") for col in df.columns.values]
        df = df.reset_index().rename(columns={"name": "name_id", "cat": "cat_id",
                                              "dur_count": "counts",
                                              "dur_sum": "total_duration"})
        df["cat"] = tab.to_numpy()[df["cat_id"].to_numpy()] if len(df) else []
        df["name"] = tab.to_numpy()[df["name_id"].to_numpy()] if len(df) else []
        short = {n: _core.short_name(n) for n in set(df["name"])}
        df["short_name"] = df["name"].map(short)
        return df[["cat", "name", "short_name", "counts", "total_duration", "cat_id", "name_id"]]

    def __repr__(self) -> str:
        return f"LabeledTrace(label={self.label!r}, trace_dir={self._set.path!r})"


# The args HTA's default parser config keeps, in its order: (column, the
# arg's name in the trace, the default of an event without it).
_HTA_ARGS = (
    ("stream", "stream", -1),
    ("correlation", "correlation", -1),
    ("bytes", "bytes", -1),
    ("memory_bw_gbps", "memory bandwidth (GB/s)", 0.0),
    ("wait_on_stream", "wait_on_stream", -1),
    ("wait_on_cuda_event_record_corr_id", "wait_on_cuda_event_record_corr_id", -1),
    ("input_dims", "Input Dims", "-1"),
    ("input_type", "Input type", "-1"),
    ("input_strides", "Input Strides", "-1"),
    ("external_id", "External id", -1),
    ("python_id", "Python id", -1),
    ("python_parent_id", "Python parent id", -1),
    ("collective_name", "Collective name", ""),
    ("in_msg_nelems", "In msg nelems", 0),
    ("out_msg_nelems", "Out msg nelems", 0),
    ("msg_dtype", "dtype", ""),
    ("group_size", "Group size", 0),
    ("process_rank", "Rank", -1),
    ("in_split_size", "In split size", "[]"),
    ("out_split_size", "Out split size", "[]"),
)


def _smallest_int(lo: int, hi: int):
    """pandas' downcast="integer": the smallest signed type holding lo..hi."""
    for t in (np.int8, np.int16, np.int32):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return t
    return np.int64


def _int_column(values: list, col: dict) -> "np.ndarray":
    lo, hi = (col["min"], col["max"]) if col["min"] <= col["max"] else (0, 0)
    return np.array(values, dtype=_smallest_int(lo, hi))


def _float_column(values: list) -> "np.ndarray":
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _object_column(values: list) -> "np.ndarray":
    out = np.empty(len(values), dtype=object)
    out[:] = [np.nan if v is None else v for v in values]
    return out


def _key_column(values: list, col: dict) -> "np.ndarray":
    """An event key's column as pandas builds it from the whole file's
    events: object when some value is a string (or other JSON), float64
    when some is a decimal or missing, else the smallest integer type of the
    rows kept."""
    if col["str"] or col["json"]:
        return _object_column(values)
    if col["float"] or col["none"]:
        return _float_column(values)
    return _int_column(values, col)


def _arg_column(values: list, col: dict, default) -> "np.ndarray":
    """An arg's column as HTA fills it: the default where an event lacks it,
    the type pandas infers from the values of the rows kept."""
    kinds = {k for k in ("int", "float", "str", "json") if col[k]}
    lo, hi = col["min"], col["max"]
    if col["none"]:
        kinds.add({int: "int", float: "float", str: "str"}[type(default)])
        if isinstance(default, int):
            lo, hi = (min(lo, default), max(hi, default)) if lo <= hi else (default, default)
    filled = [default if v is None else v for v in values]
    if kinds & {"str", "json"}:
        out = np.empty(len(filled), dtype=object)
        out[:] = filled
        return out
    if "float" in kinds:
        return np.array(filled, dtype=np.float64)
    return _int_column(filled, {"min": lo, "max": hi})


def _adapt(control, test, threads: int, ns: Optional[bool] = None, attribution: bool = False,
           pids=None):
    """LabeledTraces for both sides, their durations under the call's rule
    (``ns``, see _ns), their processes ``pids`` (see _pids); plain paths are
    read together."""
    ns = _ns(ns)
    sides = [control, test]
    out: List[Optional[LabeledTrace]] = [None, None]
    todo = []
    for i, x in enumerate(sides):
        if isinstance(x, LabeledTrace):
            _with_rule(x, ns, threads, pids)
            out[i] = x
            continue
        path = _path_of(x)
        if path is None:
            raise UsageError(f"Invalid argument type for ({x}).")
        todo.append((i, path))
    if todo:
        sets = _core.open_sets([p for _, p in todo], threads=threads, ns=ns,
                               want_attribution=attribution, pids=_pids(pids))
        for (i, _), s in zip(todo, sets):
            out[i] = LabeledTrace(label=("Control", "Test")[i], _set=s)
    return out[0], out[1]


def _warn_notes(notes: dict) -> None:
    """A side's notes, one TraceDiffWarning each, in the library's words
    (td_diff_side_note: what the CLI prints after "note:" and the report
    lists)."""
    for text in notes["texts"]:
        warnings.warn(text, TraceDiffWarning, stacklevel=4)


def _warn_rounding(notes: dict) -> None:
    """The one note on HTA's rounding (the CLI's, in the same words)."""
    if notes.get("rounding"):
        warnings.warn(notes["rounding"], TraceDiffWarning, stacklevel=4)


def _counts_column(values: list, missing: bool) -> np.ndarray:
    # HTA's outer join leaves NaN where a side lacks a name, then fills 0: that
    # side's columns become float64. Otherwise they stay integers.
    return np.array(values, dtype=np.float64 if missing else np.int64)


def _duration_column(values: list, missing: bool) -> np.ndarray:
    a = np.array(values, dtype=np.float64)
    if not missing and np.all(np.isfinite(a)) and np.all(a == np.floor(a)) and np.all(
        np.abs(a) < 2.0**63
    ):
        return a.astype(np.int64)  # HTA's durations are integer microseconds
    return a


def _compare_traces(cls, control, test, control_rank, test_rank, control_iteration,
                    test_iteration, device_type, use_short_name, *, hta_strict=False, threads=0,
                    stats=False, samples=None, alpha=None, min_change=None, per_iteration=False,
                    by=None, categories=None, no_python=False, normalize_names=False, ns=None,
                    rename=None,
                    include=None, exclude=None, sort=None, ascending=False, top=None,
                    control_label=None, test_label=None, report=None, pids=None):
    """compare_traces; with report, the HTML report of the comparison is
    written to that path too (tracediff report)."""
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise UsageError(f"Invalid argument top={top!r} (expected a count of rows, 1 or more).")
    for what, v in (("include", include), ("exclude", exclude), ("sort", sort),
                    ("control_label", control_label), ("test_label", test_label)):
        if v is not None and (not isinstance(v, str) or not v):
            raise UsageError(f"Invalid argument {what}={v!r} (expected a non-empty string).")
    cats, exclude_cats = _categories(categories, no_python)
    by_code = _by_code(by)
    ctl, tst = _adapt(control, test, threads, ns, pids=pids)
    if by_code or report is not None:  # the report's "Where the GPU time moved" needs it too
        # and its headline the breakdown's records, its flame graph the stacks,
        # its "Why" section the shapes
        st = by_code in (_BY["module"], _BY["stack"]) or report is not None
        for lt in (ctl, tst):
            _attributed(lt, threads, stacks=st, breakdown=report is not None,
                        roofline=report is not None)
    if ctl.label == tst.label:  # as HTA renames it
        tst.label = f"{tst.label}_control_test"
    labels = (control_label or ctl.label, test_label or tst.label)
    if labels[0] == labels[1]:
        raise UsageError(f"control_label and test_label are both {labels[0]!r}: the "
                         "columns need two labels")
    sk = _stats_kwargs(samples, alpha, min_change)
    extra = dict(categories=cats, exclude_categories=exclude_cats,
                 normalize_names=bool(normalize_names), per_iteration=bool(per_iteration),
                 by=by_code)
    if rename is not None:
        if isinstance(rename, str):
            raise UsageError("Invalid argument rename (a list of 'REGEX=REPLACEMENT' rules).")
        extra["rename"] = list(rename)
    if include or exclude or sort or ascending or top or report is not None:
        extra.update(include=include, exclude=exclude, sort=sort,
                     ascending=bool(ascending), top=top or 0, labels=labels)
    if report is not None:
        extra["report"] = report
    return cls._compare(
        ctl, tst, control_rank, test_rank, control_iteration, test_iteration,
        device_type, use_short_name, hta_strict, stats, sk, extra, labels,
    )


class TraceDiff:
    """Compare two sets of traces: ``compare_traces``, ``ops_diff`` and two charts."""

    @classmethod
    def compare_traces(
        cls,
        control: Union[LabeledTrace, TraceDir],
        test: Union[LabeledTrace, TraceDir],
        control_rank: Optional[Union[int, List[int]]] = None,
        test_rank: Optional[Union[int, List[int]]] = None,
        control_iteration: Optional[Union[int, List[int]]] = None,
        test_iteration: Optional[Union[int, List[int]]] = None,
        device_type: DeviceType = DeviceType.ALL,
        use_short_name: bool = False,
        *,
        hta_strict: bool = False,
        threads: int = 0,
        stats: bool = False,
        samples: Optional[str] = None,
        alpha: Optional[float] = None,
        min_change: Optional[float] = None,
        per_iteration: bool = False,
        by: Optional[str] = None,
        categories: Optional[Union[str, List[str]]] = None,
        no_python: bool = False,
        normalize_names: bool = False,
        ns: Optional[bool] = None,
        rename: Optional[List[str]] = None,
        include: Optional[str] = None,
        exclude: Optional[str] = None,
        sort: Optional[str] = None,
        ascending: bool = False,
        top: Optional[int] = None,
        control_label: Optional[str] = None,
        test_label: Optional[str] = None,
        pids: Optional[Union[int, List[int]]] = None,
        match: str = "name",
        python_frames: bool = False,
    ) -> pd.DataFrame:
        """Counts and total durations (us) per operator/kernel name, side by side.

        Ranks and iterations: an int, a list of ints, or ``"all"``; default the
        lowest of each set. ``device_type``: ``DeviceType.CPU``, ``GPU`` or
        ``ALL``. The DataFrame is indexed by ``name`` (``short_name`` with
        ``use_short_name=True``), sorted, with the columns
        ``<control>_counts``, ``<control>_total_duration``, ``<test>_counts``,
        ``<test>_total_duration``, ``diff_counts``, ``diff_duration`` and
        ``counts_change_categories`` (``+``, ``-`` or ``=``), where the labels
        are the LabeledTraces' (``Control`` and ``Test`` for plain paths).

        ``stats=True`` adds the statistics columns of ``tracediff compare
        --stats`` (docs/stats.md), after those: ``samples``, ``<label>_n``,
        ``_mean``, ``_stdev``, ``_median`` per side, ``<label>_min`` and
        ``_max`` per side, ``diff_mean``, ``change_pct``, ``ci_low``,
        ``ci_high``, ``p_value``, ``q_value`` and ``verdict``; undefined
        numbers are NaN. ``samples``: ``"iteration"``, ``"call"`` or
        ``"auto"`` (default: iteration when both sides have 3 samples);
        ``alpha`` (default 0.05) and ``min_change`` (percent, default 1) as
        ``--alpha`` and ``--min-change``. ``df.attrs["stats"]`` says what was
        used.

        As ``tracediff compare``'s options of the same names:
        ``per_iteration=True`` (``--per-iteration``) divides each side's
        counts and durations by its selected (rank, iteration) samples (the
        counts become floats); ``by="op"``, ``"top-op"``, ``"annotation"``,
        ``"class"``, ``"module"`` or ``"stack"`` (``--by``; the last two need
        the traces' python stacks) makes a row what launched the GPU events (the
        index is then named ``op``, ``top_op``, ``annotation`` or ``class``;
        the GPU side only); ``categories="cpu_op,kernel"`` (or a list;
        ``--cat``) keeps only those event categories, ``no_python=True``
        (``--no-python``) all but ``python_function``;
        ``normalize_names=True`` (``--normalize-names``) gives one row to
        names that differ only by addresses, Python line numbers or step
        numbers. The DataFrame is then ``tracediff compare --format csv``'s.
        ``rename``: a list of ``'REGEX=REPLACEMENT'`` rules (``--rename``),
        applied in order before that folding.

        ``ns=True`` (``--ns``) keeps the traces' own resolution: durations in
        us with their decimals, nothing rounded; ``ns=False`` rounds decimal
        timestamps to whole us as HTA does; ``None`` (the default) follows
        ``HTA_DISABLE_NS_ROUNDING=1`` in the environment, as HTA does. A
        LabeledTrace read under the other rule is read again. Without it,
        when the rounding made some duration negative or moved a total by
        more than 5%, a TraceDiffWarning says so.

        The rows, as ``tracediff compare``'s ``--include``, ``--exclude``,
        ``--sort``, ``--ascending`` and ``--top``: ``include``/``exclude``
        keep/drop the names a regular expression (PCRE2, as Python's)
        finds; ``sort`` names a column (``name``, ``diff_duration``,
        ``abs_diff_duration``, ``<label>_counts``, ..., with ``stats``
        also ``q`` and ``change``; numbers largest first unless
        ``ascending``); ``top`` keeps the first rows after that.
        ``control_label``/``test_label`` (``--control-label``,
        ``--test-label``) replace the sides' labels in the column names.

        ``match="tree"`` (``--match tree``, docs/tree-match.md) matches the
        same work by the two call trees instead: one row per lowest common
        ancestor (LCA), numbered from 0 in the order found, with the columns
        of ``tracediff compare --match tree --format json``: ``lca``,
        ``path``, ``control_us``, ``test_us``, ``change_pct``,
        ``control_count``, ``test_count``, ``control_kernels``,
        ``test_kernels``, ``control_input_dims``, ``test_input_dims``,
        ``control_input_types``, ``test_input_types`` (None where the trace
        has no shapes) (and with ``stats=True`` its statistics fields);
        ``df.attrs["summary"]`` holds each side's GPU time and its parts,
        ``df.attrs["notes"]`` the notes (also warned). It takes the ranks,
        iterations, ``ns``, ``threads``, ``pids`` and the statistics
        arguments; the others must be left out. ``python_frames=True``
        (``--python-frames``, only with ``match="tree"``) makes the
        python_function frames of traces recorded with ``with_stack=True``
        nodes of the trees, so that paths and LCAs can be Python functions
        and modules.
        """
        if match not in ("name", "tree"):
            raise UsageError(f"Invalid argument match={match!r} (expected 'name' or 'tree').")
        if not isinstance(python_frames, bool):
            raise UsageError(f"Invalid argument python_frames={python_frames!r} "
                             "(expected True or False).")
        if python_frames and match != "tree":
            raise UsageError("python_frames= needs match='tree' (--python-frames needs "
                             "--match tree)")
        if match == "tree":
            rest = dict(device_type=device_type != DeviceType.ALL, use_short_name=use_short_name,
                        hta_strict=hta_strict, per_iteration=per_iteration, by=by,
                        categories=categories, no_python=no_python,
                        normalize_names=normalize_names, rename=rename, include=include,
                        exclude=exclude, sort=sort, ascending=ascending, top=top,
                        control_label=control_label, test_label=test_label)
            given = [k for k, v in rest.items() if v not in (None, False)]
            if given:
                raise UsageError("match='tree' takes the ranks, iterations, ns, threads, pids and "
                                 "the statistics arguments; leave out " + ", ".join(given))
            return _tree_match(control, test, control_rank, test_rank, control_iteration,
                               test_iteration, threads, ns, stats, samples, alpha, min_change,
                               pids=pids, python_frames=python_frames)
        return _compare_traces(
            cls, control, test, control_rank, test_rank, control_iteration, test_iteration, device_type, use_short_name,
            hta_strict=hta_strict,
            threads=threads,
            stats=stats,
            samples=samples,
            alpha=alpha,
            min_change=min_change,
            per_iteration=per_iteration,
            by=by,
            categories=categories,
            no_python=no_python,
            normalize_names=normalize_names,
            ns=ns,
            rename=rename,
            include=include,
            exclude=exclude,
            sort=sort,
            ascending=ascending,
            top=top,
            control_label=control_label,
            test_label=test_label,
            pids=pids,
        )

    @staticmethod
    def _compare(ctl, tst, cr, tr, ci, ti, device_type, short, hta_strict, stats=False,
                 sk=None, extra=None, labels=None) -> pd.DataFrame:
        _pandas()
        cl, tl = labels or (ctl.label, tst.label)
        kw = dict(extra or {})
        kw.setdefault("labels", (cl, tl))  # the notes' labels, as the columns'
        names, cc, tc, cd, td, cnotes, tnotes, key, st, view = _core.compare(
            ctl._set, tst._set, cr, tr, ci, ti, _device_code(device_type), bool(short),
            bool(hta_strict), stats=bool(stats), **(sk or {}), **kw,
        )
        _warn_notes(cnotes)
        _warn_notes(tnotes)
        _warn_rounding(cnotes)
        divided = bool(extra and extra["per_iteration"])
        cmiss = divided or 0 in cc
        tmiss = divided or 0 in tc
        c_counts = _counts_column(cc, cmiss)
        t_counts = _counts_column(tc, tmiss)
        c_dur = _duration_column(cd, cmiss)
        t_dur = _duration_column(td, tmiss)
        diff_counts = t_counts - c_counts
        index = pd.Index(names, dtype=object, name=key)
        df = pd.DataFrame(
            {
                f"{cl}_counts": c_counts,
                f"{cl}_total_duration": c_dur,
                f"{tl}_counts": t_counts,
                f"{tl}_total_duration": t_dur,
                "diff_counts": diff_counts,
                "diff_duration": t_dur - c_dur,
                "counts_change_categories": np.where(
                    diff_counts > 0, "+", np.where(diff_counts < 0, "-", "=")
                ).astype(object),
            },
            index=index,
        )
        if st is not None:
            _add_stats(df, st, cl, tl)
        if view is not None:  # the C library's filter, order and cut
            df = df.iloc[view]
        return df

    @classmethod
    def ops_diff(
        cls,
        control: Union[LabeledTrace, TraceDir],
        test: Union[LabeledTrace, TraceDir],
        control_rank: Optional[Union[int, List[int]]] = None,
        test_rank: Optional[Union[int, List[int]]] = None,
        control_iteration: Optional[Union[int, List[int]]] = None,
        test_iteration: Optional[Union[int, List[int]]] = None,
        device_type: DeviceType = DeviceType.ALL,
        *,
        hta_strict: bool = False,
        threads: int = 0,
        ns: Optional[bool] = None,
        pids: Optional[Union[int, List[int]]] = None,
    ) -> Dict[str, List[str]]:
        """The names (full names) in five lists, each sorted: ``added`` (only
        in test), ``deleted`` (only in control), ``increased``, ``decreased``
        and ``unchanged`` (in both; by count). ``ns`` and ``pids`` as
        compare_traces."""
        ctl, tst = _adapt(control, test, threads, ns, pids=pids)
        df = cls.compare_traces(
            ctl, tst, control_rank, test_rank, control_iteration, test_iteration, device_type,
            hta_strict=hta_strict, ns=ns,
        )
        c = df[f"{ctl.label}_counts"]
        t = df[f"{tst.label}_counts"]
        d = df["diff_counts"]
        pick = {
            "added": c.eq(0) & t.gt(0),
            "deleted": c.gt(0) & t.eq(0),
            "increased": c.gt(0) & d.gt(0),
            "decreased": t.gt(0) & d.lt(0),
            "unchanged": t.gt(0) & d.eq(0),
        }
        return {k: df.index[m.to_numpy()].tolist() for k, m in pick.items()}

    @classmethod
    def visualize_counts_diff(
        cls,
        df: pd.DataFrame,
        show_image: bool = True,
        export_image_path: Optional[str] = None,
    ) -> None:
        """Grouped bars of the counts (control, test, difference) per row of
        ``df`` (a ``compare_traces`` result, typically sorted and cut), in
        its order. ``export_image_path``: a .png, .svg or .pdf file.
        ``show_image``: inline in Jupyter, else as text."""
        _visualize(df, 0, show_image, export_image_path)

    @classmethod
    def visualize_duration_diff(
        cls,
        df: pd.DataFrame,
        show_image: bool = True,
        export_image_path: Optional[str] = None,
    ) -> None:
        """As ``visualize_counts_diff``, for the total durations (us)."""
        _visualize(df, 1, show_image, export_image_path)


# The statistics columns after the side labels, as tracediff compare --stats
# --format csv names them (src/present/out_text.c), in the C core's order.
_STATS_COLUMNS = (
    "{c}_n", "{t}_n", "{c}_mean", "{t}_mean", "{c}_stdev", "{t}_stdev", "{c}_median",
    "{t}_median", "{c}_min", "{c}_max", "{t}_min", "{t}_max", "diff_mean", "change_pct",
    "ci_low", "ci_high", "p_value", "q_value", "verdict", "shift_us", "shift_low", "shift_high",
    "reason",
)


def _add_stats(df: pd.DataFrame, st: dict, cl: str, tl: str) -> None:
    n = len(df.index)
    df["samples"] = np.array([st["samples"]] * n, dtype=object)
    for name, values in zip(_STATS_COLUMNS, st["columns"]):
        col = name.format(c=cl, t=tl)
        if name.endswith("_n"):
            df[col] = np.array(values, dtype=np.int64)
        elif name in ("verdict", "reason"):
            df[col] = np.array(values, dtype=object)
        else:
            df[col] = np.array(values, dtype=np.float64)
    df.attrs["stats"] = {k: st[k] for k in ("samples", "alpha", "min_change",
                                             "control_samples", "test_samples")}
    if st["too_few"]:
        side, k = (cl, st["control_samples"]) if st["control_samples"] < 2 else \
            (tl, st["test_samples"])
        warnings.warn(
            f"samples='iteration': {side} has {k} (rank, iteration) sample"
            f"{'' if k == 1 else 's'} (need 2 a side): every row is n/a; select more "
            "iterations or ranks, or use samples='call'",
            TraceDiffWarning,
            stacklevel=4,
        )


_TITLES = ("Ops Count Comparison", "Ops Duration Comparison")


def _labels(df: pd.DataFrame) -> List[str]:
    labels = [c[: -len("_total_duration")] for c in df.columns
              if isinstance(c, str) and c.endswith("_total_duration")]
    if len(labels) < 2:
        raise UsageError("df must be a result of TraceDiff.compare_traces "
                         "(two <label>_total_duration columns)")
    return labels[:2]


def _visualize(df: pd.DataFrame, kind: int, show_image: bool, path: Optional[str]) -> None:
    _pandas()
    if not isinstance(df, pd.DataFrame):
        raise UsageError(f"df must be a pandas DataFrame, not {type(df).__name__}")
    cl, tl = _labels(df)
    if len(df.index) == 0:
        raise UsageError(f"{('visualize_counts_diff', 'visualize_duration_diff')[kind]}: df has "
                         "no rows, so there is nothing to draw (did a selection or filter "
                         "leave every row out?)")
    suffix = "_counts" if kind == 0 else "_total_duration"

    def draw(to: str) -> None:
        _core.chart(
            to, kind, [str(n) for n in df.index],
            df[f"{cl}_counts"].tolist(), df[f"{tl}_counts"].tolist(),
            df[f"{cl}_total_duration"].tolist(), df[f"{tl}_total_duration"].tolist(),
            cl, tl,
        )

    if path:
        draw(os.fspath(path))
    if not show_image:
        return
    ipython = _ipython()
    if ipython is None:
        diff = df["diff_counts" if kind == 0 else "diff_duration"]
        names = [n if len(str(n)) <= 60 else str(n)[:57] + "..." for n in df.index]
        text = pd.DataFrame(
            {cl: df[cl + suffix].to_numpy(), tl: df[tl + suffix].to_numpy(),
             "Difference": diff.to_numpy()},
            index=pd.Index(names, name=df.index.name),
        )
        print(_TITLES[kind] + ("" if kind == 0 else " (us)"))
        print(text.to_string())
        return
    display, Image, SVG = ipython
    if path and str(path).lower().endswith(".svg"):
        display(SVG(filename=os.fspath(path)))
        return
    if path and str(path).lower().endswith(".png"):
        display(Image(filename=os.fspath(path)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "chart.png")
        draw(png)
        with open(png, "rb") as f:
            display(Image(data=f.read(), format="png"))


def _ipython():
    """IPython's display functions when running under a notebook kernel."""
    if "IPython" not in sys.modules:
        return None
    try:
        from IPython import get_ipython
        from IPython.display import SVG, Image, display
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return None
    return display, Image, SVG
