/* Helpers for tests that load small traces written to the scratch directory. */
#ifndef TD_UNIT_TRACES_H
#define TD_UNIT_TRACES_H

#include "harness.h"
#include "tracediff.h"

/* Opens path as a set (one thread); NULL after reporting a failure. */
static inline td_set *unit_open(const char *path)
{
    td_set *s = NULL;
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 1;
    td_error err = {0};
    if (td_set_open(&s, path, &oo, &err) != 0) {
        unit_fail(__FILE__, __LINE__, "cannot open %s: %s", path, err.msg);
        return NULL;
    }
    return s;
}

/* The error of opening path (which must fail). */
static inline td_error unit_open_error(const char *path)
{
    td_set *s = NULL;
    td_error err = {0};
    if (td_set_open(&s, path, NULL, &err) == 0) {
        unit_fail(__FILE__, __LINE__, "%s opened, expected an error", path);
        td_set_free(s);
    }
    return err;
}

/* A set compared with itself, every iteration, all devices. */
static inline td_diff *unit_self_diff(const td_set *s)
{
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.control_iters.all = co.test_iters.all = true;
    td_diff *d = NULL;
    td_error err = {0};
    if (td_diff_compute(&d, s, s, &co, &err) != 0)
        unit_fail(__FILE__, __LINE__, "td_diff_compute: %s", err.msg);
    return d;
}

/* The row of that name (len bytes), or NULL. */
static inline const td_row *unit_row(const td_diff *d, const char *name, size_t len)
{
    for (size_t i = 0; d && i < td_diff_nrows(d); i++) {
        const td_row *r = &td_diff_rows(d)[i];
        if (r->name_len == len && memcmp(r->name, name, len) == 0)
            return r;
    }
    return NULL;
}
#define UNIT_ROW(d, lit) unit_row((d), (lit), sizeof(lit) - 1)

#endif
