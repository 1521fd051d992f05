/* util/bigmem.c: large buffers whose pages are mapped up front or lazily. */
#ifndef TD_UTIL_BIGMEM_H
#define TD_UTIL_BIGMEM_H

#include <stddef.h>

/* bigmem.c: a buffer that will be written at once (its pages are mapped up
 * front when it is large); free it with td_big_free, never free(). */
void *td_big_alloc(size_t n);
/* The same kind of block, its pages mapped as they are first touched: for
 * one that may stay mostly unused (the first block of a small file's events). */
void *td_big_alloc_lazy(size_t n);
void td_big_free(void *p);
/* Gives back the end of a td_big_alloc block beyond its first n bytes;
 * returns the block (moved when it came from malloc), or NULL, p intact. */
void *td_big_shrink(void *p, size_t n);
/* Puts in at once the pages of n bytes at p (any memory of the caller's,
 * from malloc too) that it is about to write whole: one call instead of a
 * fault per page. Best effort, for n of 64 KiB or more; returns p. */
void *td_populate(void *p, size_t n);

#endif
