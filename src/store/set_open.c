/*
 * The public set openers: each path is a trace set (a directory or one trace
 * file, loaded concurrently by model/) or a summary ("FILE" or "FILE#RUN",
 * told by SQLite's header), read back as the same model.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

int td_sets_open(td_set **out, const char *const *paths, size_t n, const td_open_opts *opts,
                 td_error *err)
{
    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    td_open_opts oc;
    int rc = TD_OPTS_TAKE(&oc, opts, td_open_opts, TD_OPEN_OPTS_INIT, err);
    if (rc < 0)
        return rc;
    opts = &oc;
    if (opts->npids && !opts->pids)
        return td_fail(err, TD_EUSAGE, "", "td_open_opts: npids without pids");
    const char **tp = calloc(n + 1, sizeof *tp);
    size_t *ti = calloc(n + 1, sizeof *ti);
    td_set **ts = calloc(n + 1, sizeof *ts);
    size_t nt = 0;
    if (!tp || !ti || !ts) {
        rc = td_fail(err, TD_ENOMEM, "", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *file, *run;
        int k = td_summary_split(paths[i], &file, &run, err);
        if (k < 0) {
            rc = k;
        } else if (k == 1 && opts->npids) { /* its events were read (or not) when it was made */
            rc = td_fail(err, TD_ETRACE, file,
                         "a summary: --pid selects processes of the exports a summary is made "
                         "from (summarize --pid), not of the summary");
            free(file);
            free(run);
        } else if (k == 1) {
            rc = td_summary_open_set(&out[i], file, run, err);
            if (rc == 0)
                rc = td_set_check_rule(out[i], opts->ns, err);
            free(file);
            free(run);
        } else {
            tp[nt] = paths[i];
            ti[nt++] = i;
        }
    }
    if (rc == 0 && nt > 0 && (rc = td_trace_sets_open(ts, tp, nt, opts, err)) == 0)
        for (size_t k = 0; k < nt; k++)
            out[ti[k]] = ts[k];
    if (rc < 0)
        for (size_t i = 0; i < n; i++) {
            td_set_free(out[i]);
            out[i] = NULL;
        }
done:
    free(tp);
    free(ti);
    free(ts);
    return rc;
}

int td_set_open(td_set **out, const char *path, const td_open_opts *opts, td_error *err)
{
    return td_sets_open(out, &path, 1, opts, err);
}
