package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one part of a job split N ways: it owns the items whose index
// modulo N is I (0 ≤ I < N).
type Shard struct{ I, N int }

// Whole is the unsharded job.
var Whole = Shard{0, 1}

// Owns reports whether item i is this shard's.
func (s Shard) Owns(i int) bool { return s.N <= 1 || i%s.N == s.I }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// ParseShard reads "I/N".
func ParseShard(v string) (Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("want I/N with 0 <= I < N, got %q", v)
	}
	return Shard{i, n}, nil
}

// ShardEnv lists the array-job engines a shard is read from, in order:
// the index variable, the count variable, and the variable holding the
// first index (subtracted; Slurm arrays may start at 1).
var ShardEnv = []struct{ Index, Count, Min string }{
	{"JOB_COMPLETION_INDEX", "SIM_SHARDS", ""},                                // Kubernetes Indexed Job (count: set it to .spec.completions)
	{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN"}, // Slurm job array
	{"AWS_BATCH_JOB_ARRAY_INDEX", "SIM_SHARDS", ""},                           // AWS Batch array job (count: the array size)
}

// ShardFromEnv is the shard the environment names (ok false when none).
func ShardFromEnv(getenv func(string) string) (s Shard, ok bool, err error) {
	for _, e := range ShardEnv {
		iv := getenv(e.Index)
		if iv == "" {
			continue
		}
		cv := getenv(e.Count)
		if cv == "" {
			return Shard{}, false, fmt.Errorf("%s is set but %s is not: set it to the number of shards", e.Index, e.Count)
		}
		i, err1 := strconv.Atoi(iv)
		n, err2 := strconv.Atoi(cv)
		if e.Min != "" && getenv(e.Min) != "" {
			m, err3 := strconv.Atoi(getenv(e.Min))
			if err3 != nil {
				return Shard{}, false, fmt.Errorf("%s: not a number: %q", e.Min, getenv(e.Min))
			}
			i -= m
		}
		if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return Shard{}, false, fmt.Errorf("%s=%s, %s=%s: not a shard index below the count", e.Index, iv, e.Count, cv)
		}
		return Shard{i, n}, true, nil
	}
	return Whole, false, nil
}
