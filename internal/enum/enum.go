package enum

import "strings"

// Of is the member of set named s, and whether there is one. The member
// returned is the set's own value, so it keeps nothing of s (a line read
// from a file, say).
func Of[T ~string](set []T, s string) (T, bool) {
	for _, v := range set {
		if string(v) == s {
			return v, true
		}
	}
	return "", false
}

// List names a set for an error: "a", "a or b", "a, b or c".
func List[T ~string](set []T) string {
	names := make([]string, len(set))
	for i, v := range set {
		names[i] = string(v)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
