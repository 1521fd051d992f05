/* Lists of ranks and iterations ("N", "N,M,...", "all"), and resolving them
 * against a trace set (spec §4). */
#include "model/model.h"
#include "model/selection.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void td_list_clear(td_list *l)
{
    if (!l)
        return;
    free(l->v);
    memset(l, 0, sizeof *l);
}

int td_list_parse(td_list *out, const char *text, td_error *err)
{
    td_list_clear(out);
    if (!text || !*text)
        return td_fail(err, TD_EUSAGE, "", "empty list: expected N, N,M,... or all");
    if (strcmp(text, "all") == 0) {
        out->all = 1;
        return 0;
    }
    if (strcmp(text, "steady") == 0) {
        out->steady = 1;
        return 0;
    }
    size_t cap = 0;
    const char *p = text;
    for (;;) {
        const char *q = p;
        if (*q == '-' || *q == '+')
            q++;
        if (*q < '0' || *q > '9')
            goto bad;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE) {
            td_list_clear(out);
            return td_fail(err, TD_EUSAGE, "", "'%s': number out of range", text);
        }
        if (end == p || (*end != ',' && *end != '\0'))
            goto bad;
        int64_t *nv = td_grow(out->v, &cap, out->n + 1, sizeof *nv);
        if (!nv) {
            td_list_clear(out);
            return td_fail(err, TD_ENOMEM, "", "out of memory");
        }
        out->v = nv;
        out->v[out->n++] = v;
        if (*end == '\0')
            return 0;
        p = end + 1;
    }
bad:
    td_list_clear(out);
    return td_fail(err, TD_EUSAGE, "", "'%s': expected N, N,M,... or all", text);
}

static void list_values(char *buf, size_t cap, const int64_t *v, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && k + 24 < cap; i++) {
        /* Runs of consecutive values read better as a range. */
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        int w;
        if (j >= i + 2)
            w = snprintf(buf + k, cap - k, "%s%lld..%lld", i ? ", " : "", (long long)v[i],
                         (long long)v[j]);
        else {
            w = snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)v[i]);
            j = i;
        }
        if (w < 0)
            break;
        k += (size_t)w;
        i = j;
    }
    if (k + 24 >= cap && cap > 4)
        snprintf(buf + cap - 5, 5, "...");
}

int td_resolve(int64_t **out, size_t *nout, const td_list *want, const int64_t *have, size_t nhave,
               const char *what, const char *side, td_error *err)
{
    *out = NULL;
    *nout = 0;
    if (want->steady && nhave < 2)
        return td_fail(err, TD_EUSAGE, "",
                       "steady: %s has %zu %s%s (needs 2 or more: all but the lowest)", side, nhave,
                       what, nhave == 1 ? "" : "s");
    size_t n = want->all ? nhave : want->steady ? nhave - 1 : want->n ? want->n : (nhave ? 1 : 0);
    int64_t *v = malloc((n + 1) * sizeof *v);
    if (!v)
        return td_fail(err, TD_ENOMEM, "", "out of memory");
    if (want->steady) {
        memcpy(v, have + 1, n * sizeof *v); /* have is sorted: drop the lowest */
    } else if (want->all || want->n == 0) {
        memcpy(v, have, n * sizeof *v);
    } else {
        for (size_t i = 0; i < n; i++) {
            int64_t x = want->v[i];
            bool found = false;
            for (size_t k = 0; k < nhave && !found; k++)
                found = have[k] == x;
            if (!found) {
                char lst[200];
                list_values(lst, sizeof lst, have, nhave);
                free(v);
                if (nhave == 0)
                    return td_fail(err, TD_EUSAGE, "", "no such %s %lld: %s has none", what,
                                   (long long)x, side);
                return td_fail(err, TD_EUSAGE, "", "no such %s %lld; %s has %s", what, (long long)x,
                               side, lst);
            }
            v[i] = x;
        }
    }
    *out = v;
    *nout = n;
    return 0;
}

