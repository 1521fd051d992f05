# --cat with a category no event of either side has: exit 2, naming it and the categories there are
$ tracediff compare tests/data/noisy/control tests/data/noisy/test --cat kernel,kernal,cpu-op --format csv
? 2
! tracediff: --cat: no event of either side has the categories kernal, cpu-op (they have: cpu_op, cuda_runtime, kernel, python_function, user_annotation)
