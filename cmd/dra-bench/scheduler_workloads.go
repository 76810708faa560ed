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

package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
)

// The scheduler subcommand's flags that depend on --workload: the
// default configurations and shape of each workload, and the flags that
// go with one workload only.

// gangShape is the default shape of --workload gang: partitionable GPUs.
const gangShape = "h100-mig"

// gangPreemptionShape is the default shape of --workload
// gang-preemption: 4 whole GPUs per node, an NVL72 rack's compute tray.
const gangPreemptionShape = "h100x4"

// gangPreemptionConfigs are the default configurations of --workload
// gang-preemption: ours beside the device-plugin baseline, whose stock
// kube-scheduler preempts for a gang's extended resource, and in-tree.
const gangPreemptionConfigs = "ours,device-plugin,in-tree"

// completeWorkload turns the workload-dependent flags into options, after
// --workload: the configurations, shape and claims mode, and the
// workloads' own flags.
func (f *schedulerFlags) completeWorkload() error {
	var err error
	w := f.opts.Workload
	preemption, gang := w == schedbench.WorkloadPreemption, w == schedbench.WorkloadGang
	gangPreemption := w == schedbench.WorkloadGangPreemption
	configs := f.configs
	switch {
	case configs != "":
	case gangPreemption && f.opts.ConfigFile != "":
		configs = "file,device-plugin,in-tree"
	case gangPreemption:
		configs = gangPreemptionConfigs
	default:
		configs = "ours,in-tree,no-claims"
		if f.opts.ConfigFile != "" {
			configs = "file,in-tree,no-claims"
		}
		if preemption || gang {
			// no-claims has no devices to preempt for or to plan.
			configs = strings.TrimSuffix(configs, ",no-claims")
		}
	}
	if f.opts.Configs, err = schedbench.ParseConfigs(configs); err != nil {
		return fmt.Errorf("--configs: %w", err)
	}
	if hasFile := slices.Contains(f.opts.Configs, schedbench.ConfigFile); hasFile != (f.opts.ConfigFile != "") {
		return errors.New("--config FILE and the configuration \"file\" go together")
	}
	shape := f.shape
	switch {
	case shape != "":
	case gang:
		shape = gangShape
	case gangPreemption:
		shape = gangPreemptionShape
	default:
		shape = schedbench.DefaultOptions().Shape.Name
	}
	if f.opts.Shape, err = schedbench.ShapeByName(shape); err != nil {
		return fmt.Errorf("--shape: %w", err)
	}
	switch mode := schedbench.ClaimMode(f.claims); mode {
	case schedbench.ClaimsTemplate, schedbench.ClaimsPerPod:
		f.opts.Claims = mode
	default:
		return fmt.Errorf("--claims %q: want %s or %s", f.claims, schedbench.ClaimsTemplate, schedbench.ClaimsPerPod)
	}
	if err := checkFormat(f.format); err != nil {
		return err
	}
	d := schedbench.DefaultOptions()
	switch {
	case (preemption || gang || gangPreemption) && f.chart != "":
		return fmt.Errorf("--chart draws throughput against cluster size: not with --workload %s", w)
	case !preemption && (f.opts.Preemptors != 0 || f.opts.PreemptionTimeout != d.PreemptionTimeout):
		return errors.New("--preemptors and --preemption-timeout go with --workload preemption")
	case f.opts.Preemptors < 0:
		return fmt.Errorf("--preemptors %d: want at least 1", f.opts.Preemptors)
	case gangPreemption && (f.opts.GangSize != d.GangSize || f.gangPlacement != string(d.GangPlacement)):
		return errors.New("--gang-size and --gang-placement go with --workload gang; with gang-preemption every gang is in one rack, of --gang-sizes")
	case !gang && !gangPreemption && (f.opts.GangSize != d.GangSize || f.opts.Gangs != 0 || f.gangPlacement != string(d.GangPlacement) || f.opts.GangTimeout != d.GangTimeout || f.opts.RackSize != 0):
		return errors.New("--gang-size, --gangs, --gang-placement, --gang-timeout and --rack-size go with --workload gang")
	case !gangPreemption && f.gangSizes != "":
		return errors.New("--gang-sizes goes with --workload gang-preemption")
	case f.opts.RackSize < 0:
		return fmt.Errorf("--rack-size %d: want at least 1", f.opts.RackSize)
	case f.opts.GangSize < 2:
		return fmt.Errorf("--gang-size %d: want at least 2", f.opts.GangSize)
	case f.opts.Gangs < 0:
		return fmt.Errorf("--gangs %d: want at least 1", f.opts.Gangs)
	case f.opts.GangTimeout <= 0:
		return fmt.Errorf("--gang-timeout %v: want a positive duration", f.opts.GangTimeout)
	}
	if f.opts.GangSizes, err = parseGangSizes(f.gangSizes); err != nil {
		return fmt.Errorf("--gang-sizes: %w", err)
	}
	if f.opts.GangPlacement, err = schedbench.ParseGangPlacement(f.gangPlacement); err != nil {
		return fmt.Errorf("--gang-placement: %w", err)
	}
	return nil
}

// parseGangSizes parses --gang-sizes: nil for none (the default sizes).
func parseGangSizes(list string) ([]int, error) {
	var sizes []int
	for _, s := range splitList(list) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			return nil, fmt.Errorf("%q is not a gang size of at least 2 pods", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}