/* Whether the comma-separated list holds the word s. */
static bool in_words(const char *list, const char *s, size_t len)
{
    for (const char *w = list; *w;) {
        size_t k = strcspn(w, ",");
        if (k == len && memcmp(w, s, len) == 0)
            return true;
        w += k + (w[k] == ',');
    }
    return false;
}

uint64_t td_cats_mask(const td_file *f, const char *cats, bool exclude)
{
    if (!cats)
        return UINT64_MAX;
    uint64_t mask = 0;
    for (size_t c = 0; c < td_strtab_count(f->cats); c++) {
        size_t len;
        const char *s = td_strtab_get(f->cats, (uint32_t)c, &len);
        if (in_words(cats, s, len) == exclude)
            continue;
        if (f->cats_by_side)
            mask |= td_name_cat_bit(c, false) | td_name_cat_bit(c, true);
        else
            mask |= (uint64_t)1 << (c < 63 ? c : 63);
    }
    return mask;
}

/* The category of event i of f (name: its name with flag bits), from the
 * event's own cats id when f keeps one per event, else from its name's
 * categories on its side when they name one; "" when neither tells. */
static const char *event_cat(const td_file *f, size_t i, uint32_t name)
{
    size_t ncats = f->cats ? td_strtab_count(f->cats) : 0;
    uint32_t id = name & ~(TD_EV_GPU | TD_EV_STREAM0);
    bool gpu = (name & TD_EV_GPU) != 0;
    size_t c = SIZE_MAX;
    if (f->ev_cat && f->ev_cat[i] < 255) {
        c = f->ev_cat[i];
    } else if (f->name_cats && id < f->nname_cats) {
        uint64_t bits = f->name_cats[id];
        unsigned last = 63;
        if (f->cats_by_side) {
            bits = gpu ? bits >> 32 : bits & 0xFFFFFFFFu;
            last = 31;
        }
        /* one bit, and not the one that ids from `last` on share */
        if (bits && !(bits & (bits - 1))) {
            unsigned b = (unsigned)__builtin_ctzll(bits);
            if (b < last || ncats == last + 1)
                c = b;
        }
    }
    return c < ncats ? td_strtab_get(f->cats, (uint32_t)c, NULL) : "";
}

int td_set_events(const td_set *s, const int64_t *ranks, size_t nranks, const int64_t *iters,
                  size_t niters, td_device device, int (*fn)(void *ud, const td_event_info *ev),
                  void *ud, td_error *err)
{
    td_pick p = {.iters = iters, .niters = niters, .whole_trace = s->niters == 0, .device = device};
    for (size_t fi = 0; fi < s->nfiles; fi++) {
        const td_file *f = s->files[fi];
        bool want = false;
        for (size_t k = 0; k < nranks && !want; k++)
            want = ranks[k] == f->rank;
        if (!want)
            continue;
        int rc = td_file_events(f);
        if (rc < 0)
            return td_events_fail(err, rc, f);
        long stack_pos[64];
        long *pos = td_pick_positions(f, &p, stack_pos);
        if (!pos)
            return td_fail(err, TD_ENOMEM, f->path, "out of memory");
        td_event_info ev = {.file = fi, .rank = f->rank};
        for (size_t i = 0; i < f->nev && rc >= 0; i++) {
            const td_event *e = &f->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
            long ip;
            if (!td_pick_takes(&p, pos, e->name, e->iter, &ip))
                continue;
            ev.iteration = ip < 0 ? -1 : iters[ip];
            ev.dur = e->dur;
            ev.name_id = TD_EV_NAME(e);
            ev.name = td_strtab_get(f->names, ev.name_id, NULL);
            ev.cat = event_cat(f, i, e->name);
            ev.gpu = (e->name & TD_EV_GPU) != 0;
            ev.stream0 = (e->name & TD_EV_STREAM0) != 0;
            rc = fn(ud, &ev);
        }
        if (pos != stack_pos)
            free(pos);
        if (rc < 0)
            return rc;
    }
    return 0;
}

const char *td_device_name(td_device d)
{
    return d == TD_DEVICE_CPU ? "cpu" : d == TD_DEVICE_GPU ? "gpu" : "all";
}
