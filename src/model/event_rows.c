/* A trace file's rows as HTA's Trace frame holds them (td_file_event_rows,
 * tracediff.h): the file read twice as a stream. The first pass finds what
 * the rows' values depend on beyond themselves (the ProfilerSteps, each
 * correlation id's host and device events, whether HTA rounds the
 * timestamps); the second hands over the rows asked for. Only one event's
 * values are held at a time. */
#include "read/json_scan.h"
#include "read/reader.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One value as parsed: its text (a string, or compact JSON) at off in the
 * event's arena. */
typedef struct jv {
    td_jv_kind kind;
    int64_t i;
    double d;
    size_t off, len;
} jv;

enum { K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_NKEYS };

typedef struct ev {
    int64_t index;
    jv key[K_NKEYS];
    bool has_args;
    jv stream, corr;
    jv *args; /* nargs */
    char *arena;
    size_t alen, acap;
} ev;

/* A ProfilerStep row: its start and duration (after rounding) and number. */
typedef struct step {
    double ts, dur;
    int64_t n;
} step;

/* Per correlation id: its last host-side and device-side rows. */
typedef struct corr_ent {
    int64_t corr;
    int64_t cpu_index, gpu_index; /* -1: none */
    double cpu_ts;
    int cpu_rule; /* 0: by its time (stream < 0, or a cpu_op on stream 0); 1: unset */
    bool used;
} corr_ent;

typedef struct rows {
    const char *path;
    bool ns;
    const char *const *argn;
    size_t nargs;
    td_event_rows *out;
    td_error *err;
    td_json j;
    td_reader *r;
    ev e;
    bool seen[K_NKEYS];
    int next_order;
    /* pass 1 */
    step *steps;
    size_t nsteps, csteps;
    corr_ent *map;
    size_t mcap, mused;
    bool ts_float; /* some event's ts is a decimal or missing */
} rows;

static long reader_read(void *ud, char *buf, size_t cap, td_error *err)
{
    return td_reader_read(ud, buf, cap, err);
}

static int oom(rows *R)
{
    return td_fail(R->err, TD_ENOMEM, R->path, "out of memory");
}

static int put(rows *R, const char *s, size_t n)
{
    ev *e = &R->e;
    if (e->alen + n + 1 > e->acap) {
        size_t cap = e->acap ? e->acap : 256;
        while (cap < e->alen + n + 1)
            cap *= 2;
        char *a = realloc(e->arena, cap);
        if (!a)
            return oom(R);
        e->arena = a;
        e->acap = cap;
    }
    memcpy(e->arena + e->alen, s, n);
    e->alen += n;
    e->arena[e->alen] = 0;
    return 0;
}

/* A string as JSON text. */
static int put_json_str(rows *R, const char *s, size_t n)
{
    int rc = put(R, "\"", 1);
    for (size_t i = 0; i < n && rc == 0; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            rc = put(R, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            rc = put(R, esc, 6);
        } else {
            rc = put(R, (const char *)&s[i], 1);
        }
    }
    return rc == 0 ? put(R, "\"", 1) : rc;
}

static int put_num(rows *R, const td_json_num *n)
{
    char b[40];
    int k;
    if (n->is_int)
        k = snprintf(b, sizeof b, "%lld", (long long)n->i);
    else {
        k = snprintf(b, sizeof b, "%.17g", n->d);
        if (!strpbrk(b, ".eEn")) /* a decimal stays one when read back */
            k = snprintf(b, sizeof b, "%.1f", n->d);
    }
    return put(R, b, (size_t)k);
}

