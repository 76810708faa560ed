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

package benchenv

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Environment is the build and the machine a benchmark ran with.
type Environment struct {
	// Version is dra-scheduler's version (version.Version(): "dev" when
	// the build was not stamped).
	Version string `json:"version,omitempty"`
	// VCSRevision, VCSTime and VCSModified are the commit the binary was
	// built from, its time, and whether the work tree had changes, as the
	// Go toolchain records them (go build in a git checkout; empty under
	// go run or go test).
	VCSRevision string `json:"vcsRevision,omitempty"`
	VCSTime     string `json:"vcsTime,omitempty"`
	VCSModified bool   `json:"vcsModified,omitempty"`
	// Go is the Go version the binary was built with.
	Go string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
	// CPUModel is the processor's model name (/proc/cpuinfo), CPUs the
	// logical CPUs, GOMAXPROCS the benchmark process' setting.
	CPUModel   string `json:"cpuModel,omitempty"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	// Kernel is the kernel release (/proc/sys/kernel/osrelease).
	Kernel string `json:"kernel,omitempty"`
	// GOGC and GOMEMLIMIT are the environment's values, which the
	// benchmark and the scheduler processes it starts share: "" means the
	// Go default (GOGC=100, no memory limit).
	GOGC       string `json:"gogc"`
	GOMEMLIMIT string `json:"gomemlimit"`
}

// Capture describes this process' build and machine; version is
// dra-scheduler's version string.
func Capture(version string) Environment {
	env := Environment{
		Version:    version,
		Go:         runtime.Version(),
		Platform:   runtime.GOOS + "/" + runtime.GOARCH,
		CPUModel:   cpuModel("/proc/cpuinfo"),
		CPUs:       runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Kernel:     firstLine("/proc/sys/kernel/osrelease"),
		GOGC:       os.Getenv("GOGC"),
		GOMEMLIMIT: os.Getenv("GOMEMLIMIT"),
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		env.VCSRevision, env.VCSTime, env.VCSModified = vcs(info.Settings)
	}
	return env
}

// vcs reads the VCS stamp from build settings.
func vcs(settings []debug.BuildSetting) (revision, time string, modified bool) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			time = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return revision, time, modified
}

// cpuModel returns the first "model name" of a cpuinfo file (x86, and
// arm64 kernels that report one), else its "Hardware" or "CPU part" line,
// else "".
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var fallback string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch key {
		case "model name":
			return value
		case "Hardware", "CPU part":
			if fallback == "" {
				fallback = key + " " + value
			}
		}
	}
	return fallback
}

// firstLine returns the file's first line, or "" if it cannot be read.
func firstLine(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(line)
}
