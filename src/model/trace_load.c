/*
 * One trace file: walk the Chrome-trace JSON with the streaming scanner and
 * keep, per counted event (spec §2), only the fields the comparison needs.
 * Everything else (args beyond stream and correlation, metadata) is skipped
 * by the scanner without being built.
 */
#include "util/bigmem.h"
#include "read/reader.h"
#include "model/load.h"
#include "model/prof_load.h"
#include "model/bd_collect.h"
#include "model/trace_split.h"
#include "read/json_scan.h"
#include "util/strtab_quick.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The per-event functions are inlined into the loop over traceEvents, which
 * is compiled twice (event_loop_plain, event_loop_attr): forced, because the
 * compiler's own limits stop inlining once there are two copies, and a call
 * per member costs more than all of attribution's work on the default path. */
#define READER_INLINE static inline __attribute__((always_inline))

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
    td_link *links; /* only when want_attr: see td_link */
    size_t nlinks, linkcap;
    uint32_t *shape; /* per link, only when want_shapes: its f->shapes id */
    size_t shapecap;
    td_threads thr; /* the links' threads */
    int want_attr;
    const void *marker;  /* --step-marker, for another profiler's file read here */
    uint32_t link_kinds; /* the TD_LINK_ kinds kept: all for attribution, fewer for
                          * the breakdown alone */
    int64_t pid, tid;    /* of the event being read, when want_attr */
    /* The text of the last pid and tid read as plain integers, and their
     * values: most events repeat them (read_thread_id). */
    char id_raw[2][20];
    size_t id_len[2];
    int64_t id_val[2];
    int round_ts;
    int seen_events;
    /* Per cats id: the summed durations as HTA's rounding makes them (spec
     * §2), kept beside f->cat_dur (the trace's own) until the file's rule is
     * known; f->cat_dur then takes the ones compare uses. */
    double *cat_rdur;
    size_t ncat_rdur;
    /* Per raw event: its cats id (255 for 255 and above), kept as the file's
     * ev_cat when some name has events of two categories on one side. */
    uint8_t *evcat;
    size_t evcatcap;
    int cats_mixed;
    uint64_t index;
    /* Piece 0 of a file cut into pieces (trace_split.h): the next cut not
     * yet reached, and its offset (UINT64_MAX: none, the usual case). */
    td_split *split;
    size_t split_next;
    uint64_t split_at;
    td_piece *piece; /* a piece >= 1 being read: cats ids go to piece->cat */
    size_t catcap;
    /* The member layouts of events and of their args (td_json_keys). */
    td_json_keys event_keys, args_keys;
    /* A rocprofv3 JSON file (prof_load.h): its events, read instead. */
    td_prof_sink *rocprof;
    int load_flags;
    /* TD_LOAD_ROOF: the shape members of the event's args, as compact
     * JSON (shp[0] "Input Dims", [1] "Input type", [2] "Concrete Inputs");
     * have_shp: the bits of those read for the event being read. */
    int want_shapes, have_shp;
    int want_py; /* TD_LOAD_STACK: python_function events are links too */
    char *shp[3];
    size_t shplen[3], shpcap[3];
} loader;

static void report_progress(loader *L)
{
    if (L->prog && L->prog->fn) {
        uint64_t c = td_reader_consumed(L->r);
        if (c > L->reported) {
            L->prog->fn(L->prog->ud, c - L->reported);
            L->reported = c;
        }
    }
}

static long source_read(void *ud, char *buf, size_t cap, td_error *err)
{
    loader *L = ud;
    long n = td_reader_read(L->r, buf, cap, err);
    if (n >= 0)
        report_progress(L);
    return n;
}

/* Decompressed chunks become the scanner's window, not copied. */
static long source_swap(void *ud, const char *left, size_t nleft, char **buf, td_error *err)
{
    loader *L = ud;
    long n = td_reader_swap(L->r, left, nleft, buf, err);
    if (n >= 0 && n != TD_READER_NO_SWAP)
        report_progress(L);
    return n;
}

/* How the file's bytes reach the scanner: mapped when it is a plain file of
 * at least map_min bytes, else read ahead by a thread when asked (ahead);
 * mapped, read ahead or decompressed by a thread, the reader's buffers
 * become the scanner's windows rather than copies. Before any read. */
static void reader_windows(loader *L, uint64_t map_min, bool ahead)
{
    bool mapped = td_reader_map(L->r, map_min);
    if (ahead && !mapped)
        td_reader_read_ahead(L->r);
    if (mapped || ahead || td_reader_compression(L->r) != TD_COMP_NONE)
        td_json_set_swap(&L->j, source_swap);
}

/* k (kl bytes) is the string literal lit: its length known when compiled,
 * so that the test is a compare of lengths and one of a few words. */
#define key_is(k, kl, lit) ((kl) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

/* An integer-valued number for stream / correlation; -1 otherwise (spec §2). */
static int64_t int_or_minus1(const td_json_num *n)
{
    if (n->is_int)
        return n->i;
    if (isfinite(n->d) && n->d == floor(n->d) && fabs(n->d) < 9.2e18)
        return (int64_t)n->d;
    return -1;
}

/* Room for n more bytes (and a NUL) in shape buffer w: the slow path of
 * shp_put and of the writers that fill the buffer directly. */
static __attribute__((noinline)) int shp_room_slow(loader *L, int w, size_t n)
{
    char *nb = td_grow(L->shp[w], &L->shpcap[w], L->shplen[w] + n + 1, 1);
    if (!nb)
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    L->shp[w] = nb;
    return 0;
}

static inline int shp_room(loader *L, int w, size_t n)
{
    return L->shplen[w] + n + 1 > L->shpcap[w] ? shp_room_slow(L, w, n) : 0;
}

/* Appends n bytes to shape buffer w. */
static inline int shp_put(loader *L, int w, const char *s, size_t n)
{
    int rc = shp_room(L, w, n);
    if (rc < 0)
        return rc;
    memcpy(L->shp[w] + L->shplen[w], s, n);
    L->shplen[w] += n;
    return 0;
}

/* A string value as JSON: '"' and '\\' escaped, control bytes as \u00XX,
 * every other byte as it is; runs of plain bytes copied whole. */
static int shp_string(loader *L, int w, const char *s, size_t sl)
{
    int rc = shp_room(L, w, 6 * sl + 2); /* the most it can take */
    if (rc < 0)
        return rc;
    char *o = L->shp[w] + L->shplen[w], *o0 = o;
    *o++ = '"';
    size_t i = 0;
    while (i < sl) {
        size_t r = i;
        while (r < sl && (unsigned char)s[r] >= 0x20 && s[r] != '"' && s[r] != '\\')
            r++;
        memcpy(o, s + i, r - i);
        o += r - i;
        if (r == sl)
            break;
        unsigned char b = (unsigned char)s[r];
        if (b == '"' || b == '\\') {
            *o++ = '\\';
            *o++ = (char)b;
        } else {
            static const char hex[] = "0123456789abcdef";
            memcpy(o, "\\u00", 4);
            o[4] = hex[b >> 4];
            o[5] = hex[b & 15];
            o += 6;
        }
        i = r + 1;
    }
    *o++ = '"';
    L->shplen[w] += (size_t)(o - o0);
    return 0;
}

