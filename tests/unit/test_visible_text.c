/* Text as the tables show it (src/util/visible_text.c) and the temporary
 * files a signal handler removes (src/util/temp_files.c). */
#include "unit_traces.h"
#include "util/utf8_text.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void check_visible(const char *file, int line, const char *s, size_t len, unsigned flags,
                          const char *want)
{
    char buf[256];
    size_t n = td_text_visible(buf, sizeof buf, s, len, flags);
    if (strcmp(buf, want) != 0 || n != strlen(want))
        unit_fail(file, line, "shown as \"%s\" (%zu), expected \"%s\"", buf, n, want);
}
#define VIS(s, flags, want) check_visible(__FILE__, __LINE__, (s), sizeof(s) - 1, (flags), (want))

TEST(test_visible_text__controls_and_bidi_as_escapes)
{
    VIS("plain aten::mm", 0, "plain aten::mm");
    VIS("a\x1b]0;t\x07z", 0, "a\\x1b]0;t\\x07z"); /* OSC ... BEL */
    VIS("\x1b[2J", 0, "\\x1b[2J");                /* CSI */
    VIS("c\xC2\x9B"
        "31m",
        0, "c\\x9b31m");       /* U+009B, the 8-bit CSI */
    VIS("d\x7f", 0, "d\\x7f"); /* DEL */
    VIS("\t\r\n", 0, "\\x09\\x0d\\x0a");
    VIS("x\xE2\x80\xAEy", 0, "x\\u202ey");                /* RIGHT-TO-LEFT OVERRIDE */
    VIS("\xE2\x81\xA6\xE2\x81\xA9", 0, "\\u2066\\u2069"); /* isolates */
    VIS("\xE2\x80\x8E\xE2\x80\x8F\xD8\x9C", 0, "\\u200e\\u200f\\u061c");
    VIS("\xE2\x80\xAA\xE2\x80\xAD", 0, "\\u202a\\u202d");
    VIS("caf\xC3\xA9 \xE4\xB8\xAD", 0, "caf\xC3\xA9 \xE4\xB8\xAD"); /* text stays */
    VIS("bad\x9B\xFF", 0, "bad\xEF\xBF\xBD\xEF\xBF\xBD");           /* malformed: U+FFFD */
    VIS("a|b", 0, "a|b");
    VIS("a|b\nc", TD_TEXT_MARKDOWN, "a\\|b\\x0ac");
    VIS("n\0ul", 0, "n\\x00ul");
}

TEST(test_visible_text__cut_between_characters)
{
    char buf[6];
    /* "ab\x1b": the escape does not fit whole, so it is left out. */
    CHECK(td_text_visible(buf, sizeof buf, "ab\x1bz", 4, 0) == 7);
    CHECK_STR(buf, "ab");
    CHECK(td_text_visible(NULL, 0, "\xE2\x80\xAE", 3, 0) == 6);
    char one[1] = {'x'};
    td_text_visible(one, 1, "abc", 3, 0);
    CHECK(one[0] == '\0');
}

TEST(test_visible_text__temp_files_removed_all_at_once)
{
    char a[] = "/tmp/td-unit-temp.XXXXXX", b[] = "/tmp/td-unit-temp.XXXXXX";
    int fa = td_temp_create(a), fb = td_temp_create(b);
    CHECK(fa >= 0 && fb >= 0);
    close(fa);
    close(fb);
    td_temp_forget(b); /* renamed into place, say: no longer the handler's */
    td_temp_remove_all();
    struct stat st;
    CHECK(stat(a, &st) != 0); /* removed */
    CHECK(stat(b, &st) == 0); /* forgotten: kept */
    unlink(b);
    td_temp_forget(a);
    /* The slots are free again: more than their number, one after another. */
    for (int i = 0; i < 40; i++) {
        char t[] = "/tmp/td-unit-temp.XXXXXX";
        int fd = td_temp_create(t);
        CHECK(fd >= 0);
        close(fd);
        unlink(t);
        td_temp_forget(t);
    }
    CHECK(td_temp_track("/tmp/td-unit-none") == 0);
    td_temp_forget("/tmp/td-unit-none");
}

/* td_utf8_decode one character at a time: a malformed sequence gives U+FFFD
 * and skips one byte only, so what follows decodes on its own. */
TEST(test_visible_text__utf8_decode_skips_one_byte_of_a_malformed_sequence)
{
    static const struct {
        const char *s;
        size_t len;
        uint32_t cp[4];
        size_t at[4];
        size_t n;
    } cases[] = {
        {"\xE2\x82\xAC", 3, {0x20AC}, {3}, 1},  /* EURO SIGN, whole */
        {"\xC3(", 2, {0xFFFD, '('}, {1, 2}, 2}, /* continuation missing */
        {"\xE2\x28\xA1x", 4, {0xFFFD, '(', 0xFFFD, 'x'}, {1, 2, 3, 4}, 4},
        {"\xF0\x9F\x98", 3, {0xFFFD, 0xFFFD, 0xFFFD}, {1, 2, 3}, 3}, /* cut by the end */
        {"\xC0\xAF", 2, {0xFFFD, 0xFFFD}, {1, 2}, 2},                /* overlong '/' */
        {"\xED\xA0\x80", 3, {0xFFFD, 0xFFFD, 0xFFFD}, {1, 2, 3}, 3}, /* surrogate */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t i = 0;
        for (size_t k = 0; k < cases[c].n; k++) {
            uint32_t cp = td_utf8_decode(cases[c].s, cases[c].len, &i);
            if (cp != cases[c].cp[k] || i != cases[c].at[k])
                unit_fail(__FILE__, __LINE__,
                          "case %zu, character %zu: U+%04X ending at %zu, expected U+%04X at %zu",
                          c, k, (unsigned)cp, i, (unsigned)cases[c].cp[k], cases[c].at[k]);
        }
        CHECK_INT(i, cases[c].len);
    }
}
