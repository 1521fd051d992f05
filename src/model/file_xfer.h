/* A loaded file as one block of bytes, between processes of one program
 * (file_xfer.c). */
#ifndef TD_MODEL_FILE_XFER_H
#define TD_MODEL_FILE_XFER_H

#include "model/model.h"

/* The bytes td_file_xfer_write writes for f. */
size_t td_file_xfer_size(const td_file *f);
/* Writes f into dst, size bytes from td_file_xfer_size. */
void td_file_xfer_write(const td_file *f, unsigned char *dst, size_t size);
/* Writes f's bytes into the file fd at offset off (pwritev from f's own
 * arrays: no copy in memory), *size of them. 0, or -1 with errno. */
int td_file_xfer_send(const td_file *f, int fd, uint64_t off, size_t *size);
/* A file from the len bytes at map (a mapping of td_file_xfer_write's
 * bytes), its events used in place: on success the file owns map and
 * munmaps it when freed. 0, TD_ENOMEM, or TD_ETRACE when the bytes are not
 * such a file. */
int td_file_xfer_read(td_file **out, void *map, size_t len);

#endif
