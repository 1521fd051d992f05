/*
 * A loaded file as one block of bytes, for a file loaded in another process
 * of the same program (trace_set.c): its fields, strings and arrays, the
 * events as one contiguous run that the reading side uses in place.
 * Not a storage format: both sides are the same build, so the td_file
 * struct itself is copied and its pointers rebuilt.
 */
#include "model/file_xfer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define XFER_MAGIC 0x7472616365786672ull /* "tracexfr" */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* The writer: counts the bytes, or copies them to memory, or lists them as
 * pieces of the file's own arrays for one pwritev (no copy here). */
typedef struct wbuf {
    unsigned char *p; /* memory: the destination */
    bool list;        /* else, with list, the pieces */
    struct iovec *iov;
    size_t niov, cap;
    uint64_t words[32]; /* the numbers pieces point at */
    size_t nwords;
    size_t n;
    bool bad; /* out of memory for the pieces */
} wbuf;

static const unsigned char zeros[64];

static void emit(wbuf *w, const void *src, size_t len)
{
    if (!len)
        return;
    if (w->p) {
        memcpy(w->p + w->n, src, len);
    } else if (w->list) {
        if (w->niov == w->cap) {
            struct iovec *v = td_grow(w->iov, &w->cap, w->niov + 1, sizeof *v);
            if (!v) {
                w->bad = true;
                return;
            }
            w->iov = v;
        }
        w->iov[w->niov++] = (struct iovec){(void *)(uintptr_t)src, len};
    }
    w->n += len;
}

/* Zeros up to the next multiple of align (at most 64). */
static void pad(wbuf *w, size_t align)
{
    emit(w, zeros, (align - w->n % align) % align);
}

static void put(wbuf *w, const void *src, size_t len)
{
    emit(w, src, len);
    pad(w, 8);
}

static void put_u64(wbuf *w, uint64_t v)
{
    if (w->nwords == sizeof w->words / sizeof *w->words) {
        w->bad = true;
        return;
    }
    uint64_t *at = &w->words[w->nwords++];
    *at = v;
    put(w, at, sizeof *at);
}

static void put_str(wbuf *w, const char *s)
{
    if (!s) {
        put_u64(w, UINT64_MAX);
        return;
    }
    size_t len = strlen(s);
    put_u64(w, len);
    put(w, s, len);
}

static void put_tab(wbuf *w, const td_strtab *t)
{
    if (!t) {
        put_u64(w, UINT64_MAX);
        return;
    }
    td_strtab_parts p;
    td_strtab_parts_of(t, &p);
    put_u64(w, p.n);
    put_u64(w, p.nslots);
    put_u64(w, p.alen);
    put(w, p.arena, p.alen);
    put(w, p.off, p.n * sizeof *p.off);
    put(w, p.hash, p.n * sizeof *p.hash);
    put(w, p.len, p.n * sizeof *p.len);
    put(w, p.slots, p.nslots * sizeof *p.slots);
}

static void put_file(wbuf *w, const td_file *f)
{
    put(w, f, sizeof *f);
    put_str(w, f->path);
    put_str(w, f->device_name);
    put_str(w, f->format);
    put_tab(w, f->names);
    put_tab(w, f->cats);
    put(w, f->cat_counts, f->ncat_counts * sizeof *f->cat_counts);
    put(w, f->cat_dur, f->ncat_counts * sizeof *f->cat_dur);
    put(w, f->name_cats, f->nname_cats * sizeof *f->name_cats);
    put(w, f->iters, f->niters * sizeof *f->iters);
    put(w, f->step_at, f->nstep_seg * sizeof *f->step_at);
    put(w, f->step_iter, f->nstep_seg * sizeof *f->step_iter);
    if (f->rdelta)
        put(w, f->rdelta, f->nev * sizeof *f->rdelta);
    if (f->ev_cat)
        put(w, f->ev_cat, f->nev * sizeof *f->ev_cat);
    if (f->has_attr) {
        put(w, f->attr_op, f->nattr * sizeof *f->attr_op);
        put(w, f->attr_top, f->nattr * sizeof *f->attr_top);
        put(w, f->attr_ann, f->nattr * sizeof *f->attr_ann);
    }
    if (f->wait_in) {
        put(w, f->wait_in, f->nwait * sizeof *f->wait_in);
        put(w, f->wait_of, f->nwait * sizeof *f->wait_of);
    }
    if (f->attr_call) {
        put(w, f->attr_call, f->nattr * sizeof *f->attr_call);
        put(w, f->attr_topc, f->nattr * sizeof *f->attr_topc);
        put(w, f->attr_annc, f->nattr * sizeof *f->attr_annc);
        put(w, f->op_name, f->nops * sizeof *f->op_name);
        put(w, f->op_parent, f->nops * sizeof *f->op_parent);
    }
    put(w, f->proc_pid, f->nprocs * sizeof *f->proc_pid);
    put(w, f->proc_events, f->nprocs * sizeof *f->proc_events);
    put(w, f->proc_names, f->proc_names_len);
    pad(w, 64); /* the events on a cache line */
    for (size_t b = 0; b < f->nevb; b++) {
        size_t k = b + 1 < f->nevb ? TD_BLOCK : f->nev - b * TD_BLOCK;
        put(w, f->evb[b], k * sizeof **f->evb);
    }
}

