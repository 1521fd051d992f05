# --cat checks its names for every comparing command, before anything is drawn
$ tracediff plot counts tests/data/noisy/control tests/data/noisy/test --cat user_anotation -o -
? 2
! tracediff: --cat: no event of either side has the category user_anotation (they have: cpu_op, cuda_runtime, kernel, python_function, user_annotation)
