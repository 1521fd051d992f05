/*
 * rocprofv3's JSON (--output-format json), read with the streaming scanner:
 * {"rocprofiler-sdk-tool": [{"metadata": {"pid": P, ...},
 *   "strings": {"buffer_records": [{"kind": K, "operations": [names]}],
 *               "marker_api": [{"key": correlation id, "value": text}]},
 *   "kernel_symbols": [{"kernel_id": I, "formatted_kernel_name": ...}],
 *   "buffer_records": {"kernel_dispatch": [...], "hip_api": [...],
 *                      "memory_copy": [...], "marker_api": [...]}}]}
 * Names may come after the records that use them: the records are kept
 * (a few numbers each) and named once the document has been read.
 */
#include "model/prof_load.h"
#include "read/json_scan.h"

#include <stdlib.h>
#include <string.h>

#define key_is(k, kl, lit) ((kl) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

enum { R_KERNEL, R_HIP, R_COPY, R_MARKER };

typedef struct rec {
    int64_t start, end, stream, corr, tid, id; /* id: kernel_id, or the operation */
    int32_t kind;                              /* the record's kind (strings.buffer_records) */
    uint8_t type;                              /* R_... */
    uint8_t have;                              /* bit 0 start, bit 1 end */
} rec;

typedef struct id_name {
    int64_t id;
    uint32_t name; /* into local */
} id_name;

typedef struct rp {
    td_json *j;
    td_prof_sink *s;
    td_strtab *local; /* symbol, operation and marker names */
    id_name *sym;     /* kernel_id -> name */
    size_t nsym, symcap;
    id_name *ops; /* kind << 32 | operation -> name */
    size_t nops, opscap;
    id_name *msg; /* marker correlation id -> text */
    size_t nmsg, msgcap;
    rec *r;
    size_t nr, rcap;
    int64_t pid;
} rp;

static int oom(rp *p)
{
    return td_fail(p->j->err, TD_ENOMEM, p->s->f->path, "out of memory");
}

static int read_int(rp *p, int64_t *out)
{
    int c = td_json_peek(p->j);
    if (c != '-' && !(c >= '0' && c <= '9')) {
        *out = -1;
        return td_json_skip(p->j);
    }
    td_json_num n;
    int rc = td_json_number(p->j, &n);
    *out = n.is_int ? n.i : (int64_t)n.d;
    return rc;
}

typedef struct want_int {
    rp *p;
    const char *want;
    int64_t *out;
} want_int;

static int want_int_member(td_json *j, void *ud, const char *k, size_t kl)
{
    want_int *w = ud;
    return kl == strlen(w->want) && memcmp(k, w->want, kl) == 0 ? read_int(w->p, w->out)
                                                                : td_json_skip(j);
}

/* {"handle": N} or {"internal": N, ...}: the member named want. */
static int read_member_int(rp *p, const char *want, int64_t *out)
{
    *out = -1;
    if (td_json_peek(p->j) != '{')
        return read_int(p, out);
    want_int w = {p, want, out};
    return td_json_members(p->j, want_int_member, &w);
}

static int add_name(rp *p, id_name **v, size_t *n, size_t *cap, int64_t id, const char *s,
                    size_t len)
{
    int64_t nid = td_strtab_intern(p->local, s, len);
    id_name *nv = nid < 0 ? NULL : td_grow(*v, cap, *n + 1, sizeof **v);
    if (!nv)
        return oom(p);
    *v = nv;
    nv[(*n)++] = (id_name){id, (uint32_t)nid};
    return 0;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = ((const id_name *)a)->id, y = ((const id_name *)b)->id;
    return (x > y) - (x < y);
}

/* The name of id in a sorted table (the last given wins), or NULL. */
static const char *name_of(const rp *p, const id_name *v, size_t n, int64_t id, size_t *len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].id <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || v[lo - 1].id != id)
        return NULL;
    return td_strtab_get(p->local, v[lo - 1].name, len);
}

/* kernel_symbols: [{"kernel_id": I, "formatted_kernel_name": "...", ...}] */
static int read_symbols(rp *p)
{
    td_json *j = p->j;
    if (td_json_peek(j) != '[')
        return td_json_skip(j);
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0) {
        if (td_json_peek(j) != '{') {
            rc = td_json_skip(j);
            continue;
        }
        int64_t id = -1;
        char *best[3] = {NULL, NULL, NULL}; /* formatted, demangled, kernel_name */
        rc = td_json_obj_begin(j);
        bool f2 = true;
        const char *k;
        size_t kl;
        while (rc >= 0 && (rc = td_json_obj_next(j, &f2, &k, &kl)) > 0) {
            int which = key_is(k, kl, "formatted_kernel_name")   ? 0
                        : key_is(k, kl, "demangled_kernel_name") ? 1
                        : key_is(k, kl, "kernel_name")           ? 2
                                                                 : -1;
            if (key_is(k, kl, "kernel_id")) {
                rc = read_int(p, &id);
            } else if (which >= 0 && td_json_peek(j) == '"') {
                const char *s;
                size_t sl;
                if ((rc = td_json_string(j, &s, &sl)) >= 0 && sl && !best[which] &&
                    !(best[which] = strndup(s, sl)))
                    rc = oom(p);
            } else {
                rc = td_json_skip(j);
            }
        }
        const char *nm = best[0] ? best[0] : best[1] ? best[1] : best[2];
        if (rc >= 0 && id >= 0 && nm)
            rc = add_name(p, &p->sym, &p->nsym, &p->symcap, id, nm, strlen(nm));
        for (int w = 0; w < 3; w++)
            free(best[w]);
    }
    return rc;
}

