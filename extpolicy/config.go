package extpolicy

import (
	"fmt"
	"strings"
	"time"

	"github.com/evalsched/lab/internal/field"
)

// DefaultTimeout is how long the process may take over one decision (and
// over its handshake) when Config.Timeout is not set.
const DefaultTimeout = 30 * time.Second

// Config is the scenario block policies.exec: the process to run, how long
// it may take per decision, and settings handed to it in the handshake.
type Config struct {
	// Command is the program and its arguments (no shell). A policy named
	// exec:CMD runs CMD instead, split into words as a shell would
	// (quotes and backslashes, no expansion).
	Command []string `yaml:"command" json:"command,omitempty"`
	// Timeout bounds the time from sending a decide message to reading its
	// plan, and the handshake (0 → 30s).
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
	// Config is handed to the process as the handshake's config, as JSON.
	Config map[string]any `yaml:"config" json:"config,omitempty"`
}

// Validate checks the block; errors are *field.Error at its keys.
func (c Config) Validate([]string) error {
	if c.Timeout < 0 {
		return field.Errorf("timeout", "must be > 0 (0 = %v), got %v", DefaultTimeout, c.Timeout)
	}
	for i, a := range c.Command {
		if i == 0 && a == "" {
			return field.Errorf("command[0]", "an empty program name")
		}
	}
	return nil
}

// Words splits a command line into words as a POSIX shell would split a
// simple command: blanks separate words, single quotes keep everything,
// double quotes keep everything but \" and \\, a backslash outside quotes
// keeps the next character. Nothing is expanded.
func Words(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false // inside a word
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
