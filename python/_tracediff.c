/*
 * tracediff._tracediff: the CPython extension over the public C API.
 *
 * Small on purpose: it opens trace sets, computes a comparison (with its
 * statistics) or the CI gate and hands the rows back as Python lists (the
 * pure-Python package builds the DataFrames), writes and reads summaries,
 * and draws charts from rows the caller gives. Loading, comparing and the
 * summaries run with the GIL released; the Python objects passed in stay referenced by the
 * caller for the whole call, so nothing they own can go away meanwhile.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tracediff.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static PyObject *TraceError; /* every library failure */
static PyObject *UsageError; /* TD_EUSAGE and bad arguments: also a ValueError */

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */

static PyObject *raise_td(const td_error *e)
{
    PyObject *type = e->code == TD_EUSAGE ? UsageError : TraceError;
    const char *msg = e->msg[0] ? e->msg : td_strerror(e->code);
    PyObject *text;
    if (e->path[0] && e->has_offset)
        text =
            PyUnicode_FromFormat("%s: byte %llu: %s", e->path, (unsigned long long)e->offset, msg);
    else if (e->path[0])
        text = PyUnicode_FromFormat("%s: %s", e->path, msg);
    else
        text = PyUnicode_FromString(msg);
    if (!text)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(type, text);
    Py_DECREF(text);
    if (!exc)
        return NULL;
    PyObject *offset = e->has_offset ? PyLong_FromUnsignedLongLong(e->offset) : Py_NewRef(Py_None);
    PyObject *path = e->path[0] ? PyUnicode_DecodeFSDefault(e->path) : Py_NewRef(Py_None);
    PyObject *message = PyUnicode_DecodeUTF8(msg, (Py_ssize_t)strlen(msg), "replace");
    PyObject *code = PyUnicode_FromString(td_strerror(e->code));
    if (offset && path && message && code && PyObject_SetAttrString(exc, "offset", offset) == 0 &&
        PyObject_SetAttrString(exc, "path", path) == 0 &&
        PyObject_SetAttrString(exc, "file", path) == 0 &&
        PyObject_SetAttrString(exc, "message", message) == 0 &&
        PyObject_SetAttrString(exc, "code", code) == 0)
        PyErr_SetObject(type, exc);
    Py_XDECREF(offset);
    Py_XDECREF(path);
    Py_XDECREF(message);
    Py_XDECREF(code);
    Py_DECREF(exc);
    return NULL;
}

/* The text a command wrote into an open_memstream: f closed, then its
 * bytes as str (surrogateescape); or, raised, the command's error (rc < 0)
 * or out of memory (a failed close). *buf stays the caller's to free. */
static PyObject *memstream_text(FILE *f, char **buf, size_t *len, int rc, const td_error *err)
{
    if (fclose(f) != 0 && rc == 0)
        return PyErr_NoMemory();
    if (rc < 0)
        return raise_td(err);
    return PyUnicode_DecodeUTF8(*buf, (Py_ssize_t)*len, "surrogateescape");
}

/* ------------------------------------------------------------------------ */
/* Set: one opened trace set                                                 */

typedef struct {
    PyObject_HEAD td_set *set;
    int attributed;    /* opened with want_attribution (needed by compare's by) */
    int breakdown;     /* opened with want_breakdown (needed by breakdown) */
    int roofline;      /* opened with want_roofline (needed by roofline) */
    int stacks;        /* opened with want_stacks (needed by by module or stack) */
    PyObject *pids;    /* the processes read (open_sets' pids, a tuple), or None */
    int tree;          /* opened with want_tree (needed by tree_match) */
    int python_frames; /* with tree: python_function frames in the trees (--python-frames) */
    PyObject *source;  /* the path open_sets was given (a summary's, not its traces') */
} SetObject;

static void Set_dealloc(SetObject *self)
{
    td_set_free(self->set);
    Py_XDECREF(self->pids);
    Py_XDECREF(self->source);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *int64_list(const int64_t *v, size_t n)
{
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    }
    return l;
}

static PyObject *ids_list(const td_set *s, size_t (*get)(const td_set *, int64_t *, size_t))
{
    size_t n = get(s, NULL, 0);
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return PyErr_NoMemory();
    get(s, v, n);
    PyObject *l = int64_list(v, n);
    free(v);
    return l;
}

static PyObject *Set_ranks(SetObject *self, PyObject *Py_UNUSED(ignored))
{
    return ids_list(self->set, td_set_ranks);
}

static PyObject *Set_iterations(SetObject *self, PyObject *Py_UNUSED(ignored))
{
    return ids_list(self->set, td_set_iterations);
}

static PyObject *Set_files(SetObject *self, PyObject *Py_UNUSED(ignored))
{
    size_t n = td_set_nfiles(self->set);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        td_file_info fi;
        td_set_file_info(self->set, i, &fi);
        PyObject *d = Py_BuildValue(
            "{s:O&,s:L,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:z}", "path", PyUnicode_DecodeFSDefault,
            fi.path, "rank", (long long)fi.rank, "file_bytes", (unsigned long long)fi.file_bytes,
            "json_bytes", (unsigned long long)fi.json_bytes, "events_total",
            (unsigned long long)fi.events_total, "events_counted",
            (unsigned long long)fi.events_counted, "events_cpu", (unsigned long long)fi.events_cpu,
            "events_gpu", (unsigned long long)fi.events_gpu, "events_no_launch",
            (unsigned long long)fi.events_no_launch, "events_skipped",
            (unsigned long long)fi.events_skipped, "steps", (unsigned long long)fi.steps,
            "device_name", fi.device_name);
        if (!d) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, d);
    }
    return l;
}

static PyObject *Set_get_source(SetObject *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->source);
}

static PyObject *Set_get_path(SetObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_DecodeFSDefault(td_set_path(self->set));
}

/* Set.events(ranks, iterations, device, symbols): the selected events as
 * columns (bytes of int64 or float64: rank, iteration, dur, stream, name,
 * cat), names and categories as ids in symbols (a dict str -> id that new
 * strings are added to, ids counting up from its size). The walk runs
 * without the GIL; the strings are interned after it. */
typedef struct {
    int64_t *rank, *iter;
    double *dur, *stream;
    const char **name, **cat;
    size_t n, cap;
} ev_cols;

static int ev_take(void *ud, const td_event_info *ev)
{
    ev_cols *c = ud;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
#define GROW(f)                                                                                    \
    do {                                                                                           \
        void *p_ = realloc((void *)c->f, cap * sizeof *c->f);                                      \
        if (!p_)                                                                                   \
            return TD_ENOMEM;                                                                      \
        c->f = p_;                                                                                 \
    } while (0)
        GROW(rank);
        GROW(iter);
        GROW(dur);
        GROW(stream);
        GROW(name);
        GROW(cat);
#undef GROW
        c->cap = cap;
    }
    size_t i = c->n++;
    c->rank[i] = ev->rank;
    c->iter[i] = ev->iteration;
    c->dur[i] = ev->dur;
    /* the library keeps whether a device event ran on stream 0, not its
     * stream: NaN for the others */
    c->stream[i] = !ev->gpu ? -1.0 : ev->stream0 ? 0.0 : NAN;
    c->name[i] = ev->name;
    c->cat[i] = ev->cat;
    return 0;
}

static void ev_cols_free(ev_cols *c)
{
    free(c->rank);
    free(c->iter);
    free(c->dur);
    free(c->stream);
    free((void *)c->name);
    free((void *)c->cat);
}

/* The id of s in symbols (added when new); -1 with an exception set. */
static long long sym_id(PyObject *symbols, const char *s)
{
    PyObject *key = PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
    if (!key)
        return -1;
    PyObject *v = PyDict_GetItemWithError(symbols, key);
    long long id = -1;
    if (v) {
        id = PyLong_AsLongLong(v);
    } else if (!PyErr_Occurred()) {
        id = (long long)PyDict_Size(symbols);
        PyObject *x = PyLong_FromLongLong(id);
        if (!x || PyDict_SetItem(symbols, key, x) < 0)
            id = -1;
        Py_XDECREF(x);
    }
    Py_DECREF(key);
    return id;
}

/* Per distinct string pointer (the library's strings stay put while the set
 * lives), its id: an open-addressing table over the pointers. */
static int intern_col(PyObject *symbols, const char **ptrs, size_t n, int64_t *out)
{
    size_t cap = 64;
    while (cap < 2 * n)
        cap *= 2;
    const char **keys = calloc(cap, sizeof *keys);
    int64_t *ids = malloc(cap * sizeof *ids);
    if (!keys || !ids) {
        free(keys);
        free(ids);
        PyErr_NoMemory();
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t h = ((uintptr_t)ptrs[i] * 0x9E3779B97F4A7C15u >> 7) & (cap - 1);
        while (keys[h] && keys[h] != ptrs[i])
            h = (h + 1) & (cap - 1);
        if (!keys[h]) {
            long long id = sym_id(symbols, ptrs[i]);
            if (id < 0) {
                rc = -1;
                break;
            }
            keys[h] = ptrs[i];
            ids[h] = id;
        }
        out[i] = ids[h];
    }
    free(keys);
    free(ids);
    return rc;
}

static int int64_array(PyObject *o, int64_t **out, size_t *n, const char *what)
{
    PyObject *fast = PySequence_Fast(o, what);
    if (!fast)
        return -1;
    *n = (size_t)PySequence_Fast_GET_SIZE(fast);
    *out = malloc((*n ? *n : 1) * sizeof **out);
    if (!*out) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        (*out)[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
        if ((*out)[i] == -1 && PyErr_Occurred()) {
            free(*out);
            *out = NULL;
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static PyObject *Set_events(SetObject *self, PyObject *args)
{
    PyObject *ranks_o, *iters_o, *symbols;
    int device;
    if (!PyArg_ParseTuple(args, "OOiO!:events", &ranks_o, &iters_o, &device, &PyDict_Type,
                          &symbols))
        return NULL;
    int64_t *ranks = NULL, *iters = NULL;
    size_t nranks = 0, niters = 0;
    ev_cols c = {0};
    PyObject *result = NULL;
    if (int64_array(ranks_o, &ranks, &nranks, "ranks must be a sequence") < 0 ||
        int64_array(iters_o, &iters, &niters, "iterations must be a sequence") < 0)
        goto done;
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_set_events(self->set, ranks, nranks, iters, niters,
                                              (td_device)device, ev_take, &c, &err);
    Py_END_ALLOW_THREADS if (rc < 0)
    {
        if (rc == TD_ENOMEM && !err.code)
            PyErr_NoMemory();
        else
            raise_td(&err);
        goto done;
    }
    size_t n = c.n;
    static const char none[1];
#define COL(p) (p ? (const char *)(p) : none)
    int64_t *name_ids = malloc((n ? n : 1) * sizeof *name_ids);
    int64_t *cat_ids = malloc((n ? n : 1) * sizeof *cat_ids);
    if (!name_ids || !cat_ids)
        PyErr_NoMemory();
    else if (intern_col(symbols, c.name, n, name_ids) == 0 &&
             intern_col(symbols, c.cat, n, cat_ids) == 0)
        result = Py_BuildValue("{s:y#,s:y#,s:y#,s:y#,s:y#,s:y#}", "rank", COL(c.rank),
                               (Py_ssize_t)(n * 8), "iteration", COL(c.iter), (Py_ssize_t)(n * 8),
                               "dur", COL(c.dur), (Py_ssize_t)(n * 8), "stream", COL(c.stream),
                               (Py_ssize_t)(n * 8), "name", COL(name_ids), (Py_ssize_t)(n * 8),
                               "cat", COL(cat_ids), (Py_ssize_t)(n * 8));
#undef COL
    free(name_ids);
    free(cat_ids);
done:
    free(ranks);
    free(iters);
    ev_cols_free(&c);
    return result;
}

static PyMethodDef Set_methods[] = {
    {"ranks", (PyCFunction)Set_ranks, METH_NOARGS, "Sorted, distinct ranks of the set."},
    {"iterations", (PyCFunction)Set_iterations, METH_NOARGS,
     "Sorted, distinct iterations (ProfilerStep numbers) of the set."},
    {"files", (PyCFunction)Set_files, METH_NOARGS, "One dict per file, by rank."},
    {"events", (PyCFunction)Set_events, METH_VARARGS,
     "events(ranks, iterations, device, symbols) -> dict of column bytes."},
    {NULL, NULL, 0, NULL}};

static PyObject *Set_get_attributed(SetObject *self, void *Py_UNUSED(closure))
{
    return PyBool_FromLong(self->attributed);
}

static PyObject *Set_get_ns(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(td_set_ns(self->set));
}

static PyObject *Set_get_breakdown(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->breakdown);
}

static PyObject *Set_get_roofline(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->roofline);
}

static PyObject *Set_get_stacks(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->stacks);
}