/* strings.buffer_records: [{"kind": "HIP_RUNTIME_API", "operations": [...]}],
 * the k-th entry for kind k. */
static int read_op_strings(rp *p)
{
    td_json *j = p->j;
    if (td_json_peek(j) != '[')
        return td_json_skip(j);
    int rc = td_json_arr_begin(j);
    bool first = true;
    int64_t kind = -1;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0) {
        kind++;
        if (td_json_peek(j) != '{') {
            rc = td_json_skip(j);
            continue;
        }
        rc = td_json_obj_begin(j);
        bool f2 = true;
        const char *k;
        size_t kl;
        while (rc >= 0 && (rc = td_json_obj_next(j, &f2, &k, &kl)) > 0) {
            if (!key_is(k, kl, "operations") || td_json_peek(j) != '[') {
                rc = td_json_skip(j);
                continue;
            }
            rc = td_json_arr_begin(j);
            bool f3 = true;
            int64_t op = -1;
            while (rc >= 0 && (rc = td_json_arr_next(j, &f3)) > 0) {
                op++;
                const char *s;
                size_t sl;
                if (td_json_peek(j) != '"')
                    rc = td_json_skip(j);
                else if ((rc = td_json_string(j, &s, &sl)) >= 0)
                    rc = add_name(p, &p->ops, &p->nops, &p->opscap, kind << 32 | op, s, sl);
            }
        }
    }
    return rc;
}

/* strings.marker_api: [{"key": correlation id, "value": "text"}] */
static int read_marker_strings(rp *p)
{
    td_json *j = p->j;
    if (td_json_peek(j) != '[')
        return td_json_skip(j);
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0) {
        if (td_json_peek(j) != '{') {
            rc = td_json_skip(j);
            continue;
        }
        int64_t key = -1;
        char *text = NULL;
        rc = td_json_obj_begin(j);
        bool f2 = true;
        const char *k;
        size_t kl;
        while (rc >= 0 && (rc = td_json_obj_next(j, &f2, &k, &kl)) > 0) {
            if (key_is(k, kl, "key")) {
                rc = read_int(p, &key);
            } else if (key_is(k, kl, "value") && td_json_peek(j) == '"') {
                const char *s;
                size_t sl;
                if ((rc = td_json_string(j, &s, &sl)) >= 0 && !text && !(text = strndup(s, sl)))
                    rc = oom(p);
            } else {
                rc = td_json_skip(j);
            }
        }
        if (rc >= 0 && key >= 0 && text)
            rc = add_name(p, &p->msg, &p->nmsg, &p->msgcap, key, text, strlen(text));
        free(text);
    }
    return rc;
}

static int strings_member(td_json *j, void *ud, const char *k, size_t kl)
{
    if (key_is(k, kl, "buffer_records"))
        return read_op_strings(ud);
    if (key_is(k, kl, "marker_api"))
        return read_marker_strings(ud);
    return td_json_skip(j);
}

typedef struct rec_ctx {
    rp *p;
    rec *r;
} rec_ctx;

static int record_member(td_json *j, void *ud, const char *k, size_t kl)
{
    rp *p = ((rec_ctx *)ud)->p;
    rec *r = ((rec_ctx *)ud)->r;
    uint8_t type = r->type;
    int rc;
    int64_t v;
    if (key_is(k, kl, "start_timestamp")) {
        rc = read_int(p, &r->start);
        r->have |= 1;
    } else if (key_is(k, kl, "end_timestamp")) {
        rc = read_int(p, &r->end);
        r->have |= 2;
    } else if (key_is(k, kl, "kind")) {
        rc = read_int(p, &v);
        r->kind = (int32_t)v;
    } else if (key_is(k, kl, "operation") && type != R_KERNEL) {
        rc = read_int(p, &r->id);
    } else if (key_is(k, kl, "thread_id")) {
        rc = read_int(p, &r->tid);
    } else if (key_is(k, kl, "correlation_id")) {
        rc = read_member_int(p, "internal", &r->corr);
    } else if (key_is(k, kl, "stream_id") && type != R_HIP && type != R_MARKER) {
        rc = read_member_int(p, "handle", &r->stream);
    } else if (key_is(k, kl, "dispatch_info") && type == R_KERNEL) {
        rc = read_member_int(p, "kernel_id", &r->id);
    } else {
        rc = td_json_skip(j);
    }
    return rc;
}

