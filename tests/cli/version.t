# --version prints the version
$ tracediff --version
? 0
> tracediff 0.1.0
