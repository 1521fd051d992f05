/*
 * Fuzz target: everything a user types. The input is split at NUL bytes and
 * newlines into an argument vector, which goes through the CLI's option
 * parser as 'compare' takes it (src/cli/options.c: cli_option_parse, driven
 * by the option table of src/cli/table.c; it never exits),
 * then the parsed selection, sort column and regexes are applied to a tiny
 * fixed pair of trace sets (td_diff_compute, td_column_parse, td_view_make)
 * and the result written with the user's labels. The whole input is also
 * given to td_list_parse, td_column_parse and td_short_name as one string.
 *
 * Properties: every refusal comes with a message; a parsed list holds
 * exactly the numbers written; short names are never longer than names.
 */
#include "fuzz_util.h"
#include "util/util.h"
#include "../src/cli/options.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

static td_set *sets[2];
static char tmpdir[64];
static FILE *devnull;

static const char control0[] =
    "{\"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"ts\": 0, "
    "\"dur\": 100},\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep # 2\", \"ts\": 100, "
    "\"dur\": 100},\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
    "\"ProfilerStep#9223372036854775807\", \"ts\": 200, \"dur\": 100},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 10, \"dur\": 5, "
    "\"args\": {\"correlation\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<float, 4>(float*, int)\", "
    "\"ts\": 12, \"dur\": 3, \"args\": {\"stream\": 7, \"correlation\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\\u0000b\", \"ts\": 110, \"dur\": 1},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"caf\\u00e9 \\ud800|x\", \"ts\": 210, "
    "\"dur\": 2.5}\n"
    "]}\n";

static const char control3[] =
    "{\"distributedInfo\": {\"rank\": -3}, \"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"ts\": 0, "
    "\"dur\": 50},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 10, \"dur\": 7},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Memcpy HtoD (Pageable -> Device)\", "
    "\"ts\": 20, \"dur\": 1, \"args\": {\"stream\": 0}}\n"
    "]}\n";

static const char test0[] =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 4},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 2, \"dur\": 1},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{lambda(int)#1}::operator()\", "
    "\"ts\": 3, \"dur\": 1, \"args\": {\"stream\": 7}}\n"
    "]}\n";

static void put(const char *dir, const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        abort();
}

static pid_t owner;

static void cleanup(void)
{
    if (getpid() != owner)
        return; /* a child of the replay driver: the files are its parent's */
    td_set_free(sets[0]);
    td_set_free(sets[1]);
    static const char *const files[] = {"c/rank0.json", "c/rank3.json", "t/t.json", "c", "t", ""};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        remove(p);
    }
}

static void setup(void)
{
    if (devnull)
        return;
    devnull = fopen("/dev/null", "w");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/td-fuzz-args.XXXXXX");
    if (!devnull || !mkdtemp(tmpdir))
        abort();
    char c[96], t[96];
    snprintf(c, sizeof c, "%s/c", tmpdir);
    snprintf(t, sizeof t, "%s/t", tmpdir);
    if (mkdir(c, 0700) != 0 || mkdir(t, 0700) != 0)
        abort();
    put(c, "rank0.json", control0);
    put(c, "rank3.json", control3);
    put(t, "t.json", test0);
    const char *paths[2] = {c, t};
    td_error err = {0};
    if (td_sets_open(sets, paths, 2, NULL, &err) < 0) {
        fprintf(stderr, "fuzz_args: fixed sets: %s: %s\n", err.path, err.msg);
        abort();
    }
    owner = getpid();
    atexit(cleanup);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setup();
    return 0;
}

/* The list parser must give back exactly the numbers of a well-formed list. */
static void check_list(const char *text)
{
    td_list l = {0};
    td_error err = {0};
    int rc = td_list_parse(&l, text, &err);
    if (rc < 0) {
        FUZZ_CHECK(err.msg[0] && l.n == 0 && l.v == NULL && !l.all, "a refused list kept state");
        return;
    }
    FUZZ_CHECK(l.all || l.n > 0, "an accepted list with nothing in it: '%s'", text);
    if (!l.all) {
        /* Print it back and parse the text again: same values. */
        char buf[4096];
        size_t k = 0;
        for (size_t i = 0; i < l.n && k < sizeof buf - 32; i++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", i ? "," : "",
                                  (long long)l.v[i]);
        if (k < sizeof buf - 32) {
            td_list m = {0};
            FUZZ_CHECK(td_list_parse(&m, buf, &err) == 0 && m.n == l.n &&
                           memcmp(m.v, l.v, l.n * sizeof *l.v) == 0,
                       "'%s' does not read back", buf);
            td_list_clear(&m);
        }
    }
    td_list_clear(&l);
}

static void check_short_name(const char *s, size_t n)
{
    char *out;
    size_t ol;
    if (td_short_name(&out, &ol, s, n) == 0) {
        FUZZ_CHECK(ol <= n && out[ol] == '\0', "short name longer than the name");
        free(out);
    }
}

static void apply(cli_opts *o)
{
    td_error err = {0};
    if (o->sort_text) {
        int c = td_column_parse(o->sort_text, o->control_label, o->test_label);
        if (c < 0)
            return;
        o->view.sort = c;
        o->view.has_sort = 1;
    }
    td_diff *d = NULL;
    if (td_diff_compute(&d, sets[0], sets[1], &o->cmp, &err) < 0) {
        FUZZ_CHECK(err.msg[0], "td_diff_compute failed without a message");
        FUZZ_CHECK(err.code == TD_EUSAGE, "a selection error is not a usage error: %s", err.msg);
        return;
    }
    size_t *rows = NULL;
    long n = td_view_make(&rows, d, &o->view, &err);
    if (n < 0) {
        FUZZ_CHECK(err.msg[0] && err.code == TD_EUSAGE, "td_view_make: bad error");
    } else {
        td_write_opts w = TD_WRITE_OPTS_INIT;
        w.control_label = o->control_label;
        w.test_label = o->test_label;
        w.rows = rows;
        w.nrows = (size_t)n;
        w.width = o->threads * 3;
        td_write_csv(devnull, d, &w, NULL);
        td_write_json(devnull, d, &w, NULL);
        td_write_markdown(devnull, d, &w, NULL);
        td_write_table(devnull, d, &w, NULL);
    }
    free(rows);
    td_diff_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    /* The whole input as one argument. */
    check_list(text);
    td_column_parse(text, NULL, NULL);
    check_short_name((const char *)data, size);

    /* Split into argv at NUL and newline; argv[0] is the command. */
    char *argv[33];
    int argc = 0;
    argv[argc++] = "compare";
    char *p = text, *end = text + size;
    while (p < end && argc < 32) {
        char *q = p;
        while (q < end && *q != '\n' && *q != '\0')
            q++;
        *q = '\0';
        argv[argc++] = p;
        p = q + 1;
    }
    argv[argc] = NULL;

    /* cli_error writes to stderr: keep the fuzzer's own output readable.
     * Crash reports go to the file descriptor and are not affected. */
    FILE *saved = stderr;
    stderr = devnull;
    cli_opts o = CLI_OPTS_INIT;
    const cli_command *compare = cli_command_find("compare");
    bool ok = true;
    for (int i = 1; i < argc && ok; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '\0') {
            int r = cli_option_parse(compare, &o, argc, argv, &i);
            FUZZ_CHECK(i < argc, "the option parser ran past argv");
            ok = r > 0;
        }
    }
    stderr = saved;
    if (ok)
        apply(&o);
    cli_opts_free(&o);
    free(text);
    return 0;
}
