/*
 * The interner's layout: its table and the quick look-up's helpers, which
 * call nothing and name nothing of strtab.h's. strtab.c builds on it; util/strtab_quick.h adds the
 * inline intern for the one caller that interns a string per event (the trace loader). Other code
 * uses util/strtab.h only.
 */
#ifndef TD_UTIL_STRTAB_LAYOUT_H
#define TD_UTIL_STRTAB_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct td_strtab {
    char *arena;
    size_t alen, acap;
    uint64_t *off; /* per id: offset into arena */
    uint32_t *len; /* per id */
    uint64_t *hash;
    size_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;   /* a power of two */
    /* The last string interned per cheap key of (length, first and last
     * eight bytes), with those words: a trace repeats a few hundred names
     * millions of times, and a hit needs no hash of the whole string and,
     * up to 16 bytes, no compare beyond the two words. */
    struct td_strtab_quick {
        uint64_t a, z;
        uint32_t id1; /* id + 1, 0 = empty */
        uint32_t len;
    } quick[256];
};

/* Two words that, with the length, hold every byte of s when len <= 16:
 * the first and last eight bytes (overlapping when len < 16), or for
 * shorter strings the first and last four, two or one. No call, no read
 * past s + len. */
static inline void td_strtab_quick_words(const char *s, size_t len, uint64_t *a, uint64_t *z)
{
    if (len >= 8) {
        memcpy(a, s, 8);
        memcpy(z, s + len - 8, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + len - 4, 4);
        *a = x;
        *z = y;
    } else if (len >= 2) {
        uint16_t x, y;
        memcpy(&x, s, 2);
        memcpy(&y, s + len - 2, 2);
        *a = x;
        *z = y;
    } else {
        *a = len ? (unsigned char)s[0] : 0;
        *z = 0;
    }
}

static inline size_t td_strtab_quick_key(uint64_t a, uint64_t z, size_t len)
{
    return (size_t)(((a ^ (z * 0x9E3779B97F4A7C15ull) ^ len) * 0xbf58476d1ce4e5b9ull) >> 56);
}

/* Whether the quick entry q is s: length and words, and beyond 16 bytes
 * the bytes between them. */
static inline bool td_strtab_quick_hit(const struct td_strtab *t, const struct td_strtab_quick *q,
                                       const char *s, size_t len, uint64_t a, uint64_t z)
{
    if (!q->id1 || q->len != len || q->a != a || q->z != z)
        return false;
    return len <= 16 || memcmp(t->arena + t->off[q->id1 - 1] + 8, s + 8, len - 16) == 0;
}

#endif
