/* tracediff check CONTROL TEST: the CI gate. Exit 3 when a name got slower. */
#include "options.h"

#include <stdlib.h>
#include <string.h>

static int write_junit(const td_check *c, const char *path)
{
    out_file out = {0};
    int rc = out_open(&out, path);
    if (rc)
        return rc;
    td_error err = {0};
    if (td_check_write(out.f, c, TD_CHECK_JUNIT, &err) < 0)
        return out_fail(&out, &err);
    return out_commit(&out);
}

static bool empty_side(const cli_pair *p, int *side)
{
    for (int s = 0; s < 2; s++)
        if (td_diff_notes(p->diff, s)->events == 0) {
            *side = s;
            return true;
        }
    return false;
}

static int check_run(cli_pair *p, td_check **c)
{
    cli_opts *o = &p->o;
    const char *fmt = o->format ? o->format : "table"; /* the parser checked it */
    out_file out = {0};
    int rc = cli_pair_run(p);
    if (rc)
        return rc;
    int side;
    if (empty_side(p, &side)) {
        cli_error("%s: the selection has no events (check --%s-rank, --%s-iteration, --device)",
                  side ? o->test : o->control, side ? "test" : "control",
                  side ? "test" : "control");
        return EXIT_DATA;
    }
    td_check_opts co = TD_CHECK_OPTS_INIT;
    co.max_regression = o->max_regression;
    co.has_max_regression = true;
    co.min_us = o->min_us;
    co.control = p->control;
    co.test = p->test;
    co.compare = &o->cmp;
    co.gate_waits = o->gate_waits;
    co.allow_new = o->allow_new;
    co.max_step_regression = o->max_step_regression;
    co.has_max_step_regression = o->has_max_step_regression;
    co.rows = p->rows;
    co.nrows = p->nrows;
    td_error err = {0};
    if (td_check_compute(c, p->diff, p->stats, &co, &err) < 0)
        return cli_td_error(&err);
    if (o->junit && (rc = write_junit(*c, o->junit)) != 0)
        return rc;
    if ((rc = out_open(&out, o->output)) != 0)
        return rc;
    td_check_format f = strcmp(fmt, "json") == 0       ? TD_CHECK_JSON
                        : strcmp(fmt, "markdown") == 0 ? TD_CHECK_MARKDOWN
                                                       : TD_CHECK_TEXT;
    if (td_check_write(out.f, *c, f, &err) < 0)
        return out_fail(&out, &err);
    if ((rc = out_commit(&out)) != 0)
        return rc;
    return td_check_passed(*c) ? EXIT_OK : EXIT_REGRESSION;
}

int cmd_check(cli_pair *p, const char **pos)
{
    (void)pos;
    td_check *c = NULL;
    p->o.stats = true;
    p->o.want_attr = true; /* the waits are measured as ops are attributed */
    int rc = check_run(p, &c);
    td_check_free(c);
    return rc;
}