/* One record of buffer_records.<type>. */
static int read_record(rp *p, uint8_t type)
{
    rec r = {.start = 0, .end = 0, .stream = -1, .corr = -1, .tid = -1, .id = -1, .type = type};
    if (type == R_KERNEL || type == R_COPY)
        r.stream = 0; /* no stream_id: the default stream, as Kineto's ROCm traces have it */
    rec_ctx c = {p, &r};
    int rc = td_json_members(p->j, record_member, &c);
    if (rc < 0)
        return rc;
    rec *nr = td_grow(p->r, &p->rcap, p->nr + 1, sizeof *nr);
    if (!nr)
        return oom(p);
    p->r = nr;
    nr[p->nr++] = r;
    return 0;
}

static int records_member(td_json *j, void *ud, const char *k, size_t kl)
{
    int type = key_is(k, kl, "kernel_dispatch") ? R_KERNEL
               : key_is(k, kl, "hip_api")       ? R_HIP
               : key_is(k, kl, "memory_copy")   ? R_COPY
               : key_is(k, kl, "marker_api")    ? R_MARKER
                                                : -1;
    if (type < 0 || td_json_peek(j) != '[')
        return td_json_skip(j);
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0)
        rc = td_json_peek(j) == '{' ? read_record(ud, (uint8_t)type) : td_json_skip(j);
    return rc;
}

static int metadata_member(td_json *j, void *ud, const char *k, size_t kl)
{
    return key_is(k, kl, "pid") ? read_int(ud, &((rp *)ud)->pid) : td_json_skip(j);
}

static int tool_member(td_json *j, void *ud, const char *k, size_t kl)
{
    if (key_is(k, kl, "metadata"))
        return td_json_members(j, metadata_member, ud);
    if (key_is(k, kl, "strings"))
        return td_json_members(j, strings_member, ud);
    if (key_is(k, kl, "kernel_symbols"))
        return read_symbols(ud);
    if (key_is(k, kl, "buffer_records"))
        return td_json_members(j, records_member, ud);
    return td_json_skip(j);
}

/* The kept records as events, named now that every name is known. */
static int emit(rp *p)
{
    if (p->nsym)
        qsort(p->sym, p->nsym, sizeof *p->sym, cmp_id);
    if (p->nops)
        qsort(p->ops, p->nops, sizeof *p->ops, cmp_id);
    if (p->nmsg)
        qsort(p->msg, p->nmsg, sizeof *p->msg, cmp_id);
    static const td_prof_cat cat[] = {TD_PC_KERNEL, TD_PC_RUNTIME, TD_PC_MEMCPY, TD_PC_ANNOTATION};
    char unknown[64];
    for (size_t i = 0; i < p->nr; i++) {
        const rec *r = &p->r[i];
        size_t len = 0;
        const char *s = NULL;
        if (r->type == R_KERNEL)
            s = name_of(p, p->sym, p->nsym, r->id, &len);
        else if (r->type == R_MARKER)
            s = name_of(p, p->msg, p->nmsg, r->corr, &len);
        if (!s && r->type != R_KERNEL)
            s = name_of(p, p->ops, p->nops, (int64_t)r->kind << 32 | r->id, &len);
        if (!s) { /* named by its id, never dropped */
            len = (size_t)snprintf(unknown, sizeof unknown, "%s#%lld",
                                   r->type == R_KERNEL ? "kernel" : "operation", (long long)r->id);
            s = unknown;
        }
        if (r->type == R_MARKER)
            p->s->ann_rows++;
        else if (r->type != R_HIP)
            p->s->gpu_rows++;
        if ((r->have & 3) != 3) {
            p->s->f->events_total++;
            p->s->f->events_skipped++;
            continue;
        }
        int64_t corr = r->type == R_MARKER ? -1 : r->corr;
        int rc =
            td_prof_sink_add(p->s, cat[r->type], s, len, (double)r->start / 1000.0,
                             (double)(r->end - r->start) / 1000.0, r->stream, corr, p->pid, r->tid);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int td_rocprof_json_read(td_json *j, td_prof_sink *s)
{
    rp p = {.j = j, .s = s, .pid = -1};
    if (!(p.local = td_strtab_new()))
        return td_fail(j->err, TD_ENOMEM, s->f->path, "out of memory");
    int rc = 0;
    if (td_json_peek(j) != '[') {
        rc = td_json_skip(j);
    } else {
        rc = td_json_arr_begin(j);
        bool first = true;
        while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0)
            rc = td_json_members(j, tool_member, &p);
    }
    if (rc >= 0)
        rc = emit(&p);
    if (rc >= 0 && !s->f->format) {
        s->f->format = strdup("rocprofv3 JSON");
        if (!s->f->format)
            rc = oom(&p);
    }
    td_strtab_free(p.local);
    free(p.sym);
    free(p.ops);
    free(p.msg);
    free(p.r);
    return rc < 0 ? rc : 0;
}
