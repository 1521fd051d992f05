/*
 * td_file_event_rows: a file's rows as HTA's Trace frame holds them. The
 * expected values follow HTA's rules by hand (hta/common/trace_parser.py and
 * trace.py of HTA v0.6.1): rows with a cat (not "Trace") and a dur; decimal
 * timestamps rounded (ceil of the start, floor of the end); stream from args,
 * numeric strings too; index_correlation the linked event's index; the
 * iteration of a host event by its time, of a kernel by its launch's, unset
 * on stream 0 for anything but a cpu_op.
 */
#include "harness.h"
#include "tracediff.h"

#include <stdlib.h>

static const char TRACE[] =
    "{\"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"ts\": 0, "
    "\"args\": {\"name\": \"x\"}},\n"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#5\", \"pid\": 1, "
    "\"tid\": 2, \"ts\": 100.5, \"dur\": 50.2},\n"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 2, "
    "\"ts\": 110, \"dur\": 5, \"args\": {\"Input Dims\": [[2, 3], [3, 4]], \"External id\": 9}},\n"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
    "\"tid\": 2, \"ts\": 112, \"dur\": 3, \"args\": {\"correlation\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"t\", \"pid\": 1, \"tid\": 2, \"ts\": 1, "
    "\"dur\": 1},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": \"stream 7\", "
    "\"ts\": 200.25, \"dur\": 10.5, \"args\": {\"stream\": \"7\", \"correlation\": 77}},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"other\", \"pid\": 0, \"tid\": 7, "
    "\"ts\": 300, \"dur\": 1, \"args\": {\"stream\": 7, \"correlation\": 88}},\n"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset\", \"pid\": 0, \"tid\": 0, "
    "\"ts\": 400, \"dur\": 1, \"args\": {\"stream\": 0}}\n"
    "]}\n";

#define MAXR 8

typedef struct got {
    size_t n;
    int64_t index[MAXR], row[MAXR], stream[MAXR], ic[MAXR], iter[MAXR];
    bool unset[MAXR];
    td_jv ts[MAXR], dur[MAXR], end[MAXR], tid[MAXR];
    char dims[MAXR][32];
    char name[MAXR][32];
    int64_t ext[MAXR];
} got;

static int collect(void *ud, const td_event_row *r)
{
    got *g = ud;
    if (g->n >= MAXR)
        return -1;
    size_t i = g->n++;
    g->index[i] = r->index;
    g->row[i] = r->row;
    g->stream[i] = r->stream;
    g->ic[i] = r->index_correlation;
    g->iter[i] = r->iteration;
    g->unset[i] = r->iteration_unset;
    g->ts[i] = r->key[TD_ROW_TS];
    g->dur[i] = r->key[TD_ROW_DUR];
    g->end[i] = r->end;
    g->tid[i] = r->key[TD_ROW_TID];
    g->tid[i].s = NULL; /* valid during the call only */
    snprintf(g->name[i], sizeof g->name[i], "%.*s", (int)r->name_len, r->name);
    g->dims[i][0] = 0;
    if (r->args[0].kind == TD_JV_JSON)
        snprintf(g->dims[i], sizeof g->dims[i], "%.*s", (int)r->args[0].len, r->args[0].s);
    g->ext[i] = r->args[1].kind == TD_JV_INT ? r->args[1].i : -100;
    return 0;
}

static const char *const ARGS[] = {"Input Dims", "External id"};

