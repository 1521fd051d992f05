/*
 * One trace file: walk the Chrome-trace JSON with the streaming scanner and
 * keep, per counted event (spec §2), only the fields the comparison needs.
 * Everything else (args beyond stream and correlation, metadata) is skipped
 * by the scanner without being built.
 */
#include "internal.h"
#include "read/json_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct loader {
    td_json j;
    td_reader *r;
    td_file *f;
    const td_load_progress *prog;
    uint64_t reported;
    td_raw_event **blk; /* blocks of TD_BLOCK raw events */
    size_t nraw, nblk, blkcap;
    td_wide_corr *wide;
    size_t nwide, widecap;
    int round_ts;
    int seen_events;
    uint64_t index;
} loader;

static long source_read(void *ud, char *buf, size_t cap, td_error *err)
{
    loader *L = ud;
    long n = td_reader_read(L->r, buf, cap, err);
    if (n >= 0 && L->prog && L->prog->fn) {
        uint64_t c = td_reader_consumed(L->r);
        if (c > L->reported) {
            L->prog->fn(L->prog->ud, c - L->reported);
            L->reported = c;
        }
    }
    return n;
}

static bool key_is(const char *k, size_t kl, const char *lit)
{
    size_t n = strlen(lit);
    return kl == n && memcmp(k, lit, n) == 0;
}

/* An integer-valued number for stream / correlation; -1 otherwise (spec §2). */
static int64_t int_or_minus1(const td_json_num *n)
{
    if (n->is_int)
        return n->i;
    if (isfinite(n->d) && n->d == floor(n->d) && fabs(n->d) < 9.2e18)
        return (int64_t)n->d;
    return -1;
}

