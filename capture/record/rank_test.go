package record

import (
	"strings"
	"testing"
	"time"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestRankFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  func(string) string
		rank int
		from string
	}{
		{env(), 0, ""},
		{env("OMPI_COMM_WORLD_RANK", "5"), 5, "OMPI_COMM_WORLD_RANK"},
		{env("PMI_RANK", "7", "SLURM_PROCID", "3"), 7, "PMI_RANK"},
		{env("PMIX_RANK", "2"), 2, "PMIX_RANK"},
		{env("SLURM_PROCID", "11"), 11, "SLURM_PROCID"},
		{env("MV2_COMM_WORLD_RANK", "4"), 4, "MV2_COMM_WORLD_RANK"},
		{env("OMPI_COMM_WORLD_RANK", "1", "PMIX_RANK", "9"), 1, "OMPI_COMM_WORLD_RANK"},
	} {
		r, from, err := RankFromEnv(c.env)
		if err != nil || r != c.rank || from != c.from {
			t.Errorf("got rank %d from %q (%v), want %d from %q", r, from, err, c.rank, c.from)
		}
	}
	if _, _, err := RankFromEnv(env("PMI_RANK", "x")); err == nil || !strings.Contains(err.Error(), "PMI_RANK") {
		t.Errorf("a bad rank gives %v", err)
	}
}

func TestLaunchID(t *testing.T) {
	now := time.Unix(100, 0)
	a := LaunchID(env("PMIX_NAMESPACE", "797114369", "PMIX_RANK", "0"), "h", 1, now)
	b := LaunchID(env("PMIX_NAMESPACE", "797114369", "PMIX_RANK", "3"), "h", 2, now.Add(time.Second))
	c := LaunchID(env("PMIX_NAMESPACE", "797114370", "PMIX_RANK", "3"), "h", 2, now)
	if a != b || a == c {
		t.Errorf("ranks of one launch: %q %q; another launch: %q", a, b, c)
	}
	s1 := LaunchID(env("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "0"), "h", 1, now)
	s2 := LaunchID(env("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "1"), "h", 1, now)
	if s1 == s2 {
		t.Errorf("two Slurm steps share %q", s1)
	}
	if LaunchID(env(), "h", 1, now) == LaunchID(env(), "h", 1, now.Add(time.Nanosecond)) {
		t.Error("two runs outside a launcher share a launch id")
	}
}

func TestLaunchFromEnv(t *testing.T) {
	cases := []struct {
		env        map[string]string
		rank, size int
		err        string
	}{
		{nil, 0, 1, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8"}, 3, 8, ""},
		{map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "128"}, 0, 128, ""},
		{map[string]string{"PMI_RANK": "1", "PMI_SIZE": "2"}, 1, 2, ""},
		{map[string]string{"OMPI_COMM_WORLD_RANK": "3"}, 0, 0, "OMPI_COMM_WORLD_SIZE"},
		{map[string]string{"PMIX_RANK": "3"}, 0, 0, "no variable for it"},
		{map[string]string{"SLURM_PROCID": "4", "SLURM_NTASKS": "4"}, 0, 0, "not a rank among"},
	}
	for _, c := range cases {
		r, s, err := LaunchFromEnv(func(k string) string { return c.env[k] })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: %v, want an error saying %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil || r != c.rank || s != c.size {
			t.Errorf("%v: rank %d of %d, %v; want %d of %d", c.env, r, s, err, c.rank, c.size)
		}
	}
}
