# --by: did you mean
$ tracediff compare examples/control examples/test --by anotation
? 2
! tracediff: --by 'anotation': expected kernel, op, top-op, annotation, class, module or lca-name; did you mean 'annotation'?