static PyObject *Set_get_pids(SetObject *self, void *Py_UNUSED(c))
{
    return Py_NewRef(self->pids ? self->pids : Py_None);
}

static PyObject *Set_get_tree(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->tree);
}

static PyObject *Set_get_python_frames(SetObject *self, void *Py_UNUSED(c))
{
    return PyBool_FromLong(self->python_frames);
}

static PyGetSetDef Set_getset[] = {
    {"tree", (getter)Set_get_tree, NULL,
     "Whether the set was opened with want_tree (tree_match needs it).", NULL},
    {"python_frames", (getter)Set_get_python_frames, NULL,
     "Whether its call trees hold the python_function frames (open_sets' python_frames=).", NULL},
    {"roofline", (getter)Set_get_roofline, NULL,
     "Whether the set was opened with want_roofline (roofline needs it).", NULL},
    {"stacks", (getter)Set_get_stacks, NULL,
     "Whether the set was opened with want_stacks (rows by module or stack need it).", NULL},
    {"breakdown", (getter)Set_get_breakdown, NULL,
     "Whether the set was opened with want_breakdown (breakdown needs it).", NULL},
    {"ns", (getter)Set_get_ns, NULL,
     "Whether the set's durations keep the traces' own resolution (else HTA's rounding).", NULL},
    {"path", (getter)Set_get_path, NULL, "The set's path.", NULL},
    {"source", (getter)Set_get_source, NULL,
     "The path open_sets was given: a summary's run where the set came from one "
     "(path is then the traces it was made from); sets are opened again from it.",
     NULL},
    {"pids", (getter)Set_get_pids, NULL,
     "The processes read (a tuple of pids, open_sets' pids=), or None for every one.", NULL},
    {"attributed", (getter)Set_get_attributed, NULL,
     "Whether the set was opened with want_attribution (compare's by needs it).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SetType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tracediff._tracediff.Set",
    .tp_basicsize = sizeof(SetObject),
    .tp_dealloc = (destructor)Set_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An opened trace set (made by open_sets()).",
    .tp_methods = Set_methods,
    .tp_getset = Set_getset,
};

/* pids= of open_sets: None, or a non-empty sequence of process ids (ints,
 * 0 or more), as a tuple and as an array (malloc'd); -1 with an error. */
static int pids_arg(PyObject *arg, PyObject **tuple, int64_t **v, size_t *n)
{
    *tuple = NULL;
    *v = NULL;
    *n = 0;
    if (arg == Py_None)
        return 0;
    PyObject *t = PyLong_Check(arg) ? PyTuple_Pack(1, arg) : PySequence_Tuple(arg);
    if (!t) {
        PyErr_Clear();
        PyErr_SetString(UsageError, "pids: expected a process id or a list of them (as info "
                                    "lists them)");
        return -1;
    }
    Py_ssize_t k = PyTuple_GET_SIZE(t);
    *v = malloc(((size_t)k + 1) * sizeof **v);
    if (!*v) {
        Py_DECREF(t);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *x = PyTuple_GET_ITEM(t, i);
        long long p = PyLong_Check(x) && !PyBool_Check(x) ? PyLong_AsLongLong(x) : -1;
        if (p < 0) {
            PyErr_Clear();
            PyErr_Format(UsageError,
                         "pids: expected process ids (0 or more, as info lists them), not %R", x);
            Py_DECREF(t);
            free(*v);
            *v = NULL;
            return -1;
        }
        (*v)[i] = (int64_t)p;
    }
    if (k == 0) {
        Py_DECREF(t);
        free(*v);
        *v = NULL;
        PyErr_SetString(UsageError, "pids: expected at least one process id");
        return -1;
    }
    *tuple = t;
    *n = (size_t)k;
    return 0;
}

/* The library's errors on --pid name the option as the command spells it;
 * here the argument is pids=: each "--pid" of err's message is written
 * "pids=", and "--pid 12" "pids=12" (never longer: it always fits). */
static void pids_words(td_error *err)
{
    char *p;
    while ((p = strstr(err->msg, "--pid")) != NULL) {
        memcpy(p, "pids=", 5);
        if (p[5] == ' ' && p[6] >= '0' && p[6] <= '9')
            memmove(p + 5, p + 6, strlen(p + 6) + 1);
    }
}

/* open_sets(paths, threads=0, want_attribution=False, ..., pids=None) ->
 * list of Set, all files read at once; pids: the processes to read of each
 * Nsight Systems or rocpd export (td_open_opts.pids, tracediff --pid). */
static PyObject *open_sets(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"paths",
                             "threads",
                             "want_attribution",
                             "ns",
                             "want_breakdown",
                             "want_roofline",
                             "want_stacks",
                             "pids",
                             "want_tree",
                             "python_frames",
                             NULL};
    PyObject *seq, *result = NULL, *ns_arg = Py_None, *pids_in = Py_None, *pids = NULL;
    int threads = 0, attributed = 0, breakdown = 0, roofline = 0, stacks = 0, tree = 0;
    int python_frames = 0;
    int64_t *pidv = NULL;
    size_t npids = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ipOpppOpp:open_sets", kwlist, &seq, &threads,
                                     &attributed, &ns_arg, &breakdown, &roofline, &stacks, &pids_in,
                                     &tree, &python_frames))
        return NULL;
    if (pids_arg(pids_in, &pids, &pidv, &npids) < 0)
        return NULL;
    attributed |= stacks; /* stacks are kept with the attribution */
    /* ns=None: as HTA, HTA_DISABLE_NS_ROUNDING=1 in the environment. */
    int ns = ns_arg == Py_None ? td_env_ns() : PyObject_IsTrue(ns_arg);
    PyObject *fast = ns < 0 ? NULL : PySequence_Fast(seq, "paths must be a sequence");
    if (!fast) {
        Py_XDECREF(pids);
        free(pidv);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **enc = calloc((size_t)n + 1, sizeof *enc);
    const char **paths = calloc((size_t)n + 1, sizeof *paths);
    td_set **sets = calloc((size_t)n + 1, sizeof *sets);
    if (!enc || !paths || !sets) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &enc[i]))
            goto done;
        paths[i] = PyBytes_AS_STRING(enc[i]);
    }
    td_open_opts opts = TD_OPEN_OPTS_INIT;
    opts.threads = threads;
    opts.want_attribution = attributed;
    opts.want_breakdown = breakdown;
    opts.want_roofline = roofline; /* with want_attribution: its GPU time comes from it */
    opts.want_stacks = stacks;
    opts.want_tree = tree;
    python_frames = tree && python_frames; /* the frames are nodes of the trees */
    opts.tree_python_frames = python_frames;
    opts.ns = ns;
    opts.pids = pidv;
    opts.npids = npids;
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_sets_open(sets, paths, (size_t)n, &opts, &err);
    Py_END_ALLOW_THREADS if (rc < 0)
    {
        pids_words(&err);
        raise_td(&err);
        goto done;
    }
    result = PyList_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        SetObject *o = result ? PyObject_New(SetObject, &SetType) : NULL;
        if (!o) {
            for (Py_ssize_t j = i; j < n; j++)
                td_set_free(sets[j]);
            Py_CLEAR(result);
            break;
        }
        o->set = sets[i];
        o->attributed = attributed;
        o->breakdown = breakdown;
        o->roofline = roofline;
        o->stacks = stacks;
        o->pids = Py_NewRef(pids ? pids : Py_None);
        o->tree = tree;
        o->python_frames = python_frames;
        o->source = Py_NewRef(PySequence_Fast_GET_ITEM(fast, i));
        PyList_SET_ITEM(result, i, (PyObject *)o);
    }
done:
    for (Py_ssize_t i = 0; enc && i < n; i++)
        Py_XDECREF(enc[i]);
    free(enc);
    free(paths);
    free(sets);
    Py_DECREF(fast);
    Py_XDECREF(pids);
    free(pidv);
    return result;
}

/* ------------------------------------------------------------------------ */
/* compare(): the comparison rows as lists                                   */

/* None: the default; "all"; an int; or a sequence of ints. */
static int to_list(PyObject *o, td_list *out, const char *what)
{
    memset(out, 0, sizeof *out);
    if (o == Py_None)
        return 0;
    if (PyUnicode_Check(o)) {
        if (PyUnicode_CompareWithASCIIString(o, "all") == 0) {
            out->all = 1;
            return 0;
        }
        /* Iterations only: all but the lowest (the warm-up). */
        if (strstr(what, "iteration") && PyUnicode_CompareWithASCIIString(o, "steady") == 0) {
            out->steady = 1;
            return 0;
        }
    } else if (PyLong_Check(o) && !PyBool_Check(o)) {
        long long v = PyLong_AsLongLong(o);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (!(out->v = malloc(sizeof *out->v)))
            return PyErr_NoMemory(), -1;
        out->v[0] = v;
        out->n = 1;
        return 0;
    } else if (PyList_Check(o) || PyTuple_Check(o) || PyRange_Check(o)) {
        PyObject *fast = PySequence_Fast(o, what);
        if (!fast)
            return -1;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        if (n == 0) {
            Py_DECREF(fast);
            PyErr_Format(UsageError, "Invalid argument %s=[] (an empty list).", what);
            return -1;
        }
        out->v = malloc((size_t)n * sizeof *out->v);
        if (!out->v) {
            Py_DECREF(fast);
            return PyErr_NoMemory(), -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PySequence_Fast_GET_ITEM(fast, i);
            long long v = -1;
            if (!PyLong_Check(x) || PyBool_Check(x) ||
                ((v = PyLong_AsLongLong(x)) == -1 && PyErr_Occurred())) {
                Py_DECREF(fast);
                td_list_clear(out);
                if (!PyErr_Occurred())
                    PyErr_Format(UsageError, "Invalid type for argument `%s` %R.", what, o);
                return -1;
            }
            out->v[i] = v;
        }
        out->n = (size_t)n;
        Py_DECREF(fast);
        return 0;
    }
    PyErr_Format(UsageError, "Invalid type for argument `%s` %R.", what, o);
    return -1;
}

static PyObject *name_str(const td_row *r)
{
    return PyUnicode_DecodeUTF8(r->name, (Py_ssize_t)r->name_len, "surrogateescape");
}

/* A side's notes: "texts", the notes a reader is owed about the side in the
 * library's words (td_diff_side_note, as the CLI prints them after "note:"
 * and the report lists them), the counts behind some of them, and
 * "rounding", the diff's one note on HTA's rounding (td_diff_rounding_note,
 * "" when none), the same in both sides' dicts. */
static PyObject *notes_dict(const td_diff *d, td_side side, const td_set *set, const char *label)
{
    const td_side_notes *n = td_diff_notes(d, side);
    char round[256];
    td_diff_rounding_note(d, round, sizeof round);
    PyObject *texts = PyList_New(0);
    char small[1024];
    for (size_t i = 0; texts; i++) {
        size_t len = td_diff_side_note(d, side, set, label, i, small, sizeof small);
        if (!len)
            break;
        char *text = len < sizeof small ? small : malloc(len + 1);
        if (!text) {
            Py_CLEAR(texts);
            PyErr_NoMemory();
            break;
        }
        if (text != small)
            td_diff_side_note(d, side, set, label, i, text, len + 1);
        PyObject *t = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
        if (text != small)
            free(text);
        if (!t || PyList_Append(texts, t) < 0)
            Py_CLEAR(texts);
        Py_XDECREF(t);
    }
    if (!texts)
        return NULL;
    return Py_BuildValue(
        "{s:O,s:K,s:K,s:K,s:N,s:N,s:K,s:K,s:s,s:N}", "whole_trace",
        n->whole_trace ? Py_True : Py_False, "no_launch", (unsigned long long)n->no_launch,
        "strict_dropped", (unsigned long long)n->strict_dropped, "events",
        (unsigned long long)n->events, "ranks", int64_list(n->ranks, n->nranks), "iterations",
        int64_list(n->iters, n->niters), "round_negative", (unsigned long long)n->round_negative,
        "round_moved_rows", (unsigned long long)n->round_moved_rows, "rounding", round, "texts",
        texts);
}

/* A row's count of a side: whole, or divided (per_iteration) as a float. */
static PyObject *count_obj(const td_diff *d, const td_row *r, td_side side, int divided)
{
    return divided ? PyFloat_FromDouble(td_row_count(d, r, side))
                   : PyLong_FromUnsignedLongLong(r->counts[side]);
}

/* The rows as five lists (names, control counts, test counts, control
 * durations, test durations), the two sides' notes (sets and labels: the
 * two sides', a label NULL for "control" or "test") and the key column's
 * title ("name", "short_name", "op"...). With per_iteration the counts are
 * divided (floats), as the CLI prints them. */
