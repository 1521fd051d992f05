# -o with an extension no writer knows is a usage error naming the known ones (no file is written)
$ tracediff compare examples/control examples/test -o tests/data/out.xlsx
? 2
! tracediff: compare: tests/data/out.xlsx: no compare writer for '.xlsx': name the file .txt, .csv, .json, .md or .folded, or give --format
