/* SHA-256 of the files summarized: FIPS 180-4's examples and a buffer fed
 * in uneven pieces, through libcrypto (where it loads) and through the
 * portable code (TD_SHA256=builtin), which must agree. */
#include "harness.h"
#include "util/util.h"
#include "util/sha256.h"

#include <dlfcn.h>
#include <stdlib.h>

static void hash_of(const void *p, size_t n, size_t step, char out[65])
{
    td_sha256 c;
    td_sha256_init(&c);
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i += step)
        td_sha256_update(&c, b + i, n - i < step ? n - i : step);
    CHECK(td_sha256_hex(&c, out) == 0);
}

static void known_answers(void)
{
    char h[65];
    hash_of("", 0, 1, h);
    CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hash_of("abc", 3, 1, h);
    CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hash_of(m, strlen(m), 7, h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    size_t n = 1000000;
    char *a = malloc(n);
    REQUIRE(a != NULL);
    memset(a, 'a', n);
    hash_of(a, n, 4096, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* The same bytes in pieces of 1 to 200 bytes, and whole. */
static void pieces(char whole[65], char cut[65])
{
    size_t n = 100003;
    unsigned char *b = malloc(n);
    if (!b)
        return;
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b[i] = (unsigned char)x;
    }
    hash_of(b, n, n, whole);
    td_sha256 c;
    td_sha256_init(&c);
    for (size_t i = 0, k = 1; i < n; i += k, k = k % 200 + 1)
        td_sha256_update(&c, b + i, n - i < k ? n - i : k);
    CHECK(td_sha256_hex(&c, cut) == 0);
    free(b);
}

TEST(test_sha256__both_ways_give_the_standard_hashes)
{
    char whole[65], cut[65], whole_b[65], cut_b[65];
    known_answers();
    pieces(whole, cut);
    CHECK_STR(whole, cut);
    setenv("TD_SHA256", "builtin", 1);
    CHECK_STR(td_sha256_backend(), "builtin");
    known_answers();
    pieces(whole_b, cut_b);
    unsetenv("TD_SHA256");
    CHECK_STR(whole_b, cut_b);
    CHECK_STR(whole, whole_b);
}

TEST(test_sha256__libcrypto_is_used_where_it_loads)
{
    void *h = dlopen("libcrypto.so.3", RTLD_LAZY | RTLD_LOCAL);
    if (h) {
        CHECK_STR(td_sha256_backend(), "libcrypto");
        dlclose(h);
    }
    /* A context begun and dropped without a hash. */
    td_sha256 c;
    td_sha256_init(&c);
    td_sha256_update(&c, "abc", 3);
    td_sha256_free(&c);
    CHECK(c.evp == NULL);
}

/* td_sha256_init_sized: below TD_SHA256_LIB_MIN bytes the portable code,
 * from there libcrypto where it loads; the same hash either way. */
TEST(test_sha256__small_streams_hashed_without_libcrypto)
{
    void *h = dlopen("libcrypto.so.3", RTLD_LAZY | RTLD_LOCAL);
    size_t n = 3000;
    unsigned char *b = malloc(n);
    REQUIRE(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + 7);
    char small[65], large[65];
    td_sha256 c;
    td_sha256_init_sized(&c, n);
    CHECK(c.evp == NULL);
    td_sha256_update(&c, b, n);
    CHECK(td_sha256_hex(&c, small) == 0);
    td_sha256_init_sized(&c, TD_SHA256_LIB_MIN);
    CHECK((c.evp != NULL) == (h != NULL));
    td_sha256_update(&c, b, n);
    CHECK(td_sha256_hex(&c, large) == 0);
    CHECK_STR(small, large);
    free(b);
    if (h)
        dlclose(h);
}
