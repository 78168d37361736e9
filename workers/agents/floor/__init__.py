"""bullpen's floor: shell text read as bash reads it, and each command judged by meaning.

`shell_lex` cuts a script into words, operators and redirections (quotes, `$'…'`,
line continuations, expansions, heredocs); `shell_parse` makes simple commands of them
(compound commands, keywords, pipelines, nested `$(…)`); `wrappers` sees through
`sudo`, `env`, `nice`, `timeout` … to the command that runs; `git_meaning` and
`rm_meaning` say what a git or rm invocation does; `judge` walks a script (and the
scripts handed to shells inside it) and names the floor's rule a command breaks.
Stdlib only, and cheap to import: the agents' hook process imports it.
"""
