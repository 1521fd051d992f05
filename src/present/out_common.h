/* Shared by the output writers: one table of columns. */
#ifndef TD_OUT_COMMON_H
#define TD_OUT_COMMON_H

#include "tracediff.h"

#define TD_OUT_NCOLS 8

void td_fmt_num(char *buf, size_t cap, double x);
/* Every writer starts and ends with these: the caller's options checked
 * into *o (tracediff.h, "Options structs"); then f flushed, and a write
 * error turned into TD_EIO in err ("cannot write: <errno text>"). */
int td_write_begin(td_write_opts *o, const td_write_opts *opts, td_error *err);
int td_write_end(FILE *f, td_error *err);
const char *td_label(const char *label, int side);
/* Column header names with the side labels applied. */
void td_column_names(const char *names[TD_OUT_NCOLS], char bufs[4][160], const td_diff *d,
                     const td_write_opts *o);
/* The seven value cells of a row, as text (counts divided by
 * td_diff_divisor, with decimals, when that is not 1). */
void td_row_cells(char cells[TD_OUT_NCOLS - 1][40], const td_diff *d, const td_row *r);
/* The same for people (the table, markdown): at most 2 decimals (1 from
 * 100 on, 3 significant digits below 1), thousands grouped, no exponent.
 * CSV and JSON keep td_row_cells. */
void td_row_cells_human(char cells[TD_OUT_NCOLS - 1][40], const td_diff *d, const td_row *r);
/* x for people, as td_row_cells_human writes numbers (group: ',' every
 * three digits). */
void td_fmt_human(char *buf, size_t cap, double x, bool group);
/* A p- or q-value for people: "0.012", "3e-20" only below 0.001, "" when
 * undefined. */
void td_fmt_pq(char *buf, size_t cap, double p);
size_t td_view_count(const td_diff *d, const td_write_opts *o);
const td_row *td_view_row(const td_diff *d, const td_write_opts *o, size_t i);

size_t td_view_index(const td_diff *d, const td_write_opts *o, size_t i);

/* The statistics columns (--stats), after the columns above. */
#define TD_STATS_NCOLS 24
/* Iteration mode: "+12.3% [+8.1, +16.5]", the change of the mean and
 * Welch's interval relative to the control mean; call mode: the change of
 * the median and the Hodges-Lehmann shift's interval relative to the
 * control median ("" when undefined). */
void td_stats_change_text(char *buf, size_t cap, const td_row_stats *rs);
/* out_text.c: s as a table shows it (td_text_visible with flags), in a
 * malloc'd string (NULL when out of memory); td_put_visible writes at most
 * max code points of it (0: all), then "..." when it was cut. */
char *td_visible_dup(const char *s, size_t len, unsigned flags);
void td_put_visible(FILE *f, const char *s, size_t len, unsigned flags, size_t max);
/* name_fit.c: the n visible names (td_visible_dup) as a column of w
 * columns shows them: the longer ones cut in the middle around an ellipsis
 * ("..." when ascii), no two shown names equal (docs/numbers.md). A
 * malloc'd array of malloc'd strings, or NULL when out of memory. */
char **td_fit_names(char *const *names, size_t n, size_t w, int ascii);
void td_fit_names_free(char **shown, size_t n);
/* Code points of UTF-8 text. */
size_t td_text_cols(const char *s, size_t len);
/* The table's title of that column, by the statistics' mode. */
const char *td_stats_change_title(const td_stats *st);
/* report_attr.c: "Where the GPU time moved" (nothing when the sets were
 * opened without attribution). */
int td_report_attr_section(FILE *f, const td_report_input *in, td_error *err);
/* report_why.c: the "Why" section (the roofline; docs/roofline.md). */
int td_report_why_section(FILE *f, const td_report_input *in, td_error *err);
/* report_flame.c: "Where, by stack" (why not, when the sets have no stacks). */
int td_report_flame_section(FILE *f, const td_report_input *in, td_error *err);
/* report_tree.c: "Matched by structure" (nothing without in->tree). */
int td_report_tree_section(FILE *f, const td_report_input *in, td_error *err);

#endif