/* Any value, written into the arena as compact JSON. */
static int capture(rows *R, int depth)
{
    td_json *j = &R->j;
    int c = td_json_peek(j), rc;
    if (c < 0)
        return c;
    if (depth > 64)
        return td_json_skip(j);
    if (c == '{' || c == '[') {
        bool obj = c == '{', first = true;
        const char *k;
        size_t kl;
        rc = obj ? td_json_obj_begin(j) : td_json_arr_begin(j);
        if (rc == 0)
            rc = put(R, obj ? "{" : "[", 1);
        size_t n = 0;
        while (rc >= 0 && (rc = obj ? td_json_obj_next(j, &first, &k, &kl)
                                    : td_json_arr_next(j, &first)) > 0) {
            if (n++ && (rc = put(R, ",", 1)) < 0)
                break;
            if (obj && ((rc = put_json_str(R, k, kl)) < 0 || (rc = put(R, ":", 1)) < 0))
                break;
            rc = capture(R, depth + 1);
        }
        return rc < 0 ? rc : put(R, obj ? "}" : "]", 1);
    }
    if (c == '"') {
        const char *s;
        size_t n;
        if ((rc = td_json_string(j, &s, &n)) < 0)
            return rc;
        return put_json_str(R, s, n);
    }
    if (c == 't' || c == 'f' || c == 'n') {
        if ((rc = td_json_skip(j)) < 0)
            return rc;
        return put(R, c == 't' ? "true" : c == 'f' ? "false" : "null", c == 'f' ? 5 : 4);
    }
    td_json_num n;
    if ((rc = td_json_number(j, &n)) < 0)
        return rc;
    return put_num(R, &n);
}

/* One value: a number, a string (into the arena), or any other JSON. */
static int read_value(rows *R, jv *v)
{
    td_json *j = &R->j;
    int c = td_json_peek(j), rc;
    memset(v, 0, sizeof *v);
    if (c < 0)
        return c;
    if (c == 'n')
        return td_json_skip(j); /* null: as absent */
    if (c == '"') {
        const char *s;
        size_t n;
        if ((rc = td_json_string(j, &s, &n)) < 0)
            return rc;
        v->kind = TD_JV_STR;
        v->off = R->e.alen;
        v->len = n;
        return put(R, s, n);
    }
    if (c == '{' || c == '[' || c == 't' || c == 'f') {
        v->kind = TD_JV_JSON;
        v->off = R->e.alen;
        rc = capture(R, 0);
        v->len = R->e.alen - v->off;
        return rc;
    }
    td_json_num n;
    if ((rc = td_json_number(j, &n)) < 0)
        return rc;
    v->kind = n.is_int ? TD_JV_INT : TD_JV_FLOAT;
    v->i = n.i;
    v->d = n.is_int ? (double)n.i : n.d;
    return 0;
}

static bool key_is(const char *k, size_t kl, const char *s)
{
    return kl == strlen(s) && memcmp(k, s, kl) == 0;
}

static int args_member(td_json *j, void *ud, const char *k, size_t kl)
{
    rows *R = ud;
    jv *dst = NULL;
    size_t want = SIZE_MAX;
    for (size_t a = 0; a < R->nargs; a++)
        if (key_is(k, kl, R->argn[a]))
            want = a;
    if (key_is(k, kl, "stream"))
        dst = &R->e.stream;
    else if (key_is(k, kl, "correlation"))
        dst = &R->e.corr;
    if (!dst && want == SIZE_MAX)
        return td_json_skip(j);
    jv v;
    int rc = read_value(R, &v);
    if (rc < 0)
        return rc;
    if (dst)
        *dst = v;
    if (want != SIZE_MAX)
        R->e.args[want] = v;
    return rc;
}

static const char *const KEYS[K_NKEYS] = {"cat", "name", "pid", "tid", "ts", "dur"};

typedef struct event_ctx {
    rows *R;
    bool first_pass;
} event_ctx;

static int event_member(td_json *j, void *ud, const char *k, size_t kl)
{
    rows *R = ((event_ctx *)ud)->R;
    bool first_pass = ((event_ctx *)ud)->first_pass;
    int which = -1;
    for (int q = 0; q < K_NKEYS; q++)
        if (key_is(k, kl, KEYS[q]))
            which = q;
    if (which >= 0) {
        if (first_pass && !R->seen[which]) {
            R->seen[which] = true;
            R->out->order[which] = R->next_order++;
        }
        return read_value(R, &R->e.key[which]);
    }
    if (key_is(k, kl, "args")) {
        R->e.has_args = true;
        return td_json_members(j, args_member, R);
    }
    if (first_pass && !R->out->other_key[0] && !key_is(k, kl, "ph") && !key_is(k, kl, "id") &&
        !key_is(k, kl, "bp") && !key_is(k, kl, "s"))
        snprintf(R->out->other_key, sizeof R->out->other_key, "%.*s", (int)kl, k);
    return td_json_skip(j);
}

/* One event of traceEvents into R->e; anything but an object has no key
 * and is never kept. */
