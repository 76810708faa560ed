package benchcompare

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Tools whose reports this package reads.
const (
	ToolAllocator = "dra-bench allocator"
	ToolScheduler = "dra-bench scheduler"
)

// Metric is one measured value with its unit. Units follow the Go
// benchmark format: "ns/op" and the like are lower-is-better; "pods/s" is
// higher-is-better (HigherIsBetter).
type Metric struct {
	Unit  string
	Value float64
}

// Result is one benchmark run: a name in benchmark form
// ("Allocator/scenario=…/nodes=100/impl=ours") and its metrics.
type Result struct {
	Name    string
	Metrics []Metric
}

// Report is a report's results and where they were measured.
type Report struct {
	Tool   string
	Env    Env
	Result []Result
	// Notes are results left out and why.
	Notes []string
}

// Env is the provenance of a report (benchenv.Environment's JSON form).
type Env struct {
	Version     string `json:"version"`
	VCSRevision string `json:"vcsRevision"`
	VCSModified bool   `json:"vcsModified"`
	Go          string `json:"go"`
	Platform    string `json:"platform"`
	CPUModel    string `json:"cpuModel"`
	CPUs        int    `json:"cpus"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	Kernel      string `json:"kernel"`
	GOGC        string `json:"gogc"`
	GOMEMLIMIT  string `json:"gomemlimit"`
}

// HigherIsBetter reports whether a larger value of unit is an improvement.
func HigherIsBetter(unit string) bool { return strings.HasSuffix(unit, "/s") }

// ReadFile reads a dra-bench JSON report.
func ReadFile(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Parse reads a dra-bench JSON report of either tool.
func Parse(data []byte) (*Report, error) {
	var head struct {
		Tool string `json:"tool"`
		Env
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a dra-bench JSON report: %w", err)
	}
	r := &Report{Tool: head.Tool, Env: head.Env}
	var err error
	switch head.Tool {
	case ToolAllocator:
		err = r.parseAllocator(data)
	case ToolScheduler:
		err = r.parseScheduler(data)
	default:
		return nil, fmt.Errorf("tool %q: not a dra-bench allocator or scheduler report (dra-bench ... --format json or --json-out)", head.Tool)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// allocatorLatency is allocbench.Latency's JSON form.
type allocatorLatency struct {
	Samples     int     `json:"samples"`
	P50Ns       float64 `json:"p50Ns"`
	P99Ns       float64 `json:"p99Ns"`
	AllocsPerOp float64 `json:"allocsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
}

func (r *Report) parseAllocator(data []byte) error {
	var rep struct {
		Results []struct {
			Scenario  string `json:"scenario"`
			Occupancy string `json:"occupancy"`
			Nodes     int    `json:"nodes"`
			Ours      struct {
				NodeCheck allocatorLatency `json:"nodeCheck"`
				PerPod    allocatorLatency `json:"perPod"`
			} `json:"ours"`
			Upstream struct {
				NodeCheck allocatorLatency `json:"nodeCheck"`
				PerPod    allocatorLatency `json:"perPod"`
			} `json:"upstream"`
			Error string `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("allocator report: %w", err)
	}
	for _, res := range rep.Results {
		base := fmt.Sprintf("Allocator/scenario=%s/occupancy=%s/nodes=%d", benchPart(res.Scenario), benchPart(res.Occupancy), res.Nodes)
		if res.Error != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("%s left out: %s", base, res.Error))
			continue
		}
		for _, impl := range []struct {
			name       string
			check, pod allocatorLatency
		}{{"ours", res.Ours.NodeCheck, res.Ours.PerPod}, {"upstream", res.Upstream.NodeCheck, res.Upstream.PerPod}} {
			if impl.check.Samples == 0 {
				continue
			}
			r.Result = append(r.Result, Result{Name: base + "/impl=" + impl.name, Metrics: []Metric{
				{"ns/op", impl.check.P50Ns},
				{"p99-ns/op", impl.check.P99Ns},
				{"B/op", impl.check.BytesPerOp},
				{"allocs/op", impl.check.AllocsPerOp},
				{"pod-ns/op", impl.pod.P50Ns},
			}})
		}
	}
	return nil
}

func (r *Report) parseScheduler(data []byte) error {
	var rep struct {
		Settings struct {
			Shape  string `json:"shape"`
			Claims string `json:"claims"`
		} `json:"settings"`
		Results []struct {
			Nodes         int     `json:"nodes"`
			Config        string  `json:"config"`
			Pods          int     `json:"pods"`
			Bound         int     `json:"bound"`
			PendingPods   int     `json:"pendingPods"`
			PodsPerSecond float64 `json:"podsPerSecond"`
			Latency       struct {
				P50Ns float64 `json:"p50Ns"`
				P99Ns float64 `json:"p99Ns"`
			} `json:"latency"`
			SchedulerPeakRSSBytes float64 `json:"schedulerPeakRSSBytes"`
			SchedulerCPUSeconds   float64 `json:"schedulerCPUSeconds"`
			Error                 string  `json:"error"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("scheduler report: %w", err)
	}
	for _, res := range rep.Results {
		name := fmt.Sprintf("Scheduler/shape=%s/claims=%s/nodes=%d/pods=%d/config=%s", benchPart(rep.Settings.Shape), benchPart(rep.Settings.Claims), res.Nodes, res.Pods, benchPart(res.Config))
		if res.PendingPods > 0 {
			name = fmt.Sprintf("%s/pending=%d", name, res.PendingPods)
		}
		if res.Error != "" || res.Bound == 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s left out: %s", name, firstNonEmpty(res.Error, "no pod bound")))
			continue
		}
		r.Result = append(r.Result, Result{Name: name, Metrics: []Metric{
			{"pods/s", res.PodsPerSecond},
			{"p50-ns", res.Latency.P50Ns},
			{"p99-ns", res.Latency.P99Ns},
			{"sched-cpu-ns/pod", res.SchedulerCPUSeconds * 1e9 / float64(res.Bound)},
			{"sched-peak-rss-B", res.SchedulerPeakRSSBytes},
		}})
	}
	return nil
}

// benchPart makes a value safe inside a benchmark name (no spaces; "/"
// separates parts).
func benchPart(s string) string {
	return strings.NewReplacer(" ", "_", "/", ":").Replace(s)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
