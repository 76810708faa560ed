/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package schedbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator"
)

// The consistency check's metrics (pkg/plugins/draallocator/metrics) the
// soak reads from the scheduler's /metrics.
const (
	// metricDifferencesTotal counts each difference a check found once
	// while it lasts, by kind.
	metricDifferencesTotal = "dra_scheduler_cache_differences_total"
	// metricLastDifferences is what the last check found.
	metricLastDifferences = "dra_scheduler_consistency_check_differences"
	// metricChecks is the number of checks run (the duration histogram's
	// count).
	metricChecks = "dra_scheduler_consistency_check_duration_seconds_count"
)

// differenceLogLine is what the plugin logs for each difference it finds.
const differenceLogLine = "DRAAllocator state differs from the API"

// maxDifferencesLogged bounds the log lines a report quotes.
const maxDifferencesLogged = 20

// finalCheckTimeout bounds the wait for the check a soak runs at the end.
const finalCheckTimeout = time.Minute

// withConsistencyCheck sets consistencyCheckInterval in DRAAllocator's
// args of every profile of a KubeSchedulerConfiguration (YAML or JSON),
// adding the args where the profile has none; the result is YAML.
func withConsistencyCheck(config []byte, every time.Duration) ([]byte, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	profiles, _ := cfg["profiles"].([]any)
	if len(profiles) == 0 {
		return nil, errors.New("scheduler configuration: no profiles to set the consistency check's interval in")
	}
	for i, p := range profiles {
		profile, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("scheduler configuration: profile %d is not an object", i)
		}
		pluginConfig, _ := profile["pluginConfig"].([]any)
		var args map[string]any
		for _, pc := range pluginConfig {
			if pc, ok := pc.(map[string]any); ok && pc["name"] == draallocator.Name {
				if args, _ = pc["args"].(map[string]any); args == nil {
					args = map[string]any{}
					pc["args"] = args
				}
			}
		}
		if args == nil {
			args = map[string]any{}
			pluginConfig = append(pluginConfig, map[string]any{"name": draallocator.Name, "args": args})
		}
		args["consistencyCheckInterval"] = every.String()
		profile["pluginConfig"] = pluginConfig
	}
	return yaml.Marshal(cfg)
}

// differencesByKind reads dra_scheduler_cache_differences_total's series,
// as scrape keys them (`name{kind="allocation"}`), by kind.
func differencesByKind(values map[string]float64) map[string]int {
	out := map[string]int{}
	for series, v := range values {
		rest, ok := strings.CutPrefix(series, metricDifferencesTotal+"{")
		if !ok || v == 0 {
			continue
		}
		kind := "?"
		for _, label := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
			if value, ok := strings.CutPrefix(label, "kind="); ok {
				kind = strings.Trim(value, `"`)
			}
		}
		out[kind] += int(v)
	}
	return out
}

// total adds up the differences of every kind.
func total(byKind map[string]int) int {
	n := 0
	for _, v := range byKind {
		n += v
	}
	return n
}

// describeKinds renders differences by kind as "allocation 2, slice 1".
func describeKinds(byKind map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, byKind[k]))
	}
	return strings.Join(parts, ", ")
}

// loggedDifferences returns the first limit lines of the scheduler's log
// that name a difference the consistency check found.
func loggedDifferences(path string, limit int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() && len(out) < limit {
		if line := sc.Text(); strings.Contains(line, differenceLogLine) {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// finalConsistencyCheck makes the scheduler run its consistency check now
// (SIGUSR2) and waits until it has, then records what every check found
// in the report.
func finalConsistencyCheck(ctx context.Context, sched *child, rep *SoakReport) error {
	client := loopbackClient()
	defer client.CloseIdleConnections()
	read := func() (map[string]float64, error) {
		return scrape(ctx, client, sched.port, metricChecks, metricLastDifferences, metricDifferencesTotal)
	}
	before, err := read()
	if err != nil {
		return fmt.Errorf("read the consistency check's metrics: %w", err)
	}
	if err := sched.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return fmt.Errorf("signal the scheduler to run its consistency check: %w", err)
	}
	deadline := time.Now().Add(finalCheckTimeout)
	for {
		after, err := read()
		if err == nil && after[metricChecks] > before[metricChecks] {
			rep.ConsistencyChecks = int(after[metricChecks])
			rep.FinalDifferences = int(after[metricLastDifferences])
			rep.CacheDifferences = differencesByKind(after)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the scheduler ran no consistency check within %v of SIGUSR2 (%v before)", finalCheckTimeout, before[metricChecks])
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// consistencyProblems are the report's failed consistency verdicts: a
// soak must see checks run and none find anything, during the churn or
// after it.
func consistencyProblems(rep *SoakReport) []string {
	var problems []string
	if rep.ConsistencyChecks == 0 {
		problems = append(problems, "the scheduler ran no consistency check")
	}
	if n := total(rep.CacheDifferences); n > 0 {
		problems = append(problems, fmt.Sprintf("the consistency check found %d difference(s) between the plugin's state and the API (%s); the scheduler's log names them (%q): %s",
			n, describeKinds(rep.CacheDifferences), differenceLogLine, rep.SchedulerLog))
	}
	if rep.FinalDifferences > 0 {
		problems = append(problems, fmt.Sprintf("the consistency check after the churn found %d difference(s)", rep.FinalDifferences))
	}
	return problems
}
