/* Odd but readable traces, and the ones refused (src/trace_load.c,
 * src/trace_set.c); the rules are written down in docs/errors.md. */
#include "model/load.h"
#include "unit_traces.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

static td_file_info info_of(const td_set *s)
{
    td_file_info fi;
    memset(&fi, 0, sizeof fi);
    td_set_file_info(s, 0, &fi);
    return fi;
}

TEST(test_trace_load__entries_not_objects_are_skipped_and_counted)
{
    td_set *s = unit_open(
        unit_write_str("odd1.json", "{\"traceEvents\": [1, \"x\", null, [], true,"
                                    " {\"cat\": \"c\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}]}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.events_total, 6);
    CHECK_INT(fi.events_skipped, 5);
    CHECK_INT(fi.events_counted, 1);
    td_set_free(s);
}

TEST(test_trace_load__wrong_types_skipped_and_counted)
{
    td_set *s = unit_open(unit_write_str(
        "odd2.json", "{\"traceEvents\": ["
                     "{\"cat\": \"c\", \"name\": \"ts_string\", \"ts\": \"1\", \"dur\": 2},"
                     "{\"cat\": \"c\", \"name\": 7, \"ts\": 1, \"dur\": 2},"
                     "{\"cat\": null, \"name\": \"cat_null\", \"ts\": 1, \"dur\": 2},"
                     "{\"cat\": \"c\", \"name\": \"dur_string\", \"ts\": 1, \"dur\": \"2\"},"
                     "{\"cat\": \"c\", \"ts\": 1, \"dur\": 2},"
                     "{\"cat\": null, \"name\": \"no_dur_not_counted\", \"ts\": 1},"
                     "{\"cat\": \"c\", \"name\": \"ok\", \"ts\": 1, \"dur\": 2}"
                     "]}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.events_total, 7);
    CHECK_INT(fi.events_skipped, 5);
    CHECK_INT(fi.events_counted, 1);
    td_set_free(s);
}

TEST(test_trace_load__duplicate_keys_last_wins)
{
    td_set *s = unit_open(unit_write_str(
        "dup1.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"c\", \"name\": 5, \"name\": \"a\", \"ts\": 1, \"dur\": \"x\", \"dur\": 2},"
        "{\"cat\": \"c\", \"name\": \"b\", \"name\": 5, \"ts\": 1, \"dur\": 2},"
        "{\"cat\": \"Trace\", \"cat\": \"c\", \"name\": \"t1\", \"ts\": 1, \"dur\": 2},"
        "{\"cat\": \"c\", \"cat\": \"Trace\", \"name\": \"t2\", \"ts\": 1, \"dur\": 2},"
        "{\"cat\": \"c\", \"name\": \"d\", \"ts\": 1.5, \"ts\": 2, \"dur\": 2, \"dur\": 3}"
        "]}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.events_skipped, 1); /* "b": its name is finally 5 */
    CHECK_INT(fi.events_counted, 3); /* a, t1, d */
    CHECK(!fi.rounded);              /* d's ts is finally a whole number */
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK(UNIT_ROW(d, "a") && UNIT_ROW(d, "a")->duration[0] == 2);
    CHECK(UNIT_ROW(d, "t1") != NULL);
    CHECK(UNIT_ROW(d, "t2") == NULL);
    CHECK(UNIT_ROW(d, "d") && UNIT_ROW(d, "d")->duration[0] == 3);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_trace_load__repeated_top_level_keys_last_wins)
{
    td_set *s = unit_open(unit_write_str(
        "dup2.json",
        "{\"distributedInfo\": {\"rank\": 4},"
        " \"traceEvents\": [{\"cat\": \"c\", \"name\": \"first\", \"ts\": 1.5, \"dur\": 1}],"
        " \"traceEvents\": [{\"cat\": \"c\", \"name\": \"second\", \"ts\": 1, \"dur\": 1}],"
        " \"distributedInfo\": {\"rank\": 2}}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.rank, 2);
    CHECK_INT(fi.events_total, 1);
    CHECK_INT(fi.events_counted, 1);
    CHECK(!fi.rounded);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK(UNIT_ROW(d, "first") == NULL);
    CHECK(UNIT_ROW(d, "second") != NULL);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_trace_load__bom_read_and_reported)
{
    td_set *s =
        unit_open(unit_write_str("bom.json", "\xEF\xBB\xBF{\"traceEvents\": [{\"cat\": \"c\", "
                                             "\"name\": \"a\", \"ts\": 1, \"dur\": 1}]}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.bom, 1);
    CHECK_INT(fi.events_counted, 1);
    td_set_free(s);
    s = unit_open(unit_write_str("nobom.json", "{\"traceEvents\": []}"));
    REQUIRE(s);
    CHECK_INT(info_of(s).bom, 0);
    td_set_free(s);
}

TEST(test_trace_load__names_with_nul_and_lone_surrogates_stay_distinct)
{
    td_set *s = unit_open(unit_write_str(
        "names.json", "{\"traceEvents\": ["
                      "{\"cat\": \"c\", \"name\": \"a\\u0000b\", \"ts\": 1, \"dur\": 1},"
                      "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 1, \"dur\": 2},"
                      "{\"cat\": \"c\", \"name\": \"a\\u0000\", \"ts\": 1, \"dur\": 4},"
                      "{\"cat\": \"c\", \"name\": \"x\\ud800\", \"ts\": 1, \"dur\": 8},"
                      "{\"cat\": \"c\", \"name\": \"x\\udc00\", \"ts\": 1, \"dur\": 16},"
                      "{\"cat\": \"c\", \"name\": \"x\", \"ts\": 1, \"dur\": 32}"
                      "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_INT(td_diff_nrows(d), 6);
    CHECK(UNIT_ROW(d, "a\0b") && UNIT_ROW(d, "a\0b")->duration[0] == 1);
    CHECK(UNIT_ROW(d, "a") && UNIT_ROW(d, "a")->duration[0] == 2);
    CHECK(UNIT_ROW(d, "a\0") && UNIT_ROW(d, "a\0")->duration[0] == 4);
    CHECK(UNIT_ROW(d, "x\xED\xA0\x80") && UNIT_ROW(d, "x\xED\xA0\x80")->duration[0] == 8);
    CHECK(UNIT_ROW(d, "x\xED\xB0\x80") && UNIT_ROW(d, "x\xED\xB0\x80")->duration[0] == 16);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_trace_load__rank_forms)
{
    td_set *s = unit_open(unit_write_str(
        "rank_neg.json", "{\"distributedInfo\": {\"rank\": -3}, \"traceEvents\": []}"));
    REQUIRE(s);
    CHECK_INT(info_of(s).rank, -3);
    td_set_free(s);
    s = unit_open(unit_write_str("rank_null.json",
                                 "{\"distributedInfo\": {\"rank\": null}, \"traceEvents\": []}"));
    REQUIRE(s);
    CHECK_INT(info_of(s).rank, 0);
    td_set_free(s);
}

static void check_open_error(const char *file, int line, const char *name, const char *text,
                             int code, const char *msg)
{
    td_error err = unit_open_error(unit_write_str(name, text));
    if (err.code != code || strcmp(err.msg, msg) != 0)
        unit_fail(file, line, "%s: %d \"%s\", expected %d \"%s\"", name, err.code, err.msg, code,
                  msg);
}
#define OPEN_ERROR(name, text, code, msg)                                                          \
    check_open_error(__FILE__, __LINE__, (name), (text), (code), (msg))

TEST(test_trace_load__bad_ranks_refused)
{
    OPEN_ERROR("rank_str.json", "{\"distributedInfo\": {\"rank\": \"3\"}, \"traceEvents\": []}",
               TD_ETRACE, "distributedInfo.rank is a string, not an integer");
    OPEN_ERROR("rank_big.json",
               "{\"distributedInfo\": {\"rank\": 99999999999999999999}, \"traceEvents\": []}",
               TD_ETRACE, "distributedInfo.rank is beyond 64 bits");
    OPEN_ERROR("rank_dec.json", "{\"distributedInfo\": {\"rank\": 3.0}, \"traceEvents\": []}",
               TD_ETRACE, "distributedInfo.rank is not an integer");
    OPEN_ERROR("rank_obj.json", "{\"distributedInfo\": {\"rank\": [3]}, \"traceEvents\": []}",
               TD_ETRACE, "distributedInfo.rank is not an integer");
}

TEST(test_trace_load__not_traces_refused)
{
    OPEN_ERROR("empty.json", "", TD_ETRACE, "empty file, not a trace");
    OPEN_ERROR("blank.json", " \n\t ", TD_ETRACE, "empty file, not a trace");
    OPEN_ERROR("number.json", "42", TD_ETRACE,
               "the top level is not an object or an array of events");
    OPEN_ERROR("null.json", "null", TD_ETRACE,
               "the top level is not an object or an array of events");
    OPEN_ERROR("nokey.json", "{\"schemaVersion\": 1}", TD_ETRACE,
               "no traceEvents array: not a trace");
    OPEN_ERROR("notarr.json", "{\"traceEvents\": {}}", TD_ETRACE, "traceEvents is not an array");
    OPEN_ERROR("trunc.json", "{\"traceEvents\": [{\"name\": \"ab", TD_EPARSE,
               "unterminated string in traceEvents");
    td_error err = unit_open_error(unit_write("nul.json", "\0", 1));
    CHECK_INT(err.code, TD_EPARSE);
    CHECK_STR(err.msg, "not JSON (unexpected character at the start)");
    CHECK(err.has_offset && err.offset == 0);
}

TEST(test_trace_load__numbers_beyond_64_bits_are_doubles)
{
    td_set *s = unit_open(unit_write_str(
        "big.json",
        "{\"traceEvents\": ["
        "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 99999999999999999999, \"dur\": 1e300},"
        "{\"cat\": \"c\", \"name\": \"a\", \"ts\": 99999999999999999999, \"dur\": 1e300},"
        "{\"cat\": \"k\", \"name\": \"k\", \"ts\": 1, \"dur\": 1,"
        " \"args\": {\"stream\": 99999999999999999999, \"correlation\": 1e30}}"
        "]}"));
    REQUIRE(s);
    td_file_info fi = info_of(s);
    CHECK_INT(fi.events_counted, 3);
    CHECK_INT(fi.events_gpu, 0); /* a stream beyond 64 bits reads as -1 */
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "a")->duration[0], 2e300);
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_trace_load__infinite_sums_stay_infinite)
{
    /* 1e400 reads as infinity (as in Python); sums past DBL_MAX overflow to
     * infinity, and only inf - inf is NaN. */
    td_set *s = unit_open(
        unit_write_str("inf.json", "{\"traceEvents\": ["
                                   "{\"cat\": \"c\", \"name\": \"i\", \"ts\": 1, \"dur\": 1e400},"
                                   "{\"cat\": \"c\", \"name\": \"i\", \"ts\": 1, \"dur\": 5},"
                                   "{\"cat\": \"c\", \"name\": \"o\", \"ts\": 1, \"dur\": -1e308},"
                                   "{\"cat\": \"c\", \"name\": \"o\", \"ts\": 1, \"dur\": -1e308},"
                                   "{\"cat\": \"c\", \"name\": \"n\", \"ts\": 1, \"dur\": 1e400},"
                                   "{\"cat\": \"c\", \"name\": \"n\", \"ts\": 1, \"dur\": -1e400}"
                                   "]}"));
    REQUIRE(s);
    td_diff *d = unit_self_diff(s);
    REQUIRE(d);
    CHECK_DBL(UNIT_ROW(d, "i")->duration[0], INFINITY);
    CHECK_DBL(UNIT_ROW(d, "o")->duration[0], -INFINITY);
    CHECK(isnan(UNIT_ROW(d, "n")->duration[0]));
    td_diff_free(d);
    td_set_free(s);
}

TEST(test_trace_load__content_decides_compression_not_the_name)
{
    static const char text[] =
        "{\"traceEvents\": [{\"cat\": \"c\", \"name\": \"a\", \"ts\": 1, \"dur\": 1}]}";
    unsigned char gz[256];
    z_stream z;
    memset(&z, 0, sizeof z);
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (Bytef *)(uintptr_t)text;
    z.avail_in = sizeof text - 1;
    z.next_out = gz;
    z.avail_out = sizeof gz;
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t gzlen = sizeof gz - z.avail_out;
    deflateEnd(&z);
    td_set *s = unit_open(unit_write("gz_named.json", gz, gzlen));
    REQUIRE(s);
    CHECK_INT(info_of(s).compression, TD_COMP_GZIP);
    CHECK_INT(info_of(s).events_counted, 1);
    td_set_free(s);
    s = unit_open(unit_write_str("plain_named.json.gz", text));
    REQUIRE(s);
    CHECK_INT(info_of(s).compression, TD_COMP_NONE);
    CHECK_INT(info_of(s).events_counted, 1);
    td_set_free(s);
    OPEN_ERROR("gz_cut.json.gz", "\x1f\x8b\x08\x00", TD_EIO,
               "truncated gzip data (the file ends inside the compressed stream)");
}

TEST(test_trace_load__two_files_one_rank_named)
{
    static const char t[] = "{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": []}";
    unit_write_str("tworanks/a.json", t);
    unit_write_str("tworanks/b.json.gz", t);
    unit_write_str("tworanks/notes.txt", "ignored");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/tworanks", unit_tmpdir());
    td_error err = unit_open_error(dir);
    CHECK_INT(err.code, TD_ETRACE);
    CHECK_STR(err.msg, "two files claim rank 1: a.json and b.json.gz");
}

/* A trace of some megabytes: events of every size, among them names and
 * skipped strings longer than the room a decompressed chunk keeps for the
 * scanner's unread bytes, and tokens cut by every chunk edge. */
static char *big_odd_trace(size_t *len)
{
    size_t cap = 16u << 20, n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    n += (size_t)sprintf(t + n, "{\"traceEvents\": [\n");
    for (int k = 0; k < 40000; k++) {
        size_t pad = (size_t)(k * 7919) % 97;
        if (k % 5000 == 17)
            pad = 100000 + (size_t)k; /* a name longer than the room */
        if (k % 7000 == 3)
            pad = 300000; /* a skipped value longer than a chunk */
        n += (size_t)sprintf(t + n, "{\"ph\": \"X\", \"cat\": \"c%d\", \"name\": \"", k % 3);
        bool long_skip = pad == 300000;
        for (size_t i = 0; i < (long_skip ? 3 : pad); i++)
            t[n++] = (char)('a' + (k + i) % 26);
        n += (size_t)sprintf(t + n, "%d\", \"ts\": %d.%03d, \"dur\": %d, \"args\": {\"s\": \"",
                             k % 50, k * 10, k % 1000, 1 + k % 9);
        for (size_t i = 0; i < (long_skip ? pad : pad % 13); i++)
            t[n++] = (char)('A' + i % 26);
        n += (size_t)sprintf(t + n, "\", \"External id\": %d}}%s\n", k, k + 1 < 40000 ? "," : "");
        if (n + 700000 > cap)
            break;
    }
    n += (size_t)sprintf(t + n, "]}");
    *len = n;
    return t;
}

/* Read plain (one thread), plain read ahead by a thread of its own, mapped,
 * and gzipped: the latter three hand their buffers to the scanner as windows. */
TEST(test_trace_load__gzip_windows_read_as_plain)
{
    size_t n = 0, gzlen = 0;
    char *text = big_odd_trace(&n);
    REQUIRE(text);
    unsigned char *gz = unit_gzip(text, n, &gzlen);
    REQUIRE(gz);
    const char *pp = unit_write("odd_plain.json", text, n);
    const char *gp = unit_write("odd_gzip.json.gz", gz, gzlen);
    for (int way = 0; way < 3; way++) {
        td_file *a = NULL, *b = NULL;
        td_error err = {0};
        CHECK_INT(td_file_load(&a, pp, NULL, 0, &err), 0);
        if (way == 0)
            CHECK_INT(td_file_load(&b, gp, NULL, 0, &err), 0);
        else
            CHECK_INT(td_file_load_split(&b, pp, NULL, 0, NULL, way == 1, way == 2, NULL, &err), 0);
        if (a && b) {
            CHECK(a->nev > 30000);
            CHECK_INT(b->nev, a->nev);
            CHECK_INT(td_strtab_count(b->names), td_strtab_count(a->names));
            size_t bad = 0;
            for (size_t i = 0; i < a->nev && i < b->nev; i++) {
                const td_event *x = &a->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
                const td_event *y = &b->evb[i >> TD_BLOCK_SHIFT][i & (TD_BLOCK - 1)];
                size_t lx, ly;
                const char *nx = td_strtab_get(a->names, TD_EV_NAME(x), &lx);
                const char *ny = td_strtab_get(b->names, TD_EV_NAME(y), &ly);
                bad +=
                    x->dur != y->dur || x->iter != y->iter || lx != ly || memcmp(nx, ny, lx) != 0;
            }
            CHECK_INT(bad, 0);
        }
        td_file_free(a);
        td_file_free(b);
    }

    /* A syntax error deep in the stream: the same message at the same
     * offset, compressed or not. */
    size_t at = n / 2 + 12345;
    while (text[at] != ',')
        at++;
    text[at] = ';';
    free(gz);
    gz = unit_gzip(text, n, &gzlen);
    REQUIRE(gz);
    td_error ep = {0}, eg = {0}, ea = {0}, em = {0};
    td_file *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    const char *bad = unit_write("odd_bad.json", text, n);
    CHECK_INT(td_file_load(&a, bad, NULL, 0, &ep), TD_EPARSE);
    CHECK_INT(td_file_load(&b, unit_write("odd_bad.json.gz", gz, gzlen), NULL, 0, &eg), TD_EPARSE);
    CHECK_INT(td_file_load_split(&c, bad, NULL, 0, NULL, true, 0, NULL, &ea), TD_EPARSE);
    CHECK_INT(td_file_load_split(&d, bad, NULL, 0, NULL, false, 1, NULL, &em), TD_EPARSE);
    CHECK(ep.has_offset && eg.has_offset && ea.has_offset && em.has_offset);
    CHECK_INT(eg.offset, ep.offset);
    CHECK_INT(ea.offset, ep.offset);
    CHECK_INT(em.offset, ep.offset);
    CHECK_INT(ep.offset, at);
    CHECK_STR(eg.msg, ep.msg);
    CHECK_STR(ea.msg, ep.msg);
    CHECK_STR(em.msg, ep.msg);
    td_file_free(a);
    td_file_free(b);
    td_file_free(c);
    td_file_free(d);
    free(gz);
    free(text);
}
