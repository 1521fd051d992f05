# completion knows bash and zsh
$ tracediff completion fish
? 2
! tracediff: completion: 'fish': expected bash or zsh
