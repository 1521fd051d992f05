/* Libraries opened at run time (src/util/dl.c): every symbol found or the
 * reason why not, naming the library and the missing symbol. */
#include "harness.h"
#include "util/dl.h"

#include <string.h>

typedef double (*unary_fn)(double);

TEST(test_dl__every_symbol_found)
{
    unary_fn c = NULL, s = NULL;
    const char *const names[] = {"cos", "sin"};
    void *const slots[] = {&c, &s};
    char problem[256] = "";
    REQUIRE(td_dl_load("libm.so.6", names, slots, 2, NULL, problem, sizeof problem) == 1);
    REQUIRE(c && s);
    CHECK(c(0.0) == 1.0);
    CHECK(s(0.0) == 0.0);
    CHECK_STR(problem, "");
}

TEST(test_dl__a_missing_symbol_is_named)
{
    unary_fn c = NULL, x = NULL;
    const char *const names[] = {"cos", "td_no_such_function"};
    void *const slots[] = {&c, &x};
    char problem[256] = "";
    CHECK_INT(td_dl_load("libm.so.6", names, slots, 2, " (too old)", problem, sizeof problem), 0);
    CHECK_STR(problem, "libm.so.6 has no td_no_such_function (too old)");
    CHECK(x == NULL);
}

TEST(test_dl__a_missing_library_says_why)
{
    unary_fn c = NULL;
    const char *const names[] = {"cos"};
    void *const slots[] = {&c};
    char problem[256] = "";
    CHECK_INT(
        td_dl_load("libtd-no-such-library.so.9", names, slots, 1, NULL, problem, sizeof problem),
        0);
    CHECK(strstr(problem, "libtd-no-such-library.so.9") != NULL);
    CHECK(c == NULL);
}
