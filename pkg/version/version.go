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

// Package version reports the version of dra-scheduler, the commit it was
// built from and the Kubernetes release it embeds.
//
// All three are stamped at link time by the Makefile:
//
//	-X github.com/dra-scheduler/dra-scheduler/pkg/version.version=<ours>
//	-X github.com/dra-scheduler/dra-scheduler/pkg/version.commit=<git rev-parse --short HEAD>
//	-X k8s.io/component-base/version.gitVersion=<kubernetes>
//
// The Kubernetes version must stay the embedded release (not ours): the
// scheduler derives its effective version, and with it feature-gate
// defaults, from it.
package version

import (
	"fmt"
	"runtime"

	k8sversion "k8s.io/component-base/version"
)

// version and commit are set with -ldflags -X; "dev" and "unknown" mark
// an unstamped build.
var (
	version = "dev"
	commit  = "unknown"
)

// Version returns dra-scheduler's own version.
func Version() string { return version }

// Commit returns the git commit the binary was built from (short hash), or
// "unknown".
func Commit() string { return commit }

// Kubernetes returns the version of the embedded Kubernetes scheduler.
func Kubernetes() string { return k8sversion.Get().GitVersion }

// String describes this binary in one line, e.g.
// "dra-scheduler v0.1.0 (commit 1a2b3c4, Kubernetes v1.37.2, go1.26.8 linux/amd64)".
func String(program string) string {
	return format(program, Version(), Commit(), Kubernetes())
}

// format is String with the stamped values as arguments.
func format(program, version, commit, kubernetes string) string {
	return fmt.Sprintf("%s %s (commit %s, Kubernetes %s, %s %s/%s)",
		program, version, commit, kubernetes, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
