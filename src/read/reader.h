/* read/byte_reader.c: a streaming source of decompressed bytes. */
#ifndef TD_READ_READER_H
#define TD_READ_READER_H

#include "util/util.h"

typedef struct td_reader td_reader;
int td_reader_open(td_reader **out, const char *path, td_error *err);
/* Reads up to cap bytes; returns the count, 0 at the end, < 0 on error. */
long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err);
/* Plain input read ahead by a thread of its own, as compressed input is,
 * so that reading overlaps scanning (before the first read; no seek after). */
void td_reader_read_ahead(td_reader *r);
/* Compressed input decompressed in the caller's thread, only as far as it
 * reads (before the first read): for a first look at a file's opening
 * bytes, where the reading thread would start, allocate its ring of
 * buffers and decompress up to a megabyte ahead, all for nothing. */
void td_reader_inline(td_reader *r);
/* A plain regular file of at least min_bytes (> 0) mapped into memory
 * instead of read (before any read but the one telling the format apart;
 * it wins over td_reader_read_ahead): 1 when it is, 0 when it is read as
 * usual (compressed, small, not a regular file, the mapping failed). Its
 * windows come from td_reader_swap without a copy; td_mapped_file names it. */
int td_reader_map(td_reader *r, uint64_t min_bytes);
/* Input read by a thread (compressed, or read ahead) or mapped, without a copy: the
 * next chunk becomes the caller's window. Returns the count n of new bytes, with *buf pointing at
 * the nleft bytes of left (copied) followed by them; 0 at the end and < 0
 * on error (*buf untouched; the window held stays valid); TD_READER_NO_SWAP
 * when it cannot (input read in the caller's thread, or nleft too large): then, if the caller's
 * window is a chunk, it copies what it keeps elsewhere and calls
 * td_reader_swap(r, NULL, 0, NULL, NULL) to let the chunk go, before
 * td_reader_read. A window from here stays valid until the next call, or
 * td_reader_close. */
#define TD_READER_NO_SWAP LONG_MAX
long td_reader_swap(td_reader *r, const char *left, size_t nleft, char **buf, td_error *err);
td_compression td_reader_compression(const td_reader *r);
uint64_t td_reader_file_bytes(const td_reader *r);
/* Compressed bytes consumed so far (for progress). */
uint64_t td_reader_consumed(const td_reader *r);
/* Plain files only: the next read starts at byte off. TD_EUSAGE for
 * compressed input (it cannot be entered in the middle). */
int td_reader_seek(td_reader *r, uint64_t off, td_error *err);
void td_reader_close(td_reader *r);

#endif
