/* The string interner (src/strtab.c). */
#include "harness.h"
#include "util/util.h"
#include "util/strtab_quick.h"
#include "util/strtab_quick.h"

#include <stdlib.h>

TEST(test_strtab__ids_are_dense_and_stable)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    CHECK_INT(td_strtab_intern(t, "a", 1), 0);
    CHECK_INT(td_strtab_intern(t, "b", 1), 1);
    CHECK_INT(td_strtab_intern(t, "a", 1), 0);
    CHECK_INT(td_strtab_count(t), 2);
    td_strtab_free(t);
}

TEST(test_strtab__many_strings_survive_rehash)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    enum { N = 100000 };
    char buf[32];
    for (int i = 0; i < N; i++) {
        int n = snprintf(buf, sizeof buf, "name-%d", i);
        if (td_strtab_intern(t, buf, (size_t)n) != i) {
            unit_fail(__FILE__, __LINE__, "string %d got another id", i);
            break;
        }
    }
    CHECK_INT(td_strtab_count(t), N);
    int bad = 0;
    for (int i = 0; i < N && !bad; i++) {
        int n = snprintf(buf, sizeof buf, "name-%d", i);
        size_t len;
        const char *s = td_strtab_get(t, (uint32_t)i, &len);
        bad = td_strtab_find(t, buf, (size_t)n) != i || len != (size_t)n ||
              memcmp(s, buf, len) != 0 || s[len] != '\0';
        if (bad)
            unit_fail(__FILE__, __LINE__, "string %d lost after rehash", i);
    }
    CHECK_INT(td_strtab_find(t, "name-100000", 11), -1);
    CHECK_INT(td_strtab_count(t), N);
    td_strtab_free(t);
}

TEST(test_strtab__find_never_adds)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    CHECK_INT(td_strtab_find(t, "x", 1), -1);
    CHECK_INT(td_strtab_count(t), 0);
    td_strtab_intern(t, "x", 1);
    CHECK_INT(td_strtab_find(t, "x", 1), 0);
    CHECK_INT(td_strtab_find(t, "xy", 2), -1);
    td_strtab_free(t);
}

TEST(test_strtab__nul_bytes_and_empty_strings_are_distinct)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    int64_t a = td_strtab_intern(t, "a", 1);
    int64_t anb = td_strtab_intern(t, "a\0b", 3);
    int64_t an = td_strtab_intern(t, "a\0", 2);
    int64_t e = td_strtab_intern(t, "", 0);
    CHECK(a != anb && a != an && anb != an && e != a && e != an);
    CHECK_INT(td_strtab_count(t), 4);
    size_t len;
    const char *s = td_strtab_get(t, (uint32_t)anb, &len);
    CHECK_MEM(s, len, "a\0b", 3);
    s = td_strtab_get(t, (uint32_t)e, &len);
    CHECK_INT(len, 0);
    CHECK(s[0] == '\0');
    td_strtab_free(t);
}

TEST(test_strtab__colliding_prefixes)
{
    /* Same hash slot neighbourhoods: strings that differ in one byte. */
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    char buf[300];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < 256; i++) {
        buf[299] = (char)i;
        CHECK_INT(td_strtab_intern(t, buf, sizeof buf), i);
    }
    for (int i = 0; i < 256; i++) {
        buf[299] = (char)i;
        CHECK_INT(td_strtab_find(t, buf, sizeof buf), i);
    }
    td_strtab_free(t);
}

TEST(test_strtab__hash_is_deterministic)
{
    CHECK(td_hash_bytes("abc", 3) == td_hash_bytes("abc", 3));
    CHECK(td_hash_bytes("abc", 3) != td_hash_bytes("abd", 3));
    CHECK(td_hash_bytes("a", 1) != td_hash_bytes("a\0", 2));
}