static PyObject *diff_result(const td_diff *d, const td_set *const sets[2],
                             const char *const labels[2])
{
    size_t n = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    PyObject *cols[5] = {NULL};
    PyObject *result = NULL;
    int divided = td_diff_divisor(d, TD_CONTROL) != 1 || td_diff_divisor(d, TD_TEST) != 1;
    for (int c = 0; c < 5; c++)
        if (!(cols[c] = PyList_New((Py_ssize_t)n)))
            goto done;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[i];
        PyObject *v[5] = {name_str(r), count_obj(d, r, TD_CONTROL, divided),
                          count_obj(d, r, TD_TEST, divided), PyFloat_FromDouble(r->duration[0]),
                          PyFloat_FromDouble(r->duration[1])};
        int bad = 0;
        for (int c = 0; c < 5; c++) {
            if (!v[c])
                bad = 1;
            else
                PyList_SET_ITEM(cols[c], (Py_ssize_t)i, v[c]);
        }
        if (bad)
            goto done;
    }
    result = Py_BuildValue("(OOOOONNs)", cols[0], cols[1], cols[2], cols[3], cols[4],
                           notes_dict(d, TD_CONTROL, sets[0], labels[0] ? labels[0] : "control"),
                           notes_dict(d, TD_TEST, sets[1], labels[1] ? labels[1] : "test"),
                           td_diff_key_name(d));
done:
    for (int c = 0; c < 5; c++)
        Py_XDECREF(cols[c]);
    return result;
}

/* The selection and statistics arguments shared by compare() and check(). */
typedef struct cmp_args {
    SetObject *ctl, *tst;
    td_compare_opts o;
    td_stats_opts so;
    int stats;
    /* The flags as parsed ("p" stores an int: never into a bool field). */
    int short_names, hta_strict, exclude_categories, normalize_names, per_iteration;
    PyObject *rename;    /* None or a list of "REGEX=REPLACEMENT" rules (borrowed) */
    td_renames *renames; /* compiled from it (o.renames) */
} cmp_args;

static void cmp_args_clear(cmp_args *a)
{
    td_renames_free(a->renames);
    a->renames = NULL;
    td_list_clear(&a->o.control_ranks);
    td_list_clear(&a->o.test_ranks);
    td_list_clear(&a->o.control_iters);
    td_list_clear(&a->o.test_iters);
}

/* Fills a from the parsed arguments: the four selections, device (0-2),
 * samples (0 auto, 1 iteration, 2 call), alpha (0: the default) and
 * min_change (None: the default). */
static int cmp_args_fill(cmp_args *a, PyObject *sel[4], int device, int samples, double alpha,
                         PyObject *min_change)
{
    if (device < TD_DEVICE_ALL || device > TD_DEVICE_GPU) {
        PyErr_Format(UsageError, "device must be 0 (all), 1 (cpu) or 2 (gpu)");
        return -1;
    }
    if (samples < TD_SAMPLES_AUTO || samples > TD_SAMPLES_CALL) {
        PyErr_Format(UsageError, "samples must be 0 (auto), 1 (iteration) or 2 (call)");
        return -1;
    }
    if (!(alpha == 0 || (alpha > 0 && alpha < 1))) {
        char buf[64];
        snprintf(buf, sizeof buf, "%g", alpha);
        PyErr_Format(UsageError,
                     "Invalid argument alpha=%s (a number above 0 and below 1, "
                     "e.g. 0.05).",
                     buf);
        return -1;
    }
    a->o.device = (td_device)device;
    a->o.short_names = a->short_names;
    a->o.hta_strict = a->hta_strict;
    a->o.exclude_categories = a->exclude_categories;
    a->o.normalize_names = a->normalize_names;
    a->o.per_iteration = a->per_iteration;
    a->so.samples = (td_samples)samples;
    a->so.alpha = alpha;
    if (min_change != Py_None) {
        double m = PyFloat_AsDouble(min_change);
        if (m == -1.0 && PyErr_Occurred())
            return -1;
        if (!(m >= 0 && m <= 1e9)) {
            PyErr_Format(UsageError,
                         "Invalid argument min_change=%R (a percentage of 0 or "
                         "more, e.g. 1).",
                         min_change);
            return -1;
        }
        a->so.min_change = m;
        a->so.has_min_change = 1;
    }
    if (a->rename && a->rename != Py_None) {
        PyObject *rf = PyUnicode_Check(a->rename)
                           ? NULL
                           : PySequence_Fast(a->rename, "rename must be a list of rules");
        if (!rf) {
            if (!PyErr_Occurred())
                PyErr_Format(UsageError, "rename must be a list of 'REGEX=REPLACEMENT' rules");
            return -1;
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(rf); i++) {
            const char *rule = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(rf, i));
            td_error rerr = {0};
            if (!rule || td_renames_add(&a->renames, rule, &rerr) < 0) {
                if (rule)
                    raise_td(&rerr);
                Py_DECREF(rf);
                return -1;
            }
        }
        Py_DECREF(rf);
        a->o.renames = a->renames;
    }
    if (to_list(sel[0], &a->o.control_ranks, "control_rank") < 0 ||
        to_list(sel[1], &a->o.test_ranks, "test_rank") < 0 ||
        to_list(sel[2], &a->o.control_iters, "control_iteration") < 0 ||
        to_list(sel[3], &a->o.test_iters, "test_iteration") < 0)
        return -1;
    return 0;
}

/* The diff and, when asked, its statistics, with the GIL released. */
static int cmp_compute(const cmp_args *a, td_diff **d, td_stats **st)
{
    td_error err = {0};
    int rc;
    *d = NULL;
    *st = NULL;
    Py_BEGIN_ALLOW_THREADS rc = td_diff_compute(d, a->ctl->set, a->tst->set, &a->o, &err);
    if (rc == 0 && a->stats)
        rc = td_stats_compute(st, *d, a->ctl->set, a->tst->set, &a->o, &a->so, &err);
    Py_END_ALLOW_THREADS if (rc < 0)
    {
        td_stats_free(*st);
        td_diff_free(*d);
        *st = NULL;
        *d = NULL;
        raise_td(&err);
        return -1;
    }
    return 0;
}

/* Sets l[i] to v (stolen); nonzero when v is NULL. */
static int put(PyObject *l, size_t i, PyObject *v)
{
    if (!v)
        return 1;
    PyList_SET_ITEM(l, (Py_ssize_t)i, v);
    return 0;
}

/* The statistics columns (n per side, then 16 numbers, then the verdict,
 * the three numbers of the shift and the reason, as td_row_stats holds
 * them; undefined numbers are NaN) and what was used. */
#define STATS_NUMS 16
#define STATS_COLS (STATS_NUMS + 7)
static PyObject *stats_result(const td_stats *st, size_t n)
{
    const td_row_stats *rs = td_stats_rows(st);
    PyObject *cols[STATS_COLS] = {NULL}, *result = NULL;
    int bad = 0;
    for (int c = 0; c < STATS_COLS; c++)
        bad |= !(cols[c] = PyList_New((Py_ssize_t)n));
    for (size_t i = 0; !bad && i < n; i++) {
        const td_row_stats *r = &rs[i];
        const double v[STATS_NUMS] = {r->mean[0],   r->mean[1],   r->stdev[0],  r->stdev[1],
                                      r->median[0], r->median[1], r->min[0],    r->max[0],
                                      r->min[1],    r->max[1],    r->diff_mean, r->change_pct,
                                      r->ci_low,    r->ci_high,   r->p,         r->q};
        bad |= put(cols[0], i, PyLong_FromUnsignedLongLong(r->n[0]));
        bad |= put(cols[1], i, PyLong_FromUnsignedLongLong(r->n[1]));
        for (int k = 0; k < STATS_NUMS; k++)
            bad |= put(cols[2 + k], i, PyFloat_FromDouble(v[k]));
        bad |= put(cols[STATS_NUMS + 2], i, PyUnicode_FromString(td_verdict_name(r->verdict)));
        bad |= put(cols[STATS_NUMS + 3], i, PyFloat_FromDouble(r->hl_shift));
        bad |= put(cols[STATS_NUMS + 4], i, PyFloat_FromDouble(r->shift_low));
        bad |= put(cols[STATS_NUMS + 5], i, PyFloat_FromDouble(r->shift_high));
        bad |= put(cols[STATS_NUMS + 6], i, PyUnicode_FromString(r->reason ? r->reason : ""));
    }
    PyObject *list = bad ? NULL : PyList_New(STATS_COLS);
    for (int c = 0; c < STATS_COLS; c++) {
        if (list)
            PyList_SET_ITEM(list, c, cols[c]);
        else
            Py_XDECREF(cols[c]);
    }
    if (list)
        result = Py_BuildValue("{s:s,s:d,s:d,s:n,s:n,s:O,s:N}", "samples",
                               td_samples_name(td_stats_samples(st)), "alpha", td_stats_alpha(st),
                               "min_change", td_stats_min_change(st), "control_samples",
                               (Py_ssize_t)td_stats_side_samples(st, 0), "test_samples",
                               (Py_ssize_t)td_stats_side_samples(st, 1), "too_few",
                               td_stats_too_few(st) ? Py_True : Py_False, "columns", list);
    return result;
}

#define CMP_KWLIST                                                                                 \
    "control", "test", "control_rank", "test_rank", "control_iteration", "test_iteration",         \
        "device", "short_names", "hta_strict", "categories", "exclude_categories",                 \
        "normalize_names", "samples", "alpha", "min_change", "rename"
#define CMP_FORMAT "O!O!|OOOOippzppidOO"

/* by (0 kernel ... 4 class, as td_by), checked as tracediff compare --by
 * checks it; the sets must have been opened with want_attribution. */
static int cmp_by(cmp_args *a, int by, int device)
{
    static const char *const names[] = {"kernel", "op",     "top-op", "annotation",
                                        "class",  "module", "stack"};
    if (by < TD_BY_KERNEL || by > TD_BY_STACK) {
        PyErr_Format(UsageError, "by must be 0 (kernel) to 6 (stack)");
        return -1;
    }
    if ((by == TD_BY_MODULE || by == TD_BY_STACK) && (!a->ctl->stacks || !a->tst->stacks)) {
        PyErr_Format(UsageError, "by=%s: the sets must be opened with want_stacks", names[by]);
        return -1;
    }
    if (by != TD_BY_KERNEL && by != TD_BY_MODULE && by != TD_BY_STACK && device == TD_DEVICE_CPU) {
        PyErr_Format(UsageError,
                     "by=%s groups GPU events by what launched them: device cpu does not apply "
                     "(leave it out)",
                     names[by]);
        return -1;
    }
    if (by != TD_BY_KERNEL && (!a->ctl->attributed || !a->tst->attributed)) {
        PyErr_Format(UsageError, "by=%s: the sets must be opened with want_attribution", names[by]);
        return -1;
    }
    a->o.by = (td_by)by;
    return 0;
}

/* Writes path whole or not at all: writer fills a temporary file beside it
 * (with the GIL released), which is renamed into place. 0, or -1 with the
 * Python error set (a library error as TraceError naming path). */
typedef int (*whole_writer)(FILE *f, const void *ud, td_error *err);
static int write_whole(const char *path, whole_writer writer, const void *ud)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    td_error err = {0};
    int rc = -1, fd = td_temp_create(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, tmp);
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
            td_temp_forget(tmp);
        }
        free(tmp);
        return -1;
    }
    int wrc;
    Py_BEGIN_ALLOW_THREADS wrc = writer(f, ud, &err);
    Py_END_ALLOW_THREADS if (fclose(f) != 0 && wrc == 0)
    {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        wrc = 1;
    }
    if (wrc < 0) {
        if (!err.path[0])
            snprintf(err.path, sizeof err.path, "%s", path);
        raise_td(&err);
    } else if (wrc == 0 && rename(tmp, path) != 0) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
    } else if (wrc == 0) {
        rc = 0;
    }
    if (rc != 0)
        unlink(tmp);
    td_temp_forget(tmp);
    free(tmp);
    return rc;
}

static int report_writer(FILE *f, const void *ud, td_error *err)
{
    return td_report_write_html(f, ud, err);
}

/* The HTML report (tracediff report) of a comparison, written whole or not
 * at all: under a temporary name beside path, renamed into place. The
 * charts' rows: each chart's default unless the view was given (as the
 * CLI's --sort, --top, --include). */
static int write_report_bd(const char *path, const cmp_args *a, const td_diff *d,
                           const td_stats *st, const char *const labels[2],
                           const td_view_opts *view, int custom, const td_breakdown *bd);

/* The headline's breakdown over the report's choices, as tracediff report
 * computes it; without one (a summary that lacks its records) the headline
 * gives the ProfilerStep rows, as the command's does. */
