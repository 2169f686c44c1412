package yamltree

import "strings"

// parserErrors are the YAML library's parser messages (not its scanner's)
// that name a line: it reports those lines counted from 0 (its scanner's
// from 1), the line where the collection at fault opened.
var parserErrors = []string{
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
}

// SyntaxLine is the 1-based line of a YAML syntax error the library
// reported as "line N: msg".
func SyntaxLine(n int, msg string) int {
	if isParserError(msg) {
		return n + 1
	}
	return n
}

// isParserError tells a message of parserErrors.
func isParserError(msg string) bool {
	for _, p := range parserErrors {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
