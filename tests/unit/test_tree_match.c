/* The tree match (docs/tree-match.md): src/model/tree.c and
 * src/compare/tree_match.c, through the public API on small traces. */
#include "harness.h"
#include "tracediff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A trace of top-level ops, one per letter of ops ('a'..'z': op_a...),
 * each launching one kernel of 10 us (kernel name k_<letter>, or
 * k2_<letter> with other_kernels: another stack). */
static const char *write_trace(const char *file, const char *ops, bool other_kernels)
{
    static char buf[1 << 16];
    size_t o = 0;
    o += (size_t)snprintf(buf + o, sizeof buf - o, "{\"traceEvents\": [");
    for (size_t i = 0; ops[i]; i++) {
        double t = 100.0 * (double)i;
        o += (size_t)snprintf(
            buf + o, sizeof buf - o,
            "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op_%c\",\"pid\":1,\"tid\":1,"
            "\"ts\":%g,\"dur\":50},"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
            "\"ts\":%g,\"dur\":5,\"args\":{\"correlation\":%zu}},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s_%c\",\"pid\":0,\"tid\":7,"
            "\"ts\":%g,\"dur\":10,\"args\":{\"correlation\":%zu,\"stream\":7}}",
            i ? "," : "", ops[i], t, other_kernels ? "hipLaunchKernel" : "cudaLaunchKernel", t + 10,
            i + 1, other_kernels ? "k2" : "k", ops[i], t + 20, i + 1);
    }
    o += (size_t)snprintf(buf + o, sizeof buf - o, "]}");
    return unit_write(file, buf, o);
}

static td_set *open_tree(const char *path)
{
    td_set *s = NULL;
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 1;
    oo.want_tree = true;
    td_error err = {0};
    if (td_set_open(&s, path, &oo, &err) != 0) {
        unit_fail(__FILE__, __LINE__, "cannot open %s: %s", path, err.msg);
        return NULL;
    }
    return s;
}

static td_tree_match *match(const char *a, const char *b, int flags)
{
    td_set *c = open_tree(a), *t = open_tree(b);
    td_tree_match *m = NULL;
    td_error err = {0};
    if (c && t && td_tree_match_run(&m, c, t, flags, &err) != 0)
        unit_fail(__FILE__, __LINE__, "td_tree_match_run: %s", err.msg);
    td_set_free(c);
    td_set_free(t);
    return m;
}

/* The set's LCA names joined by spaces. */
static const char *names(const td_tree_match *m)
{
    static char buf[4096];
    size_t n, o = 0;
    const td_tree_lca *l = td_tree_match_lcas(m, &n);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? " " : "", l[i].name);
    return buf;
}

TEST(test_tree_match__roots_by_edit_distance_not_position)
{
    /* test has an extra op_x after the first root: by position every later
     * pair would be shifted */
    const char *a = write_trace("tree_a.json", "abcde", false);
    const char *b = write_trace("tree_b.json", "axbcde", true);
    td_tree_match *m = match(a, b, 0);
    if (!m)
        return;
    /* each matched root: its launches unified, kernels differ: the op is
     * the LCA (the launch pair rolls up to it) */
    CHECK_STR(names(m), "op_a op_b op_c op_d op_e");
    const td_tree_summary *s = td_tree_match_summary(m, TD_TEST);
    CHECK_INT(s->roots, 6);
    CHECK_INT(s->roots_matched, 5);
    CHECK(fabs(s->matched_us - 50) < 1e-9);
    CHECK(fabs(s->one_sided_us - 10) < 1e-9); /* op_x's kernel */
    CHECK(fabs(s->matched_us + s->one_sided_us + s->no_launch_us + s->outside_us - s->total_us) <
          1e-9);
    size_t n;
    const td_tree_lca *l = td_tree_match_lcas(m, &n);
    CHECK_INT(n, 5);
    if (n == 5) {
        CHECK_STR(l[1].path, "op_b");
        CHECK(fabs(l[1].us[0] - 10) < 1e-9 && fabs(l[1].us[1] - 10) < 1e-9);
        CHECK_STR(l[1].kernels[0], "k_b (1)");
        CHECK_STR(l[1].kernels[1], "k2_b (1)");
    }
    td_tree_match_free(m);
    /* TraceLens's rule, by position: op_b pairs with op_x, and so on */
    m = match(a, b, TD_TREE_ROOTS_BY_POSITION);
    if (!m)
        return;
    CHECK_STR(names(m), "op_a op_b | op_x op_c | op_b op_d | op_c op_e | op_d");
    td_tree_match_free(m);
}

TEST(test_tree_match__same_names_repeated_and_deleted)
{
    /* a repeated name with one deleted in the middle: the edit distance
     * keeps the others paired in order */
    const char *a = write_trace("tree_c.json", "aaabaaa", false);
    const char *b = write_trace("tree_d.json", "aabaaa", false);
    td_tree_match *m = match(a, b, 0);
    if (!m)
        return;
    const td_tree_summary *c = td_tree_match_summary(m, TD_CONTROL);
    CHECK_INT(c->roots_matched, 6);
    CHECK(fabs(c->one_sided_us - 10) < 1e-9);
    /* same stack: the kernels match, each pair a (kernel) LCA of 10 us */
    size_t n;
    td_tree_match_lcas(m, &n);
    CHECK_INT(n, 6);
    td_tree_match_free(m);
}

TEST(test_tree_match__summary_needs_a_tree)
{
    const char *a = write_trace("tree_e.json", "ab", false);
    td_set *s = NULL;
    td_error err = {0};
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    oo.threads = 1;
    CHECK(td_set_open(&s, a, &oo, &err) == 0);
    td_tree_match *m = NULL;
    CHECK(td_tree_match_run(&m, s, s, 0, &err) == TD_EUSAGE);
    CHECK(m == NULL && strstr(err.msg, "no call tree") != NULL);
    td_set_free(s);
}
