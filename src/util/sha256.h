/* util/sha256.c: SHA-256 of a byte stream. */
#ifndef TD_UTIL_SHA256_H
#define TD_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* sha256.c: FIPS 180-4 SHA-256 (as sha256sum prints it), by libcrypto when
 * it can be loaded, else portably. A context begun is ended by
 * td_sha256_hex or td_sha256_free. */
typedef struct td_sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char buf[64];
    size_t nbuf;
    void *evp;  /* libcrypto's context, or NULL */
    int failed; /* libcrypto failed midway: no hash */
} td_sha256;
void td_sha256_init(td_sha256 *c);
/* As td_sha256_init, for a stream of about `bytes` bytes: below
 * TD_SHA256_LIB_MIN the portable code hashes them before libcrypto would
 * have loaded (a few milliseconds), so it is not loaded for them. */
#define TD_SHA256_LIB_MIN ((uint64_t)128 << 10)
void td_sha256_init_sized(td_sha256 *c, uint64_t bytes);
void td_sha256_update(td_sha256 *c, const void *data, size_t n);
int td_sha256_hex(td_sha256 *c, char out[65]); /* finishes c; -1 if libcrypto failed */
void td_sha256_free(td_sha256 *c);             /* ends c without a hash */
const char *td_sha256_backend(void);           /* "libcrypto" or "builtin" */

#endif