static int read_event(rows *R, bool first_pass)
{
    ev *e = &R->e;
    e->alen = 0;
    memset(e->key, 0, sizeof e->key);
    memset(&e->stream, 0, sizeof e->stream);
    memset(&e->corr, 0, sizeof e->corr);
    memset(e->args, 0, R->nargs * sizeof *e->args);
    e->has_args = false;
    event_ctx c = {R, first_pass};
    return td_json_members(&R->j, event_member, &c);
}

static bool kept(const ev *e)
{
    const jv *c = &e->key[K_CAT];
    if (c->kind == TD_JV_NONE || e->key[K_DUR].kind == TD_JV_NONE)
        return false;
    return !(c->kind == TD_JV_STR && c->len == 5 && memcmp(e->arena + c->off, "Trace", 5) == 0);
}

static const char *text(const ev *e, const jv *v)
{
    return v->kind == TD_JV_STR || v->kind == TD_JV_JSON ? e->arena + v->off : "";
}

static bool str_is(const ev *e, const jv *v, const char *s)
{
    return v->kind == TD_JV_STR && v->len == strlen(s) && memcmp(e->arena + v->off, s, v->len) == 0;
}

/* args.stream as HTA normalizes it: a number (a numeric string too),
 * truncated; else -1. */
static int64_t stream_of(const ev *e)
{
    const jv *v = &e->stream;
    if (v->kind == TD_JV_INT)
        return v->i;
    if (v->kind == TD_JV_FLOAT)
        return fabs(v->d) < 9e18 ? (int64_t)v->d : -1;
    if (v->kind == TD_JV_STR && v->len && v->len < 64) {
        char b[64], *end;
        memcpy(b, e->arena + v->off, v->len);
        b[v->len] = 0;
        double d = strtod(b, &end);
        while (*end == ' ')
            end++;
        if (end != b && !*end && fabs(d) < 9e18)
            return (int64_t)d;
    }
    return -1;
}

/* args.correlation, -1 when absent (HTA's default) or not an integer. */
static int64_t corr_of(const ev *e)
{
    const jv *v = &e->corr;
    if (v->kind == TD_JV_INT)
        return v->i;
    if (v->kind == TD_JV_FLOAT && v->d == floor(v->d) && fabs(v->d) < 9e18)
        return (int64_t)v->d;
    return -1;
}

static double num(const jv *v)
{
    return v->kind == TD_JV_INT ? (double)v->i : v->d;
}

/* ts, dur and end as HTA's frame holds them (rounded: ceil of the start,
 * floor of the end, the duration between). */
static void times(const rows *R, const ev *e, jv *ts, jv *dur, jv *end)
{
    *ts = e->key[K_TS];
    *dur = e->key[K_DUR];
    memset(end, 0, sizeof *end);
    bool num_ts = ts->kind == TD_JV_INT || ts->kind == TD_JV_FLOAT;
    bool num_dur = dur->kind == TD_JV_INT || dur->kind == TD_JV_FLOAT;
    /* (times beyond 2^53 us are left as read: no trace holds them) */
    if (R->out->rounded && num_ts && fabs(num(ts)) < 9e15 && (!num_dur || fabs(num(dur)) < 9e15)) {
        double t = ts->kind == TD_JV_INT ? (double)ts->i : ts->d;
        ts->kind = TD_JV_INT;
        ts->i = (int64_t)ceil(t);
        ts->d = (double)ts->i;
        if (num_dur) {
            double d = dur->kind == TD_JV_INT ? (double)dur->i : dur->d;
            int64_t en = (int64_t)floor(t + d);
            dur->kind = TD_JV_INT;
            dur->i = en - ts->i;
            dur->d = (double)dur->i;
        }
    }
    if (num_ts && num_dur) {
        if (ts->kind == TD_JV_INT && dur->kind == TD_JV_INT &&
            !__builtin_add_overflow(ts->i, dur->i, &end->i)) {
            end->kind = TD_JV_INT;
            end->d = (double)end->i;
        } else {
            end->kind = TD_JV_FLOAT;
            end->d = (ts->kind == TD_JV_INT ? (double)ts->i : ts->d) +
                     (dur->kind == TD_JV_INT ? (double)dur->i : dur->d);
        }
    }
}

