package field

import (
	"errors"
	"fmt"
	"testing"
)

func TestRendering(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"path only", Errorf("tick", "must be > 0, got %d", -1), "tick: must be > 0, got -1"},
		{"under", Under("policies.scheduler", Errorf("tick", "bad")), "policies.scheduler.tick: bad"},
		{"under index", Under("models", Errorf("[3].decode_rate", "bad")), "models[3].decode_rate: bad"},
		{"under twice", Under("a", Under("b", Errorf("c", "bad"))), "a.b.c: bad"},
		{"plain under", Under("production[0]", errors.New("no such file")), "production[0]: no such file"},
		{"in file", In("s.yaml", 12, Errorf("models[3].decode_rate", "must be > 0")), "s.yaml:12: models[3].decode_rate: must be > 0"},
		{"in file no line", In("s.yaml", 0, Errorf("x", "bad")), "s.yaml: x: bad"},
		{"record", In("t.jsonl", 4, &Error{Msg: "not JSON"}), "t.jsonl:4: not JSON"},
		{"plain in", In("s.yaml", 3, errors.New("boom")), "s.yaml:3: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadWithErrorsAs(t *testing.T) {
	err := fmt.Errorf("loading: %w", In("s.yaml", 7, Under("gateway", Errorf("retry.base", "must be > 0"))))
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatal("errors.As found no *field.Error")
	}
	want := Error{File: "s.yaml", Line: 7, Path: "gateway.retry.base", Msg: "must be > 0"}
	if *fe != want {
		t.Errorf("got %+v, want %+v", *fe, want)
	}
	// Under and In copy: the original stays as it was.
	orig := Errorf("x", "bad")
	_ = In("f", 1, Under("p", orig))
	if got := orig.Error(); got != "x: bad" {
		t.Errorf("original changed to %q", got)
	}
	// A line already known is kept.
	if got := In("f", 9, &Error{Line: 3, Path: "p", Msg: "m"}).Error(); got != "f:3: p: m" {
		t.Errorf("got %q", got)
	}
	sentinel := errors.New("sentinel")
	if !errors.Is(In("f", 2, sentinel), sentinel) {
		t.Error("In lost the wrapped error")
	}
}
