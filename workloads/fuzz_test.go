package workloads

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzRequests reads a whole request trace from data: it must never panic.
func fuzzRequests(t *testing.T, data []byte, ext string) {
	path := filepath.Join(t.TempDir(), "trace"+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, closer, err := OpenRequestTrace(path, "", ReplayOptions{})
	if err != nil {
		return
	}
	defer closer.Close()
	for n := 0; n < 1_000_000; n++ {
		if _, ok := src.Next(); !ok {
			break
		}
	}
	_ = src.Err()
}

// FuzzAzureTrace: the Azure CSV importer never panics.
func FuzzAzureTrace(f *testing.F) {
	for _, s := range []string{
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n",
		"\ufeffTIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,-1,44\n",
		"TIMESTAMP,ContextTokens\nx\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRequests(t, data, ".csv") })
}

// FuzzMooncakeTrace: the Mooncake JSON Lines importer never panics.
func FuzzMooncakeTrace(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 6955, "output_length": 52, "hash_ids": [0, 1]}` + "\n" + `{"timestamp": 10, "input_length": 10, "output_length": 5}` + "\n",
		`{"timestamp": 5, "input_length": 1e30, "output_length": -2}` + "\n",
		"{\n", "\x1f\x8b\x08",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRequests(t, data, ".jsonl") })
}
