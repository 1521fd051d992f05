#!/usr/bin/env python3
"""Drift test: the docs made from the CLI's option table must match it.

    cli_doc_test.py TRACEDIFF [--regen]

Fails when
  - docs/tracediff.1 differs from 'tracediff man' (and build/tracediff.1, if
    the Makefile made one beside the binary);
  - the README's block under "## Usage" misses or misstates an option of the
    table, or differs from 'tracediff man --format usage';
  - a command's --help misses an option the table gives it;
  - a completion script does not parse, misses an option, or does not
    complete a command, an option, an enumerated value or a file name.
--regen rewrites docs/tracediff.1 and the README's usage block from the
binary: only on purpose, and review the diff.
"""
import os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAN = os.path.join(ROOT, "docs", "tracediff.1")
README = os.path.join(ROOT, "README.md")
USAGE_BLOCK = re.compile(r"(## Usage\n\n```\n)(.*?)(```\n)", re.S)

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL cli-doc {name}" + (f": {detail}" if detail else ""))
    return ok


def run(exe, *args):
    env = dict(os.environ, NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="120")
    p = subprocess.run([exe] + list(args), cwd=ROOT, capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def option_table(exe):
    rc, out, err = run(exe, "man", "--format", "tsv")
    lines = out.splitlines()
    assert rc == 0 and lines and lines[0].startswith("command\t"), err
    keys = lines[0].split("\t")
    return [dict(zip(keys, l.split("\t"))) for l in lines[1:]]


def spelled(row):
    value = row["choices"] or row["arg"]
    s = (row["short"] + ", " if row["short"] else "") + row["long"]
    return s + (" " + value if value else "")


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return f"line {i + 1}: {x!r} != {y!r}"
    return f"{len(al)} lines != {len(bl)} lines"


def check_man(exe, regen):
    rc, man, err = run(exe, "man")
    check("tracediff man", rc == 0 and man.startswith(".\\\""), err)
    if regen:
        open(MAN, "w").write(man)
    committed = open(MAN).read() if os.path.exists(MAN) else ""
    check("docs/tracediff.1 is what 'tracediff man' prints", committed == man,
          first_diff(committed, man) + " (regenerate: cli_doc_test.py TRACEDIFF --regen)")
    built = os.path.join(os.path.dirname(os.path.abspath(exe)), "tracediff.1")
    if os.path.exists(built):
        check("build/tracediff.1 is what 'tracediff man' prints", open(built).read() == man)
    if shutil.which("groff"):
        p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=man.encode(),
                           capture_output=True)
        check("the man page renders without groff warnings",
              p.returncode == 0 and not p.stderr, p.stderr.decode()[:300])


def check_readme(exe, table, regen):
    rc, usage, err = run(exe, "man", "--format", "usage")
    check("tracediff man --format usage", rc == 0 and usage, err)
    text = open(README, encoding="utf-8").read()
    if regen:
        text = USAGE_BLOCK.sub(lambda m: m.group(1) + usage + m.group(3), text, count=1)
        open(README, "w", encoding="utf-8").write(text)
    m = USAGE_BLOCK.search(text)
    if not check("README has a ``` block under ## Usage", m is not None):
        return
    block = m.group(2)
    lines = block.splitlines()
    seen = set()
    for row in table:
        key = (row["long"], row["help"])
        if key in seen:
            continue
        seen.add(key)
        s = spelled(row)
        line = next((l for l in lines if l.strip().startswith(s + " ") or l.strip() == s), None)
        if not check(f"README usage block lists {s}", line is not None):
            continue
        # Its help follows it (after the commands that take it, if not all of
        # the group's do), whatever the line breaks.
        flat = " ".join(block.split())
        want = re.escape(s) + r" (\[[a-z, ]+\] )?" + re.escape(" ".join(row["help"].split()))
        check(f"README usage block states {s} as the table does",
              re.search(want, flat) is not None, f"{row['help']!r}")
    for cmd in sorted({r["command"] for r in table}):
        check(f"README usage block has 'tracediff {cmd}'",
              re.search(rf"^tracediff {cmd}\b", block, re.M) is not None)
    check("README usage block is 'tracediff man --format usage'", block == usage,
          first_diff(block, usage) + " (regenerate: cli_doc_test.py TRACEDIFF --regen)")


