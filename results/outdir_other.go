//go:build !linux

package results

import "errors"

// exchange is not available: Commit falls back to two renames.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }
