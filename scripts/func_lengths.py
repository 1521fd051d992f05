#!/usr/bin/env python3
"""Lists C functions by length (lines from the opening to the closing brace).

    func_lengths.py [--max N] [--allow FILE:FUNC ...] [PATH ...]

Without --max: the 15 longest functions. With --max N: every function over N
lines that is not allowed, and exit status 1 if there is any. A function is
recognised by a line that starts at column 0 with a declaration ending in ')'
and a '{' at column 0 on the next line (the house style), up to the next '}'
at column 0.
"""
import os, re, sys

HEAD = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;]*$")


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if m and not lines[i].startswith(("typedef", "struct", "enum", "static const", "#")):
            j = i
            while j < len(lines) and not lines[j].startswith("{") and j - i < 8:
                if lines[j].rstrip().endswith(";"):
                    break
                j += 1
            if j < len(lines) and lines[j].startswith("{"):
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                yield m.group(1), i + 1, k - i + 1
                i = k
        i += 1


def main():
    args = sys.argv[1:]
    limit, allow, paths = None, set(), []
    while args:
        a = args.pop(0)
        if a == "--max":
            limit = int(args.pop(0))
        elif a == "--allow":
            allow.add(args.pop(0))
        else:
            paths.append(a)
    files = []
    for p in paths or ["src"]:
        if os.path.isdir(p):
            for d, _, fs in os.walk(p):
                files += [os.path.join(d, f) for f in fs if f.endswith(".c")]
        else:
            files.append(p)
    found = sorted(((n, f, name, line) for f in sorted(files) for name, line, n in functions(f)),
                   reverse=True)
    if limit is None:
        for n, f, name, line in found[:15]:
            print("%5d  %s:%d  %s" % (n, f, line, name))
        return 0
    over = [(n, f, name, line) for n, f, name, line in found
            if n > limit and "%s:%s" % (os.path.basename(f), name) not in allow]
    for n, f, name, line in over:
        print("%s:%d: %s is %d lines (over %d): split it into steps that say what they do"
              % (f, line, name, n, limit))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