def check_help(exe, table):
    for cmd in sorted({r["command"] for r in table} | {"completion"}):
        rc, out, err = run(exe, cmd, "--help")
        if not check(f"{cmd} --help", rc == 0 and out.startswith(f"usage: tracediff {cmd}"), err):
            continue
        check(f"{cmd} --help has an example", re.search(r"^examples?:\n  tracediff ", out, re.M)
              is not None or f"tracediff completion" in out)
        for row in (r for r in table if r["command"] == cmd):
            s = spelled(row)
            check(f"{cmd} --help lists {s}", re.search(rf"^  {re.escape(s)}( |$)", out, re.M)
                  is not None)
    rc, _, err = run(exe)
    check("tracediff alone: usage with an example on bundled files",
          rc == 2 and "tracediff compare examples/control examples/test" in err)


def bash_complete(script, line):
    """The words bash offers for the command line (completing its last word)."""
    words = line.split(" ")
    prog = (script + "\n" + "COMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")\n"
            f"COMP_CWORD={len(words) - 1}\n_tracediff\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    p = subprocess.run(["bash", "-c", prog], cwd=ROOT, capture_output=True, timeout=30)
    return p.stdout.decode().split()


def check_completion(exe, table):
    rc, bash, err = run(exe, "completion", "bash")
    check("completion bash", rc == 0 and "complete -F _tracediff tracediff" in bash, err)
    p = subprocess.run(["bash", "-n"], input=bash.encode(), capture_output=True)
    check("completion bash: bash -n", p.returncode == 0, p.stderr.decode())
    for row in table:
        check(f"completion bash: {row['command']} {row['long']}",
              re.search(rf"^    {row['command']}\)\n(.*\n)*?        opts=\"[^\"]*"
                        rf"{re.escape(row['long'])}\b", bash, re.M) is not None)
    cases = [("tracediff com", ["compare", "completion"]),
             ("tracediff compare a b --dev", ["--device"]),
             ("tracediff compare a b --device ", ["all", "cpu", "gpu"]),
             ("tracediff compare a b --format m", ["markdown"]),
             ("tracediff ops a b --format ", ["csv", "json", "table"]),
             ("tracediff plot ", ["breakdown", "counts", "duration", "flame", "roofline"]),
             ("tracediff completion ", ["bash", "zsh"]),
             ("tracediff info examples/c", ["examples/control"]),
             ("tracediff info -", ["--format", "--help", "--jobs", "--ns", "--nsys-names", "--output", "--pid",
                                   "--quiet", "--step-marker",
                                   "-j", "-o", "-q"])]
    for line, want in cases:
        got = sorted(bash_complete(bash, line))
        check(f"bash completes {line!r}", got == sorted(want), f"got {got}")
    rc, zsh, err = run(exe, "completion", "zsh")
    check("completion zsh", rc == 0 and zsh.startswith("#compdef tracediff"), err)
    if shutil.which("zsh"):
        p = subprocess.run(["zsh", "-n"], input=zsh.encode(), capture_output=True)
        check("completion zsh: zsh -n", p.returncode == 0, p.stderr.decode())
    for row in table:
        check(f"completion zsh: {row['command']} {row['long']}",
              re.search(rf"^    {row['command']}\)\n(.*\n)*?            '{re.escape(row['long'])}",
                        zsh, re.M) is not None)
    check("completion zsh: device values", "(all cpu gpu)" in zsh)
    rc, _, err = run(exe, "completion", "fish")
    check("completion fish: usage error", rc == 2 and "expected bash or zsh" in err, err)


def main():
    exe = os.path.abspath(sys.argv[1])
    regen = "--regen" in sys.argv
    table = option_table(exe)
    check("the option table is not empty", len(table) > 20)
    check_man(exe, regen)
    check_readme(exe, table, regen)
    check_help(exe, table)
    check_completion(exe, table)
    print(f"cli-doc: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
