// Package version reports the version of dra-scheduler and the Kubernetes
// release it embeds.
//
// Both values are stamped at link time by the Makefile:
//
//	-X github.com/dra-scheduler/dra-scheduler/pkg/version.version=<ours>
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

// version is set with -ldflags -X; "dev" marks an unstamped build.
var version = "dev"

// Version returns dra-scheduler's own version.
func Version() string { return version }

// Kubernetes returns the version of the embedded Kubernetes scheduler.
func Kubernetes() string { return k8sversion.Get().GitVersion }

// String describes this binary in one line, e.g.
// "dra-scheduler v0.1.0 (Kubernetes v1.37.2, go1.26.8 linux/amd64)".
func String(program string) string {
	return fmt.Sprintf("%s %s (Kubernetes %s, %s %s/%s)",
		program, Version(), Kubernetes(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