static int write_report(const char *path, const cmp_args *a, const td_diff *d, const td_stats *st,
                        const char *const labels[2], const td_view_opts *view, int custom)
{
    td_breakdown_opts bo = TD_BREAKDOWN_OPTS_INIT;
    bo.control_ranks = a->o.control_ranks;
    bo.test_ranks = a->o.test_ranks;
    bo.control_iters = a->o.control_iters;
    bo.test_iters = a->o.test_iters;
    td_breakdown *bd = NULL;
    td_error err = {0};
    if (td_breakdown_compute(&bd, a->ctl->set, a->tst->set, &bo, &err) < 0) {
        if (err.code == TD_ENOMEM) {
            PyErr_NoMemory();
            return -1;
        }
        bd = NULL;
    }
    int rc = write_report_bd(path, a, d, st, labels, view, custom, bd);
    td_breakdown_free(bd);
    return rc;
}

static int write_report_bd(const char *path, const cmp_args *a, const td_diff *d,
                           const td_stats *st, const char *const labels[2],
                           const td_view_opts *view, int custom, const td_breakdown *bd)
{
    td_report_input in = TD_REPORT_INPUT_INIT;
    in.control = a->ctl->set;
    in.test = a->tst->set;
    in.opts = &a->o;
    in.diff = d;
    in.control_label = labels[0];
    in.test_label = labels[1];
    in.stats = st;
    in.breakdown = bd;
    td_view_opts views[2];
    for (int k = 0; k < 2; k++) {
        views[k] = *view;
        if (!custom) {
            td_chart_default_view(&views[k], (td_chart_kind)k);
            views[k].ascending = view->ascending;
        }
        in.chart_view[k] = &views[k];
    }
    return write_whole(path, report_writer, &in);
}

/* ---- tree_match: compare --match tree (docs/tree-match.md) ---- */

static int put_item(PyObject *d, const char *k, PyObject *v)
{
    int rc = v ? PyDict_SetItemString(d, k, v) : -1;
    Py_XDECREF(v);
    return rc;
}

static PyObject *str_obj(const char *s)
{
    if (s)
        return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
    Py_RETURN_NONE;
}

/* A row as tracediff compare --match tree --format json writes it. */
static PyObject *tree_row(const td_tree_lca *l, const td_row_stats *st)
{
    static const char *const sn[] = {
        "control_n",  "test_n",         "control_mean", "test_mean",       "control_stdev",
        "test_stdev", "control_median", "test_median",  "control_min",     "control_max",
        "test_min",   "test_max",       "diff_mean",    "mean_change_pct", "ci_low",
        "ci_high",    "p_value",        "q_value"};
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    double ch = l->us[0] > 0 ? (l->us[1] - l->us[0]) / l->us[0] * 100.0 : NAN;
    int bad = put_item(d, "lca", str_obj(l->name)) < 0 ||
              put_item(d, "path", str_obj(l->path)) < 0 ||
              put_item(d, "control_us", PyFloat_FromDouble(l->us[0])) < 0 ||
              put_item(d, "test_us", PyFloat_FromDouble(l->us[1])) < 0 ||
              put_item(d, "change_pct", PyFloat_FromDouble(ch)) < 0 ||
              put_item(d, "control_count", PyLong_FromUnsignedLongLong(l->nkernels[0])) < 0 ||
              put_item(d, "test_count", PyLong_FromUnsignedLongLong(l->nkernels[1])) < 0 ||
              put_item(d, "control_kernels", str_obj(l->kernels[0])) < 0 ||
              put_item(d, "test_kernels", str_obj(l->kernels[1])) < 0 ||
              put_item(d, "control_input_dims", str_obj(l->input_dims[0])) < 0 ||
              put_item(d, "test_input_dims", str_obj(l->input_dims[1])) < 0 ||
              put_item(d, "control_input_types", str_obj(l->input_types[0])) < 0 ||
              put_item(d, "test_input_types", str_obj(l->input_types[1])) < 0;
    if (!bad && st) {
        const double v[] = {(double)st->n[0],
                            (double)st->n[1],
                            st->mean[0],
                            st->mean[1],
                            st->stdev[0],
                            st->stdev[1],
                            st->median[0],
                            st->median[1],
                            st->min[0],
                            st->max[0],
                            st->min[1],
                            st->max[1],
                            st->diff_mean,
                            st->change_pct,
                            st->ci_low,
                            st->ci_high,
                            st->p,
                            st->q};
        bad = put_item(d, "samples", str_obj(td_samples_name(TD_SAMPLES_ITERATION))) < 0;
        for (size_t k = 0; !bad && k < sizeof v / sizeof *v; k++)
            bad = put_item(d, sn[k],
                           k < 2 ? PyLong_FromUnsignedLongLong(st->n[k])
                                 : PyFloat_FromDouble(v[k])) < 0;
        bad = bad || put_item(d, "verdict", str_obj(td_verdict_name(st->verdict))) < 0 ||
              put_item(d, "reason", str_obj(st->reason ? st->reason : "")) < 0;
    }
    if (bad)
        Py_CLEAR(d);
    return d;
}

static PyObject *tree_summary(const td_tree_summary *s)
{
    return Py_BuildValue(
        "{s:d,s:d,s:{s:d,s:d,s:d},s:K,s:K,s:K}", "gpu_us", s->total_us, "matched_us", s->matched_us,
        "unmatched_us", "one_sided", s->one_sided_us, "no_launch", s->no_launch_us, "outside_tree",
        s->outside_us, "roots", (unsigned long long)s->roots, "roots_matched",
        (unsigned long long)s->roots_matched, "left_out", (unsigned long long)s->dropped);
}

/* tree_match(control, test, control_rank, test_rank, control_iteration,
 * test_iteration, stats=False, samples=0, alpha=0, min_change=None) ->
 * (rows, summary, notes, stats): the rows as dicts with the fields of
 * tracediff compare --match tree --format json; summary {"control": ...,
 * "test": ...}; stats None or {"samples", "alpha", "min_change",
 * "control_samples", "test_samples", "too_few"}. */
static PyObject *tree_match(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"control",
                             "test",
                             "control_rank",
                             "test_rank",
                             "control_iteration",
                             "test_iteration",
                             "stats",
                             "samples",
                             "alpha",
                             "min_change",
                             NULL};
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 0, 0, 0, 0, 0, 0,
                  NULL, NULL};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    int samples = 0;
    double alpha = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OOOOpidO:tree_match", kwlist, &SetType, &a.ctl,
                                     &SetType, &a.tst, &sel[0], &sel[1], &sel[2], &sel[3], &a.stats,
                                     &samples, &alpha, &min_change))
        return NULL;
    if (!a.ctl->tree || !a.tst->tree) {
        PyErr_Format(UsageError, "tree_match: the sets must be opened with want_tree");
        return NULL;
    }
    PyObject *res = NULL;
    td_tree_match *m = NULL;
    td_tree_stats *ts = NULL;
    if (cmp_args_fill(&a, sel, TD_DEVICE_ALL, samples, alpha, min_change) < 0)
        goto done;
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_tree_match_select(&m, a.ctl->set, a.tst->set, &a.o, 0, &err);
    if (rc == 0 && a.stats)
        rc = td_tree_match_stats(&ts, a.ctl->set, a.tst->set, &a.o, 0, &a.so, &err);
    Py_END_ALLOW_THREADS if (rc < 0)
    {
        raise_td(&err);
        goto done;
    }
    size_t n;
    const td_tree_lca *l = ts ? td_tree_stats_lcas(ts, &n) : td_tree_match_lcas(m, &n);
    const td_stats *st = ts ? td_tree_stats_stats(ts) : NULL;
    PyObject *rows = PyList_New((Py_ssize_t)n), *notes = PyList_New(0);
    PyObject *summary =
        Py_BuildValue("{s:N,s:N}", "control", tree_summary(td_tree_match_summary(m, TD_CONTROL)),
                      "test", tree_summary(td_tree_match_summary(m, TD_TEST)));
    PyObject *so = Py_None;
    Py_INCREF(so);
    int bad = !rows || !notes || !summary;
    for (size_t i = 0; !bad && i < n; i++) {
        PyObject *r = tree_row(&l[i], st ? &td_stats_rows(st)[i] : NULL);
        if (!r)
            bad = 1;
        else
            PyList_SET_ITEM(rows, (Py_ssize_t)i, r);
    }
    for (size_t i = 0; !bad && td_tree_match_note(m, i); i++) {
        PyObject *t = str_obj(td_tree_match_note(m, i));
        bad = !t || PyList_Append(notes, t) < 0;
        Py_XDECREF(t);
    }
    if (!bad && st) {
        Py_DECREF(so);
        so = Py_BuildValue("{s:s,s:d,s:d,s:n,s:n,s:O}", "samples",
                           td_samples_name(td_stats_samples(st)), "alpha", td_stats_alpha(st),
                           "min_change", td_stats_min_change(st), "control_samples",
                           (Py_ssize_t)td_tree_stats_units(ts, TD_CONTROL), "test_samples",
                           (Py_ssize_t)td_tree_stats_units(ts, TD_TEST), "too_few",
                           td_stats_too_few(st) ? Py_True : Py_False);
        bad = !so;
    }
    if (!bad)
        res = Py_BuildValue("(OOOO)", rows, summary, notes, so);
    Py_XDECREF(rows);
    Py_XDECREF(summary);
    Py_XDECREF(notes);
    Py_XDECREF(so);
done:
    td_tree_stats_free(ts);
    td_tree_match_free(m);
    cmp_args_clear(&a);
    return res;
}

static PyObject *compare(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {CMP_KWLIST, "stats",     "per_iteration", "by",
                             "sort",     "ascending", "top",           "include",
                             "exclude",  "labels",    "report",        NULL};
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 0, 0, 0, 0, 0, 0,
                  NULL, NULL};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    int device = TD_DEVICE_ALL, samples = 0, by = TD_BY_KERNEL, ascending = 0;
    double alpha = 0;
    Py_ssize_t top = 0;
    /* The view (tracediff compare's --sort, --ascending, --top, --include,
     * --exclude): given any of them, the rows' indices after it come last
     * in the result (else None). labels: (control, test), for --sort's
     * column names. */
    const char *sort = NULL, *include = NULL, *exclude = NULL, *labels[2] = {NULL, NULL};
    PyObject *report = NULL; /* a path: the HTML report of the comparison is written there */
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, CMP_FORMAT "ppizpnzz(zz)O&:compare", kwlist, &SetType, &a.ctl, &SetType,
            &a.tst, &sel[0], &sel[1], &sel[2], &sel[3], &device, &a.short_names, &a.hta_strict,
            &a.o.categories, &a.exclude_categories, &a.normalize_names, &samples, &alpha,
            &min_change, &a.rename, &a.stats, &a.per_iteration, &by, &sort, &ascending, &top,
            &include, &exclude, &labels[0], &labels[1], PyUnicode_FSConverter, &report))
        return NULL;
    if (top < 0) {
        PyErr_Format(UsageError, "Invalid argument top=%zd (expected a count of rows, 1 or more).",
                     top);
        Py_XDECREF(report);
        return NULL;
    }
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    int want_view = sort || ascending || top || include || exclude;
    if (sort) {
        int c = td_column_parse(sort, labels[0], labels[1]);
        if (c < 0) {
            PyErr_Format(UsageError,
                         "sort='%s': no such column (try name, diff_duration, diff_counts, "
                         "abs_diff_duration, %s_counts, ...)",
                         sort, labels[0] ? labels[0] : "control");
            Py_XDECREF(report);
            return NULL;
        }
        if ((c == TD_COL_Q || c == TD_COL_CHANGE) && !a.stats) {
            PyErr_Format(UsageError, "sort='%s': needs stats=True", sort);
            Py_XDECREF(report);
            return NULL;
        }
        vo.sort = (td_column)c;
        vo.has_sort = true;
    }
    vo.ascending = ascending;
    vo.top = (size_t)top;
    vo.include = include;
    vo.exclude = exclude;
    PyObject *result = NULL;
    td_diff *d = NULL;
    td_stats *st = NULL;
    if (cmp_by(&a, by, device) == 0 &&
        cmp_args_fill(&a, sel, device, samples, alpha, min_change) == 0 &&
        cmp_compute(&a, &d, &st) == 0 &&
        (!report || write_report(PyBytes_AS_STRING(report), &a, d, st, labels, &vo,
                                 sort || top || include) == 0)) {
        const td_set *const sets[2] = {a.ctl->set, a.tst->set};
        PyObject *rows = diff_result(d, sets, labels);
        PyObject *sr = rows && st ? stats_result(st, td_diff_nrows(d)) : Py_NewRef(Py_None);
        PyObject *view = Py_NewRef(Py_None);
        if (rows && sr && want_view) {
            size_t *idx = NULL;
            td_error err = {0};
            vo.stats = st;
            long nv = td_view_make(&idx, d, &vo, &err);
            Py_CLEAR(view);
            if (nv < 0) {
                raise_td(&err);
            } else {
                view = PyList_New(nv);
                for (long i = 0; view && i < nv; i++) {
                    PyObject *x = PyLong_FromSize_t(idx[i]);
                    if (!x)
                        Py_CLEAR(view);
                    else
                        PyList_SET_ITEM(view, i, x);
                }
            }
            free(idx);
        }
        PyObject *tail = rows && sr && view ? PyTuple_Pack(2, sr, view) : NULL;
        if (tail)
            result = PySequence_Concat(rows, tail);
        Py_XDECREF(tail);
        Py_XDECREF(rows);
        Py_XDECREF(sr);
        Py_XDECREF(view);
    }
    td_stats_free(st);
    td_diff_free(d);
    cmp_args_clear(&a);
    Py_XDECREF(report);
    return result;
}

