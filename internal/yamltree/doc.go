// Package yamltree holds helpers on YAML node trees shared by the
// scenario overlays (sim) and the sweep, gate and tune files (results):
// Clone; Line, the line of a field path, and PathAtLine, the field path
// of a line, for errors that name both; Fields, a struct type's YAML keys;
// SyntaxLine, the true line of a YAML syntax error (the library counts its
// parser's lines from 0).
package yamltree
