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
