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
    int rc = td_set_open(&c, argv[1], NULL, &err);
    if (rc == 0)
        rc = td_set_open(&t, argv[2], NULL, &err);
    if (rc == 0)
        rc = td_diff_compute(&diff, c, t, NULL, &err);
    for (size_t i = 0; rc == 0 && i < td_diff_nrows(diff); i++) {
        const td_row *r = &td_diff_rows(diff)[i];
        printf("%s\t%.*s\n", td_op_category_name(td_row_op_category(r)), (int)r->name_len,
               r->name);
    }
    if (rc < 0)
        fprintf(stderr, "core_demo: %s\n", err.msg);
    td_diff_free(diff);
    td_set_free(c);
    td_set_free(t);
    return rc < 0;
}
