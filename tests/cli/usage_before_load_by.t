# --by op with --device cpu is refused before any trace is opened
$ tracediff compare /nonexistent/a /nonexistent/b --by op --device cpu
? 2
! tracediff: --by op groups GPU events by what launched them: --device cpu does not apply (leave it out)