/* An integer in decimal, as "%lld" writes it. */
static int shp_int(loader *L, int w, int64_t v)
{
    char buf[24], *e = buf + sizeof buf, *p = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    return shp_put(L, w, p, (size_t)(e - p));
}

/* The usual shapes as Kineto writes them: "Input Dims", arrays of arrays
 * of small non-negative integers, and "Input type" and "Concrete Inputs",
 * arrays of strings of printable ASCII without a backslash; ", " between
 * elements, all in the window. Such a value, checked byte by byte here,
 * is valid JSON and its compact form is its own bytes without the spaces
 * outside strings: copied so, with no call per element. Returns 1 when
 * done (the value read), 0 when the value is not of that form (nothing
 * read: shp_value reads it), < 0 on error. */
static int shp_plain_lists(loader *L, int w)
{
    td_json *j = &L->j;
    const unsigned char *b = (const unsigned char *)j->buf;
    size_t p = j->pos, e = j->end, q = p;
    size_t lim = e - p > 4096 ? p + 4096 : e - 1; /* a byte follows the value */
    enum { OPEN, COMMA, ELEM } st = OPEN;
    int depth = 0;
    if (e - p < 2 || b[p] != '[')
        return 0;
    int rc = shp_room(L, w, lim - p); /* written as read, kept when done */
    if (rc < 0)
        return rc;
    char *o = L->shp[w] + L->shplen[w], *o0 = o;
    while (q < lim) {
        unsigned char c = b[q];
        size_t d = q;
        if (c == '[') {
            if (st == ELEM || ++depth > 16)
                return 0; /* deeper: null, as shp_value writes it */
            st = OPEN;
            q++;
        } else if (c == ']') {
            if (st == COMMA)
                return 0;
            st = ELEM;
            q++;
        } else if (c == ',') {
            if (st != ELEM)
                return 0;
            st = COMMA;
            *o++ = ',';
            q += 1 + (b[q + 1] == ' ');
            continue;
        } else if (c == '"') {
            if (st == ELEM)
                return 0;
            for (q++; q < lim && b[q] != '"'; q++)
                if (b[q] < 0x20 || b[q] > 0x7E || b[q] == '\\')
                    return 0; /* escapes and other bytes: the general path */
            if (q++ == lim)
                return 0;
            st = ELEM;
        } else if (c >= '0' && c <= '9') {
            if (st == ELEM)
                return 0;
            while (q < lim && b[q] >= '0' && b[q] <= '9')
                q++;
            if (q - d > 18 || (c == '0' && q - d > 1))
                return 0; /* as td_json_number reads them: the general path */
            st = ELEM;
        } else {
            return 0;
        }
        memcpy(o, b + d, q - d);
        o += q - d;
        if (c == ']' && --depth == 0)
            break;
    }
    if (depth != 0)
        return 0;
    L->shplen[w] += (size_t)(o - o0);
    j->pos = q;
    return 1;
}

/* One JSON value as compact JSON (Python's json.dumps with separators
 * (",", ":")): arrays, strings and numbers as they are, objects as {},
 * deeper than 16 levels as null. */
static int shp_value(loader *L, int w, int depth)
{
    td_json *j = &L->j;
    int c = td_json_peek(j), rc;
    if (c == '[' && depth == 0 && (rc = shp_plain_lists(L, w)) != 0)
        return rc < 0 ? rc : 0;
    if (c == '[' && depth < 16) {
        if ((rc = td_json_arr_begin(j)) < 0 || (rc = shp_put(L, w, "[", 1)) < 0)
            return rc;
        bool first = true;
        size_t k = 0;
        while ((rc = td_json_arr_next(j, &first)) > 0) {
            if ((k++ && (rc = shp_put(L, w, ",", 1)) < 0) || (rc = shp_value(L, w, depth + 1)) < 0)
                return rc;
        }
        return rc < 0 ? rc : shp_put(L, w, "]", 1);
    }
    if (c == '"') {
        const char *s;
        size_t sl;
        if ((rc = td_json_string(j, &s, &sl)) < 0)
            return rc;
        return shp_string(L, w, s, sl);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        td_json_num n;
        int64_t v;
        if (c != '-' && td_json_small_int(j, &v))
            return shp_int(L, w, v);
        if ((rc = td_json_number(j, &n)) < 0)
            return rc;
        if (n.is_int)
            return shp_int(L, w, n.i);
        char num[40];
        int len = snprintf(num, sizeof num, "%.17g", n.d);
        return shp_put(L, w, num, (size_t)len);
    }
    if ((rc = td_json_skip(j)) < 0)
        return rc;
    const char *lit = c == 't' ? "true" : c == 'f' ? "false" : c == '{' ? "{}" : "null";
    return shp_put(L, w, lit, strlen(lit));
}

READER_INLINE int read_args(loader *L, int64_t *stream, int64_t *corr)
{
    td_json *j = &L->j;
    int rc = td_json_obj_begin_keys(j, &L->args_keys);
    if (rc < 0)
        return rc;
    const char *k;
    size_t kl;
    int8_t *tag;
    while ((rc = td_json_member(j, &L->args_keys, &k, &kl, &tag)) > 0) {
        int8_t t = *tag;
        if (t < 0)
            t = *tag = key_is(k, kl, "stream")            ? 1
                       : key_is(k, kl, "correlation")     ? 2
                       : !L->want_shapes                  ? 0
                       : key_is(k, kl, "Input Dims")      ? 3
                       : key_is(k, kl, "Input type")      ? 4
                       : key_is(k, kl, "Concrete Inputs") ? 5
                                                          : 0;
        if (t == 0) { /* most members: skipped, no need to look first */
            if ((rc = td_json_skip(j)) < 0)
                return rc;
            continue;
        }
        if (t >= 3) { /* a shape member (TD_LOAD_ROOF): kept as compact JSON */
            L->shplen[t - 3] = 0;
            L->have_shp |= 1 << (t - 3);
            if ((rc = shp_value(L, t - 3, 0)) < 0)
                return rc;
            continue;
        }
        int64_t *dst = t == 1 ? stream : corr;
        int c = td_json_peek(j);
        if (c == '-' || (c >= '0' && c <= '9')) {
            td_json_num n;
            if ((rc = td_json_number(j, &n)) < 0)
                return rc;
            *dst = int_or_minus1(&n);
        } else {
            *dst = -1;
            if ((rc = td_json_skip(j)) < 0)
                return rc;
        }
    }
    return rc;
}

enum { F_NAME = 1, F_CAT = 2, F_TS = 4, F_DUR = 8, F_ARGS = 16, F_PID = 32, F_TID = 64 };