/* The step a host time falls in (the last whose [ts, ts + dur) holds it), -1 if none. */
static int64_t step_of(const rows *R, double t)
{
    int64_t it = -1;
    for (size_t i = 0; i < R->nsteps; i++)
        if (R->steps[i].ts <= t && t < R->steps[i].ts + R->steps[i].dur)
            it = R->steps[i].n;
    return it;
}

static uint64_t hash64(int64_t k)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return x ^ (x >> 29);
}

static corr_ent *map_get(rows *R, int64_t corr, bool add)
{
    if (add && (R->mused + 1) * 2 > R->mcap) {
        size_t cap = R->mcap ? R->mcap * 2 : 1024;
        corr_ent *m = calloc(cap, sizeof *m);
        if (!m)
            return NULL;
        for (size_t i = 0; i < R->mcap; i++) {
            if (!R->map[i].used)
                continue;
            size_t h = hash64(R->map[i].corr) & (cap - 1);
            while (m[h].used)
                h = (h + 1) & (cap - 1);
            m[h] = R->map[i];
        }
        free(R->map);
        R->map = m;
        R->mcap = cap;
    }
    if (!R->mcap)
        return NULL;
    size_t h = hash64(corr) & (R->mcap - 1);
    while (R->map[h].used) {
        if (R->map[h].corr == corr)
            return &R->map[h];
        h = (h + 1) & (R->mcap - 1);
    }
    if (!add)
        return NULL;
    R->mused++;
    R->map[h] = (corr_ent){.corr = corr, .cpu_index = -1, .gpu_index = -1, .used = true};
    return &R->map[h];
}

/* HTA's GPU side of the correlation join: a kernel-like event (a stream
 * and a correlation, both >= 0) or a device sync. */
static bool gpu_side(const ev *e, int64_t stream, int64_t corr)
{
    return (stream >= 0 && corr >= 0) || str_is(e, &e->key[K_NAME], "Event Sync") ||
           str_is(e, &e->key[K_NAME], "Context Sync");
}

static void col_int(td_row_col *c, int64_t v)
{
    c->n[TD_JV_INT]++;
    if (c->min > c->max) {
        c->min = c->max = v;
        return;
    }
    if (v < c->min)
        c->min = v;
    if (v > c->max)
        c->max = v;
}

static void col_add(td_row_col *c, const jv *v)
{
    if (v->kind == TD_JV_INT)
        col_int(c, v->i);
    else
        c->n[v->kind]++;
}

static void col_init(td_row_col *c)
{
    memset(c, 0, sizeof *c);
    c->min = 1;
    c->max = 0;
}

/* "ProfilerStep#N" (HTA's pattern, white space allowed around '#'): N. */
static bool step_number(const ev *e, int64_t *n)
{
    const jv *v = &e->key[K_NAME];
    if (v->kind != TD_JV_STR || v->len < 12 || memcmp(e->arena + v->off, "ProfilerStep", 12))
        return false;
    const char *s = e->arena + v->off + 12, *end = e->arena + v->off + v->len;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s++ != '#')
        return false;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    int64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9' && x < INT64_MAX / 10)
        x = x * 10 + (*s++ - '0');
    *n = x;
    return true;
}

typedef struct pass_ctx {
    bool first;
    const int64_t *iters;
    size_t niters;
    td_device device;
    int (*fn)(void *ud, const td_event_row *row);
    void *ud;
    td_jv *args_out;
} pass_ctx;

/* Pass 1: the kinds of the event keys, the steps (raw times: the rounding
 * is known only at the end) and the correlation map. */
static int first_pass_event(rows *R)
{
    ev *e = &R->e;
    td_event_rows *o = R->out;
    for (int q = K_PID; q <= K_DUR; q++)
        o->key[q - K_PID].n[e->key[q].kind]++;
    const jv *ts = &e->key[K_TS];
    if (ts->kind != TD_JV_INT)
        R->ts_float = true;
    if (e->has_args)
        o->has_args = true;
    if (!kept(e))
        return 0;
    int64_t n;
    if (step_number(e, &n) && (ts->kind == TD_JV_INT || ts->kind == TD_JV_FLOAT)) {
        if (!(R->steps = td_grow(R->steps, &R->csteps, R->nsteps + 1, sizeof *R->steps)))
            return oom(R);
        R->steps[R->nsteps++] = (step){num(ts), num(&e->key[K_DUR]), n};
    }
    int64_t corr = corr_of(e), stream = stream_of(e);
    if (corr == -1)
        return 0;
    corr_ent *c = map_get(R, corr, true);
    if (!c)
        return oom(R);
    if (gpu_side(e, stream, corr)) {
        c->gpu_index = e->index;
    } else {
        c->cpu_index = e->index;
        c->cpu_ts = num(ts);
        c->cpu_rule = stream < 0 || (stream == 0 && str_is(e, &e->key[K_CAT], "cpu_op")) ? 0 : 1;
    }
    return 0;
}

