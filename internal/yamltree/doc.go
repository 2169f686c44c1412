// Package yamltree is the lab's one strict YAML reading, shared by
// scenarios (scenario) and the gate, sweep and tune files (lab): Parse,
// exactly one document; Decode, known fields only; Err, a YAML library
// error (or an At of a value's own decoder) as a *field.Error at the line
// and field path, an unknown key named with the keys it could have been.
// Beside them, helpers on node trees: Clone; Line, the line of a field
// path, and PathAtLine and PathAt, the field path at a line (and column);
// Fields, a struct type's YAML keys; SyntaxLine, the true line of a YAML
// syntax error (the library counts its parser's lines from 0); Enum, a
// scalar read as one of a closed set.
package yamltree
