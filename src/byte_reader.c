/*
 * A streaming source of bytes: plain, gzip or zstd, told apart by the first
 * bytes of the file, never by its name. It knows nothing of JSON.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define INBUF (256u << 10)

struct td_reader {
    const char *path;
    int fd;
    td_compression comp;
    uint64_t file_bytes, consumed;
    unsigned char *in;
    size_t in_pos, in_len;
    int in_eof;
    z_stream z;
    int z_init, z_done;
    ZSTD_DStream *zs;
    int zs_frame_open;
};

static long read_raw(td_reader *r, td_error *err)
{
    if (r->in_pos < r->in_len)
        return (long)(r->in_len - r->in_pos);
    if (r->in_eof)
        return 0;
    ssize_t n;
    do
        n = read(r->fd, r->in, INBUF);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return td_fail(err, TD_EIO, r->path, "read failed: %s", strerror(errno));
    r->in_pos = 0;
    r->in_len = (size_t)n;
    r->consumed += (uint64_t)n;
    if (n == 0)
        r->in_eof = 1;
    return n;
}

int td_reader_open(td_reader **out, const char *path, td_error *err)
{
    *out = NULL;
    td_reader *r = calloc(1, sizeof *r);
    if (!r)
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    r->path = path;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        int e = errno;
        free(r);
        if (e == ELOOP)
            return td_fail(err, TD_EIO, path, "too many levels of symbolic links");
        return td_fail(err, TD_EIO, path, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(r->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            close(r->fd);
            free(r);
            return td_fail(err, TD_EIO, path, "is a directory, not a trace file");
        }
        if (S_ISREG(st.st_mode))
            r->file_bytes = (uint64_t)st.st_size;
    }
    r->in = malloc(INBUF);
    if (!r->in) {
        td_reader_close(r);
        return td_fail(err, TD_ENOMEM, path, "out of memory");
    }
    long n = read_raw(r, err);
    if (n < 0) {
        td_reader_close(r);
        return (int)n;
    }
    const unsigned char *m = r->in;
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
        r->comp = TD_COMP_GZIP;
        if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
            td_reader_close(r);
            return td_fail(err, TD_ENOMEM, path, "cannot start gzip decoder");
        }
        r->z_init = 1;
    } else if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) {
        r->comp = TD_COMP_ZSTD;
        r->zs = ZSTD_createDStream();
        if (!r->zs || ZSTD_isError(ZSTD_initDStream(r->zs))) {
            td_reader_close(r);
            return td_fail(err, TD_ENOMEM, path, "cannot start zstd decoder");
        }
    }
    *out = r;
    return 0;
}

static long read_gzip(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (cap > UINT_MAX)
        cap = UINT_MAX;
    r->z.next_out = (Bytef *)buf;
    r->z.avail_out = (uInt)cap;
    while (r->z.avail_out == cap) {
        long n = read_raw(r, err);
        if (n < 0)
            return n;
        if (n == 0) {
            if (r->z_done)
                return 0;
            return td_fail(err, TD_EIO, r->path,
                           "truncated gzip data (the file ends inside the compressed stream)");
        }
        if (r->z_done) {
            /* Another gzip member may follow (as from cat a.gz b.gz). */
            if (r->in[r->in_pos] != 0x1f)
                return td_fail(err, TD_EIO, r->path, "unexpected data after the gzip stream");
            inflateReset(&r->z);
            r->z_done = 0;
        }
        r->z.next_in = r->in + r->in_pos;
        r->z.avail_in = (uInt)(r->in_len - r->in_pos);
        int rc = inflate(&r->z, Z_NO_FLUSH);
        r->in_pos = r->in_len - r->z.avail_in;
        if (rc == Z_STREAM_END)
            r->z_done = 1;
        else if (rc == Z_MEM_ERROR)
            return td_fail(err, TD_ENOMEM, r->path, "out of memory in the gzip decoder");
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            return td_fail(err, TD_EIO, r->path, "corrupt gzip data: %s",
                           r->z.msg ? r->z.msg : "inflate failed");
    }
    return (long)(cap - r->z.avail_out);
}

static long read_zstd(td_reader *r, char *buf, size_t cap, td_error *err)
{
    ZSTD_outBuffer o = {buf, cap, 0};
    while (o.pos == 0) {
        long n = read_raw(r, err);
        if (n < 0)
            return n;
        if (n == 0) {
            if (!r->zs_frame_open)
                return 0;
            /* Flush what the decoder still holds, then complain. */
            ZSTD_inBuffer in = {r->in, 0, 0};
            size_t rc = ZSTD_decompressStream(r->zs, &o, &in);
            if (!ZSTD_isError(rc) && o.pos > 0)
                return (long)o.pos;
            return td_fail(err, TD_EIO, r->path,
                           "truncated zstd data (the file ends inside a frame)");
        }
        ZSTD_inBuffer in = {r->in, r->in_len, r->in_pos};
        size_t rc = ZSTD_decompressStream(r->zs, &o, &in);
        r->in_pos = in.pos;
        if (ZSTD_isError(rc))
            return td_fail(err, TD_EIO, r->path, "corrupt zstd data: %s", ZSTD_getErrorName(rc));
        r->zs_frame_open = rc != 0;
    }
    return (long)o.pos;
}

long td_reader_read(td_reader *r, char *buf, size_t cap, td_error *err)
{
    if (cap > ((size_t)1 << 30))
        cap = (size_t)1 << 30;
    switch (r->comp) {
    case TD_COMP_GZIP:
        return read_gzip(r, buf, cap, err);
    case TD_COMP_ZSTD:
        return read_zstd(r, buf, cap, err);
    default:
        break;
    }
    long n = read_raw(r, err);
    if (n <= 0)
        return n;
    size_t k = (size_t)n < cap ? (size_t)n : cap;
    memcpy(buf, r->in + r->in_pos, k);
    r->in_pos += k;
    return (long)k;
}

td_compression td_reader_compression(const td_reader *r)
{
    return r->comp;
}

uint64_t td_reader_file_bytes(const td_reader *r)
{
    return r->file_bytes;
}

uint64_t td_reader_consumed(const td_reader *r)
{
    return r->consumed;
}

void td_reader_close(td_reader *r)
{
    if (!r)
        return;
    if (r->z_init)
        inflateEnd(&r->z);
    ZSTD_freeDStream(r->zs);
    if (r->fd >= 0)
        close(r->fd);
    free(r->in);
    free(r);
}