static int read_args(loader *L, int64_t *stream, int64_t *corr)
{
    td_json *j = &L->j;
    int rc = td_json_obj_begin(j);
    if (rc < 0)
        return rc;
    bool first = true;
    const char *k;
    size_t kl;
    while ((rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        int64_t *dst = NULL;
        if (key_is(k, kl, "stream"))
            dst = stream;
        else if (key_is(k, kl, "correlation"))
            dst = corr;
        int c = td_json_peek(j);
        if (dst && (c == '-' || (c >= '0' && c <= '9'))) {
            td_json_num n;
            if ((rc = td_json_number(j, &n)) < 0)
                return rc;
            *dst = int_or_minus1(&n);
        } else {
            if (dst)
                *dst = -1;
            if ((rc = td_json_skip(j)) < 0)
                return rc;
        }
    }
    return rc;
}

enum { F_NAME = 1, F_CAT = 2, F_TS = 4, F_DUR = 8 };

static int read_event(loader *L)
{
    td_json *j = &L->j;
    td_file *f = L->f;
    uint64_t index = L->index++;
    int c = td_json_peek(j);
    if (c != '{') {
        f->events_skipped++;
        return td_json_skip(j);
    }
    int rc = td_json_obj_begin(j);
    if (rc < 0)
        return rc;
    td_raw_event e = {0};
    int64_t stream = -1, corr = -1;
    bool cpu_op = false, sync = false;
    /* have: fields present; bad: present with the wrong type. A repeated
     * key replaces the earlier one, as JSON readers do: last wins. */
    int have = 0, bad = 0, trace_cat = 0;
    bool ts_decimal = false;
    int64_t name_id = -1, cat_id = -1;
    bool first = true;
    const char *k;
    size_t kl;
    while ((rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        int kind = 0;
        if (kl == 4 && memcmp(k, "name", 4) == 0)
            kind = F_NAME;
        else if (kl == 3 && memcmp(k, "cat", 3) == 0)
            kind = F_CAT;
        else if (kl == 2 && memcmp(k, "ts", 2) == 0)
            kind = F_TS;
        else if (kl == 3 && memcmp(k, "dur", 3) == 0)
            kind = F_DUR;
        else if (kl == 4 && memcmp(k, "args", 4) == 0) {
            if (td_json_peek(j) == '{') {
                stream = corr = -1;
                rc = read_args(L, &stream, &corr);
            } else {
                rc = td_json_skip(j);
            }
            if (rc < 0)
                return rc;
            continue;
        }
        if (!kind) {
            if ((rc = td_json_skip(j)) < 0)
                return rc;
            continue;
        }
        c = td_json_peek(j);
        if (kind == F_NAME || kind == F_CAT) {
            if (c != '"') {
                have |= kind;
                bad |= kind;
                if (kind == F_CAT)
                    trace_cat = cpu_op = false;
                if ((rc = td_json_skip(j)) < 0)
                    return rc;
                continue;
            }
            const char *s;
            size_t sl;
            if ((rc = td_json_string(j, &s, &sl)) < 0)
                return rc;
            have |= kind;
            bad &= ~kind;
            if (kind == F_NAME) {
                sync = key_is(s, sl, "Event Sync") || key_is(s, sl, "Context Sync");
                name_id = td_strtab_intern(f->names, s, sl);
                if (name_id < 0)
                    return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
            } else {
                trace_cat = key_is(s, sl, "Trace");
                cpu_op = key_is(s, sl, "cpu_op");
                cat_id = td_strtab_intern(f->cats, s, sl);
                if (cat_id < 0)
                    return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
            }
        } else {
            if (c != '-' && !(c >= '0' && c <= '9')) {
                /* A timestamp or duration that is not a number. */
                have |= kind;
                bad |= kind;
                if ((rc = td_json_skip(j)) < 0)
                    return rc;
                continue;
            }
            td_json_num n;
            if ((rc = td_json_number(j, &n)) < 0)
                return rc;
            have |= kind;
            bad &= ~kind;
            if (kind == F_TS) {
                e.u.ts = n.d;
                e.flags |= TD_RAW_HAS_TS;
                ts_decimal = n.decimal;
            } else {
                e.dur = n.d;
            }
        }
    }
    if (rc < 0)
        return rc;
    if (!(have & F_TS) || ts_decimal)
        L->round_ts = 1;
    /* Spec §2: counted when it has cat and dur and cat is not "Trace". */
    if (!(have & F_CAT) || !(have & F_DUR) || trace_cat)
        return 0;
    if (bad || name_id < 0 || cat_id < 0) {
        /* A counted event we cannot use: no name, or fields of the wrong
         * type. Counted and reported, never dropped silently. */
        f->events_skipped++;
        return 0;
    }
    if (name_id >= ((int64_t)1 << TD_NAME_BITS))
        return td_fail(j->err, TD_ETRACE, f->path, "more than %lld distinct names in one file",
                       (long long)1 << TD_NAME_BITS);
    e.name = (uint32_t)name_id & ((1u << TD_NAME_BITS) - 1);
    if (corr >= INT32_MIN + 1 && corr <= INT32_MAX) {
        e.corr = (int32_t)corr;
    } else {
        e.corr = TD_CORR_WIDE;
        td_wide_corr *nw = td_grow(L->wide, &L->widecap, L->nwide + 1, sizeof *nw);
        if (!nw)
            return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
        L->wide = nw;
        L->wide[L->nwide].index = L->nraw;
        L->wide[L->nwide].corr = corr;
        L->nwide++;
    }
    /* Classify now (spec §3) so that the stream need not be kept. */
    if (stream < 0 || (stream == 0 && cpu_op))
        e.flags |= TD_RAW_HOST;
    else if (stream == 0)
        e.flags |= TD_RAW_STREAM0;
    if (stream != -1)
        e.flags |= TD_RAW_GPU;
    if (corr != -1 && !(stream >= 0 && corr >= 0) && !sync)
        e.flags |= TD_RAW_CORR_HOST;
    if (index == 0)
        e.flags |= TD_RAW_INDEX0;
    size_t slot = L->nraw & (TD_BLOCK - 1);
    if (slot == 0) {
        if (L->nblk == L->blkcap) {
            td_raw_event **nb = td_grow(L->blk, &L->blkcap, L->nblk + 1, sizeof *nb);
            if (!nb)
                return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
            L->blk = nb;
        }
        L->blk[L->nblk] = malloc(TD_BLOCK * sizeof(td_raw_event));
        if (!L->blk[L->nblk])
            return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
        L->nblk++;
    }
    L->blk[L->nraw >> TD_BLOCK_SHIFT][slot] = e;
    L->nraw++;
    size_t cid = (size_t)cat_id;
    if (cid >= f->ncat_counts) {
        size_t cap = f->ncat_counts;
        uint64_t *cc = td_grow(f->cat_counts, &cap, cid + 1, sizeof *cc);
        if (!cc)
            return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
        memset(cc + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *cc);
        f->cat_counts = cc;
        f->ncat_counts = cap;
    }
    f->cat_counts[cid]++;
    return 0;
}

static int read_events(loader *L)
{
    td_json *j = &L->j;
    if (td_json_peek(j) != '[') {
        if (td_json_peek(j) < -1)
            return TD_EIO;
        return td_fail_at(j->err, TD_ETRACE, L->f->path, td_json_offset(j),
                          "traceEvents is not an array");
    }
    if (L->seen_events) {
        /* A repeated key: as JSON readers do, the last one wins. */
        for (size_t b = 0; b < L->nblk; b++)
            free(L->blk[b]);
        L->nblk = 0;
        L->nraw = 0;
        L->nwide = 0;
        L->index = 0;
        L->f->events_skipped = 0;
        L->round_ts = 0;
        if (L->f->cat_counts)
            memset(L->f->cat_counts, 0, L->f->ncat_counts * sizeof *L->f->cat_counts);
    }
    L->seen_events = 1;
    const char *saved = j->ctx;
    j->ctx = "traceEvents";
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0)
        rc = read_event(L);
    j->ctx = saved;
    L->f->events_total = L->index;
    return rc;
}

static int read_distributed_info(loader *L)
{
    td_json *j = &L->j;
    L->f->rank = 0; /* a repeated distributedInfo replaces the earlier one */
    L->f->has_rank = 0;
    if (td_json_peek(j) != '{')
        return td_json_skip(j);
    int rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        if (!key_is(k, kl, "rank")) {
            rc = td_json_skip(j);
            continue;
        }
        uint64_t at = td_json_offset(j);
        int c = td_json_peek(j);
        td_json_num n;
        if (c == '-' || (c >= '0' && c <= '9')) {
            if ((rc = td_json_number(j, &n)) < 0)
                return rc;
            if (!n.is_int)
                return td_fail_at(j->err, TD_ETRACE, L->f->path, at,
                                  n.decimal ? "distributedInfo.rank is not an integer"
                                            : "distributedInfo.rank is beyond 64 bits");
            L->f->rank = n.i;
            L->f->has_rank = 1;
        } else if (c == 'n') {
            rc = td_json_skip(j); /* null: as if missing */
            L->f->rank = 0;
            L->f->has_rank = 0;
        } else {
            return td_fail_at(j->err, TD_ETRACE, L->f->path, at,
                              c == '"' ? "distributedInfo.rank is a string, not an integer"
                                       : "distributedInfo.rank is not an integer");
        }
    }
    return rc;
}

