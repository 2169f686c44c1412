// Package yamltree holds helpers on YAML node trees shared by the
// scenario overlays (sim) and the sweep, gate and tune files (results).
package yamltree