/* What one entry of traceEvents says, as its members are read. */
typedef struct event_fields {
    td_raw_event e;
    int64_t stream, corr;
    int64_t name_id, cat_id;
    int have, bad; /* F_ bits: present; present with the wrong type */
    bool trace_cat, cpu_op, sync, ts_decimal;
    bool op_cat, ann_cat; /* cpu_op (or Kineto's old "Operator"); user_annotation */
    bool py_cat;          /* python_function (TD_LOAD_STACK) */
    bool kcat;            /* a kernel, memset or memcpy category (TD_LINK_KCAT) */
} event_fields;

/* The member kind of key k (pid and tid: read for attribution only), or 0
 * for one that is skipped. */
static inline int member_kind(const char *k, size_t kl)
{
    if (kl == 4 && memcmp(k, "name", 4) == 0)
        return F_NAME;
    if (kl == 3 && memcmp(k, "cat", 3) == 0)
        return F_CAT;
    if (kl == 2 && memcmp(k, "ts", 2) == 0)
        return F_TS;
    if (kl == 3 && memcmp(k, "dur", 3) == 0)
        return F_DUR;
    if (kl == 4 && memcmp(k, "args", 4) == 0)
        return F_ARGS;
    if (kl == 3 && memcmp(k, "pid", 3) == 0)
        return F_PID;
    if (kl == 3 && memcmp(k, "tid", 3) == 0)
        return F_TID;
    return 0;
}

/* A member present with the wrong type: noted, its value skipped. A
 * repeated key replaces the earlier one, as JSON readers do: last wins. */
static inline int skip_bad_member(loader *L, event_fields *ev, int kind)
{
    ev->have |= kind;
    ev->bad |= kind;
    if (kind == F_CAT)
        ev->trace_cat = ev->cpu_op = ev->op_cat = ev->ann_cat = ev->kcat = ev->py_cat = false;
    return td_json_skip(&L->j);
}

/* The categories of HTA's kernels (its idle time breakdown). */
static bool kernel_cat(const char *s, size_t sl)
{
    return key_is(s, sl, "kernel") || key_is(s, sl, "Kernel") || key_is(s, sl, "gpu_memset") ||
           key_is(s, sl, "Memset") || key_is(s, sl, "gpu_memcpy") || key_is(s, sl, "Memcpy") ||
           key_is(s, sl, "mtia_ccp_events");
}

/* "name" or "cat": interned; the few names and cats the rules test are
 * recognised here, while the string is at hand. */
READER_INLINE int read_name_or_cat(loader *L, event_fields *ev, int kind, bool attr)
{
    td_json *j = &L->j;
    td_file *f = L->f;
    if (td_json_peek(j) != '"')
        return skip_bad_member(L, ev, kind);
    const char *s;
    size_t sl;
    int rc = td_json_string(j, &s, &sl);
    if (rc < 0)
        return rc;
    ev->have |= kind;
    ev->bad &= ~kind;
    if (kind == F_NAME) {
        ev->sync = key_is(s, sl, "Event Sync") || key_is(s, sl, "Context Sync");
        ev->name_id = td_strtab_intern_inline(f->names, s, sl);
        if (ev->name_id < 0)
            return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
    } else {
        ev->trace_cat = key_is(s, sl, "Trace");
        ev->cpu_op = key_is(s, sl, "cpu_op");
        if (attr) { /* only attribution needs these */
            ev->op_cat = ev->cpu_op || key_is(s, sl, "Operator");
            ev->ann_cat = key_is(s, sl, "user_annotation");
            ev->kcat = kernel_cat(s, sl);
            ev->py_cat = L->want_py && key_is(s, sl, "python_function");
        }
        ev->cat_id = td_strtab_intern_inline(f->cats, s, sl);
        if (ev->cat_id < 0)
            return td_fail(j->err, TD_ENOMEM, f->path, "out of memory");
    }
    return 0;
}

/* "ts" or "dur": a number, or a member of the wrong type. */
READER_INLINE int read_time(loader *L, event_fields *ev, int kind)
{
    td_json *j = &L->j;
    int c = td_json_peek(j);
    if (c != '-' && !(c >= '0' && c <= '9'))
        return skip_bad_member(L, ev, kind);
    td_json_num n;
    int rc = td_json_number(j, &n);
    if (rc < 0)
        return rc;
    ev->have |= kind;
    ev->bad &= ~kind;
    if (kind == F_TS) {
        ev->e.u.ts = n.d;
        ev->e.flags |= TD_RAW_HAS_TS;
        ev->ts_decimal = n.decimal;
    } else {
        ev->e.dur = n.d;
    }
    return 0;
}

/* "pid" or "tid" (attribution only): a number, or a string (Kineto writes
 * some as text) kept as its hash; anything else is -1. w: 0 pid, 1 tid.
 * The same digits as the last plain integer read for w (the usual case)
 * are compared, not converted again. */
static int read_thread_id_slow(loader *L, int w, int64_t *out)
{
    td_json *j = &L->j;
    const char *b = j->buf;
    size_t p = j->pos;
    if (j->end - p >= 24) {
        size_t q = p + (b[p] == ' ');
        if (td_json_small_int(j, out)) {
            size_t len = j->pos - q; /* at most 18 digits */
            memcpy(L->id_raw[w], b + q, len);
            L->id_len[w] = len;
            L->id_val[w] = *out;
            return 0;
        }
    } else if (td_json_small_int(j, out)) {
        return 0;
    }
    int c = td_json_peek(j);
    if (c == '-' || (c >= '0' && c <= '9')) {
        td_json_num n;
        int rc = td_json_number(j, &n);
        *out = rc < 0 ? -1 : n.is_int ? n.i : (int64_t)td_hash_bytes((const char *)&n.d, 8);
        return rc;
    }
    if (c == '"') {
        const char *s;
        size_t sl;
        int rc = td_json_string(j, &s, &sl);
        *out = rc < 0 ? -1 : (int64_t)(td_hash_bytes(s, sl) | ((uint64_t)1 << 62));
        return rc;
    }
    *out = -1;
    return td_json_skip(j);
}

/* Whether the had (1 to 16) bytes at s are those at raw (both readable
 * for 16 bytes): two word compares, masked, instead of a call. */
static inline bool same_id_bytes(const char *s, const char *raw, size_t had)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t a[2], r[2];
    memcpy(a, s, 16);
    memcpy(r, raw, 16);
    uint64_t m0 = had >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (had * 8)) - 1;
    uint64_t m1 = had <= 8 ? 0 : had >= 16 ? ~(uint64_t)0 : ((uint64_t)1 << ((had - 8) * 8)) - 1;
    return (((a[0] ^ r[0]) & m0) | ((a[1] ^ r[1]) & m1)) == 0;
#else
    return memcmp(s, raw, had) == 0;
#endif
}

/* read_thread_id: the usual case, the same digits as the last time (at
 * most 16 of them), here; the rest in read_thread_id_slow. */
