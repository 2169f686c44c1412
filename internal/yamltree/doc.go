// Package yamltree holds helpers on YAML node trees shared by the
// scenario overlays (sim) and the sweep, gate and tune files (results):
// Clone, and Line, the line of a field path, for errors that name it.
package yamltree