static int read_device_properties(loader *L)
{
    td_json *j = &L->j;
    if (td_json_peek(j) != '[')
        return td_json_skip(j);
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0) {
        if (L->f->device_name || td_json_peek(j) != '{') {
            rc = td_json_skip(j);
            continue;
        }
        bool f2 = true;
        const char *k;
        size_t kl;
        rc = td_json_obj_begin(j);
        while (rc >= 0 && (rc = td_json_obj_next(j, &f2, &k, &kl)) > 0) {
            if (key_is(k, kl, "name") && td_json_peek(j) == '"' && !L->f->device_name) {
                const char *s;
                size_t sl;
                if ((rc = td_json_string(j, &s, &sl)) < 0)
                    return rc;
                L->f->device_name = strndup(s, sl);
                if (!L->f->device_name)
                    return td_fail(j->err, TD_ENOMEM, L->f->path, "out of memory");
            } else {
                rc = td_json_skip(j);
            }
        }
    }
    return rc;
}

static int read_top(loader *L)
{
    td_json *j = &L->j;
    int rc = td_json_skip_bom(j);
    if (rc < 0)
        return rc;
    L->f->bom = rc; /* harmless, but the CLI says so: never silent */
    int c = td_json_peek(j);
    if (c == '[') {
        /* A bare array of events: also valid Chrome trace format. */
        if ((rc = read_events(L)) < 0)
            return rc;
        return td_json_end(j);
    }
    if (c != '{') {
        if (c < -1)
            return TD_EIO;
        if (c == -1)
            return td_fail(j->err, TD_ETRACE, L->f->path, "empty file, not a trace");
        if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            if ((rc = td_json_skip(j)) < 0)
                return rc;
            return td_fail_at(j->err, TD_ETRACE, L->f->path, 0,
                              "the top level is not an object or an array of events");
        }
        if (c == '/' || c == '\'' || c == 'N' || c == 'I')
            return td_json_skip(j); /* says which JSON extension it is */
        return td_json_error(j, "not JSON (unexpected character at the start)");
    }
    rc = td_json_obj_begin(j);
    bool first = true;
    const char *k;
    size_t kl;
    while (rc >= 0 && (rc = td_json_obj_next(j, &first, &k, &kl)) > 0) {
        if (key_is(k, kl, "traceEvents"))
            rc = read_events(L);
        else if (key_is(k, kl, "distributedInfo"))
            rc = read_distributed_info(L);
        else if (key_is(k, kl, "deviceProperties"))
            rc = read_device_properties(L);
        else
            rc = td_json_skip(j);
    }
    if (rc < 0)
        return rc;
    if ((rc = td_json_end(j)) < 0)
        return rc;
    if (!L->seen_events)
        return td_fail(j->err, TD_ETRACE, L->f->path, "no traceEvents array: not a trace");
    return 0;
}