size_t td_file_xfer_size(const td_file *f)
{
    wbuf w = {0};
    put_u64(&w, XFER_MAGIC);
    put_u64(&w, 0);
    put_file(&w, f);
    return w.n;
}

void td_file_xfer_write(const td_file *f, unsigned char *dst, size_t size)
{
    wbuf w = {0};
    w.p = dst;
    put_u64(&w, XFER_MAGIC);
    put_u64(&w, size);
    put_file(&w, f);
}

/* pwritev of all of v[0..n) at off, however the writes come back short. */
static int write_all(int fd, struct iovec *v, size_t n, uint64_t off)
{
    while (n > 0) {
        int k = n > IOV_MAX ? IOV_MAX : (int)n;
        ssize_t got = pwritev(fd, v, k, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        off += (uint64_t)got;
        for (size_t left = (size_t)got; left > 0;) {
            size_t step = left < v->iov_len ? left : v->iov_len;
            v->iov_base = (char *)v->iov_base + step;
            v->iov_len -= step;
            left -= step;
            if (v->iov_len == 0) {
                v++;
                n--;
            }
        }
    }
    return 0;
}

int td_file_xfer_send(const td_file *f, int fd, uint64_t off, size_t *size)
{
    *size = td_file_xfer_size(f);
    wbuf w = {0};
    w.list = true;
    put_u64(&w, XFER_MAGIC);
    put_u64(&w, *size);
    put_file(&w, f);
    int rc = w.bad || w.n != *size ? -1 : write_all(fd, w.iov, w.niov, off);
    free(w.iov);
    return rc;
}

typedef struct rbuf {
    const unsigned char *p;
    size_t n, len;
    bool bad;
} rbuf;

static const void *take(rbuf *r, size_t len)
{
    if (r->bad || len > r->len - r->n) {
        r->bad = true;
        return NULL;
    }
    const void *at = r->p + r->n;
    r->n = ALIGN8(r->n + len);
    if (r->n > r->len)
        r->n = r->len;
    return at;
}

static uint64_t take_u64(rbuf *r)
{
    const void *at = take(r, 8);
    uint64_t v = 0;
    if (at)
        memcpy(&v, at, 8);
    return v;
}

static void *copy_of(rbuf *r, size_t len)
{
    const void *at = take(r, len);
    if (!at || len == 0)
        return NULL;
    void *m = malloc(len);
    if (!m) {
        r->bad = true;
        return NULL;
    }
    memcpy(m, at, len);
    return m;
}

static char *take_str(rbuf *r)
{
    uint64_t len = take_u64(r);
    if (len == UINT64_MAX || r->bad)
        return NULL;
    const char *s = take(r, len);
    char *c = s ? malloc(len + 1) : NULL;
    if (!c) {
        r->bad = true;
        return NULL;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

static td_strtab *take_tab(rbuf *r)
{
    td_strtab_parts p;
    p.n = take_u64(r);
    if (p.n == UINT64_MAX || r->bad)
        return NULL;
    p.nslots = take_u64(r);
    p.alen = take_u64(r);
    /* Bounded by the bytes left before anything is multiplied. */
    if (p.n > r->len / 8 || p.nslots > r->len / 4 || p.alen > r->len) {
        r->bad = true;
        return NULL;
    }
    p.arena = take(r, p.alen);
    p.off = take(r, p.n * sizeof *p.off);
    p.hash = take(r, p.n * sizeof *p.hash);
    p.len = take(r, p.n * sizeof *p.len);
    p.slots = take(r, p.nslots * sizeof *p.slots);
    td_strtab *t = r->bad ? NULL : td_strtab_from_parts(&p);
    if (!t)
        r->bad = true;
    return t;
}

/* src's sizes within the len bytes, before anything is multiplied, and
 * blocks that hold its events exactly. */
static bool sizes_ok(const td_file *src, size_t len)
{
    size_t most = len / 4;
    return src->ncat_counts <= most && src->nname_cats <= most && src->niters <= most &&
           src->nstep_seg <= most && src->nattr <= most && src->nev <= most && src->nwait <= most &&
           src->nops <= most && src->nprocs <= most && src->proc_names_len <= len &&
           src->nevb == (src->nev + TD_BLOCK - 1) / TD_BLOCK;
}

/* f's arrays, each copied out of r; false when r did not hold them. */
static bool take_arrays(rbuf *r, td_file *f, bool rdelta, bool ev_cat, bool has_wait,
                        bool has_calls)
{
    f->path = take_str(r);
    f->device_name = take_str(r);
    f->format = take_str(r);
    f->names = take_tab(r);
    f->cats = take_tab(r);
    f->cat_counts = copy_of(r, f->ncat_counts * sizeof *f->cat_counts);
    f->cat_dur = copy_of(r, f->ncat_counts * sizeof *f->cat_dur);
    f->name_cats = copy_of(r, f->nname_cats * sizeof *f->name_cats);
    f->iters = copy_of(r, f->niters * sizeof *f->iters);
    f->step_at = copy_of(r, f->nstep_seg * sizeof *f->step_at);
    f->step_iter = copy_of(r, f->nstep_seg * sizeof *f->step_iter);
    if (rdelta)
        f->rdelta = copy_of(r, f->nev * sizeof *f->rdelta);
    if (ev_cat)
        f->ev_cat = copy_of(r, f->nev * sizeof *f->ev_cat);
    if (f->has_attr) {
        f->attr_op = copy_of(r, f->nattr * sizeof *f->attr_op);
        f->attr_top = copy_of(r, f->nattr * sizeof *f->attr_top);
        f->attr_ann = copy_of(r, f->nattr * sizeof *f->attr_ann);
    }
    if (has_wait) {
        f->wait_in = copy_of(r, f->nwait * sizeof *f->wait_in);
        f->wait_of = copy_of(r, f->nwait * sizeof *f->wait_of);
    }
    if (has_calls) {
        f->attr_call = copy_of(r, f->nattr * sizeof *f->attr_call);
        f->attr_topc = copy_of(r, f->nattr * sizeof *f->attr_topc);
        f->attr_annc = copy_of(r, f->nattr * sizeof *f->attr_annc);
        f->op_name = copy_of(r, f->nops * sizeof *f->op_name);
        f->op_parent = copy_of(r, f->nops * sizeof *f->op_parent);
    }
    f->proc_pid = copy_of(r, f->nprocs * sizeof *f->proc_pid);
    f->proc_events = copy_of(r, f->nprocs * sizeof *f->proc_events);
    f->proc_names = copy_of(r, f->proc_names_len);
    if (f->proc_names && f->proc_names[f->proc_names_len - 1] != '\0')
        r->bad = true; /* each name NUL-terminated, the last one too */
    return !r->bad;
}

int td_file_xfer_read(td_file **out, void *map, size_t len)
{
    *out = NULL;
    rbuf r = {map, 0, len, false};
    if (take_u64(&r) != XFER_MAGIC || take_u64(&r) != len)
        return TD_ETRACE;
    const td_file *src = take(&r, sizeof *src);
    if (!src || !sizes_ok(src, len))
        return TD_ETRACE;
    td_file *f = malloc(sizeof *f);
    if (!f)
        return TD_ENOMEM;
    /* The counts and flags as sent; every pointer this side's own. */
    *f = *src;
    f->path = f->device_name = f->origin = f->format = NULL;
    f->names = f->cats = NULL;
    f->cat_counts = NULL;
    f->cat_dur = NULL;
    f->name_cats = NULL;
    f->iters = NULL;
    f->step_at = NULL;
    f->step_iter = NULL;
    bool rdelta = f->rdelta != NULL, ev_cat = f->ev_cat != NULL;
    f->rdelta = NULL;
    f->ev_cat = NULL;
    f->attr_op = f->attr_top = f->attr_ann = NULL;
    bool has_wait = f->wait_in != NULL; /* the sender's pointer: only whether it had them */
    f->wait_in = f->wait_of = NULL;
    bool has_calls = f->attr_call != NULL;
    f->attr_call = f->op_name = f->op_parent = f->attr_topc = f->attr_annc = NULL;
    f->evb = NULL;
    f->groups = NULL;
    f->lazy = NULL;
    f->lazy_mem = NULL;
    f->fill = NULL;
    f->ev_map = NULL;
    f->proc_pid = NULL;
    f->proc_events = NULL;
    f->proc_names = NULL;
    const unsigned char *ev = NULL;
    if (take_arrays(&r, f, rdelta, ev_cat, has_wait, has_calls)) {
        r.n = (r.n + 63) & ~(size_t)63;
        ev = r.n <= r.len ? take(&r, f->nev * sizeof(td_event)) : NULL;
    }
    f->evb = ev ? malloc((f->nevb + 1) * sizeof *f->evb) : NULL;
    if (!f->evb) {
        f->nevb = 0;
        td_file_free(f);
        return ev ? TD_ENOMEM : TD_ETRACE;
    }
    for (size_t b = 0; b < f->nevb; b++)
        f->evb[b] = (td_event *)(void *)(ev + b * TD_BLOCK * sizeof(td_event));
    f->ev_map = map;
    f->ev_map_len = len;
    *out = f;
    return 0;
}
