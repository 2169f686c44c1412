package results

import (
	"encoding/json"
	"math"
	"strings"
	"time"
)

// Disturbance kinds set by the simulator; a capacity event's kind is its
// scenario label (e.g. "slowdown", "outage"), DisturbanceCapacity if it has
// none.
const (
	DisturbanceStart    = "start"
	DisturbanceBurst    = "burst"
	DisturbanceCapacity = "capacity"
)

// Disturbance is an instant after which a controller must settle again: the
// start of the run, a burst of batches, a provider capacity change.
//
// In summary.json it is written by its Label: runs[].disturbances as
// {"t_s": seconds, "label": label}, a convergence row's "disturbance" as the
// label alone.
type Disturbance struct {
	Kind  string        // DisturbanceStart, DisturbanceBurst or a capacity event's label
	At    time.Duration // since the start of the run
	Model string        // the model of a capacity event; "" = every model
}

// Seconds is At in seconds.
func (d Disturbance) Seconds() float64 { return d.At.Seconds() }

// IsStart reports whether d is the start of the run.
func (d Disturbance) IsStart() bool { return d.Kind == DisturbanceStart && d.Model == "" }

// Label is the disturbance as summary.json names it: "start",
// "burst@1h0m0s", "outage@2h0m0s:gpt-5.5".
func (d Disturbance) Label() string {
	switch {
	case d.Model != "":
		return d.Kind + "@" + d.At.String() + ":" + d.Model
	case d.IsStart():
		return d.Kind
	}
	return d.Kind + "@" + d.At.String()
}

// ParseDisturbance reads a Label back; t (seconds) is the instant of a
// label that does not carry one ("start", or a label written by hand).
func ParseDisturbance(label string, t float64) Disturbance {
	// The kind may itself hold an "@": take the first one followed by a
	// duration.
	for from := 0; ; {
		i := strings.IndexByte(label[from:], '@')
		if i < 0 {
			break
		}
		i += from
		at, model, _ := strings.Cut(label[i+1:], ":")
		if d, err := time.ParseDuration(at); err == nil {
			return Disturbance{Kind: label[:i], At: d, Model: model}
		}
		from = i + 1
	}
	return Disturbance{Kind: label, At: secondsDuration(t)}
}

// secondsDuration is t seconds as a duration, to the nearest nanosecond.
func secondsDuration(t float64) time.Duration {
	if !Finite(t) {
		return 0
	}
	return time.Duration(math.Round(t * 1e9))
}

// disturbanceJSON is the form of runs[].disturbances in summary.json.
type disturbanceJSON struct {
	T     float64 `json:"t_s"`
	Label string  `json:"label"`
}

// MarshalJSON writes {"t_s": seconds, "label": Label}.
func (d Disturbance) MarshalJSON() ([]byte, error) {
	return json.Marshal(disturbanceJSON{T: d.Seconds(), Label: d.Label()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Disturbance) UnmarshalJSON(data []byte) error {
	var j disturbanceJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*d = ParseDisturbance(j.Label, j.T)
	return nil
}
