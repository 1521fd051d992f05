/*
 * rocprof v1/v2's results.json (rocprof --hip-trace / --hsa-trace), read
 * with the streaming scanner. rocprofiler's writer (bin/sqlitedb.py and
 * bin/dform.py) opens it with '{ "traceEvents":[{}' and writes, one per
 * line, a process_name metadata event per track ("CPU HIP API", "CPU HSA
 * API", "COPY", "GPU0", ...) and the complete events of each:
 *
 *   {"ph":"X","name":"hipLaunchKernel","pid":3,"tid":4711,"ts":"1234","dur":"5",
 *    "args":{"BeginNs":"1234567","EndNs":"1239876",...}}
 *
 * ts and dur in whole us as strings (pid and tid numbers, or strings in
 * older releases, whose labels also start with their index: "3 GPU0");
 * the exact times are the args' BeginNs and EndNs, read when present.
 * Tracks by label, or by the writer's fixed pids when a
 * label is missing (0 COPY, 1 HIP ops, 2 HSA API, 3 HIP API, 4 + n GPU n):
 * GPU tracks hold kernels (stream: the track's tid), COPY copies, the API
 * tracks host runtime calls. Labels may follow the events: records are
 * kept (a few numbers each) and emitted at the end.
 */
#include "model/prof_load.h"
#include "read/json_scan.h"
#include "read/reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define key_is(k, kl, lit) ((kl) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* rocprofiler's fixed track pids (bin/tblextr.py). */
enum { V1_COPY_PID = 0, V1_OPS_PID = 1, V1_HSA_PID = 2, V1_HIP_PID = 3, V1_GPU_BASE_PID = 4 };

typedef struct v1_rec {
    double ts, dur; /* us */
    int64_t pid, tid;
    uint32_t name; /* into local */
} v1_rec;

typedef struct v1_label {
    int64_t pid;
    uint32_t name; /* into local */
} v1_label;

typedef struct v1 {
    td_json *j;
    td_prof_sink *s;
    td_strtab *local;
    v1_rec *r;
    size_t nr, rcap;
    v1_label *lab;
    size_t nlab, labcap;
} v1;

static int oom(v1 *p)
{
    return td_fail(p->j->err, TD_ENOMEM, p->s->f->path, "out of memory");
}

/* A number written as a number or as a string ("1234", "12.5"); NAN when
 * neither. */
static int read_num(v1 *p, double *out)
{
    *out = NAN;
    int c = td_json_peek(p->j);
    if (c == '"') {
        const char *s;
        size_t len;
        int rc = td_json_string(p->j, &s, &len);
        if (rc < 0 || len == 0 || len >= 64)
            return rc;
        char b[64], *end;
        memcpy(b, s, len);
        b[len] = '\0';
        double v = strtod(b, &end);
        if (*end == '\0')
            *out = v;
        return rc;
    }
    if (c != '-' && !(c >= '0' && c <= '9'))
        return td_json_skip(p->j);
    td_json_num n;
    int rc = td_json_number(p->j, &n);
    *out = n.is_int ? (double)n.i : n.d;
    return rc;
}

/* args: BeginNs and EndNs (ns) when given; a metadata event's name. */
static int v1_args(v1 *p, double *begin, double *end, int64_t *label)
{
    if (td_json_peek(p->j) != '{')
        return td_json_skip(p->j);
    int rc = td_json_obj_begin(p->j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(p->j, &first, &k, &kl)) > 0) {
        if (key_is(k, kl, "BeginNs")) {
            rc = read_num(p, begin);
        } else if (key_is(k, kl, "EndNs")) {
            rc = read_num(p, end);
        } else if (key_is(k, kl, "name") && td_json_peek(p->j) == '"') {
            const char *s;
            size_t len;
            if ((rc = td_json_string(p->j, &s, &len)) >= 0 &&
                (*label = td_strtab_intern(p->local, s, len)) < 0)
                rc = oom(p);
        } else {
            rc = td_json_skip(p->j);
        }
    }
    return rc;
}

typedef struct v1_event {
    char ph;
    bool meta_name; /* "name": "process_name" */
    int64_t name, label;
    double pid, tid, ts, dur, begin, end;
} v1_event;

