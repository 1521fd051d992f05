/* Built against an installed tracediff with the core library only
 * (pkg-config tracediff): the ops_diff category of each name. */
#include <stdio.h>
#include <string.h>
#include <tracediff.h>

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(td_version(), TD_VERSION) != 0)
        return 2;
    td_set *c = NULL, *t = NULL;
    td_diff *diff = NULL;
    td_error err = {0};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 1;
    int rc = td_set_open(&c, argv[1], &oo, &err);
    if (rc == 0)
        rc = td_set_open(&t, argv[2], &oo, &err);
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    co.short_names = false; /* ops_diff is by full name */
    if (rc == 0)
        rc = td_diff_compute(&diff, c, t, &co, &err);
    /* A struct claiming to be larger than the library's is refused. */
    td_compare_opts newer = co;
    newer.size = sizeof newer + 64;
    td_diff *never = NULL;
    td_error nerr = {0};
    if (rc == 0 && (td_diff_compute(&never, c, t, &newer, &nerr) != TD_EUSAGE || never)) {
        fprintf(stderr, "core_demo: a newer options struct was accepted\n");
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < td_diff_nrows(diff); i++) {
        const td_row *r = &td_diff_rows(diff)[i];
        printf("%s\t%.*s\n", td_op_category_name(td_row_op_category(r)), (int)r->name_len, r->name);
    }
    if (rc < 0)
        fprintf(stderr, "core_demo: %s\n", err.msg);
    td_diff_free(diff);
    td_set_free(c);
    td_set_free(t);
    return rc < 0;
}
