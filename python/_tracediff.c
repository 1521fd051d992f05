/*
 * tracediff._tracediff: the CPython extension over the public C API.
 *
 * Small on purpose: it opens trace sets, computes a comparison and hands the
 * rows back as Python lists (the pure-Python package builds the DataFrame),
 * and draws charts from rows the caller gives. Loading and comparing run with
 * the GIL released; the Python objects passed in stay referenced by the
 * caller for the whole call, so nothing they own can go away meanwhile.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "tracediff.h"

#include <stdlib.h>
#include <string.h>

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
        text = PyUnicode_FromFormat("%s: byte %llu: %s", e->path, (unsigned long long)e->offset,
                                    msg);
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

/* ------------------------------------------------------------------------ */
/* Set: one opened trace set                                                 */

typedef struct {
    PyObject_HEAD
    td_set *set;
} SetObject;

static void Set_dealloc(SetObject *self)
{
    td_set_free(self->set);
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
            "{s:O&,s:L,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:z}", "path",
            PyUnicode_DecodeFSDefault, fi.path, "rank", (long long)fi.rank, "file_bytes",
            (unsigned long long)fi.file_bytes, "json_bytes", (unsigned long long)fi.json_bytes,
            "events_total", (unsigned long long)fi.events_total, "events_counted",
            (unsigned long long)fi.events_counted, "events_cpu",
            (unsigned long long)fi.events_cpu, "events_gpu", (unsigned long long)fi.events_gpu,
            "events_no_launch", (unsigned long long)fi.events_no_launch, "events_skipped",
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

static PyObject *Set_get_path(SetObject *self, void *Py_UNUSED(closure))
{
    return PyUnicode_DecodeFSDefault(td_set_path(self->set));
}

static PyMethodDef Set_methods[] = {
    {"ranks", (PyCFunction)Set_ranks, METH_NOARGS, "Sorted, distinct ranks of the set."},
    {"iterations", (PyCFunction)Set_iterations, METH_NOARGS,
     "Sorted, distinct iterations (ProfilerStep numbers) of the set."},
    {"files", (PyCFunction)Set_files, METH_NOARGS, "One dict per file, by rank."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Set_getset[] = {{"path", (getter)Set_get_path, NULL, "The set's path.", NULL},
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

/* open_sets(paths, threads=0) -> list of Set, all files read at once. */
static PyObject *open_sets(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"paths", "threads", NULL};
    PyObject *seq, *result = NULL;
    int threads = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|i:open_sets", kwlist, &seq, &threads))
        return NULL;
    PyObject *fast = PySequence_Fast(seq, "paths must be a sequence");
    if (!fast)
        return NULL;
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
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = td_sets_open(sets, paths, (size_t)n, &opts, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
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
        PyList_SET_ITEM(result, i, (PyObject *)o);
    }
done:
    for (Py_ssize_t i = 0; enc && i < n; i++)
        Py_XDECREF(enc[i]);
    free(enc);
    free(paths);
    free(sets);
    Py_DECREF(fast);
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

static PyObject *notes_dict(const td_side_notes *n)
{
    return Py_BuildValue("{s:O,s:K,s:K,s:K,s:N,s:N}", "whole_trace",
                         n->whole_trace ? Py_True : Py_False, "no_launch",
                         (unsigned long long)n->no_launch, "strict_dropped",
                         (unsigned long long)n->strict_dropped, "events",
                         (unsigned long long)n->events, "ranks", int64_list(n->ranks, n->nranks),
                         "iterations", int64_list(n->iters, n->niters));
}

/* The rows as five lists (names, control counts, test counts, control
 * durations, test durations) and the two sides' notes. */
static PyObject *diff_result(const td_diff *d)
{
    size_t n = td_diff_nrows(d);
    const td_row *rows = td_diff_rows(d);
    PyObject *cols[5] = {NULL};
    PyObject *result = NULL;
    for (int c = 0; c < 5; c++)
        if (!(cols[c] = PyList_New((Py_ssize_t)n)))
            goto done;
    for (size_t i = 0; i < n; i++) {
        const td_row *r = &rows[i];
        PyObject *v[5] = {name_str(r), PyLong_FromUnsignedLongLong(r->counts[0]),
                          PyLong_FromUnsignedLongLong(r->counts[1]),
                          PyFloat_FromDouble(r->duration[0]), PyFloat_FromDouble(r->duration[1])};
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
    result = Py_BuildValue("(OOOOONN)", cols[0], cols[1], cols[2], cols[3], cols[4],
                           notes_dict(td_diff_notes(d, TD_CONTROL)),
                           notes_dict(td_diff_notes(d, TD_TEST)));
done:
    for (int c = 0; c < 5; c++)
        Py_XDECREF(cols[c]);
    return result;
}

static PyObject *compare(PyObject *Py_UNUSED(mod), PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"control",        "test",   "control_rank", "test_rank",
                             "control_iteration", "test_iteration", "device",
                             "short_names",    "hta_strict", NULL};
    SetObject *ctl, *tst;
    PyObject *cr = Py_None, *tr = Py_None, *ci = Py_None, *ti = Py_None;
    int device = TD_DEVICE_ALL, short_names = 0, hta_strict = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!|OOOOipp:compare", kwlist, &SetType, &ctl,
                                     &SetType, &tst, &cr, &tr, &ci, &ti, &device, &short_names,
                                     &hta_strict))
        return NULL;
    if (device < TD_DEVICE_ALL || device > TD_DEVICE_GPU)
        return PyErr_Format(UsageError, "device must be 0 (all), 1 (cpu) or 2 (gpu)");
    td_compare_opts o = TD_COMPARE_OPTS_INIT;
    o.device = (td_device)device;
    o.short_names = short_names != 0;
    o.hta_strict = hta_strict != 0;
    PyObject *result = NULL;
    if (to_list(cr, &o.control_ranks, "control_rank") < 0 ||
        to_list(tr, &o.test_ranks, "test_rank") < 0 ||
        to_list(ci, &o.control_iters, "control_iteration") < 0 ||
        to_list(ti, &o.test_iters, "test_iteration") < 0)
        goto done;
    td_diff *d = NULL;
    td_error err = {0};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = td_diff_compute(&d, ctl->set, tst->set, &o, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        raise_td(&err);
    else
        result = diff_result(d);
    td_diff_free(d);
done:
    td_list_clear(&o.control_ranks);
    td_list_clear(&o.test_ranks);
    td_list_clear(&o.control_iters);
    td_list_clear(&o.test_iters);
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
    static char *kwlist[] = {"path",      "kind",      "names",         "control_counts",
                             "test_counts", "control_duration", "test_duration",
                             "control_label", "test_label", NULL};
    PyObject *path, *seq[5], *fast[5] = {NULL}, *result = NULL, *encoded[5] = {NULL};
    int kind;
    const char *cl = NULL, *tl = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&iOOOOO|zz:chart", kwlist, PyUnicode_FSConverter,
                                     &path, &kind, &seq[0], &seq[1], &seq[2], &seq[3], &seq[4],
                                     &cl, &tl))
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
        Py_BEGIN_ALLOW_THREADS
        rc = td_chart_write(p, kind ? TD_CHART_DURATION : TD_CHART_COUNTS, d, NULL, (size_t)n, cl,
                            tl, &err);
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

static PyMethodDef module_methods[] = {
    {"open_sets", (PyCFunction)(void (*)(void))open_sets, METH_VARARGS | METH_KEYWORDS,
     "open_sets(paths, threads=0) -> [Set]: open trace sets, reading all files at once."},
    {"compare", (PyCFunction)(void (*)(void))compare, METH_VARARGS | METH_KEYWORDS,
     "compare(control, test, control_rank=None, test_rank=None, control_iteration=None, "
     "test_iteration=None, device=0, short_names=False, hta_strict=False) -> (names, "
     "control_counts, test_counts, control_duration, test_duration, control_notes, "
     "test_notes)"},
    {"chart", (PyCFunction)(void (*)(void))chart, METH_VARARGS | METH_KEYWORDS,
     "chart(path, kind, names, control_counts, test_counts, control_duration, test_duration, "
     "control_label=None, test_label=None): kind 0 counts, 1 duration; .svg, .png or .pdf."},
    {"short_name", short_name, METH_O, "The short name of a kernel or operator name."},
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
    if (PyType_Ready(&SetType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    TraceError = PyErr_NewExceptionWithDoc(
        "tracediff.TraceError",
        "A trace could not be read or compared. Attributes: message, path (or None), "
        "offset (byte offset in the decompressed JSON, or None), code.",
        NULL, NULL);
    PyObject *bases = TraceError ? PyTuple_Pack(2, TraceError, PyExc_ValueError) : NULL;
    UsageError = bases ? PyErr_NewExceptionWithDoc(
                             "tracediff.UsageError",
                             "A bad argument: unknown rank or iteration, wrong type...", bases,
                             NULL)
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