READER_INLINE int read_thread_id(loader *L, int w, int64_t *out)
{
    td_json *j = &L->j;
    const char *b = j->buf;
    size_t p = j->pos, had = L->id_len[w];
    if (j->end - p >= 24 && had && had <= 16) {
        size_t q = p + (b[p] == ' ');
        if (same_id_bytes(b + q, L->id_raw[w], had) &&
            td_json_after_value((unsigned char)b[q + had])) {
            j->pos = q + had;
            *out = L->id_val[w];
            return 0;
        }
    } else if (j->end - p >= 24 && had) {
        size_t q = p + (b[p] == ' ');
        if (memcmp(b + q, L->id_raw[w], had) == 0 &&
            td_json_after_value((unsigned char)b[q + had])) {
            j->pos = q + had;
            *out = L->id_val[w];
            return 0;
        }
    }
    return read_thread_id_slow(L, w, out);
}

/* The members of one event object, into ev. */
READER_INLINE int read_event_members(loader *L, event_fields *ev, bool attr)
{
    td_json *j = &L->j;
    int rc = td_json_obj_begin_keys(j, &L->event_keys);
    if (rc < 0)
        return rc;
    const char *k;
    size_t kl;
    int8_t *tag;
    while ((rc = td_json_member(j, &L->event_keys, &k, &kl, &tag)) > 0) {
        if (*tag < 0)
            *tag = (int8_t)member_kind(k, kl);
        /* One case per kind, each reader specialised for it: a jump on
         * the member's kind rather than a chain of tests. */
        switch (*tag) {
        case F_NAME:
            rc = read_name_or_cat(L, ev, F_NAME, attr);
            break;
        case F_CAT:
            rc = read_name_or_cat(L, ev, F_CAT, attr);
            break;
        case F_TS:
            rc = read_time(L, ev, F_TS);
            break;
        case F_DUR:
            rc = read_time(L, ev, F_DUR);
            break;
        case F_ARGS:
            if (td_json_peek(j) == '{') {
                ev->stream = ev->corr = -1;
                rc = read_args(L, &ev->stream, &ev->corr);
            } else {
                rc = td_json_skip(j);
            }
            break;
        case F_PID:
        case F_TID:
            if (attr) {
                rc = read_thread_id(L, *tag == F_TID, *tag == F_PID ? &L->pid : &L->tid);
                break;
            }
            /* fall through */
        default:
            rc = td_json_skip(j);
        }
        if (rc < 0)
            return rc;
    }
    return rc;
}

/* The correlation id in the raw record; ids beyond 32 bits go to the side
 * table by event index. */
READER_INLINE int store_correlation(loader *L, event_fields *ev)
{
    if (ev->corr >= INT32_MIN + 1 && ev->corr <= INT32_MAX) {
        ev->e.corr = (int32_t)ev->corr;
        return 0;
    }
    ev->e.corr = TD_CORR_WIDE;
    td_wide_corr *nw = td_grow(L->wide, &L->widecap, L->nwide + 1, sizeof *nw);
    if (!nw)
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    L->wide = nw;
    L->wide[L->nwide].index = L->nraw;
    L->wide[L->nwide].corr = ev->corr;
    L->nwide++;
    return 0;
}

/* Spec §3: host or device side, gpu side, host side of a correlation. Done
 * now so that the stream need not be kept. */
static inline void classify(event_fields *ev, uint64_t index)
{
    int64_t stream = ev->stream, corr = ev->corr;
    if (stream < 0 || (stream == 0 && ev->cpu_op))
        ev->e.flags |= TD_RAW_HOST;
    else if (stream == 0)
        ev->e.flags |= TD_RAW_STREAM0;
    if (stream != -1)
        ev->e.flags |= TD_RAW_GPU;
    if (corr != -1 && !(stream >= 0 && corr >= 0) && !ev->sync)
        ev->e.flags |= TD_RAW_CORR_HOST;
    if (index == 0)
        ev->e.flags |= TD_RAW_INDEX0;
}

/* Appends a raw event, starting a new block when the last is full. */
static inline int append_raw(loader *L, const td_raw_event *e)
{
    size_t slot = L->nraw & (TD_BLOCK - 1);
    if (slot == 0) {
        if (L->nblk == L->blkcap) {
            td_raw_event **nb = td_grow(L->blk, &L->blkcap, L->nblk + 1, sizeof *nb);
            if (!nb)
                return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
            L->blk = nb;
        }
        /* A file's first block may hold a few events; later ones fill. */
        L->blk[L->nblk] = L->nblk ? td_big_alloc(TD_BLOCK * sizeof(td_raw_event))
                                  : td_big_alloc_lazy(TD_BLOCK * sizeof(td_raw_event));
        if (!L->blk[L->nblk])
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->nblk++;
    }
    L->blk[L->nraw >> TD_BLOCK_SHIFT][slot] = *e;
    L->nraw++;
    return 0;
}

/* An event's duration under HTA's rounding (spec §2): NAN without ts. */
static inline double rounded_dur(const td_raw_event *e)
{
    if (!(e->flags & TD_RAW_HAS_TS))
        return NAN;
    return floor(e->u.ts + e->dur) - ceil(e->u.ts);
}

/* Counts a kept event under its category: the category's count and both
 * its sums (the trace's durations and rounded ones), and the name's
 * categories on the event's side (td_name_cat_bit). */
READER_INLINE int count_category(loader *L, int64_t cat_id, int64_t name_id, const td_raw_event *e,
                                 size_t index)
{
    td_file *f = L->f;
    size_t cid = (size_t)cat_id, nid = (size_t)name_id;
    if (index >= L->evcatcap) {
        uint8_t *ec = td_grow(L->evcat, &L->evcatcap, index + 1, sizeof *ec);
        if (!ec)
            return td_fail(L->j.err, TD_ENOMEM, f->path, "out of memory");
        L->evcat = ec;
    }
    L->evcat[index] = (uint8_t)(cid < 255 ? cid : 255);
    if (cid >= f->ncat_counts) {
        size_t cap = f->ncat_counts, cap2 = f->ncat_counts, cap3 = f->ncat_counts;
        uint64_t *cc = td_grow(f->cat_counts, &cap, cid + 1, sizeof *cc);
        if (cc)
            f->cat_counts = cc;
        double *cd = cc ? td_grow(f->cat_dur, &cap2, cap, sizeof *cd) : NULL;
        if (cd)
            f->cat_dur = cd;
        double *rd = cd ? td_grow(L->cat_rdur, &cap3, cap, sizeof *rd) : NULL;
        if (!rd)
            return td_fail(L->j.err, TD_ENOMEM, f->path, "out of memory");
        L->cat_rdur = rd;
        memset(cc + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *cc);
        memset(cd + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *cd);
        memset(rd + f->ncat_counts, 0, (cap - f->ncat_counts) * sizeof *rd);
        f->ncat_counts = cap;
        L->ncat_rdur = cap;
    }
    if (nid >= f->nname_cats) {
        size_t cap = f->nname_cats;
        uint64_t *nc = td_grow(f->name_cats, &cap, nid + 1, sizeof *nc);
        if (!nc)
            return td_fail(L->j.err, TD_ENOMEM, f->path, "out of memory");
        memset(nc + f->nname_cats, 0, (cap - f->nname_cats) * sizeof *nc);
        f->name_cats = nc;
        f->nname_cats = cap;
    }
    f->cat_counts[cid]++;
    if (!isnan(e->dur))
        f->cat_dur[cid] += e->dur;
    double rd = rounded_dur(e);
    if (!isnan(rd))
        L->cat_rdur[cid] += rd;
    bool gpu = (e->flags & TD_RAW_GPU) != 0;
    uint64_t side = gpu ? 0xFFFFFFFF00000000u : 0xFFFFFFFFu, bit = td_name_cat_bit(cid, gpu);
    if (f->name_cats[nid] & side & ~bit)
        L->cats_mixed = 1;
    f->name_cats[nid] |= bit;
    return 0;
}

