"""pip install . : the tracediff Python package and its C core.

The extension is compiled from the library's sources directly (no prior
make), with the same flags as the Makefile; the system libraries come from
pkg-config. Debian: apt-get install python3-dev python3-pandas
python3-setuptools, then `pip install --no-build-isolation .` (see README).
"""
import glob
import os
import re
import shlex
import subprocess

from setuptools import Extension, setup


def pkg(flag, *mods):
    try:
        out = subprocess.run(["pkg-config", flag, *mods], capture_output=True, text=True,
                             check=True).stdout
        return shlex.split(out)
    except (OSError, subprocess.CalledProcessError):
        return []


def version():
    text = open("include/tracediff.h", encoding="utf-8").read()
    return re.search(r'#define TD_VERSION "([^"]+)"', text).group(1)


def soname(lib_name):
    """The soname of the library the compiler links (libgsl.so ->
    libgsl.so.N): the module loads GSL at first use (src/compare/gsl_dl.h),
    libcrypto at the first hash (src/util/sha256.c)."""
    try:
        lib = subprocess.run(["cc", "-print-file-name=" + lib_name], capture_output=True,
                             text=True, check=True).stdout.strip()
        out = subprocess.run(["objdump", "-p", lib], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"^\s*SONAME\s+(\S+)", out, re.M)
    return m.group(1) if m else None


SOURCES = sorted(
    f for d in ("util", "read", "model", "store", "compare", "present")
    for f in glob.glob(f"src/{d}/*.c")
) + ["python/_tracediff.c"]

# TRACEDIFF_OPT replaces -O2 (e.g. -O0 -g for a debug build that compiles in
# a third of the time).
opt = shlex.split(os.environ.get("TRACEDIFF_OPT", "-O2"))
cflags = pkg("--cflags", "cairo", "libpcre2-8", "sqlite3", "gsl")
ext = Extension(
    "tracediff._tracediff",
    sources=SOURCES,
    include_dirs=["include", "src"],
    define_macros=[("_POSIX_C_SOURCE", "200809L"), ("_DEFAULT_SOURCE", None)] +
    [(macro, '"%s"' % soname(lib)) for macro, lib in
     (("TD_GSL_SONAME", "libgsl.so"), ("TD_CRYPTO_SONAME", "libcrypto.so")) if soname(lib)],
    extra_compile_args=["-std=c11"] + opt + ["-fvisibility=hidden", "-Wall", "-Wextra",
                        "-Wno-missing-field-initializers"] + cflags,
    libraries=["isal", "zstd", "z", "pcre2-8", "sqlite3", "dl", "pthread", "m"],
    extra_link_args=pkg("--libs-only-L", "cairo", "libpcre2-8", "sqlite3"),
)

setup(version=version(), ext_modules=[ext])
