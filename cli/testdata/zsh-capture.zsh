# zsh -f zsh-capture.zsh SCRIPT LINE prints, one per line, the candidates
# zsh's completion system offers for the command line LINE followed by a
# TAB, in an interactive zsh (on a pseudo-terminal, zsh/zpty) that ran
# compinit and sourced SCRIPT (or, for a file named _sim, found it in
# $fpath). compadd is wrapped to print what it adds;
# the markers are written split ("<""hit>") so that the terminal's echo
# of these lines never reads as output.
zmodload zsh/zpty || exit 3
script=$1 cmdline=$2
zpty z zsh -f -i
zpty -w z "PS1=''; PS2=''; unsetopt beep"
if [[ ${script:t} == _sim ]]; then
  # a completion function in $fpath, found by compinit
  zpty -w z "fpath=(${(q)script:h} \$fpath); autoload -Uz compinit && compinit -u -d ${TMPDIR:-/tmp}/zcompdump.$$"
else
  zpty -w z "autoload -Uz compinit && compinit -u -d ${TMPDIR:-/tmp}/zcompdump.$$"
  zpty -w z "source ${(q)script}"
fi
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; (( $#__hits )) && print -r -l -- "<""hit>"${^__hits}; }'
zpty -w z 'zstyle ":completion:*" completer _complete; zstyle ":completion:*" insert-tab false; bindkey "^I" complete-word'
zpty -w z '_capture_done() { print -r -- "<""done>"; exit }; comppostfuncs=(_capture_done)'
zpty -w -n z "$cmdline"$'\t'
while zpty -r z line; do
  [[ $line == *'<done>'* ]] && break
  [[ $line == *'<hit>'* ]] && print -r -- ${${line##*<hit>}%%$'\r'*}
done
