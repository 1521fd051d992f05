/* Error records and small helpers shared by every module. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *td_version(void)
{
    return TD_VERSION;
}

const char *td_strerror(int code)
{
    switch (code) {
    case TD_OK: return "ok";
    case TD_EIO: return "input/output error";
    case TD_EPARSE: return "invalid JSON";
    case TD_ETRACE: return "not a usable trace";
    case TD_ENOMEM: return "out of memory";
    case TD_EUSAGE: return "bad argument";
    default: return "unknown error";
    }
}

static int vfail(td_error *err, int code, const char *path, int has_offset, uint64_t offset,
                 const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    err->has_offset = has_offset;
    err->offset = offset;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int td_fail(td_error *err, int code, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, path, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

int td_fail_at(td_error *err, int code, const char *path, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, path, 1, offset, fmt, ap);
    va_end(ap);
    return code;
}

void *td_grow(void *ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return ptr;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return NULL;
        ncap *= 2;
    }
    void *np = realloc(ptr, ncap * elem);
    if (!np)
        return NULL;
    *cap = ncap;
    return np;
}