/* ------------------------------------------------------------------------ */
/* check(): the CI gate (td_check_*)                                         */

typedef struct {
    PyObject_HEAD PyObject *ctl,
        *tst; /* the sets, kept while the diff is: its names may live there */
    td_diff *d;
    td_stats *st;
    td_check *c;
} CheckObject;

static void Check_dealloc(CheckObject *self)
{
    td_check_free(self->c);
    td_stats_free(self->st);
    td_diff_free(self->d);
    Py_XDECREF(self->ctl);
    Py_XDECREF(self->tst);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Check_summary(CheckObject *self, PyObject *Py_UNUSED(ignored))
{
    const td_stats *st = self->st;
    return Py_BuildValue("{s:O,s:n,s:n,s:n,s:s,s:d,s:d,s:d,s:d,s:n,s:n,s:n,s:n,s:O}", "passed",
                         td_check_passed(self->c) ? Py_True : Py_False, "compared",
                         (Py_ssize_t)td_check_compared(self->c, NULL), "regressions",
                         (Py_ssize_t)td_check_regressions(self->c, NULL), "faster",
                         (Py_ssize_t)td_check_nfaster(self->c), "samples",
                         td_samples_name(td_stats_samples(st)), "alpha", td_stats_alpha(st),
                         "min_change", td_stats_min_change(st), "max_regression",
                         td_check_max_regression(self->c), "min_us", td_check_min_us(self->c),
                         "control_samples", (Py_ssize_t)td_stats_side_samples(st, 0),
                         "test_samples", (Py_ssize_t)td_stats_side_samples(st, 1), "waits",
                         (Py_ssize_t)td_check_waits(self->c, NULL), "wait_regressions",
                         (Py_ssize_t)td_check_wait_regressions(self->c), "one_run",
                         td_check_one_run(self->c) ? Py_True : Py_False);
}

/* The regressions, most significant first: (name, control_n, test_n,
 * control_mean, test_mean, change_pct, ci_low, ci_high, p_value, q_value,
 * control_total, test_total, verdict: "slower" or "new"). */
static PyObject *Check_regressions(CheckObject *self, PyObject *Py_UNUSED(ignored))
{
    const size_t *regs;
    size_t n = td_check_regressions(self->c, &regs);
    const td_row *rows = td_diff_rows(self->d);
    const td_row_stats *rs = td_stats_rows(self->st);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t k = 0; l && k < n; k++) {
        const td_row_stats *r = &rs[regs[k]];
        PyObject *t = Py_BuildValue(
            "(NKKddddddddds)", name_str(&rows[regs[k]]), (unsigned long long)r->n[0],
            (unsigned long long)r->n[1], r->mean[0], r->mean[1], r->change_pct, r->ci_low,
            r->ci_high, r->p, r->q, rows[regs[k]].duration[0], rows[regs[k]].duration[1],
            td_check_row_new(self->c, regs[k]) ? "new" : "slower");
        if (put(l, k, t))
            Py_CLEAR(l);
    }
    return l;
}

/* report(format) -> bytes: 0 text, 1 markdown, 2 JSON, 3 JUnit XML. */
static PyObject *Check_report(CheckObject *self, PyObject *arg)
{
    long format = PyLong_AsLong(arg);
    if (format == -1 && PyErr_Occurred())
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    td_error err = {0};
    int rc = td_check_write(f, self->c, (td_check_format)format, &err);
    if (fclose(f) != 0 && rc == 0)
        rc = -1, err.code = TD_ENOMEM;
    PyObject *r = rc < 0 ? raise_td(&err) : PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
    free(buf);
    return r;
}

static PyMethodDef Check_methods[] = {
    {"summary", (PyCFunction)Check_summary, METH_NOARGS, "The gate's numbers, as a dict."},
    {"regressions", (PyCFunction)Check_regressions, METH_NOARGS,
     "The regressions, most significant first, as tuples."},
    {"report", (PyCFunction)Check_report, METH_O,
     "report(format) -> bytes: 0 text, 1 markdown, 2 JSON, 3 JUnit XML."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject CheckType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tracediff._tracediff.Check",
    .tp_basicsize = sizeof(CheckObject),
    .tp_dealloc = (destructor)Check_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The CI gate over two sets (made by check()).",
    .tp_methods = Check_methods,
};

/* As tracediff check: a side whose selection has no events is an error. */
static int check_sides(const cmp_args *a, const td_diff *d)
{
    static const char *const opt[2] = {"control", "test"};
    for (int s = 0; s < 2; s++)
        if (td_diff_notes(d, s)->events == 0) {
            td_error err = {.code = TD_ETRACE};
            snprintf(err.path, sizeof err.path, "%s", td_set_path((s ? a->tst : a->ctl)->set));
            snprintf(err.msg, sizeof err.msg,
                     "the selection has no events (check %s_rank, %s_iteration, device)", opt[s],
                     opt[s]);
            raise_td(&err);
            return -1;
        }
    return 0;
}

static PyObject *check(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {
        CMP_KWLIST, "max_regression", "min_us",  "gate_waits", "allow_new", "max_step_regression",
        "by",       "include",        "exclude", NULL};
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 1, 0, 0, 0, 0, 0};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    int device = TD_DEVICE_ALL, samples = 0;
    double alpha = 0;
    td_check_opts co = TD_CHECK_OPTS_INIT;
    co.has_max_regression = true;
    int gate_waits = 0, allow_new = 0;
    PyObject *max_step = Py_None;
    int by = TD_BY_KERNEL;
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    size_t *rows = NULL;
    if (!PyArg_ParseTupleAndKeywords(
            args, kw, CMP_FORMAT "ddppOizz:check", kwlist, &SetType, &a.ctl, &SetType, &a.tst,
            &sel[0], &sel[1], &sel[2], &sel[3], &device, &a.short_names, &a.hta_strict,
            &a.o.categories, &a.exclude_categories, &a.normalize_names, &samples, &alpha,
            &min_change, &a.rename, &co.max_regression, &co.min_us, &gate_waits, &allow_new,
            &max_step, &by, &vo.include, &vo.exclude))
        return NULL;
    co.gate_waits = gate_waits;
    co.allow_new = allow_new;
    if (max_step != Py_None) {
        co.max_step_regression = PyFloat_AsDouble(max_step);
        if (co.max_step_regression == -1 && PyErr_Occurred())
            return NULL;
        co.has_max_step_regression = true;
    }
    co.control = a.ctl->set;
    co.test = a.tst->set;
    co.compare = &a.o;
    CheckObject *self = NULL;
    td_diff *d = NULL;
    td_stats *st = NULL;
    td_check *c = NULL;
    td_error err = {0};
    if (cmp_by(&a, by, device) < 0 ||
        cmp_args_fill(&a, sel, device, samples, alpha, min_change) < 0 ||
        cmp_compute(&a, &d, &st) < 0 || check_sides(&a, d) < 0)
        goto done;
    /* Only the rows include and exclude keep are compared, as check
     * --include/--exclude compares them. */
    long nrows = td_view_make(&rows, d, &vo, &err);
    if (nrows < 0) {
        raise_td(&err);
        goto done;
    }
    co.rows = rows;
    co.nrows = (size_t)nrows;
    if (td_check_compute(&c, d, st, &co, &err) < 0) {
        raise_td(&err);
        goto done;
    }
    if (!(self = PyObject_New(CheckObject, &CheckType)))
        goto done;
    self->ctl = Py_NewRef((PyObject *)a.ctl);
    self->tst = Py_NewRef((PyObject *)a.tst);
    self->d = d;
    self->st = st;
    self->c = c;
    d = NULL, st = NULL, c = NULL;
done:
    free(rows);
    td_check_free(c);
    td_stats_free(st);
    td_diff_free(d);
    cmp_args_clear(&a);
    return (PyObject *)self;
}

/* ------------------------------------------------------------------------ */
/* Summaries: summarize(), runs(), trend()                                   */

static PyObject *str_or_none(const char *s)
{
    return s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "surrogateescape")
             : Py_NewRef(Py_None);
}

/* summarize(...) -> the run's name, as stored. */
static PyObject *summarize(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"set",    "path",    "run",     "replace", "ranks", "iterations",
                             "device", "threads", "created", "ns",      "pids",  NULL};
    PyObject *src, *dst, *ranks = Py_None, *iters = Py_None, *result = NULL, *ns_arg = Py_None;
    PyObject *pids_in = Py_None, *pids = NULL;
    int64_t *pidv = NULL;
    size_t npids = 0;
    td_summary_opts so = TD_SUMMARY_OPTS_INIT;
    int device = TD_DEVICE_ALL, threads = 0, replace = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|zpOOiizOO:summarize", kwlist,
                                     PyUnicode_FSConverter, &src, PyUnicode_FSConverter, &dst,
                                     &so.run, &replace, &ranks, &iters, &device, &threads,
                                     &so.created, &ns_arg, &pids_in))
        return NULL;
    if (pids_arg(pids_in, &pids, &pidv, &npids) < 0) {
        Py_DECREF(src);
        Py_DECREF(dst);
        return NULL;
    }
    int ns = ns_arg == Py_None ? td_env_ns() : PyObject_IsTrue(ns_arg);
    so.replace = replace;
    if (ns < 0)
        goto done;
    if (device < TD_DEVICE_ALL || device > TD_DEVICE_GPU) {
        PyErr_Format(UsageError, "device must be 0 (all), 1 (cpu) or 2 (gpu)");
        goto done;
    }
    so.device = (td_device)device;
    if (to_list(ranks, &so.ranks, "ranks") < 0 || to_list(iters, &so.iters, "iterations") < 0)
        goto done;
    const char *sp = PyBytes_AS_STRING(src), *dp = PyBytes_AS_STRING(dst);
    /* Attribution and the breakdown's records are kept, as tracediff summarize keeps them. */
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = threads;
    oo.want_attribution = true;
    oo.want_breakdown = true;
    oo.ns = ns;
    oo.pids = pidv; /* summarize --pid */
    oo.npids = npids;
    td_error err = {0};
    td_set *set = NULL;
    char *name = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_set_open(&set, sp, &oo, &err);
    if (rc < 0)
        pids_words(&err);
    if (rc == 0)
        rc = td_summary_write(dp, set, &so, &err);
    if (rc == 0 && !(name = so.run ? strdup(so.run) : td_summary_default_run(set)))
        rc = -1, err.code = TD_ENOMEM;
    td_set_free(set);
    Py_END_ALLOW_THREADS;
    if (rc < 0)
        result = err.code == TD_ENOMEM && !err.msg[0] ? PyErr_NoMemory() : raise_td(&err);
    else
        result = str_or_none(name);
    free(name);
done:
    td_list_clear(&so.ranks);
    td_list_clear(&so.iters);
    Py_XDECREF(pids);
    free(pidv);
    Py_DECREF(src);
    Py_DECREF(dst);
    return result;
}

static PyObject *run_dict(const td_run_info *r)
{
    return Py_BuildValue(
        "{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:K,s:K,s:K,s:K,s:K,s:K,s:d,s:d}", "name",
        str_or_none(r->name), "created", str_or_none(r->created), "tool_version",
        str_or_none(r->tool_version), "source", str_or_none(r->source), "kept_ranks",
        str_or_none(r->kept_ranks), "kept_iterations", str_or_none(r->kept_iterations),
        "kept_device", str_or_none(r->kept_device), "ranks", (unsigned long long)r->nranks,
        "iterations", (unsigned long long)r->niters, "files", (unsigned long long)r->nfiles,
        "source_bytes", (unsigned long long)r->source_bytes, "json_bytes",
        (unsigned long long)r->json_bytes, "events", (unsigned long long)r->events, "cpu_us",
        r->cpu_us, "gpu_us", r->gpu_us);
}

static PyObject *runs(PyObject *Py_UNUSED(mod), PyObject *arg)
{
    PyObject *path;
    if (!PyUnicode_FSConverter(arg, &path))
        return NULL;
    td_run_info *ri = NULL;
    td_error err = {0};
    long n;
    const char *p = PyBytes_AS_STRING(path);
    Py_BEGIN_ALLOW_THREADS n = td_summary_runs(&ri, p, &err);
    Py_END_ALLOW_THREADS Py_DECREF(path);
    if (n < 0)
        return raise_td(&err);
    PyObject *l = PyList_New(n);
    for (long i = 0; l && i < n; i++)
        if (put(l, (size_t)i, run_dict(&ri[i])))
            Py_CLEAR(l);
    td_run_infos_free(ri, (size_t)n);
    return l;
}

