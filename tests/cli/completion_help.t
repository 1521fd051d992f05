# completion --help: no options, examples
$ tracediff completion --help
? 0
> usage: tracediff completion bash|zsh [options]
>
> Prints a script that completes commands, options, the values of options
> that take a few words (--device, --format), and file names.
>
> selection:
>   -q, --quiet   no notes on stderr
>
> examples:
>   source <(tracediff completion bash)
>   tracediff completion bash > ~/.local/share/bash-completion/completions/tracediff
>   tracediff completion zsh > ~/.zfunc/_tracediff
