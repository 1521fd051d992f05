/* Built against an installed tracediff (pkg-config tracediff-render):
 * prints the comparison of two trace sets as CSV, as `tracediff compare
 * --format csv` does. The options structs start from their initialisers
 * (docs/api.md). */
#include <stdio.h>
#include <tracediff.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: csv_demo CONTROL TEST\n");
        return 2;
    }
    td_set *sets[2] = {NULL, NULL};
    td_diff *diff = NULL;
    td_error err = {0};
    const char *paths[2] = {argv[1], argv[2]};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 2;
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_write_opts wo = TD_WRITE_OPTS_INIT;
    wo.control_label = "control";
    int rc = td_sets_open(sets, paths, 2, &oo, &err);
    if (rc == 0)
        rc = td_diff_compute(&diff, sets[0], sets[1], &co, &err);
    if (rc == 0)
        rc = td_write_csv(stdout, diff, &wo, &err);
    if (rc < 0)
        fprintf(stderr, "csv_demo: %s: %s\n", err.path[0] ? err.path : "stdout", err.msg);
    td_diff_free(diff);
    td_set_free(sets[0]);
    td_set_free(sets[1]);
    return rc < 0;
}