TEST(test_event_rows__hta_rules_by_hand)
{
    const char *path = unit_write_str("rows/t.json", TRACE);
    td_row_col acols[2];
    td_event_rows info = {.args = acols};
    td_error err = {0};
    got g = {0};
    int64_t it5 = 5;
    int rc =
        td_file_event_rows(path, false, ARGS, 2, NULL, 0, TD_DEVICE_ALL, collect, &g, &info, &err);
    REQUIRE(rc == 0);
    CHECK_INT(info.events, 8);
    CHECK_INT(info.kept, 6);
    CHECK(info.rounded);
    REQUIRE(g.n == 6);
    static const int64_t index[] = {1, 2, 3, 5, 6, 7}, stream[] = {-1, -1, -1, 7, 7, 0},
                         ic[] = {-1, -1, 5, 3, 0, -1}, iter[] = {5, 5, 5, 5, -1, -1};
    for (size_t i = 0; i < 6; i++) {
        CHECK_INT(g.index[i], index[i]);
        CHECK_INT(g.row[i], (int64_t)i);
        CHECK_INT(g.stream[i], stream[i]);
        CHECK_INT(g.ic[i], ic[i]);
        if (i < 5)
            CHECK_INT(g.iter[i], iter[i]);
        CHECK(g.unset[i] == (i == 5));
    }
    /* rounded: ceil(100.5) = 101, floor(150.7) = 150 */
    CHECK(g.ts[0].kind == TD_JV_INT && g.ts[0].i == 101);
    CHECK(g.dur[0].kind == TD_JV_INT && g.dur[0].i == 49);
    CHECK(g.end[0].kind == TD_JV_INT && g.end[0].i == 150);
    CHECK(g.ts[3].i == 201 && g.dur[3].i == 9 && g.end[3].i == 210);
    CHECK_STR(g.name[3], "gemm");
    CHECK(g.tid[3].kind == TD_JV_STR && g.tid[3].len == 8);
    CHECK_STR(g.dims[1], "[[2,3],[3,4]]");
    CHECK_INT(g.ext[1], 9);
    CHECK_INT(g.ext[0], -100);
    /* the kinds over every event; the ranges over the rows kept */
    CHECK_INT(info.key[TD_ROW_TID].n[TD_JV_STR], 1);
    CHECK_INT(info.key[TD_ROW_TID].n[TD_JV_INT], 7);
    CHECK_INT(info.key[TD_ROW_TS].n[TD_JV_FLOAT], 2);
    CHECK_INT(info.key[TD_ROW_DUR].n[TD_JV_NONE], 1);
    CHECK_INT(info.key[TD_ROW_DUR].n[TD_JV_INT], 5);
    CHECK_INT(info.key[TD_ROW_PID].min, 0);
    CHECK_INT(info.key[TD_ROW_PID].max, 1);
    CHECK_INT(info.index.min, 1);
    CHECK_INT(info.index.max, 7);
    CHECK_INT(info.index_correlation.min, -1);
    CHECK_INT(info.index_correlation.max, 5);
    CHECK_INT(info.iteration.min, -1);
    CHECK_INT(info.iteration.max, 5);
    CHECK_INT(info.iteration_unset, 1);
    CHECK_INT(acols[0].n[TD_JV_JSON], 1);
    CHECK_INT(acols[0].n[TD_JV_NONE], 5);
    CHECK_INT(acols[1].min, 9);
    CHECK_INT(acols[1].max, 9);
    /* cat, name, pid, tid, ts, dur: name, pid, tid and ts come first (the
     * metadata event) */
    static const int order[] = {4, 0, 1, 2, 3, 5};
    for (int q = 0; q < 6; q++)
        CHECK_INT(info.order[q], order[q]);
    CHECK_STR(info.other_key, "");

    /* iteration 5 on the CPU; every iteration on the GPU */
    memset(&g, 0, sizeof g);
    REQUIRE(td_file_event_rows(path, false, ARGS, 2, &it5, 1, TD_DEVICE_CPU, collect, &g, &info,
                               &err) == 0);
    CHECK_INT(g.n, 3);
    memset(&g, 0, sizeof g);
    REQUIRE(td_file_event_rows(path, false, ARGS, 2, NULL, 0, TD_DEVICE_GPU, collect, &g, &info,
                               &err) == 0);
    CHECK_INT(g.n, 3);
    CHECK_INT(g.index[0], 5);
    memset(&g, 0, sizeof g);
    REQUIRE(td_file_event_rows(path, false, ARGS, 2, &it5, 1, TD_DEVICE_ALL, collect, &g, &info,
                               &err) == 0);
    CHECK_INT(g.n, 4);

    /* ns: the decimals kept, nothing rounded; the kernel still in step 5 */
    memset(&g, 0, sizeof g);
    REQUIRE(td_file_event_rows(path, true, ARGS, 2, NULL, 0, TD_DEVICE_ALL, collect, &g, &info,
                               &err) == 0);
    CHECK(!info.rounded);
    CHECK(g.ts[0].kind == TD_JV_FLOAT && g.ts[0].d == 100.5);
    CHECK(g.end[0].kind == TD_JV_FLOAT && g.end[0].d == 100.5 + 50.2);
    CHECK_INT(g.iter[3], 5);
}

TEST(test_event_rows__errors_name_file_and_byte)
{
    char bad[sizeof TRACE];
    memcpy(bad, TRACE, sizeof TRACE);
    char *at = strstr(bad, "\"gemm\"");
    REQUIRE(at != NULL);
    *at = '!';
    const char *path = unit_write_str("rows/bad.json", bad);
    td_row_col acols[2];
    td_event_rows info = {.args = acols};
    td_error err = {0};
    got g = {0};
    int rc =
        td_file_event_rows(path, false, ARGS, 2, NULL, 0, TD_DEVICE_ALL, collect, &g, &info, &err);
    CHECK(rc < 0);
    CHECK_STR(err.path, path);
    CHECK(err.has_offset);
    CHECK_INT(err.offset, (int64_t)(at - bad));
    memset(&err, 0, sizeof err);
    rc = td_file_event_rows(unit_write_str("rows/none.json", "[1, 2]"), false, ARGS, 2, NULL, 0,
                            TD_DEVICE_ALL, collect, &g, &info, &err);
    CHECK(rc < 0 && err.code == TD_ETRACE);
    memset(&err, 0, sizeof err);
    rc = td_file_event_rows("/nonexistent/t.json", false, ARGS, 2, NULL, 0, TD_DEVICE_ALL, collect,
                            &g, &info, &err);
    CHECK(rc < 0);
    CHECK_STR(err.path, "/nonexistent/t.json");
}