TEST(test_strtab__names_alike_at_both_ends_stay_apart)
{
    /* Same length, same first and last eight bytes: one quick-look-up key,
     * so every intern of one displaces the other's entry there. */
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    static const char *names[] = {"void kernel<float, 128, 4>(Params)",
                                  "void kernel<int32, 128, 4>(Params)",
                                  "void kernel<half2, 128, 4>(Params)",
                                  "short",
                                  "shorT",
                                  "",
                                  "\0x"};
    size_t lens[] = {34, 34, 34, 5, 5, 0, 2};
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 7; i++) {
            int64_t id = round == 1 ? td_strtab_intern_inline(t, names[i], lens[i])
                                    : td_strtab_intern(t, names[i], lens[i]);
            if (id != i)
                unit_fail(__FILE__, __LINE__, "round %d: string %d got id %lld", round, i,
                          (long long)id);
        }
    CHECK_INT(td_strtab_count(t), 7);
    for (int i = 6; i >= 0; i--)
        CHECK_INT(td_strtab_find(t, names[i], lens[i]), i);
    td_strtab_free(t);
}

/* Strings of every length to 80 differing in one byte at every place
 * (and NUL bytes), interned in turns so that the cache of recent strings
 * is hit, missed and overwritten: each keeps its own id, through
 * td_strtab_intern and through the loader's inline look-up alike. */
TEST(test_strtab__strings_differing_in_one_byte_keep_their_ids)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    char base[88], s[88];
    for (int i = 0; i < 88; i++)
        base[i] = (char)('a' + i % 26);
    int64_t ids[81][81];
    int bad = 0;
    for (int round = 0; round < 3 && !bad; round++)
        for (size_t len = 0; len <= 80; len++)
            for (size_t at = 0; at <= len; at++) { /* at == len: the base string */
                memcpy(s, base, len);
                if (at < len)
                    s[at] = round == 2 && at % 3 == 0 ? '\0' : 'Z';
                if (round == 2 && at < len && at % 3 == 0)
                    continue; /* NUL variants: checked below */
                int64_t id = (round + at) % 2 ? td_strtab_intern_inline(t, s, len)
                                              : td_strtab_intern(t, s, len);
                if (round == 0)
                    ids[len][at] = id;
                else if (id != ids[len][at])
                    bad = unit_fail(__FILE__, __LINE__, "len %zu, byte %zu: id %lld then %lld", len,
                                    at, (long long)ids[len][at], (long long)id) ||
                          1;
            }
    size_t distinct = td_strtab_count(t);
    CHECK_INT(distinct, 1 + 80 + 80 * 81 / 2); /* "", each base, each variant */
    for (size_t len = 1; len <= 80; len++) {
        memcpy(s, base, len);
        s[len - 1] = '\0';
        int64_t id = td_strtab_intern(t, s, len);
        CHECK(id >= (int64_t)distinct);
        CHECK_INT(td_strtab_intern_inline(t, s, len), id);
        CHECK_INT(td_strtab_intern_inline(t, base, len), ids[len][len]);
    }
    td_strtab_free(t);
}

TEST(test_strtab__copied_by_parts)
{
    td_strtab *t = td_strtab_new();
    REQUIRE(t);
    char buf[32];
    for (int i = 0; i < 5000; i++)
        td_strtab_intern(t, buf, (size_t)snprintf(buf, sizeof buf, "s%d", i * 7));
    td_strtab_parts p;
    td_strtab_parts_of(t, &p);
    td_strtab *c = td_strtab_from_parts(&p);
    REQUIRE(c);
    CHECK_INT(td_strtab_count(c), 5000);
    int bad = 0;
    for (int i = 0; i < 5000 && !bad; i++) {
        int n = snprintf(buf, sizeof buf, "s%d", i * 7);
        bad = td_strtab_find(c, buf, (size_t)n) != i;
    }
    CHECK(!bad);
    CHECK_INT(td_strtab_intern(c, "new", 3), 5000);
    CHECK_INT(td_strtab_intern(c, "s7", 2), 1);
    td_strtab_parts q = p;
    q.nslots = 3; /* not a power of two */
    CHECK(td_strtab_from_parts(&q) == NULL);
    uint64_t *off = malloc(p.n * sizeof *off);
    REQUIRE(off);
    memcpy(off, p.off, p.n * sizeof *off);
    q = p;
    q.off = off;
    off[4999] = p.alen - 1; /* a string past the arena */
    CHECK(td_strtab_from_parts(&q) == NULL);
    off[4999] = p.off[4999];
    off[10] = p.off[10] + 1; /* "70" and the next string's "s": no '\0' */
    CHECK(td_strtab_from_parts(&q) == NULL);
    free(off);
    td_strtab_free(c);
    td_strtab_free(t);
}