/* A piece's event's cats id, kept until the piece is merged. */
static int piece_cat(loader *L, int64_t cat_id)
{
    td_piece *p = L->piece;
    uint32_t *nc = td_grow(p->cat, &L->catcap, L->nraw, sizeof *nc);
    if (!nc)
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    p->cat = nc;
    nc[L->nraw - 1] = (uint32_t)cat_id;
    return 0;
}

/* Link nlinks - 1's shapes id (TD_LOAD_ROOF, TD_LOAD_TREE): a cpu op's
 * shape members, interned; else TD_ATTR_NONE. */
static int keep_shape(loader *L, uint32_t kind)
{
    if (L->nlinks > L->shapecap) {
        uint32_t *g = td_grow(L->shape, &L->shapecap, L->nlinks, sizeof *g);
        if (!g)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->shape = g;
    }
    uint32_t *ns = L->shape;
    ns[L->nlinks - 1] = TD_ATTR_NONE;
    if (!(kind & TD_LINK_OP) || !L->have_shp)
        return 0;
    /* "Input Dims" US "Input type" US "Concrete Inputs" (model.h) */
    for (int w = 0; w < 3; w++) {
        if (!(L->have_shp & (1 << w)))
            L->shplen[w] = 0;
        if (shp_put(L, w, "\x1f", 1) < 0)
            return TD_ENOMEM;
    }
    size_t a = L->shplen[0], b = L->shplen[1], c = L->shplen[2];
    if (shp_put(L, 0, L->shp[1], b) < 0 || shp_put(L, 0, L->shp[2], c - 1) < 0)
        return TD_ENOMEM;
    if (!L->f->shapes && !(L->f->shapes = td_strtab_new()))
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    int64_t id = td_strtab_intern(L->f->shapes, L->shp[0], a + b + c - 1);
    if (id < 0)
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    ns[L->nlinks - 1] = (uint32_t)id;
    L->shplen[0] = a - 1; /* as read, for a repeated key */
    return 0;
}

/* The link record of an event attribution needs (see td_link). */
static int keep_link(loader *L, const event_fields *ev)
{
    uint32_t kind = 0;
    if (ev->op_cat && !(ev->e.flags & TD_RAW_GPU))
        kind |= TD_LINK_OP;
    if (ev->ann_cat && !(ev->e.flags & TD_RAW_GPU))
        kind |= TD_LINK_ANN;
    if (ev->py_cat && !(ev->e.flags & TD_RAW_GPU))
        kind |= TD_LINK_PY;
    if (!(ev->e.flags & TD_RAW_GPU) && (L->link_kinds & TD_LINK_CPU))
        kind |= TD_LINK_CPU; /* every host-side event: the CPU stacks */
    if (ev->e.flags & TD_RAW_CORR_HOST)
        kind |= TD_LINK_LAUNCH;
    if (ev->e.flags & TD_RAW_GPU)
        kind |= TD_LINK_GPU | ((ev->e.flags & TD_RAW_HOST) ? TD_LINK_HOST : 0) |
                (ev->kcat ? TD_LINK_KCAT : 0);
    if (!(kind & L->link_kinds))
        return 0;
    if (L->nlinks == L->linkcap) {
        td_link *nl = td_links_grow(L->links, &L->linkcap, L->nlinks + 1);
        if (!nl)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->links = nl;
    }
    td_link *k = &L->links[L->nlinks++];
    if (L->want_shapes && keep_shape(L, kind) < 0)
        return TD_ENOMEM;
    k->ts = (ev->e.flags & TD_RAW_HAS_TS) ? ev->e.u.ts : NAN;
    k->dur = ev->e.dur;
    if ((k->thr = td_thread(&L->thr, L->pid, L->tid)) == UINT32_MAX)
        return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
    k->corr = ev->corr;
    k->name = ev->e.name;
    k->kind = kind;
    k->stream = td_link_stream(ev->stream);
    return 0;
}

/* A counted event (spec §2) with usable fields: classified and kept. */
READER_INLINE int keep_event(loader *L, event_fields *ev, uint64_t index, bool attr)
{
    if (ev->name_id >= ((int64_t)1 << TD_NAME_BITS))
        return td_fail(L->j.err, TD_ETRACE, L->f->path, "more than %lld distinct names in one file",
                       (long long)1 << TD_NAME_BITS);
    ev->e.name = (uint32_t)ev->name_id & ((1u << TD_NAME_BITS) - 1);
    int rc = store_correlation(L, ev);
    if (rc < 0)
        return rc;
    classify(ev, index);
    if (attr && (rc = keep_link(L, ev)) < 0)
        return rc;
    if ((rc = append_raw(L, &ev->e)) < 0)
        return rc;
    if (L->piece) /* counted when merged, in file order (cat_dur's sums) */
        return piece_cat(L, ev->cat_id);
    return count_category(L, ev->cat_id, ev->name_id, &ev->e, L->nraw - 1);
}

/* One entry of traceEvents: read, then kept when it counts (spec §2). */
READER_INLINE int read_event(loader *L, bool attr)
{
    uint64_t index = L->index++;
    if (td_json_peek(&L->j) != '{') {
        L->f->events_skipped++;
        return td_json_skip(&L->j);
    }
    event_fields ev = {.stream = -1, .corr = -1, .name_id = -1, .cat_id = -1};
    if (attr) {
        L->pid = L->tid = -1;
        L->have_shp = 0;
    }
    int rc = read_event_members(L, &ev, attr);
    if (rc < 0)
        return rc;
    if (!(ev.have & F_TS) || ev.ts_decimal)
        L->round_ts = 1;
    /* Spec §2: counted when it has cat and dur and cat is not "Trace". */
    if (!(ev.have & F_CAT) || !(ev.have & F_DUR) || ev.trace_cat)
        return 0;
    if (ev.bad || ev.name_id < 0 || ev.cat_id < 0) {
        /* A counted event we cannot use: no name, or fields of the wrong
         * type. Counted and reported, never dropped silently. */
        L->f->events_skipped++;
        return 0;
    }
    return keep_event(L, &ev, index, attr);
}