static int read_member(v1 *p, v1_event *e, const char *k, size_t kl)
{
    td_json *j = p->j;
    const char *s;
    size_t len;
    int rc;
    if (key_is(k, kl, "ph") && td_json_peek(j) == '"') {
        if ((rc = td_json_string(j, &s, &len)) >= 0 && len == 1)
            e->ph = s[0];
        return rc;
    }
    if (key_is(k, kl, "name") && td_json_peek(j) == '"') {
        if ((rc = td_json_string(j, &s, &len)) < 0)
            return rc;
        e->meta_name = key_is(s, len, "process_name");
        if ((e->name = td_strtab_intern(p->local, s, len)) < 0)
            return oom(p);
        return 0;
    }
    if (key_is(k, kl, "pid"))
        return read_num(p, &e->pid);
    if (key_is(k, kl, "tid"))
        return read_num(p, &e->tid);
    if (key_is(k, kl, "ts"))
        return read_num(p, &e->ts);
    if (key_is(k, kl, "dur"))
        return read_num(p, &e->dur);
    if (key_is(k, kl, "args"))
        return v1_args(p, &e->begin, &e->end, &e->label);
    return td_json_skip(j);
}

static bool whole(double v)
{
    return isfinite(v) && v == floor(v) && fabs(v) < 9e15;
}

/* One entry of traceEvents: a track's label, or a complete event kept. */
static int v1_read_one(v1 *p)
{
    td_json *j = p->j;
    v1_event e = {0, false, -1, -1, NAN, NAN, NAN, NAN, NAN, NAN};
    int rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0)
        rc = read_member(p, &e, k, kl);
    if (rc < 0)
        return rc;
    if (e.ph == 'M' && e.meta_name && e.label >= 0 && whole(e.pid)) {
        v1_label *nl = td_grow(p->lab, &p->labcap, p->nlab + 1, sizeof *nl);
        if (!nl)
            return oom(p);
        p->lab = nl;
        nl[p->nlab++] = (v1_label){(int64_t)e.pid, (uint32_t)e.label};
        return 0;
    }
    if (e.ph != 'X')
        return 0; /* the leading {}, flow arrows */
    double ts = e.ts, dur = e.dur;
    if (isfinite(e.begin) && isfinite(e.end)) { /* the exact times */
        ts = e.begin / 1000.0;
        dur = (e.end - e.begin) / 1000.0;
    }
    if (e.name < 0 || !whole(e.pid) || !isfinite(ts) || !isfinite(dur)) {
        p->s->f->events_total++; /* counted, never dropped silently */
        p->s->f->events_skipped++;
        return 0;
    }
    v1_rec *nr = td_grow(p->r, &p->rcap, p->nr + 1, sizeof *nr);
    if (!nr)
        return oom(p);
    p->r = nr;
    nr[p->nr++] =
        (v1_rec){ts, dur, (int64_t)e.pid, whole(e.tid) ? (int64_t)e.tid : 0, (uint32_t)e.name};
    return 0;
}

/* What a track holds: its label when given, else rocprofiler's fixed pid. */
static td_prof_cat track_cat(const v1 *p, int64_t pid, bool *ok)
{
    const char *l = NULL;
    size_t len = 0;
    for (size_t i = 0; i < p->nlab; i++)
        if (p->lab[i].pid == pid)
            l = td_strtab_get(p->local, p->lab[i].name, &len);
    *ok = true;
    while (l && len > 0 && *l >= '0' && *l <= '9') { /* some releases: "3 GPU0" */
        size_t d = 0;
        while (d < len && l[d] >= '0' && l[d] <= '9')
            d++;
        if (d < len && l[d] == ' ')
            d++;
        l += d;
        len -= d;
        break;
    }
    if (l) {
        if (len >= 3 && memcmp(l, "GPU", 3) == 0)
            return TD_PC_KERNEL;
        if (len == 4 && memcmp(l, "COPY", 4) == 0)
            return TD_PC_MEMCPY;
        if (len >= 4 && memcmp(l, "CPU ", 4) == 0)
            return TD_PC_RUNTIME;
        *ok = false;
        return TD_PC_KERNEL;
    }
    if (pid == V1_COPY_PID)
        return TD_PC_MEMCPY;
    if (pid == V1_HSA_PID || pid == V1_HIP_PID)
        return TD_PC_RUNTIME;
    return TD_PC_KERNEL; /* HIP ops and GPU n: on a device */
}

