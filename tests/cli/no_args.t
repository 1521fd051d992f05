# no command: usage on stderr, exit 2
$ tracediff
? 2
! usage: tracediff <command> [options]
!
! Compare two sets of PyTorch profiler traces: a control run and a test run.
!
! commands:
!   compare CONTROL TEST   per-name counts and total durations of both sides, and the diff
!   ops     CONTROL TEST   the names added, deleted, increased, decreased, unchanged
!   info    SET            ranks, iterations, files and event counts of one trace set
!   plot    counts|duration CONTROL TEST -o FILE   a grouped bar chart (.svg, .png, .pdf)
!   report  CONTROL TEST -o FILE.html             one self-contained HTML report
!   summarize SET -o FILE.tdsum [--run NAME]      keep a set's numbers in a summary
!   runs    FILE.tdsum     the runs a summary holds
!   trend   FILE.tdsum     total duration per name across its runs
!
! A trace set is a directory of trace files (one per rank: .json, .json.gz, .json.zst)
! or one trace file, or a summary: FILE.tdsum or FILE.tdsum#RUN.
! 'tracediff <command> --help' tells more.
!
! exit status: 0 ok, 1 bad data or I/O error, 2 bad usage