/* Appends a piece's events, links and wide ids to L's, in L's ids (name[],
 * cat[]: the piece's ids mapped), counting each event as keep_event does,
 * in file order; the piece's blocks are taken over or freed. */
static int merge_events(loader *L, td_piece *p, const uint32_t *name, const uint32_t *cat)
{
    size_t base = L->nraw;
    if (p->nwide) {
        td_wide_corr *nw = td_grow(L->wide, &L->widecap, L->nwide + p->nwide, sizeof *nw);
        if (!nw)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->wide = nw;
        for (size_t w = 0; w < p->nwide; w++) {
            nw[L->nwide].index = base + p->wide[w].index;
            nw[L->nwide++].corr = p->wide[w].corr;
        }
    }
    if (p->nlinks) {
        td_link *nl = td_links_grow(L->links, &L->linkcap, L->nlinks + p->nlinks);
        if (!nl)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->links = nl;
        /* The piece's thread numbers as the file's */
        uint32_t *thr = malloc((p->thr.n + 1) * sizeof *thr);
        if (!thr)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        for (size_t t = 0; t < p->thr.n; t++)
            if ((thr[t] = td_thread(&L->thr, p->thr.id[2 * t], p->thr.id[2 * t + 1])) ==
                UINT32_MAX) {
                free(thr);
                return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
            }
        for (size_t k = 0; k < p->nlinks; k++) {
            nl[L->nlinks] = p->links[k];
            nl[L->nlinks].thr = thr[p->links[k].thr];
            nl[L->nlinks++].name = name[p->links[k].name];
        }
        free(thr);
    }
    /* The piece's blocks become the file's: event k of the piece goes to
     * slot base + k, into the last block while it has room, then into the
     * piece's own blocks, each holding what follows the previous one. Every
     * slot written held an earlier event of the piece (already read), so one
     * forward pass moves the events in place, with no new pages. */
    size_t b0 = L->nblk, need = (base + p->nraw + TD_BLOCK - 1) >> TD_BLOCK_SHIFT;
    size_t adopt = need > b0 ? need - b0 : 0;
    if (adopt) {
        td_raw_event **nb = td_grow(L->blk, &L->blkcap, need, sizeof *nb);
        if (!nb)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        L->blk = nb;
        memcpy(nb + b0, p->blk, adopt * sizeof *nb);
        L->nblk = need; /* owned by L from here, freed by it on error */
    }
    int rc = 0;
    size_t i = 0;
    for (; i < p->nraw; i++) {
        td_raw_event e = p->blk[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
        uint32_t nm = name[e.name];
        if (nm >= (1u << TD_NAME_BITS)) {
            rc = td_fail(L->j.err, TD_ETRACE, L->f->path,
                         "more than %lld distinct names in one file", (long long)1 << TD_NAME_BITS);
            break;
        }
        e.name = nm & ((1u << TD_NAME_BITS) - 1);
        size_t g = base + i;
        L->blk[g >> TD_BLOCK_SHIFT][g & (TD_BLOCK - 1)] = e;
        if ((rc = count_category(L, cat[p->cat[i]], nm, &e, g)) < 0)
            break;
    }
    L->nraw = base + i;
    for (size_t b = 0; b < p->nblk; b++) {
        if (b >= adopt)
            td_big_free(p->blk[b]); /* emptied by the shift */
        p->blk[b] = NULL;
    }
    p->nblk = 0;
    return rc;
}

/* Appends what piece p read to L: its names and cats interned in the order
 * the piece met them (so ids come out as the serial reader's), then its
 * events. */
static int merge_piece(loader *L, td_piece *p)
{
    td_file *f = L->f;
    size_t nn = td_strtab_count(p->names), nc = td_strtab_count(p->cats);
    uint32_t *map = malloc((nn + nc + 1) * sizeof *map);
    if (!map)
        return td_fail(L->j.err, TD_ENOMEM, f->path, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < nn + nc && rc == 0; k++) {
        size_t len;
        const char *s = k < nn ? td_strtab_get(p->names, (uint32_t)k, &len)
                               : td_strtab_get(p->cats, (uint32_t)(k - nn), &len);
        int64_t id = td_strtab_intern(k < nn ? f->names : f->cats, s, len);
        if (id < 0)
            rc = td_fail(L->j.err, TD_ENOMEM, f->path, "out of memory");
        map[k] = (uint32_t)id;
    }
    if (rc == 0)
        rc = merge_events(L, p, map, map + nn);
    free(map);
    L->index += p->elements;
    f->events_skipped += p->skipped;
    L->round_ts |= p->round_ts;
    return rc;
}

/* Piece 0 at an event at or past the next cut (trace_split.h): returns 1
 * to read the event here, 2 when the pieces have read up to the array's
 * ']' (the walk is moved there), < 0 on error. */
static int split_reached(loader *L)
{
    td_split *sp = L->split;
    td_json *j = &L->j;
    for (;;) {
        uint64_t off = td_json_offset(j);
        while (L->split_next < sp->n && sp->p[L->split_next].start < off)
            td_split_cancel(&sp->p[L->split_next++]); /* stepped over: not a cut */
        if (L->split_next == sp->n) {
            L->split_at = UINT64_MAX;
            return 1;
        }
        td_piece *p = &sp->p[L->split_next];
        L->split_at = p->start;
        if (p->start != off)
            return 1;
        L->split_next++;
        if (j->depth != sp->depth || !td_split_claim(sp, p)) {
            td_split_cancel(p); /* not started: read on here */
            continue;
        }
        if (p->end_kind == PIECE_END_NONE)
            continue;
        int rc = merge_piece(L, p);
        if (rc == 0 && p->end_kind == PIECE_END_ERROR) {
            if (j->err)
                *j->err = p->err; /* the serial reader's error: same bytes, same state */
            j->failed = 1;
            rc = p->rc;
        }
        int kind = p->end_kind;
        uint64_t end = p->end;
        td_piece_clear(p);
        if (rc < 0 || (rc = td_reader_seek(L->r, end, j->err)) < 0)
            return rc;
        td_json_restart(j, end);
        if (kind == PIECE_END_ARRAY)
            return 2;
    }
}

/* The loop over traceEvents, compiled twice: with attr a constant, the
 * default reader (attr false) does no work at all for attribution. */
READER_INLINE int event_loop(loader *L, bool attr)
{
    td_json *j = &L->j;
    int rc = td_json_arr_begin(j);
    bool first = true;
    while (rc >= 0 && (rc = td_json_arr_next(j, &first)) > 0) {
        if (td_json_offset(j) >= L->split_at) {
            rc = split_reached(L);
            if (rc == 2) /* at the array's ']' */
                continue;
            if (rc < 0)
                break;
        }
        rc = read_event(L, attr);
    }
    return rc;
}

static __attribute__((noinline)) int event_loop_plain(loader *L)
{
    return event_loop(L, false);
}

static __attribute__((noinline)) int event_loop_attr(loader *L)
{
    return event_loop(L, true);
}

/* Piece me >= 1 of a cut file: events from its cut on, until an event that
 * starts exactly at a later cut, the array's ']' (not read), or an error.
 * Its state is that of the serial reader at the cut: in traceEvents, after
 * the ',' before the event. */
READER_INLINE int piece_loop(loader *L, td_split *sp, size_t me, bool attr)
{
    td_json *j = &L->j;
    td_piece *p = &sp->p[me];
    size_t next = me + 1;
    bool first = false;
    int rc = read_event(L, attr);
    while (rc >= 0) {
        if (td_json_peek(j) == ']') {
            p->end_kind = PIECE_END_ARRAY;
            p->end = td_json_offset(j);
            return 0;
        }
        if ((rc = td_json_arr_next(j, &first)) < 0)
            break;
        uint64_t off = td_json_offset(j);
        while (next < sp->n && sp->p[next].start < off)
            next++;
        if (next < sp->n && sp->p[next].start == off) {
            p->end_kind = PIECE_END_CUT;
            p->end = off;
            return 0;
        }
        rc = read_event(L, attr);
    }
    p->end_kind = PIECE_END_ERROR;
    p->rc = rc;
    return rc;
}

static __attribute__((noinline)) int piece_loop_plain(loader *L, td_split *sp, size_t me)
{
    return piece_loop(L, sp, me, false);
}

static __attribute__((noinline)) int piece_loop_attr(loader *L, td_split *sp, size_t me)
{
    return piece_loop(L, sp, me, true);
}

/* The reading state of a piece: its own file record (for the names and
 * cats it meets), the file opened at its cut, the scanner inside
 * traceEvents. */
static int piece_open(loader *L, td_split *sp, td_piece *p, uint64_t map_min)
{
    td_file *f = calloc(1, sizeof *f);
    L->f = f;
    if (!f || !(f->path = strdup(sp->path)) || !(f->names = td_strtab_new()) ||
        !(f->cats = td_strtab_new()))
        return TD_ENOMEM;
    int rc;
    if ((rc = td_reader_open(&L->r, f->path, &p->err)) < 0 ||
        (rc = td_json_init(&L->j, source_read, L, f->path, &p->err)) < 0)
        return rc;
    reader_windows(L, map_min, false); /* a piece seeks: never read ahead */
    if ((rc = td_reader_seek(L->r, p->start, &p->err)) < 0)
        return rc;
    L->reported = td_reader_consumed(L->r);
    td_json_restart(&L->j, p->start);
    L->j.ctx = "traceEvents";
    if (sp->depth == 2 && (rc = td_json_assume(&L->j, true)) < 0)
        return rc;
    return td_json_assume(&L->j, false);
}

/* The links kept for TD_LOAD_ flags: the breakdown alone needs launches
 * and gpu-side events only (model/bd_collect.c). */
static uint32_t link_kinds(int flags)
{
    if (flags & (TD_LOAD_ATTR | TD_LOAD_TREE))
        return (flags & TD_LOAD_STACK) ? UINT32_MAX : UINT32_MAX & ~(uint32_t)TD_LINK_CPU;
    return TD_LINK_LAUNCH | TD_LINK_GPU;
}

void td_split_run(td_split *sp, size_t i, const td_load_progress *prog, int want_attr,
                  uint64_t map_min)
{
    td_piece *p = &sp->p[i];
    int expect = PIECE_FREE;
    if (!atomic_compare_exchange_strong(&p->state, &expect, PIECE_RUNNING))
        return; /* piece 0 got there first */
    loader L;
    memset(&L, 0, sizeof L);
    L.prog = prog;
    L.want_attr = want_attr != 0;
    L.link_kinds = link_kinds(want_attr);
    L.piece = p;
    L.index = 1; /* never the first entry of traceEvents */
    L.split_at = UINT64_MAX;
    if (piece_open(&L, sp, p, map_min) < 0) {
        p->end_kind = PIECE_END_NONE; /* piece 0 reads these bytes itself */
    } else {
        if (want_attr)
            piece_loop_attr(&L, sp, i);
        else
            piece_loop_plain(&L, sp, i);
        p->blk = L.blk;
        p->nblk = L.nblk;
        p->nraw = L.nraw;
        p->wide = L.wide;
        p->nwide = L.nwide;
        p->links = L.links;
        p->nlinks = L.nlinks;
        p->thr = L.thr;
        memset(&L.thr, 0, sizeof L.thr);
        p->names = L.f->names;
        p->cats = L.f->cats;
        L.f->names = L.f->cats = NULL;
        p->elements = L.index - 1;
        p->skipped = L.f->events_skipped;
        p->round_ts = L.round_ts;
        L.blk = NULL;
        L.nblk = 0;
        L.wide = NULL;
        L.links = NULL;
    }
    td_json_free(&L.j);
    td_reader_close(L.r);
    for (size_t b = 0; b < L.nblk; b++)
        td_big_free(L.blk[b]);
    free(L.blk);
    free(L.wide);
    td_links_free(L.links);
    td_threads_free(&L.thr);
    td_file_free(L.f);
    td_split_finish(sp, p);
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
            td_big_free(L->blk[b]);
        L->nblk = 0;
        L->nraw = 0;
        L->nwide = 0;
        L->nlinks = 0;
        L->index = 0;
        L->f->events_skipped = 0;
        L->round_ts = 0;
        if (L->f->cat_counts)
            memset(L->f->cat_counts, 0, L->f->ncat_counts * sizeof *L->f->cat_counts);
        if (L->f->cat_dur)
            memset(L->f->cat_dur, 0, L->f->ncat_counts * sizeof *L->f->cat_dur);
        if (L->cat_rdur)
            memset(L->cat_rdur, 0, L->ncat_rdur * sizeof *L->cat_rdur);
        L->cats_mixed = 0;
        if (L->f->name_cats)
            memset(L->f->name_cats, 0, L->f->nname_cats * sizeof *L->f->name_cats);
    }
    L->seen_events = 1;
    const char *saved = j->ctx;
    j->ctx = "traceEvents";
    int rc = L->want_attr ? event_loop_attr(L) : event_loop_plain(L);
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

/* "rocprofiler-sdk-tool": rocprofv3's JSON, read by rocprof_json.c into
 * a file of its own that replaces L's. */
static int read_rocprof(loader *L)
{
    if (!L->rocprof) {
        td_prof_sink *s = malloc(sizeof *s);
        if (!s)
            return td_fail(L->j.err, TD_ENOMEM, L->f->path, "out of memory");
        int rc = td_prof_sink_init(s, L->f->path, L->load_flags, L->j.err);
        s->marker = L->marker;
        L->rocprof = s;
        if (rc < 0)
            return rc;
        s->f->compression = L->f->compression;
        s->f->file_bytes = L->f->file_bytes;
    }
    return td_rocprof_json_read(&L->j, L->rocprof);
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
        else if (key_is(k, kl, "rocprofiler-sdk-tool"))
            rc = read_rocprof(L);
        else
            rc = td_json_skip(j);
    }
    if (rc < 0)
        return rc;
    if ((rc = td_json_end(j)) < 0)
        return rc;
    if (!L->seen_events && !L->rocprof)
        return td_fail(j->err, TD_ETRACE, L->f->path, "no traceEvents array: not a trace");
    return 0;
}

