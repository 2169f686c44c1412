package cli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// completionCommand prints a shell's completion script. bash and zsh ask
// sim itself for the words (urfave/cli's --generate-bash-completion, which
// lists the commands, a command's flags after "-", and its subcommands);
// fish gets urfave/cli's generated completion of every command and flag.
func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		UsageText: "sim completion bash|zsh|fish   (e.g. source <(sim completion bash), or sim completion fish > ~/.config/fish/completions/sim.fish)",
		Action: func(c *cli.Context) error {
			switch shell := c.Args().First(); shell {
			case "bash":
				_, err := io.WriteString(c.App.Writer, bashCompletion)
				return err
			case "zsh":
				_, err := io.WriteString(c.App.Writer, zshCompletion)
				return err
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = io.WriteString(c.App.Writer, script)
				return err
			case "":
				return usageErrorf(c, "missing argument: bash, zsh or fish")
			default:
				return usageErrorf(c, "unknown shell %q: bash, zsh or fish", shell)
			}
		},
	}
}

// The bash script asks sim for the candidates of the words typed so far.
// A word being typed that starts with "-" is passed along, so that sim
// lists the flags it matches; a bare "--" would end sim's flags, so "-"
// (every flag) is passed for it and the shell keeps those starting "--".
var bashCompletion = fmt.Sprintf(`# bash completion for sim: source <(sim completion bash)
_sim_complete() {
  local cur words
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ "$cur" == -- ]]; then
    words+=(-)
  elif [[ "$cur" == -* ]]; then
    words+=("$cur")
  fi
  COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" %[1]s 2>/dev/null)" -- "$cur"))
  return 0
}
complete -o bashdefault -o default -F _sim_complete sim
`, "--generate-bash-completion")

// The zsh script does the same through compdef; files when sim offers
// nothing (a flag's value). Saved as _sim in $fpath, compinit autoloads
// the file as the function _sim: its first call defines the function and
// completes.
var zshCompletion = fmt.Sprintf(`#compdef sim
# zsh completion for sim: source <(sim completion zsh), or save as _sim in $fpath
_sim() {
  local -a opts args
  local cur=${words[CURRENT]}
  args=("${(@)words[2,CURRENT-1]}")
  if [[ "$cur" == -- ]]; then
    args+=(-)
  elif [[ "$cur" == -* ]]; then
    args+=("$cur")
  fi
  opts=("${(@f)$(${words[1]} "${args[@]}" %[1]s 2>/dev/null)}")
  if [[ -n "${opts[1]}" ]]; then
    compadd -- "${opts[@]}"
  else
    _files
  fi
}
if [[ "$(basename -- ${(%%):-%%x})" != "_sim" ]]; then
  compdef _sim sim
else
  _sim "$@"
fi
`, "--generate-bash-completion")