/* The trend as (runs, names, counts, totals): counts[name][run]. */
static PyObject *trend_result(const td_trend *t)
{
    size_t nr = td_trend_nruns(t), nn = td_trend_nnames(t);
    PyObject *rl = PyList_New((Py_ssize_t)nr), *nl = PyList_New((Py_ssize_t)nn);
    PyObject *cl = PyList_New((Py_ssize_t)nn), *tl = PyList_New((Py_ssize_t)nn);
    int bad = !rl || !nl || !cl || !tl;
    for (size_t r = 0; !bad && r < nr; r++)
        bad |= put(rl, r, str_or_none(td_trend_run(t, r)));
    for (size_t j = 0; !bad && j < nn; j++) {
        PyObject *c = PyList_New((Py_ssize_t)nr), *v = PyList_New((Py_ssize_t)nr);
        bad |= put(nl, j, str_or_none(td_trend_name(t, j))) | put(cl, j, c) | put(tl, j, v);
        for (size_t r = 0; !bad && r < nr; r++)
            bad |= put(c, r, PyLong_FromUnsignedLongLong(td_trend_count(t, j, r))) |
                   put(v, r, PyFloat_FromDouble(td_trend_total(t, j, r)));
    }
    if (bad) {
        Py_XDECREF(rl);
        Py_XDECREF(nl);
        Py_XDECREF(cl);
        Py_XDECREF(tl);
        return NULL;
    }
    return Py_BuildValue("(NNNN)", rl, nl, cl, tl);
}

/* The trend and, with chart, its line chart as tracediff trend -o FILE.svg
 * draws it: the 10 names that changed most unless top says otherwise. */
static int trend_compute(td_trend **t, const char *path, td_trend_opts *to, const char *chart,
                         td_error *err)
{
    int rc = td_trend_compute(t, path, to, err);
    if (rc < 0 || !chart)
        return rc;
    if (to->top)
        return td_trend_chart_write(chart, *t, err);
    td_trend *top10 = NULL;
    to->top = 10;
    rc = td_trend_compute(&top10, path, to, err);
    if (rc == 0)
        rc = td_trend_chart_write(chart, top10, err);
    td_trend_free(top10);
    return rc;
}

static PyObject *trend(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path",  "device",          "top",         "names",  "runs",
                             "chart", "normalize_names", "short_names", "rename", NULL};
    PyObject *path, *runs_arg = Py_None, *fast = NULL, *enc = NULL, *result = NULL;
    PyObject *chart_arg = Py_None, *chart = NULL, *rename_arg = Py_None;
    td_trend_opts to = TD_TREND_OPTS_INIT;
    int device = TD_DEVICE_ALL, normalize = 1, short_names = 0;
    Py_ssize_t top = 0;
    const char **rn = NULL;
    td_renames *renames = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|inzOOppO:trend", kwlist, PyUnicode_FSConverter,
                                     &path, &device, &top, &to.names, &runs_arg, &chart_arg,
                                     &normalize, &short_names, &rename_arg))
        return NULL;
    to.normalize_names = normalize;
    to.short_names = short_names;
    if (chart_arg != Py_None && !PyUnicode_FSConverter(chart_arg, &chart))
        goto done;
    if (rename_arg != Py_None) {
        if (PyUnicode_Check(rename_arg)) {
            PyErr_Format(UsageError, "rename must be a list of 'REGEX=REPLACEMENT' rules");
            goto done;
        }
        PyObject *rf = PySequence_Fast(rename_arg, "rename must be a list of rules");
        if (!rf)
            goto done;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(rf); i++) {
            const char *rule = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(rf, i));
            td_error rerr = {0};
            if (!rule || td_renames_add(&renames, rule, &rerr) < 0) {
                if (rule)
                    raise_td(&rerr);
                Py_DECREF(rf);
                goto done;
            }
        }
        Py_DECREF(rf);
        to.renames = renames;
    }
    if (device < TD_DEVICE_ALL || device > TD_DEVICE_GPU || top < 0) {
        PyErr_Format(UsageError, device < TD_DEVICE_ALL || device > TD_DEVICE_GPU
                                     ? "device must be 0 (all), 1 (cpu) or 2 (gpu)"
                                     : "top must be 0 (every name) or more");
        goto done;
    }
    to.device = (td_device)device;
    to.top = (size_t)top;
    if (runs_arg != Py_None) {
        if (!(fast = PySequence_Fast(runs_arg, "runs must be a list of run names")))
            goto done;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        enc = PyList_New(n);
        rn = calloc((size_t)n + 1, sizeof *rn);
        if (!enc || !rn) {
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *b = PyUnicode_AsUTF8String(PySequence_Fast_GET_ITEM(fast, i));
            if (!b)
                goto done;
            PyList_SET_ITEM(enc, i, b);
            rn[i] = PyBytes_AS_STRING(b);
        }
        to.runs = rn;
        to.nruns = (size_t)n;
    }
    td_trend *t = NULL;
    td_error err = {0};
    int rc;
    const char *p = PyBytes_AS_STRING(path), *cp = chart ? PyBytes_AS_STRING(chart) : NULL;
    Py_BEGIN_ALLOW_THREADS rc = trend_compute(&t, p, &to, cp, &err);
    Py_END_ALLOW_THREADS result = rc < 0 ? raise_td(&err) : trend_result(t);
    td_trend_free(t);
done:
    td_renames_free(renames);
    free(rn);
    Py_XDECREF(enc);
    Py_XDECREF(fast);
    Py_XDECREF(chart);
    Py_DECREF(path);
    return result;
}

/* ------------------------------------------------------------------------ */
/* flame(): tracediff plot flame                                             */

typedef struct flame_job {
    const td_diff *d;
    td_flame_opts fo;
    const char *path;
} flame_job;

static int name_ends(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The flame graph of j: SVG, PNG or PDF by the name's extension. */
static int flame_writer(FILE *f, const void *ud, td_error *err)
{
    const flame_job *j = ud;
    return name_ends(j->path, ".svg")
               ? td_flame_svg(f, j->d, &j->fo, err)
               : td_flame_cairo(f, j->d, &j->fo, name_ends(j->path, ".pdf"), j->path, err);
}

static int flame_write(const flame_job *j)
{
    return write_whole(j->path, flame_writer, j);
}

static PyObject *flame(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {CMP_KWLIST, "path", "labels", "side", "width", NULL};
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 0, 0, 0, 0, 0, 0,
                  NULL, NULL};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    PyObject *path = NULL;
    int device = TD_DEVICE_ALL, samples = 0, side = 0, width = 0;
    double alpha = 0;
    const char *labels[2] = {NULL, NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, CMP_FORMAT "O&(zz)ii:flame", kwlist, &SetType,
                                     &a.ctl, &SetType, &a.tst, &sel[0], &sel[1], &sel[2], &sel[3],
                                     &device, &a.short_names, &a.hta_strict, &a.o.categories,
                                     &a.exclude_categories, &a.normalize_names, &samples, &alpha,
                                     &min_change, &a.rename, PyUnicode_FSConverter, &path,
                                     &labels[0], &labels[1], &side, &width))
        return NULL;
    PyObject *result = NULL;
    td_diff *d = NULL;
    td_stats *st = NULL;
    const char *p = PyBytes_AS_STRING(path);
    if (side < 0 || side > 2 || width < 0) {
        PyErr_Format(UsageError, side < 0 || side > 2
                                     ? "side must be 0 (the difference), 1 (control) or 2 (test)"
                                     : "width must be 0 (the default) or more");
    } else if (!name_ends(p, ".svg") && !name_ends(p, ".png") && !name_ends(p, ".pdf")) {
        PyErr_Format(UsageError, "%s: expected a .svg, .png or .pdf file", p);
    } else if (device == TD_DEVICE_CPU) {
        PyErr_Format(UsageError, "a flame graph draws the GPU stacks: device cpu does not apply");
    } else if (cmp_by(&a, TD_BY_STACK, device) == 0 &&
               cmp_args_fill(&a, sel, device, samples, alpha, min_change) == 0 &&
               cmp_compute(&a, &d, &st) == 0) {
        char subtitle[512];
        td_chart_subtitle(subtitle, sizeof subtitle, d, &a.o, labels[0], labels[1]);
        flame_job j = {d, TD_FLAME_OPTS_INIT, p};
        j.fo.control_label = labels[0];
        j.fo.test_label = labels[1];
        j.fo.subtitle = subtitle;
        j.fo.side = side;
        j.fo.min_change = a.so.min_change;
        j.fo.has_min_change = a.so.has_min_change;
        j.fo.width = width;
        if (flame_write(&j) == 0)
            result = Py_NewRef(Py_None);
    }
    td_stats_free(st);
    td_diff_free(d);
    cmp_args_clear(&a);
    Py_DECREF(path);
    return result;
}

/* ------------------------------------------------------------------------ */
/* chart(): a chart of rows the caller gives, in their order                 */

static int seq_double(PyObject *fast, Py_ssize_t i, double *out)
{
    *out = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
    return *out == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *chart(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path",          "kind",
                             "names",         "control_counts",
                             "test_counts",   "control_duration",
                             "test_duration", "control_label",
                             "test_label",    NULL};
    PyObject *path, *seq[5], *fast[5] = {NULL}, *result = NULL, *encoded[5] = {NULL};
    int kind;
    const char *cl = NULL, *tl = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&iOOOOO|zz:chart", kwlist, PyUnicode_FSConverter,
                                     &path, &kind, &seq[0], &seq[1], &seq[2], &seq[3], &seq[4], &cl,
                                     &tl))
        return NULL;
    td_row *rows = NULL;
    Py_ssize_t n = -1;
    for (int c = 0; c < 5; c++) {
        if (!(fast[c] = PySequence_Fast(seq[c], "chart columns must be sequences")))
            goto done;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(fast[c]);
        if (n >= 0 && m != n) {
            PyErr_SetString(UsageError, "chart columns differ in length");
            goto done;
        }
        n = m;
    }
    if (!(rows = calloc((size_t)n + 1, sizeof *rows))) {
        PyErr_NoMemory();
        goto done;
    }
    PyObject *names = PyList_New(n); /* keeps the encoded names alive */
    if (!names)
        goto done;
    encoded[0] = names;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PyObject_Str(PySequence_Fast_GET_ITEM(fast[0], i));
        PyObject *b = s ? PyUnicode_AsEncodedString(s, "utf-8", "surrogateescape") : NULL;
        Py_XDECREF(s);
        if (!b)
            goto done;
        PyList_SET_ITEM(names, i, b);
        rows[i].name = PyBytes_AS_STRING(b);
        rows[i].name_len = (size_t)PyBytes_GET_SIZE(b);
        double c0, c1;
        if (seq_double(fast[1], i, &c0) < 0 || seq_double(fast[2], i, &c1) < 0 ||
            seq_double(fast[3], i, &rows[i].duration[0]) < 0 ||
            seq_double(fast[4], i, &rows[i].duration[1]) < 0)
            goto done;
        if (!(c0 >= 0 && c1 >= 0 && c0 < 1e19 && c1 < 1e19)) {
            PyErr_Format(UsageError, "row %zd: counts must be between 0 and 1e19", i);
            goto done;
        }
        rows[i].counts[0] = (uint64_t)c0;
        rows[i].counts[1] = (uint64_t)c1;
    }
    td_diff *d = NULL;
    td_error err = {0};
    int rc = td_diff_from_rows(&d, rows, (size_t)n, false, &err);
    if (rc == 0) {
        const char *p = PyBytes_AS_STRING(path);
        Py_BEGIN_ALLOW_THREADS rc = td_chart_write(p, kind ? TD_CHART_DURATION : TD_CHART_COUNTS, d,
                                                   NULL, (size_t)n, cl, tl, &err);
        Py_END_ALLOW_THREADS
    }
    td_diff_free(d);
    if (rc < 0)
        raise_td(&err);
    else
        result = Py_NewRef(Py_None);
done:
    for (int c = 0; c < 5; c++) {
        Py_XDECREF(fast[c]);
        Py_XDECREF(encoded[c]);
    }
    Py_DECREF(path);
    free(rows);
    return result;
}

static PyObject *short_name(PyObject *Py_UNUSED(mod), PyObject *arg)
{
    PyObject *b = PyUnicode_AsEncodedString(arg, "utf-8", "surrogateescape");
    if (!b)
        return NULL;
    char *out;
    size_t len;
    PyObject *r = NULL;
    if (td_short_name(&out, &len, PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b)) < 0) {
        PyErr_NoMemory();
    } else {
        r = PyUnicode_DecodeUTF8(out, (Py_ssize_t)len, "surrogateescape");
        free(out);
    }
    Py_DECREF(b);
    return r;
}