/* The events read: iterations, then what the breakdown and attribution
 * keep of the links. */
static int finish_file(loader *L, int flags, td_split *sp, const void *marker, td_error *err)
{
    td_file *f = L->f;
    if ((flags & TD_LOAD_BD) && !(f->bd = td_bd_new()))
        return td_fail(err, TD_ENOMEM, f->path, "out of memory");
    /* A file cut into pieces had a thread per piece: its passes over the
     * events get them too. */
    int rc = td_assign_iterations(f, L->blk, L->nraw, L->wide, L->nwide, L->round_ts,
                                  (int)td_split_pieces(sp), marker, err);
    L->nblk = 0; /* taken over (compacted or freed) by td_assign_iterations */
    if (rc == 0 && L->nlinks && td_threads_rank(&L->thr, L->links, L->nlinks) < 0)
        rc = td_fail(err, TD_ENOMEM, f->path, "out of memory");
    if (rc == 0 && (flags & TD_LOAD_BD))
        rc = td_bd_collect(f, L->links, L->nlinks, L->round_ts, err);
    if (rc == 0 && (flags & TD_LOAD_ROOF))
        rc = td_roof_times(f, L->links, L->nlinks, false, err);
    if (rc == 0 && (flags & TD_LOAD_TREE))
        rc = td_tree_build(f, L->links, L->shape, L->nlinks, (flags & TD_LOAD_TREE_PY) != 0, err);
    if (rc == 0 && (flags & TD_LOAD_ATTR))
        rc = td_attribute(f, L->links, L->shape, L->nlinks, L->round_ts,
                          (flags & TD_LOAD_STACK) != 0, err);
    return rc;
}

