/* Stacks (docs/stacks.md): the frame tree (model/stack_tree.c) and the
 * stacks td_attribute gives each GPU event (model/attribution.c). */
#include "harness.h"
#include "model/load.h"

#include <stdlib.h>
#include <string.h>

static td_file *empty_file(void)
{
    td_file *f = calloc(1, sizeof *f);
    if (f)
        f->names = td_strtab_new();
    return f;
}

TEST(test_stack_tree__same_frame_same_node)
{
    td_file *f = empty_file();
    REQUIRE(f && f->names);
    td_stk_tree t;
    REQUIRE(td_stk_init(&t, f) == 0);
    uint32_t a = td_stk_node(&t, TD_ATTR_NONE, 1), b = td_stk_node(&t, a, 2);
    CHECK_INT(td_stk_node(&t, TD_ATTR_NONE, 1), a);
    CHECK_INT(td_stk_node(&t, a, 2), b);
    CHECK(td_stk_node(&t, a, 3) != b);
    CHECK(td_stk_node(&t, TD_ATTR_NONE, 2) != b); /* same name, another parent */
    CHECK_INT(f->stk_parent[b], a);
    CHECK_INT(f->stk_name[b], 2);
    CHECK_INT(f->stk_parent[a], TD_ATTR_NONE);
    /* many nodes: the hash grows and every node keeps its id */
    uint32_t ids[5000];
    for (uint32_t i = 0; i < 5000; i++)
        ids[i] = td_stk_node(&t, i % 2 ? a : b, 100 + i);
    for (uint32_t i = 0; i < 5000; i++)
        if (td_stk_node(&t, i % 2 ? a : b, 100 + i) != ids[i]) {
            CHECK(!"a node kept its id");
            break;
        }
    CHECK_INT(f->nstk, 5004);
    CHECK_INT(f->stk_cut, 0);
    td_stk_done(&t);
    td_file_free(f);
}

TEST(test_stack_tree__deep_chain_is_cut_at_the_cap)
{
    td_file *f = empty_file();
    REQUIRE(f && f->names);
    td_stk_tree t;
    REQUIRE(td_stk_init(&t, f) == 0);
    uint32_t n = TD_ATTR_NONE, at999 = 0, cut = 0;
    for (uint32_t d = 1; d <= 1500; d++) {
        n = td_stk_node(&t, n, d);
        REQUIRE(n != UINT32_MAX);
        if (d == TD_STK_MAX_DEPTH - 1)
            at999 = n;
        if (d == TD_STK_MAX_DEPTH)
            cut = n;
    }
    CHECK_INT(f->stk_name[at999], TD_STK_MAX_DEPTH - 1);
    CHECK_INT(f->stk_name[cut], TD_STK_CUT);
    CHECK_INT(f->stk_parent[cut], at999);
    CHECK_INT(n, cut); /* every deeper frame folds into the cut */
    CHECK_INT(f->nstk, TD_STK_MAX_DEPTH);
    CHECK_INT(f->stk_cut, 1500 - (TD_STK_MAX_DEPTH - 1));
    td_stk_done(&t);
    td_file_free(f);
}

/* The frames of gpu event k, innermost first, as names joined by '<'. */
static void chain(const td_file *f, size_t k, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (uint32_t n = f->stk_of[k]; n != TD_ATTR_NONE; n = f->stk_parent[n]) {
        size_t len;
        const char *s = td_strtab_get(f->names, f->stk_name[n], &len);
        size_t at = strlen(buf);
        snprintf(buf + at, cap - at, "%s%.*s", at ? "<" : "", (int)len, s);
    }
}