/* The rounding, once pass 1 has seen every ts: applied to the steps (and
 * to the host times kept in the map). */
static void settle_rounding(rows *R)
{
    R->out->rounded = R->ts_float && !R->ns;
    if (!R->out->rounded)
        return;
    for (size_t i = 0; i < R->nsteps; i++) {
        double t = R->steps[i].ts, en = floor(t + R->steps[i].dur);
        R->steps[i].ts = ceil(t);
        R->steps[i].dur = en - R->steps[i].ts;
    }
    for (size_t i = 0; i < R->mcap; i++)
        if (R->map[i].used && R->map[i].cpu_index >= 0)
            R->map[i].cpu_ts = ceil(R->map[i].cpu_ts);
}

static td_jv pub(const ev *e, const jv *v)
{
    return (td_jv){v->kind, v->i, v->d, text(e, v), v->len};
}

/* A row's index_correlation and iteration (unset: HTA's NaN), HTA's way:
 * the linked event's index; a host event's step by its time, a kernel's by
 * its launch's. */
static void link_and_step(rows *R, const ev *e, const jv *ts, int64_t stream, int64_t *ic,
                          int64_t *it, bool *unset)
{
    int64_t corr = corr_of(e);
    bool gpu = false;
    corr_ent *c = NULL;
    *ic = corr < 0 ? corr : 0;
    if (corr != -1) {
        gpu = gpu_side(e, stream, corr);
        c = map_get(R, corr, false);
        if (c && gpu && c->cpu_index >= 0)
            *ic = c->cpu_index;
        else if (c && !gpu && c->gpu_index >= 0)
            *ic = c->gpu_index;
    }
    *it = -1;
    *unset = false;
    if (stream < 0 || (stream == 0 && str_is(e, &e->key[K_CAT], "cpu_op"))) {
        *it = step_of(R, num(ts));
    } else if (stream == 0) {
        *unset = true;
    } else if (*ic > 0) {
        /* the linked event's iteration: its own by time, when it is a host event */
        if (c && gpu && *ic == c->cpu_index && c->cpu_rule == 0)
            *it = step_of(R, c->cpu_ts);
        else
            *unset = true;
    }
}

static int second_pass_event(rows *R, pass_ctx *P)
{
    ev *e = &R->e;
    td_event_rows *o = R->out;
    if (!kept(e))
        return 0;
    td_event_row row = {.index = e->index, .row = (int64_t)o->kept++};
    jv ts, dur, end;
    times(R, e, &ts, &dur, &end);
    int64_t stream = stream_of(e), ic, it;
    bool unset;
    link_and_step(R, e, &ts, stream, &ic, &it, &unset);
    col_int(&o->index, e->index);
    col_int(&o->stream, stream);
    col_int(&o->index_correlation, ic);
    if (unset)
        o->iteration_unset++;
    else
        col_int(&o->iteration, it);
    const jv *kv[TD_ROW_NKEYS] = {&e->key[K_PID], &e->key[K_TID], &ts, &dur};
    for (int q = 0; q < TD_ROW_NKEYS; q++) {
        if (kv[q]->kind == TD_JV_INT) { /* the ranges, over the kept rows */
            td_row_col *k = &o->key[q];
            if (k->min > k->max)
                k->min = k->max = kv[q]->i;
            else if (kv[q]->i < k->min)
                k->min = kv[q]->i;
            else if (kv[q]->i > k->max)
                k->max = kv[q]->i;
        }
        row.key[q] = pub(e, kv[q]);
    }
    for (size_t a = 0; a < R->nargs; a++)
        col_add(&o->args[a], &e->args[a]);
    bool want = !unset || P->niters == 0;
    if (P->niters) {
        want = false;
        for (size_t k = 0; k < P->niters && !unset; k++)
            want |= P->iters[k] == it;
    }
    if (P->device == TD_DEVICE_CPU)
        want &= stream == -1;
    else if (P->device == TD_DEVICE_GPU)
        want &= stream != -1;
    if (!want)
        return 0;
    row.cat = text(e, &e->key[K_CAT]);
    row.cat_len = e->key[K_CAT].len;
    row.name = text(e, &e->key[K_NAME]);
    row.name_len = e->key[K_NAME].len;
    row.end = pub(e, &end);
    row.stream = stream;
    row.index_correlation = ic;
    row.iteration = it;
    row.iteration_unset = unset;
    for (size_t a = 0; a < R->nargs; a++)
        P->args_out[a] = pub(e, &e->args[a]);
    row.args = P->args_out;
    return P->fn(P->ud, &row);
}