int td_file_load(td_file **out, const char *path, const td_load_progress *prog, int flags,
                 td_error *err)
{
    return td_file_load_split(out, path, prog, flags, NULL, false, 0, NULL, err);
}

/* A rocprofv3 JSON file read (read_rocprof): its events become the file,
 * in place of *f (freed); the reading state goes first, as for a trace. */
static int finish_rocprof(loader *L, td_file **f)
{
    L->rocprof->f->json_bytes = td_json_offset(&L->j);
    td_json_free(&L->j);
    td_reader_close(L->r);
    L->r = NULL;
    td_file *rf = NULL;
    int rc = td_prof_sink_finish(L->rocprof, &rf);
    free(L->rocprof);
    L->rocprof = NULL;
    if (rc == 0) {
        td_file_free(*f);
        *f = rf;
    }
    return rc;
}

/* What a file's loader holds when it is done (L->f is the caller's). */
static void loader_free(loader *L)
{
    td_json_free(&L->j);
    td_reader_close(L->r);
    for (size_t b = 0; b < L->nblk; b++)
        td_big_free(L->blk[b]);
    free(L->blk);
    free(L->wide);
    td_links_free(L->links);
    free(L->shape);
    td_threads_free(&L->thr);
    free(L->cat_rdur);
    free(L->evcat);
    for (int w = 0; w < 3; w++)
        free(L->shp[w]);
    if (L->rocprof) {
        td_prof_sink_free(L->rocprof);
        free(L->rocprof);
    }
}

static int load_trace(td_file **out, const char *path, const td_load_progress *prog, int flags,
                      td_split *sp, bool ahead, uint64_t map_min, const void *marker, td_error *err)
{
    int want_attr = (flags & (TD_LOAD_ATTR | TD_LOAD_BD | TD_LOAD_TREE)) != 0;
    loader L;
    memset(&L, 0, sizeof L);
    L.prog = prog;
    L.want_attr = want_attr; /* the breakdown reads the links too */
    L.link_kinds = link_kinds(flags);
    L.split = sp;
    L.split_next = 1;
    L.split_at = sp && sp->n > 1 ? sp->p[1].start : UINT64_MAX;
    int rc;
    td_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->names = td_strtab_new()) ||
        !(f->cats = td_strtab_new())) {
        td_file_free(f);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    L.f = f;
    L.load_flags = flags;
    L.want_shapes = (flags & (TD_LOAD_ROOF | TD_LOAD_TREE)) != 0;
    L.want_py = (flags & (TD_LOAD_STACK | TD_LOAD_TREE_PY)) != 0;
    L.marker = marker;
    if ((rc = td_reader_open(&L.r, path, err)) < 0)
        goto done;
    f->compression = td_reader_compression(L.r);
    f->file_bytes = td_reader_file_bytes(L.r);
    if ((rc = td_json_init(&L.j, source_read, &L, f->path, err)) < 0)
        goto done;
    /* A file cut into pieces seeks: read in this thread when not mapped. */
    reader_windows(&L, map_min, ahead && !sp);
    rc = read_top(&L);
    for (size_t k = L.split_next; sp && k < sp->n; k++)
        td_split_cancel(&sp->p[k]); /* never reached */
    if (rc < 0)
        goto done;
    if (L.rocprof) { /* its own file, not traceEvents' */
        rc = finish_rocprof(&L, &f);
        goto done;
    }
    f->json_bytes = td_json_offset(&L.j);
    /* Decimal timestamps are rounded as HTA does (spec §2) unless the
     * trace's own resolution was asked for (td_open_opts.ns). */
    f->decimal_ts = L.round_ts;
    f->ns = (flags & TD_LOAD_NS) != 0;
    if (f->ns)
        L.round_ts = 0;
    f->rounded = L.round_ts;
    if (L.round_ts && L.cat_rdur)
        memcpy(f->cat_dur, L.cat_rdur, f->ncat_counts * sizeof *f->cat_dur);
    f->cats_by_side = 1;
    if (L.cats_mixed) { /* the events' own categories are needed: --cat */
        f->ev_cat = L.evcat;
        L.evcat = NULL;
    }
    /* The reading state goes before the events are compacted: peak memory
     * is the raw events, not the raw events plus the window. */
    td_json_free(&L.j);
    td_reader_close(L.r);
    L.r = NULL;
    rc = finish_file(&L, flags, sp, marker, err);
done:
    loader_free(&L);
    if (rc < 0) {
        td_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

int td_file_load_split(td_file **out, const char *path, const td_load_progress *prog, int flags,
                       td_split *sp, bool ahead, uint64_t map_min, const void *marker,
                       td_error *err)
{
    *out = NULL;
    td_prof_kind pk = td_prof_sniff(path);
    if (pk == TD_PROF_NONE)
        return load_trace(out, path, prog, flags, sp, ahead, map_min, marker, err);
    for (size_t k = 1; sp && k < sp->n; k++) /* another profiler's output (prof_load.h) */
        td_split_cancel(&sp->p[k]);
    return td_prof_load(out, path, pk, prog, flags, marker, NULL, err);
}