void td_file_free(td_file *f)
{
    if (!f)
        return;
    free(f->path);
    free(f->device_name);
    td_strtab_free(f->names);
    td_strtab_free(f->cats);
    free(f->cat_counts);
    for (size_t b = 0; b < f->nevb; b++)
        free(f->evb[b]);
    free(f->evb);
    free(f->iters);
    free(f);
}

int td_file_load(td_file **out, const char *path, const td_load_progress *prog, td_error *err)
{
    *out = NULL;
    loader L;
    memset(&L, 0, sizeof L);
    L.prog = prog;
    int rc;
    td_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->names = td_strtab_new()) ||
        !(f->cats = td_strtab_new())) {
        td_file_free(f);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    L.f = f;
    if ((rc = td_reader_open(&L.r, path, err)) < 0)
        goto done;
    f->compression = td_reader_compression(L.r);
    f->file_bytes = td_reader_file_bytes(L.r);
    if ((rc = td_json_init(&L.j, source_read, &L, f->path, err)) < 0)
        goto done;
    if ((rc = read_top(&L)) < 0)
        goto done;
    f->json_bytes = td_json_offset(&L.j);
    f->rounded = L.round_ts;
    /* The reading state goes before the events are compacted: peak memory
     * is the raw events, not the raw events plus the window. */
    td_json_free(&L.j);
    td_reader_close(L.r);
    L.r = NULL;
    rc = td_assign_iterations(f, L.blk, L.nraw, L.wide, L.nwide, L.round_ts, err);
    L.nblk = 0; /* taken over (compacted or freed) by td_assign_iterations */
done:
    td_json_free(&L.j);
    td_reader_close(L.r);
    for (size_t b = 0; b < L.nblk; b++)
        free(L.blk[b]);
    free(L.blk);
    free(L.wide);
    if (rc < 0) {
        td_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
}
