package results

import (
	"math"
	"os"
)

// Finite reports whether v is a number other than ±Inf.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// FileExists reports whether p names a file (not a folder).
func FileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
