#!/usr/bin/env python3
"""Layout tests: the folders of src/ follow the data and depend one way.

    layout_test.py [TRACEDIFF]    (the build directory beside it holds the libraries)

- every #include "folder/..." names the including file's own folder or one
  below it (util < read < model < store < compare < present);
- src/cli/ includes only the public header and its own headers;
- every folder of src/ has a README.md and a row in docs/architecture.md;
- no .c or .h file is left at the top of src/ but internal.h;
- libtracediff.so links no cairo (no graphics stack for a program that never
  draws); libtracediff-render.so does.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORDER = ["util", "read", "model", "store", "compare", "present"]
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL layout %s%s" % (name, ": " + detail if detail else ""))


def sources(folder):
    d = os.path.join(ROOT, "src", folder)
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".c", ".h")))


def main():
    src = os.path.join(ROOT, "src")
    folders = sorted(f for f in os.listdir(src) if os.path.isdir(os.path.join(src, f)))
    arch = open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8").read()
    for f in folders:
        check("%s has a README" % f, os.path.exists(os.path.join(src, f, "README.md")))
        check("%s is in docs/architecture.md" % f, "`src/%s/`" % f in arch)
    for f in folders:
        check("%s is a known layer" % f, f in ORDER or f == "cli")
    top = [f for f in os.listdir(src) if f.endswith((".c", ".h")) and f != "internal.h"]
    check("nothing at the top of src/ but internal.h", not top, str(top))
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for f in folders:
        for path in sources(f):
            rel = os.path.relpath(path, ROOT)
            for name in inc.findall(open(path, encoding="utf-8").read()):
                if f == "cli":
                    ok = name == "tracediff.h" or "/" not in name and \
                        os.path.exists(os.path.join(src, "cli", name))
                    check("%s includes %s" % (rel, name), ok, "the CLI uses the public API only")
                    continue
                if "/" not in name:
                    check("%s includes %s" % (rel, name),
                          name in ("internal.h", "tracediff.h") or
                          os.path.exists(os.path.join(src, f, name)))
                    continue
                target = name.split("/")[0]
                ok = target in ORDER and f in ORDER and ORDER.index(target) <= ORDER.index(f)
                check("%s includes %s" % (rel, name), ok,
                      "%s/ may not depend on %s/ (it sits above)" % (f, target))
    build = os.path.dirname(os.path.abspath(sys.argv[1])) if len(sys.argv) > 1 else \
        os.path.join(ROOT, "build")
    for lib, cairo in (("libtracediff.so", False), ("libtracediff-render.so", True)):
        path = os.path.join(build, lib)
        if not os.path.exists(path):
            check("%s is built" % lib, False, path)
            continue
        deps = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        check("%s %s cairo" % (lib, "links" if cairo else "does not link"),
              ("libcairo" in deps) == cairo, deps.strip()[:300])
    print("layout: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
