package gatewaylog

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/evalsched/lab/workloads"
)

// timeLayouts are the forms of a spend log's times (doc.go).
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999",
}

// maxUnixSeconds is 9999-12-31T23:59:59Z: a time past it (or before 1970)
// is not a request's.
const maxUnixSeconds = 253402300799

// parseTime reads a time cell as Unix microseconds.
func parseTime(c cell) (int64, string) {
	switch c.kind {
	case 0, 'z':
		return 0, "missing"
	case 'n':
		v, err := strconv.ParseFloat(c.text, 64)
		if err != nil || !(v >= 0 && v <= maxUnixSeconds) {
			return 0, fmt.Sprintf("want Unix seconds in [0, %d], got %s", maxUnixSeconds, c.text)
		}
		return int64(v*1e6 + 0.5), ""
	case 's':
		s := strings.TrimSpace(c.text)
		if s == "" {
			return 0, "missing"
		}
		for _, layout := range timeLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				if t.Unix() < 0 || t.Unix() > maxUnixSeconds {
					return 0, fmt.Sprintf("%q is before 1970", s)
				}
				return t.UnixMicro(), ""
			}
		}
		return 0, fmt.Sprintf("want a time like 2026-11-30T14:02:11.123Z or 2026-11-30 14:02:11.123, got %q", clip(s))
	}
	return 0, fmt.Sprintf("want a time, got %s", kindName(c.kind))
}

// parseTokens reads a token count.
func parseTokens(c cell) (int32, string) {
	switch c.kind {
	case 0, 'z':
		return 0, "missing"
	case 'n', 's':
		v, err := strconv.ParseInt(strings.TrimSpace(c.text), 10, 64)
		if err != nil || v < 0 || v > maxTokens {
			return 0, fmt.Sprintf("want a token count (an integer in [0, %d]), got %q", maxTokens, clip(c.text))
		}
		return int32(v), ""
	}
	return 0, fmt.Sprintf("want a token count, got %s", kindName(c.kind))
}

// parseName reads a string field: "" when absent or null.
func parseName(c cell) (string, string) {
	switch c.kind {
	case 0, 'z':
		return "", ""
	case 's':
		if len(c.text) > workloads.MaxGatewayName {
			return "", fmt.Sprintf("longer than %d bytes: %q…", workloads.MaxGatewayName, c.text[:40])
		}
		return c.text, ""
	}
	return "", fmt.Sprintf("want a string, got %s", kindName(c.kind))
}

// parseCacheHit reads cache_hit: Python's str of a bool in the schema's
// String column, or a JSON boolean.
func parseCacheHit(c cell) (bool, string) {
	switch c.kind {
	case 0, 'z':
		return false, ""
	case 'b':
		return c.text == "true", ""
	case 's':
		switch strings.TrimSpace(c.text) {
		case "True", "true":
			return true, ""
		case "False", "false", "", "None":
			return false, ""
		}
		return false, fmt.Sprintf("want True or False, got %q", clip(c.text))
	}
	return false, fmt.Sprintf("want True or False, got %s", kindName(c.kind))
}

// parseStatus reads status: success (or absent, in older rows) or failure.
func parseStatus(c cell) (bool, string) {
	switch c.kind {
	case 0, 'z':
		return false, ""
	case 's':
		switch strings.TrimSpace(c.text) {
		case "success", "":
			return false, ""
		case "failure":
			return true, ""
		}
		return false, fmt.Sprintf("want success or failure, got %q", clip(c.text))
	}
	return false, fmt.Sprintf("want success or failure, got %s", kindName(c.kind))
}

func kindName(k byte) string {
	switch k {
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	case 'o':
		return "an object or array"
	}
	return "null"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
