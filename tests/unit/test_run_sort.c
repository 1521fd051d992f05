/* The run sort (model/run_sort.h): the order qsort gives, for arrays in the
 * shapes the loader meets (runs, elements a few places out of order, long
 * stretches out of order) and for ties (stable). */
#include "harness.h"
#include "model/run_sort.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct item {
    uint32_t key, at; /* at: the place before sorting, the tie-break */
} item;

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

static inline int cmp_item_ctx(const void *ctx, const item *x, const item *y)
{
    (void)ctx;
    return cmp_item(x, y);
}

TD_RUN_SORT(sort_items, item, cmp_item_ctx)

/* By key alone: ties kept in their order (the merge and the moves back). */
static inline int cmp_key_ctx(const void *ctx, const item *x, const item *y)
{
    (void)ctx;
    return (x->key > y->key) - (x->key < y->key);
}

TD_RUN_SORT(sort_keys, item, cmp_key_ctx)

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n keys in shape 0 (random), 1 (ascending, neighbours swapped now and
 * then), 2 (a few ascending runs interleaved), 3 (ascending, one element
 * now and then from far away). */
static void fill(item *a, size_t n, int shape, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t r = (uint32_t)next_rand(s);
        uint32_t k = shape == 0 ? r % 64 : (uint32_t)i * 4;
        if (shape == 2)
            k = (uint32_t)(i / 7 % 5) * 1000 + (uint32_t)i;
        if (shape == 3 && r % 50 == 0)
            k = r % (uint32_t)(4 * n + 1);
        a[i] = (item){k, (uint32_t)i};
    }
    for (size_t i = 1; shape == 1 && i < n; i++)
        if (next_rand(s) % 4 == 0) {
            item t = a[i];
            a[i] = a[i - 1];
            a[i - 1] = t;
        }
}

TEST(test_run_sort__as_qsort_in_every_shape)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    int rounds = unit_rounds(200);
    for (int r = 0; r < rounds; r++) {
        size_t n = (size_t)(next_rand(&seed) % 3000);
        int shape = r % 4;
        item *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b),
             *c = malloc((n + 1) * sizeof *c);
        REQUIRE(a && b && c);
        fill(a, n, shape, &seed);
        memcpy(b, a, n * sizeof *a);
        memcpy(c, a, n * sizeof *a);
        REQUIRE(sort_items(a, n, NULL) == 0);
        qsort(b, n, sizeof *b, cmp_item);
        REQUIRE(sort_keys(c, n, NULL) == 0);
        /* ties by key alone: the same as the full order, whose tie-break is the place */
        bool same = memcmp(a, b, n * sizeof *a) == 0 && memcmp(c, b, n * sizeof *c) == 0;
        if (!same)
            unit_fail(__FILE__, __LINE__, "round %d (shape %d, %zu items) not as qsort", r, shape,
                      n);
        free(a);
        free(b);
        free(c);
        if (!same)
            break;
    }
}
