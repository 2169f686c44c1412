// Package field is the lab's one input error: a problem with one field of a
// scenario, trace or flag, located by file, line and field path, and read
// with errors.As instead of re-parsing strings.
//
// Rendered as "FILE:LINE: PATH: MSG"; parts that are unknown are left out
// ("PATH: MSG" before a file is known, "FILE: PATH: MSG" without a line).
package field