/* ------------------------------------------------------------------------ */
/* breakdown(): tracediff breakdown's JSON                                   */

static PyObject *breakdown(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {
        "control",        "test",      "control_rank",  "test_rank",  "control_iteration",
        "test_iteration", "hta_scope", "control_label", "test_label", NULL};
    SetObject *ctl, *tst;
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None};
    int hta_scope = 0;
    const char *labels[2] = {NULL, NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OOOOpzz:breakdown", kwlist, &SetType, &ctl,
                                     &SetType, &tst, &sel[0], &sel[1], &sel[2], &sel[3], &hta_scope,
                                     &labels[0], &labels[1]))
        return NULL;
    td_breakdown_opts bo = TD_BREAKDOWN_OPTS_INIT;
    td_list *lists[4] = {&bo.control_ranks, &bo.test_ranks, &bo.control_iters, &bo.test_iters};
    static const char *const what[4] = {"control_rank", "test_rank", "control_iteration",
                                        "test_iteration"};
    PyObject *result = NULL;
    td_breakdown *b = NULL;
    char *buf = NULL;
    size_t len = 0;
    for (int i = 0; i < 4; i++)
        if (to_list(sel[i], lists[i], what[i]) < 0)
            goto done;
    bo.hta_scope = hta_scope;
    td_error err = {0};
    int rc;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS rc = td_breakdown_compute(&b, ctl->set, tst->set, &bo, &err);
    if (rc == 0)
        rc = td_breakdown_write_json(f, b, ctl->set, tst->set, labels[0], labels[1], &err);
    Py_END_ALLOW_THREADS result = memstream_text(f, &buf, &len, rc, &err);
done:
    for (int i = 0; i < 4; i++)
        td_list_clear(lists[i]);
    td_breakdown_free(b);
    free(buf);
    return result;
}

/* info(set): tracediff info --format json's text (the set opened with
 * want_attribution, as the command opens it). */
static PyObject *info(PyObject *Py_UNUSED(mod), PyObject *arg)
{
    if (!PyObject_TypeCheck(arg, &SetType))
        return PyErr_Format(PyExc_TypeError, "info() takes a Set, not %s", Py_TYPE(arg)->tp_name);
    const td_set *set = ((SetObject *)arg)->set;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return PyErr_NoMemory();
    td_attr_stats a;
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_set_attr_stats(set, &a);
    if (rc < 0)
        snprintf(err.msg, sizeof err.msg, "%s",
                 rc == TD_ETRACE ? "damaged summary: packed durations do not decode"
                                 : "out of memory");
    else
        rc = td_info_write_json(f, set, &a, &err);
    Py_END_ALLOW_THREADS int closed = fclose(f);
    PyObject *result = NULL;
    if (rc < 0) {
        if (!err.code) {
            err.code = rc;
            snprintf(err.path, sizeof err.path, "%s", td_set_origin(set));
        }
        raise_td(&err);
    } else if (closed != 0) {
        PyErr_NoMemory();
    } else {
        result = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "surrogateescape");
    }
    free(buf);
    return result;
}

/* The name explain did not find: the 5 keys nearest to it (td_diff_closest,
 * as tracediff explain lists them) of a diff by the same key without the
 * selection of one name, as a list of (key, side): side 0 on both sides, 1
 * in control only, 2 in test only. */
static PyObject *closest_names(cmp_args *a, const char *name)
{
    td_stats *st = NULL;
    td_diff *all = NULL;
    a->o.by = a->o.only_by;
    a->o.only = NULL;
    int stats = a->stats;
    a->stats = 0;
    int rc = cmp_compute(a, &all, &st);
    a->stats = stats;
    if (rc < 0)
        return NULL;
    size_t near[5];
    long m = td_diff_closest(all, name, near, 5);
    PyObject *l = m < 0 ? PyErr_NoMemory() : PyList_New(m);
    const td_row *rows = td_diff_rows(all);
    for (long k = 0; l && k < m; k++) {
        const td_row *r = &rows[near[k]];
        int side = r->counts[0] && r->counts[1] ? 0 : r->counts[0] ? 1 : 2;
        PyObject *t = Py_BuildValue("(Ni)", name_str(r), side);
        if (!t)
            Py_CLEAR(l);
        else
            PyList_SET_ITEM(l, k, t);
    }
    td_stats_free(st);
    td_diff_free(all);
    return l;
}

/* explain(control, test, name, ...): tracediff explain --format json's
 * text: the kernels the op (by: 1 op, 2 top op, 3 annotation) launched, per
 * kernel name on each side, beside the op's own CPU time. The sets must be
 * opened with want_attribution. When name is in neither selection, a list
 * of the nearest keys instead (closest_names). */
static PyObject *explain(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {CMP_KWLIST, "name",    "by",      "sort",   "ascending",
                             "top",      "include", "exclude", "labels", NULL};
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 0, 0, 0, 0, 0, 0,
                  NULL, NULL};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    int device = TD_DEVICE_ALL, samples = 0, by = TD_BY_OP, ascending = 0;
    double alpha = 0;
    Py_ssize_t top = 0;
    const char *name = NULL, *sort = NULL, *include = NULL, *exclude = NULL;
    const char *labels[2] = {NULL, NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, CMP_FORMAT "sizpnzz(zz):explain", kwlist, &SetType,
                                     &a.ctl, &SetType, &a.tst, &sel[0], &sel[1], &sel[2], &sel[3],
                                     &device, &a.short_names, &a.hta_strict, &a.o.categories,
                                     &a.exclude_categories, &a.normalize_names, &samples, &alpha,
                                     &min_change, &a.rename, &name, &by, &sort, &ascending, &top,
                                     &include, &exclude, &labels[0], &labels[1]))
        return NULL;
    if (!name)
        return PyErr_Format(UsageError, "explain: name= is needed (an op, top op or annotation)");
    if (by < TD_BY_OP || by > TD_BY_ANNOTATION)
        return PyErr_Format(UsageError, "by must be 1 (op), 2 (top-op) or 3 (annotation)");
    if (!a.ctl->attributed || !a.tst->attributed)
        return PyErr_Format(UsageError, "explain: the sets must be opened with want_attribution");
    if (top < 0)
        return PyErr_Format(UsageError, "Invalid argument top=%zd (1 or more).", top);
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    vo.sort = TD_COL_ABS_DIFF_DURATION; /* the kernels that moved most first */
    vo.has_sort = true;
    if (sort) {
        int c = td_column_parse(sort, labels[0], labels[1]);
        if (c < 0 || c == TD_COL_Q || c == TD_COL_CHANGE)
            return PyErr_Format(UsageError, "sort='%s': no such column", sort);
        vo.sort = (td_column)c;
    }
    vo.ascending = ascending;
    vo.top = (size_t)top;
    vo.include = include;
    vo.exclude = exclude;
    PyObject *result = NULL;
    td_diff *d = NULL;
    td_stats *st = NULL;
    size_t *idx = NULL;
    char *buf = NULL;
    size_t len = 0;
    a.o.only = name;
    a.o.only_by = (td_by)by;
    if (cmp_args_fill(&a, sel, device, samples, alpha, min_change) < 0 ||
        cmp_compute(&a, &d, &st) < 0)
        goto done;
    const td_side_notes *n[2] = {td_diff_notes(d, TD_CONTROL), td_diff_notes(d, TD_TEST)};
    if (td_diff_nrows(d) == 0 && n[0]->only_cpu_count == 0 && n[1]->only_cpu_count == 0) {
        result = closest_names(&a, name);
        goto done;
    }
    td_error err = {0};
    long nv = td_view_make(&idx, d, &vo, &err);
    if (nv < 0) {
        raise_td(&err);
        goto done;
    }
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        PyErr_NoMemory();
        goto done;
    }
    /* As tracediff explain --format json writes it (src/cli/cmd_explain.c). */
    static const char *const keys[] = {"", "op", "top_op", "annotation"};
    static const char *const side[2] = {"control", "test"};
    fprintf(f, "{\"%s\": \"", keys[by]);
    td_write_json_string(f, name, strlen(name));
    fputs("\"", f);
    for (int k = 0; k < 2; k++) {
        char c[40], g[40];
        td_format_number(c, sizeof c, n[k]->only_cpu_time);
        td_format_number(g, sizeof g, n[k]->only_gpu_time);
        fprintf(f, ", \"%s\": {\"calls\": %llu, \"cpu_time\": %s, \"gpu_time\": %s}", side[k],
                (unsigned long long)n[k]->only_cpu_count, c, g);
    }
    fputs(", \"kernels\": ", f);
    td_write_opts w = TD_WRITE_OPTS_INIT;
    w.control_label = labels[0];
    w.test_label = labels[1];
    w.rows = idx;
    w.nrows = (size_t)nv;
    int rc = td_write_json(f, d, &w, &err);
    fputs("}\n", f);
    result = memstream_text(f, &buf, &len, rc, &err);
done:
    free(buf);
    free(idx);
    td_stats_free(st);
    td_diff_free(d);
    cmp_args_clear(&a);
    return result;
}

/* roofline(control, test, ...): tracediff roofline --format json's text
 * (sets opened with want_roofline). */
static PyObject *roofline(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {
        "control",        "test",        "control_rank", "test_rank", "control_iteration",
        "test_iteration", "control_gpu", "test_gpu",     "by_class",  "stats",
        "samples",        "alpha",       "min_change",   NULL};
    /* The selections and the statistics options are read and checked as
     * compare reads them (--stats, --samples, --alpha, --min-change). */
    cmp_args a = {NULL, NULL, TD_COMPARE_OPTS_INIT, TD_STATS_OPTS_INIT, 0, 0, 0, 0, 0, 0,
                  NULL, NULL};
    PyObject *sel[4] = {Py_None, Py_None, Py_None, Py_None}, *min_change = Py_None;
    int by_class = 0, samples = 0;
    double alpha = 0;
    td_roofline_opts ro = TD_ROOFLINE_OPTS_INIT;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OOOOzzppidO:roofline", kwlist, &SetType,
                                     &a.ctl, &SetType, &a.tst, &sel[0], &sel[1], &sel[2], &sel[3],
                                     &ro.control_gpu, &ro.test_gpu, &by_class, &a.stats, &samples,
                                     &alpha, &min_change))
        return NULL;
    PyObject *result = NULL;
    td_roofline *r = NULL;
    char *buf = NULL;
    size_t len = 0;
    td_error err = {0};
    const char *gpus[2] = {ro.control_gpu, ro.test_gpu};
    for (int s = 0; s < 2; s++) {
        td_gpu g;
        if (gpus[s] && td_gpu_resolve(&g, gpus[s], &err) < 0)
            return raise_td(&err);
    }
    if (cmp_args_fill(&a, sel, TD_DEVICE_ALL, samples, alpha, min_change) < 0)
        goto done;
    ro.control_ranks = a.o.control_ranks; /* shared: freed with a */
    ro.test_ranks = a.o.test_ranks;
    ro.control_iters = a.o.control_iters;
    ro.test_iters = a.o.test_iters;
    ro.stats = a.stats;
    ro.sopts = a.so;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        PyErr_NoMemory();
        goto done;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = td_roofline_compute(&r, a.ctl->set, a.tst->set, &ro, &err);
    if (rc == 0)
        rc = td_roofline_write_json(f, r, by_class, &err);
    Py_END_ALLOW_THREADS result = memstream_text(f, &buf, &len, rc, &err);
done:
    cmp_args_clear(&a);
    td_roofline_free(r);
    free(buf);
    return result;
}

/* ------------------------------------------------------------------------ */
/* event_rows(): a file's rows as HTA's Trace frame holds them               */

typedef struct rows_cb {
    PyObject *cols[12]; /* index, cat, name, pid, tid, ts, dur, end, stream, index_correlation,
                           iteration, row */
    PyObject **args;    /* nargs lists */
    size_t nargs;
    PyObject *loads; /* json.loads, for the values that are arrays or objects */
} rows_cb;

static PyObject *jv_object(const rows_cb *c, const td_jv *v)
{
    switch (v->kind) {
    case TD_JV_INT:
        return PyLong_FromLongLong(v->i);
    case TD_JV_FLOAT:
        return PyFloat_FromDouble(v->d);
    case TD_JV_STR:
        return PyUnicode_DecodeUTF8(v->s, (Py_ssize_t)v->len, "surrogateescape");
    case TD_JV_JSON: {
        PyObject *t = PyUnicode_DecodeUTF8(v->s, (Py_ssize_t)v->len, "surrogateescape");
        PyObject *o = t ? PyObject_CallOneArg(c->loads, t) : NULL;
        Py_XDECREF(t);
        return o;
    }
    default:
        return Py_NewRef(Py_None);
    }
}

static int append_new(PyObject *list, PyObject *o)
{
    if (!o)
        return -1;
    int rc = PyList_Append(list, o);
    Py_DECREF(o);
    return rc;
}