static int emit(v1 *p)
{
    for (size_t i = 0; i < p->nr; i++) {
        const v1_rec *r = &p->r[i];
        bool ok;
        td_prof_cat cat = track_cat(p, r->pid, &ok);
        if (!ok) { /* a track this reader does not know */
            p->s->f->events_total++;
            p->s->f->events_skipped++;
            continue;
        }
        size_t len;
        const char *s = td_strtab_get(p->local, r->name, &len);
        if (cat != TD_PC_RUNTIME)
            p->s->gpu_rows++;
        int64_t stream = cat == TD_PC_RUNTIME ? -1 : r->tid;
        int rc = td_prof_sink_add(p->s, cat, s, len, r->ts, r->dur, stream, -1, r->pid,
                                  cat == TD_PC_RUNTIME ? r->tid : -1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The tracks' labels as the processes' names (info, --pid). */
static int label_processes(v1 *p)
{
    td_prof_sink *s = p->s;
    size_t cap = 0, n = 0;
    char *names = NULL;
    for (size_t i = 0; i < s->nprocs; i++) {
        const char *l = "";
        size_t len = 0;
        for (size_t k = 0; k < p->nlab; k++)
            if (p->lab[k].pid == s->proc_pid[i])
                l = td_strtab_get(p->local, p->lab[k].name, &len);
        len = strnlen(l, len);
        char *nn = td_grow(names, &cap, n + len + 1, 1);
        if (!nn) {
            free(names);
            return oom(p);
        }
        names = nn;
        memcpy(names + n, l, len);
        names[n + len] = '\0';
        n += len + 1;
    }
    s->f->proc_names = names;
    s->f->proc_names_len = n;
    return 0;
}

static int read_doc(v1 *p)
{
    td_json *j = p->j;
    if (td_json_peek(j) != '{')
        return td_fail(j->err, TD_ETRACE, p->s->f->path, "not a rocprof results.json");
    int rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        if (!key_is(k, kl, "traceEvents") || td_json_peek(j) != '[') {
            rc = td_json_skip(j);
            continue;
        }
        rc = td_json_arr_begin(j);
        bool f2 = true;
        while (rc >= 0 && (rc = td_json_arr_next(j, &f2)) > 0)
            rc = td_json_peek(j) == '{' ? v1_read_one(p) : td_json_skip(j);
    }
    return rc;
}

static long reader_read(void *ud, char *buf, size_t cap, td_error *err)
{
    return td_reader_read(ud, buf, cap, err);
}

int td_rocprof_v1_read(td_prof_sink *s, const char *path, td_error *err)
{
    td_reader *rd = NULL;
    int rc = td_reader_open(&rd, path, err);
    if (rc < 0)
        return rc;
    td_json j;
    if ((rc = td_json_init(&j, reader_read, rd, path, err)) < 0) {
        td_reader_close(rd);
        return rc;
    }
    j.ctx = "traceEvents";
    v1 p = {.j = &j, .s = s};
    if (!(p.local = td_strtab_new()))
        rc = oom(&p);
    if (rc >= 0 && (rc = read_doc(&p)) >= 0 && (rc = emit(&p)) >= 0 &&
        (rc = td_prof_sink_check_pids(s)) >= 0)
        rc = label_processes(&p);
    if (rc >= 0 && p.nr == 0)
        rc = td_fail(err, TD_ETRACE, path,
                     "this rocprof results.json holds no kernels and no API calls: nothing to "
                     "compare (profile with --hip-trace or --hsa-trace)");
    if (rc >= 0 && !(s->f->format = strdup("rocprof v1/v2 results.json")))
        rc = oom(&p);
    s->f->compression = td_reader_compression(rd);
    s->f->json_bytes = td_json_offset(&j);
    td_strtab_free(p.local);
    free(p.r);
    free(p.lab);
    td_json_free(&j);
    td_reader_close(rd);
    return rc < 0 ? rc : 0;
}