static int pass(rows *R, pass_ctx *P)
{
    int rc = td_reader_open(&R->r, R->path, R->err);
    if (rc < 0)
        return rc;
    if ((rc = td_json_init(&R->j, reader_read, R->r, R->path, R->err)) < 0) {
        td_reader_close(R->r);
        R->r = NULL;
        return rc;
    }
    td_json *j = &R->j;
    j->ctx = "traceEvents";
    if (td_json_peek(j) != '{')
        rc = td_fail_at(R->err, TD_ETRACE, R->path, td_json_offset(j),
                        "not a Kineto trace: the top level is not an object");
    if (rc >= 0)
        rc = td_json_obj_begin(j);
    bool first = true, found = false;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        if (!key_is(k, kl, "traceEvents") || td_json_peek(j) != '[' || found) {
            rc = td_json_skip(j);
            continue;
        }
        found = true;
        rc = td_json_arr_begin(j);
        bool f2 = true;
        int64_t index = 0;
        while (rc >= 0 && (rc = td_json_arr_next(j, &f2)) > 0) {
            R->e.index = index++;
            if ((rc = read_event(R, P->first)) < 0)
                break;
            rc = P->first ? first_pass_event(R) : second_pass_event(R, P);
        }
        if (P->first)
            R->out->events = (uint64_t)index;
    }
    if (rc >= 0)
        rc = td_json_end(j);
    if (rc >= 0 && !found)
        rc = td_fail(R->err, TD_ETRACE, R->path, "not a Kineto trace: no traceEvents array");
    td_json_free(j);
    td_reader_close(R->r);
    R->r = NULL;
    return rc < 0 ? rc : 0;
}

int td_file_event_rows(const char *path, bool ns, const char *const *args, size_t nargs,
                       const int64_t *iters, size_t niters, td_device device,
                       int (*fn)(void *ud, const td_event_row *row), void *ud, td_event_rows *out,
                       td_error *err)
{
    if (!path || !out || !fn || (nargs && (!args || !out->args)) || (niters && !iters))
        return td_fail(err, TD_EUSAGE, path ? path : "", "td_file_event_rows: bad arguments");
    td_row_col *acols = out->args;
    memset(out, 0, sizeof *out);
    out->args = acols;
    for (int q = 0; q < TD_ROW_NKEYS; q++)
        col_init(&out->key[q]);
    for (size_t a = 0; a < nargs; a++)
        col_init(&out->args[a]);
    col_init(&out->index);
    col_init(&out->stream);
    col_init(&out->index_correlation);
    col_init(&out->iteration);
    for (int q = 0; q < 6; q++)
        out->order[q] = -1;
    rows R = {.path = path, .ns = ns, .argn = args, .nargs = nargs, .out = out, .err = err};
    pass_ctx P = {
        .first = true, .iters = iters, .niters = niters, .device = device, .fn = fn, .ud = ud};
    int rc = 0;
    R.e.args = calloc(nargs + 1, sizeof *R.e.args);
    P.args_out = calloc(nargs + 1, sizeof *P.args_out);
    if (!R.e.args || !P.args_out)
        rc = oom(&R);
    if (rc == 0)
        rc = pass(&R, &P);
    if (rc == 0) {
        settle_rounding(&R);
        /* pass 2 counts the ranges afresh; the kinds of pass 1 stay */
        for (int q = 0; q < TD_ROW_NKEYS; q++) {
            out->key[q].min = 1;
            out->key[q].max = 0;
        }
        P.first = false;
        rc = pass(&R, &P);
    }
    free(R.e.args);
    free(R.e.arena);
    free(P.args_out);
    free(R.steps);
    free(R.map);
    return rc;
}
