/* Private to compare/: what its files share (diff rows, name keys, the
 * category mask of a comparison, the statistical tests). */
#ifndef TD_COMPARE_H
#define TD_COMPARE_H

#include "model/model.h"

/* diff.c: the row of a key (a full or short name, as the diff groups by),
 * or -1 when no row has it. */
long td_diff_find_row(const td_diff *d, const char *s, size_t len);

/* name_fold.c: the categories a comparison's opts select (td_compare_opts.categories). */
uint64_t td_cat_mask(const td_file *f, const td_compare_opts *o);

struct builder;
/* by_op.c: checks that attribution is there, readies the class table. */
int td_attr_check(struct builder *b, const td_set *control, const td_set *test,
                  const td_compare_opts *opts, td_error *err);
/* The gpu events of one file, keyed by op, top op, annotation or class. */
int td_add_file_attr(struct builder *b, int side, const td_file *f, td_side_notes *sn,
                     const td_compare_opts *opts, td_error *err);

/* diff.c: what the diff's rows are (by module falls back to top op). */
td_by td_diff_by_of(const td_diff *d);

/* stack_rows.c: the rows of gpu events by stack or by nn.Module path
 * (docs/stacks.md), one file at a time: made in b, or (b NULL) looked up
 * with find (-1: no such row; such keys are left out). */
typedef struct td_stk_rows td_stk_rows;
typedef int64_t (*td_stk_find_fn)(void *ud, const char *s, size_t len);
int td_stk_rows_new(td_stk_rows **out, struct builder *b, td_stk_find_fn find, void *find_ud,
                    const td_file *f, const td_compare_opts *o);
/* By stack or module with --device cpu: the rows are the cpu-side events'
 * (td_file.stk_cpu), k counting the cpu-side events. */
static inline bool td_cpu_stacks(const td_compare_opts *o)
{
    return !o->only && o->device == TD_DEVICE_CPU &&
           (o->by == TD_BY_STACK || o->by == TD_BY_MODULE);
}
/* The rows of gpu event k (named name; with td_cpu_stacks, of cpu event k,
 * its own module event first when it is one): *rows points to them (valid until
 * the next call); 1 by stack (*cut: the stack was cut), by module the
 * nearest module's row then, unless exclusive, its enclosing modules'; 0
 * when under no module (or no row); TD_ENOMEM. */
long td_stk_rows_of(td_stk_rows *x, uint32_t name, size_t k, const int64_t **rows, bool *cut);
void td_stk_rows_free(td_stk_rows *x);
/* Whether gpu event k's stack holds the nn.Module path path (as the rows
 * by module name it; exclusive: as its nearest module): 1, 0, TD_ENOMEM.
 * Made with find, so that no row is made. */
int td_stk_in_module(td_stk_rows *x, size_t k, const char *path, size_t len);
/* Whether f's stacks hold an nn.Module frame. */
bool td_stk_has_modules(const td_file *f);

/* stats.c: statistics of rows whose samples the caller gathered (the tree
 * match's LCAs): row r's samples of side s are x[s][r * nsamp[s] ..
 * (r + 1) * nsamp[s]), one per (rank, iteration), counts[s][r] its events
 * (0 on one side only: added or removed). Iteration mode, as
 * td_stats_compute; TD_SAMPLES_CALL is TD_EUSAGE. */
int td_stats_from_samples(td_stats **out, size_t nrows, double *const x[2], const size_t nsamp[2],
                          const uint64_t *const counts[2], const td_stats_opts *sopts,
                          td_error *err);

/* stats_tests.c: the tests behind td_stats_compute (NAN when undefined). */
typedef struct td_test_result {
    double p;
    double stat;            /* Welch: t; Mann-Whitney: U of the second sample */
    double df;              /* Welch only */
    double ci_low, ci_high; /* Welch: 1 - alpha interval for mean(b) - mean(a) */
} td_test_result;
/* Welch's unequal-variance t-test, two-sided, of b against a. */
td_test_result td_welch(const double *a, size_t na, const double *b, size_t nb, double alpha);
/* Mann-Whitney U, two-sided, normal approximation with tie and continuity
 * corrections. a and b must be sorted ascending. */
td_test_result td_mann_whitney(const double *a, size_t na, const double *b, size_t nb);
/* Hodges-Lehmann shift of b against a (stat: the median of the na * nb
 * differences b_j - a_i) and its distribution-free 1 - alpha interval (the
 * C-th smallest and largest difference, C from the normal approximation of
 * U). a and b must be sorted ascending. Needs no memory: O((na + nb) * 64). */
td_test_result td_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb,
                                 double alpha);
/* Benjamini-Hochberg q-values of n p-values (NAN p: NAN q, not counted).
 * Returns 0 or TD_ENOMEM. */
int td_bh_qvalues(double *q, const double *p, size_t n);

/* stats.c: the verdicts of rows that are not a diff's (roofline --stats),
 * by the same tests and rules as td_stats_compute. Row r has n[s][r]
 * samples x[s][r] (sorted ascending) and count[s][r] calls per side; the
 * options are validated and GSL loaded here. */
typedef struct td_stats_input {
    const double *const *x[2];
    const size_t *n[2];
    const uint64_t *count[2];
} td_stats_input;
/* The mode td_stats_compute would choose for these side samples. */
td_samples td_stats_mode(const td_stats_opts *so, const size_t side_samples[2]);
int td_stats_judge(td_row_stats *out, size_t nrows, const td_stats_input *in, td_samples mode,
                   const td_stats_opts *so, td_error *err);

#endif