TEST(test_stack_tree__overlap_rule_and_launches)
{
    static const char trace[] =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,"
        "\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":50,"
        "\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":55,\"dur\":15},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other_thread\",\"pid\":1,\"tid\":2,\"ts\":0,"
        "\"dur\":900},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":10,"
        "\"dur\":1,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":60,"
        "\"dur\":1,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":99,"
        "\"dur\":2,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":300,"
        "\"dur\":1,\"args\":{\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":"
        "1,\"args\":{\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":1001,\"dur\":"
        "1,\"args\":{\"stream\":7,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":1002,\"dur\":"
        "1,\"args\":{\"stream\":7,\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":7,\"ts\":1003,\"dur\":"
        "1,\"args\":{\"stream\":7,\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k5\",\"pid\":0,\"tid\":7,\"ts\":1004,\"dur\":"
        "1,\"args\":{\"stream\":7,\"correlation\":99}}"
        "]}";
    const char *path = unit_write_str("stacks/overlap.json", trace);
    td_file *f = NULL;
    td_error err = {0};
    REQUIRE(td_file_load(&f, path, NULL, TD_LOAD_ATTR | TD_LOAD_STACK, &err) == 0);
    REQUIRE(f->stk_of && f->nattr == 5);
    char buf[256];
    chain(f, 0, buf, sizeof buf);
    CHECK_STR(buf, "A");
    chain(f, 1, buf, sizeof buf);
    CHECK_STR(buf, "C<B"); /* B ends after A: not A's child */
    chain(f, 2, buf, sizeof buf);
    CHECK_STR(buf, "B"); /* ends after A */
    chain(f, 3, buf, sizeof buf);
    CHECK_STR(buf, ""); /* inside nothing */
    chain(f, 4, buf, sizeof buf);
    CHECK_STR(buf, ""); /* no launch */
    td_file_free(f);
    /* without the flag: no stacks, attribution as before */
    REQUIRE(td_file_load(&f, path, NULL, TD_LOAD_ATTR, &err) == 0);
    CHECK(f->stk_of == NULL && f->nstk == 0);
    CHECK(f->has_attr);
    td_file_free(f);
}

/* Launches whose correlation ids come in runs far apart (a file made of
 * copies, or several captures): the launch map keeps only the pages the
 * ids fall in (model/attribution.c, cmap). Every kernel still finds its
 * launch, and one whose id falls in a gap, or past the last, finds none. */
TEST(test_stack_tree__correlation_ids_in_runs)
{
    enum { RUNS = 3, PER = 200 };
    static const long long base[RUNS] = {7, 100300, 250001}; /* the second crosses a page */
    size_t cap = 400000, at = 0;
    char *t = malloc(cap);
    REQUIRE(t);
    at += (size_t)snprintf(t + at, cap - at, "{\"traceEvents\": [");
    for (int r = 0; r < RUNS; r++) {
        at += (size_t)snprintf(t + at, cap - at,
                               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,"
                               "\"tid\":1,\"ts\":%d,\"dur\":%d},",
                               r, r * 10000, PER * 10);
        for (int i = 0; i < PER; i++)
            at += (size_t)snprintf(t + at, cap - at,
                                   "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\","
                                   "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,"
                                   "\"args\":{\"correlation\":%lld}},",
                                   r * 10000 + i * 10 + 1, base[r] + i);
    }
    for (int r = 0; r < RUNS; r++)
        for (int i = 0; i < PER; i++)
            at += (size_t)snprintf(t + at, cap - at,
                                   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                                   "\"tid\":7,\"ts\":%d,\"dur\":1,"
                                   "\"args\":{\"stream\":7,\"correlation\":%lld}},",
                                   100000 + r * PER + i, base[r] + i);
    /* in the gap between two runs, and past the last id */
    at += (size_t)snprintf(t + at, cap - at,
                           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                           "\"ts\":200000,\"dur\":1,\"args\":{\"stream\":7,\"correlation\":50000}},"
                           "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
                           "\"ts\":200001,\"dur\":1,\"args\":{\"stream\":7,\"correlation\":900000}}"
                           "]}");
    REQUIRE(at < cap);
    const char *path = unit_write_str("stacks/corr_runs.json", t);
    free(t);
    td_file *f = NULL;
    td_error err = {0};
    REQUIRE(td_file_load(&f, path, NULL, TD_LOAD_ATTR, &err) == 0);
    REQUIRE(f->nattr == RUNS * PER + 2);
    size_t bad = 0;
    for (int r = 0; r < RUNS; r++) {
        char want[16];
        snprintf(want, sizeof want, "op%d", r);
        for (int i = 0; i < PER; i++) {
            uint32_t op = f->attr_op[r * PER + i];
            size_t len = 0;
            const char *s = op < TD_ATTR_REASON_BASE ? td_strtab_get(f->names, op, &len) : "";
            bad += len != strlen(want) || memcmp(s, want, len) != 0;
        }
    }
    CHECK_INT(bad, 0);
    CHECK_INT(f->attr_op[RUNS * PER], TD_ATTR_REASON(TD_ATTR_NO_LAUNCH));
    CHECK_INT(f->attr_op[RUNS * PER + 1], TD_ATTR_REASON(TD_ATTR_NO_LAUNCH));
    td_file_free(f);
}