static int rows_fn(void *ud, const td_event_row *r)
{
    rows_cb *c = ud;
    PyObject **k = c->cols;
    td_jv cat = {TD_JV_STR, 0, 0, r->cat, r->cat_len},
          name = {TD_JV_STR, 0, 0, r->name, r->name_len};
    if (append_new(k[0], PyLong_FromLongLong(r->index)) < 0 ||
        append_new(k[1], jv_object(c, &cat)) < 0 || append_new(k[2], jv_object(c, &name)) < 0)
        return -1;
    for (int q = 0; q < TD_ROW_NKEYS; q++)
        if (append_new(k[3 + q], jv_object(c, &r->key[q])) < 0)
            return -1;
    if (append_new(k[7], jv_object(c, &r->end)) < 0 ||
        append_new(k[8], PyLong_FromLongLong(r->stream)) < 0 ||
        append_new(k[9], PyLong_FromLongLong(r->index_correlation)) < 0 ||
        append_new(k[10], r->iteration_unset ? Py_NewRef(Py_None)
                                             : PyLong_FromLongLong(r->iteration)) < 0 ||
        append_new(k[11], PyLong_FromLongLong(r->row)) < 0)
        return -1;
    for (size_t a = 0; a < c->nargs; a++)
        if (append_new(c->args[a], jv_object(c, &r->args[a])) < 0)
            return -1;
    return 0;
}

static PyObject *col_dict(const td_row_col *c)
{
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:L,s:L}", "none", (unsigned long long)c->n[0],
                         "int", (unsigned long long)c->n[1], "float", (unsigned long long)c->n[2],
                         "str", (unsigned long long)c->n[3], "json", (unsigned long long)c->n[4],
                         "min", (long long)c->min, "max", (long long)c->max);
}

/* event_rows(path, ns, args, iterations, device) -> (columns, info): the
 * rows of one Kineto trace file that HTA's Trace keeps, of these
 * iterations (empty: all) and device (0 all, 1 cpu, 2 gpu), as lists per
 * column; args: the raw names of the args to keep. info: what each column
 * holds over the file (td_event_rows). */
static PyObject *event_rows(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "ns", "args", "iterations", "device", NULL};
    PyObject *path, *argseq, *itseq, *result = NULL, *fast = NULL, *json = NULL;
    int ns = 0, device = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&pOOi:event_rows", kwlist, PyUnicode_FSConverter,
                                     &path, &ns, &argseq, &itseq, &device))
        return NULL;
    rows_cb c = {0};
    const char **names = NULL;
    int64_t *iters = NULL;
    size_t niters = 0;
    td_row_col *acols = NULL;
    if (device < TD_DEVICE_ALL || device > TD_DEVICE_GPU) {
        PyErr_Format(UsageError, "device must be 0 (all), 1 (cpu) or 2 (gpu)");
        goto done;
    }
    fast = PySequence_Fast(argseq, "args must be a list of names");
    if (!fast)
        goto done;
    c.nargs = (size_t)PySequence_Fast_GET_SIZE(fast);
    names = calloc(c.nargs + 1, sizeof *names);
    c.args = calloc(c.nargs + 1, sizeof *c.args);
    acols = calloc(c.nargs + 1, sizeof *acols);
    if (!names || !c.args || !acols) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t a = 0; a < c.nargs; a++)
        if (!(names[a] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)a))) ||
            !(c.args[a] = PyList_New(0)))
            goto done;
    for (int q = 0; q < 12; q++)
        if (!(c.cols[q] = PyList_New(0)))
            goto done;
    td_list il = TD_LIST_INIT;
    if (to_list(itseq, &il, "iteration") < 0)
        goto done;
    iters = il.v;
    niters = il.n;
    json = PyImport_ImportModule("json");
    if (!json || !(c.loads = PyObject_GetAttrString(json, "loads")))
        goto done;
    td_event_rows info = {.args = acols};
    td_error err = {0};
    /* The callback builds Python objects: the GIL stays held. */
    int rc = td_file_event_rows(PyBytes_AS_STRING(path), ns, names, c.nargs, iters, niters,
                                (td_device)device, rows_fn, &c, &info, &err);
    if (rc < 0) {
        if (!PyErr_Occurred())
            raise_td(&err);
        goto done;
    }
    static const char *const colnames[12] = {
        "index",     "cat", "name", "pid", "tid", "ts", "dur", "end", "stream", "index_correlation",
        "iteration", "row"};
    PyObject *cols = PyDict_New(), *ainfo = PyList_New(0), *order = PyList_New(0);
    PyObject *inf = cols && ainfo && order ? PyDict_New() : NULL;
    int bad = !inf;
    for (int q = 0; q < 12 && !bad; q++)
        bad = PyDict_SetItemString(cols, colnames[q], c.cols[q]) < 0;
    PyObject *alists = bad ? NULL : PyList_New(0);
    bad |= !alists;
    for (size_t a = 0; a < c.nargs && !bad; a++)
        bad = PyList_Append(alists, c.args[a]) < 0 || append_new(ainfo, col_dict(&acols[a])) < 0;
    for (int q = 0; q < 6 && !bad; q++)
        bad = append_new(order, PyLong_FromLong(info.order[q])) < 0;
    static const char *const keynames[TD_ROW_NKEYS] = {"pid", "tid", "ts", "dur"};
    PyObject *keys = bad ? NULL : PyDict_New();
    bad |= !keys;
    for (int q = 0; q < TD_ROW_NKEYS && !bad; q++) {
        PyObject *d = col_dict(&info.key[q]);
        bad = !d || PyDict_SetItemString(keys, keynames[q], d) < 0;
        Py_XDECREF(d);
    }
    const struct {
        const char *k;
        const td_row_col *c;
    } more[] = {{"index", &info.index},
                {"stream", &info.stream},
                {"index_correlation", &info.index_correlation},
                {"iteration", &info.iteration}};
    for (size_t q = 0; q < sizeof more / sizeof *more && !bad; q++) {
        PyObject *d = col_dict(more[q].c);
        bad = !d || PyDict_SetItemString(inf, more[q].k, d) < 0;
        Py_XDECREF(d);
    }
    if (!bad) {
        PyObject *rest = Py_BuildValue(
            "{s:O,s:O,s:O,s:K,s:K,s:K,s:O,s:O,s:O,s:s}", "keys", keys, "args", ainfo, "order",
            order, "iteration_unset", (unsigned long long)info.iteration_unset, "kept",
            (unsigned long long)info.kept, "events", (unsigned long long)info.events, "rounded",
            info.rounded ? Py_True : Py_False, "has_args", info.has_args ? Py_True : Py_False,
            "arg_values", alists, "other_key", info.other_key);
        bad = !rest || PyDict_Update(inf, rest) < 0;
        Py_XDECREF(rest);
    }
    if (!bad)
        result = Py_BuildValue("(OO)", cols, inf);
    Py_XDECREF(cols);
    Py_XDECREF(ainfo);
    Py_XDECREF(order);
    Py_XDECREF(inf);
    Py_XDECREF(alists);
    Py_XDECREF(keys);
done:
    for (int q = 0; q < 12; q++)
        Py_XDECREF(c.cols[q]);
    for (size_t a = 0; c.args && a < c.nargs; a++)
        Py_XDECREF(c.args[a]);
    free(c.args);
    free(names);
    free(acols);
    free(iters);
    Py_XDECREF(c.loads);
    Py_XDECREF(json);
    Py_XDECREF(fast);
    Py_DECREF(path);
    return result;
}

static PyMethodDef module_methods[] = {
    {"open_sets", (PyCFunction)(void (*)(void))open_sets, METH_VARARGS | METH_KEYWORDS,
     "open_sets(paths, threads=0, want_attribution=False, ns=None, ..., pids=None, "
     "want_tree=False, python_frames=False) -> [Set]: open trace sets, reading all files at "
     "once; ns=None follows HTA_DISABLE_NS_ROUNDING=1; python_frames (with want_tree): the "
     "python_function frames join the call trees (--python-frames)."},
    {"compare", (PyCFunction)(void (*)(void))compare, METH_VARARGS | METH_KEYWORDS,
     "compare(control, test, control_rank=None, test_rank=None, control_iteration=None, "
     "test_iteration=None, device=0, short_names=False, hta_strict=False, categories=None, "
     "exclude_categories=False, normalize_names=False, samples=0, alpha=0, min_change=None, "
     "stats=False, per_iteration=False, by=0) -> (names, control_counts, test_counts, "
     "control_duration, test_duration, control_notes, test_notes, key_name, stats or None)"},
    {"tree_match", (PyCFunction)(void (*)(void))tree_match, METH_VARARGS | METH_KEYWORDS,
     "tree_match(control, test, control_rank=None, test_rank=None, control_iteration=None, "
     "test_iteration=None, stats=False, samples=0, alpha=0, min_change=None) -> (rows, "
     "summary, notes, stats or None): compare --match tree (sets opened with want_tree)."},
    {"chart", (PyCFunction)(void (*)(void))chart, METH_VARARGS | METH_KEYWORDS,
     "chart(path, kind, names, control_counts, test_counts, control_duration, test_duration, "
     "control_label=None, test_label=None): kind 0 counts, 1 duration; .svg, .png or .pdf."},
    {"short_name", short_name, METH_O, "The short name of a kernel or operator name."},
    {"flame", (PyCFunction)(void (*)(void))flame, METH_VARARGS | METH_KEYWORDS,
     "flame(control, test, ..., path, labels, side=0, width=0): tracediff plot flame, "
     "written whole to path (.svg, .png or .pdf)."},
    {"explain", (PyCFunction)(void (*)(void))explain, METH_VARARGS | METH_KEYWORDS,
     "explain(control, test, ..., name=, by=1) -> str or None: tracediff explain --format "
     "json's text (None: name in neither selection)."},
    {"event_rows", (PyCFunction)(void (*)(void))event_rows, METH_VARARGS | METH_KEYWORDS,
     "event_rows(path, ns, args, iterations, device) -> (columns, info): the rows HTA's Trace "
     "keeps of one Kineto trace file (td_file_event_rows)."},
    {"roofline", (PyCFunction)(void (*)(void))roofline, METH_VARARGS | METH_KEYWORDS,
     "roofline(control, test, ..., stats=False, samples=0, alpha=0, min_change=None) -> str: "
     "tracediff roofline --format json's text."},
    {"info", info, METH_O, "info(set) -> str: tracediff info --format json's text."},
    {"breakdown", (PyCFunction)(void (*)(void))breakdown, METH_VARARGS | METH_KEYWORDS,
     "breakdown(control, test, ...) -> str: tracediff breakdown --format json's text (sets "
     "opened with want_breakdown)."},
    {"check", (PyCFunction)(void (*)(void))check, METH_VARARGS | METH_KEYWORDS,
     "check(control, test, ..., max_regression=5, min_us=0, gate_waits=False, allow_new=False, "
     "max_step_regression=None, by=0, include=None, exclude=None) -> Check: the CI gate."},
    {"summarize", (PyCFunction)(void (*)(void))summarize, METH_VARARGS | METH_KEYWORDS,
     "summarize(set, path, run=None, replace=False, ranks=None, iterations=None, device=0, "
     "threads=0, created=None) -> str: add a set as a run to a summary; the run's name."},
    {"runs", runs, METH_O, "runs(path) -> [dict]: the runs of a summary, as added."},
    {"trend", (PyCFunction)(void (*)(void))trend, METH_VARARGS | METH_KEYWORDS,
     "trend(path, device=0, top=0, names=None, runs=None, chart=None) -> (runs, names, counts, "
     "totals); chart: also its line chart (.svg, .png or .pdf), as trend -o draws it."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "tracediff._tracediff",
    .m_doc = "The C core of tracediff (see the tracediff package).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__tracediff(void);

PyMODINIT_FUNC PyInit__tracediff(void)
{
    if (PyType_Ready(&SetType) < 0 || PyType_Ready(&CheckType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    TraceError = PyErr_NewExceptionWithDoc(
        "tracediff.TraceError",
        "A trace could not be read or compared. Attributes: message (the C library's), "
        "path and its alias file (the file concerned, or None), offset (byte offset in the "
        "decompressed JSON, or None), code.",
        NULL, NULL);
    PyObject *bases = TraceError ? PyTuple_Pack(2, TraceError, PyExc_ValueError) : NULL;
    UsageError = bases
                     ? PyErr_NewExceptionWithDoc(
                           "tracediff.UsageError",
                           "A bad argument: unknown rank or iteration, wrong type...", bases, NULL)
                     : NULL;
    Py_XDECREF(bases);
    if (!UsageError || PyModule_AddObjectRef(m, "TraceError", TraceError) < 0 ||
        PyModule_AddObjectRef(m, "UsageError", UsageError) < 0 ||
        PyModule_AddObjectRef(m, "Set", (PyObject *)&SetType) < 0 ||
        PyModule_AddStringConstant(m, "VERSION", TD_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
