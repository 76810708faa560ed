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
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
)

// FeatureGates are kube-scheduler feature gates by name, as its
// --feature-gates flag sets them.
type FeatureGates map[string]bool

// DefaultConfigFeatureGates returns the feature gates each configuration's
// scheduler gets by default, under the gates of Options.FeatureGates (a
// gate given there wins). A configuration without an entry gets only
// Options.FeatureGates. Change the list here; reports name the gates every
// scheduler ran with (Result.SchedulerFeatureGates).
func DefaultConfigFeatureGates() map[Config]FeatureGates {
	return map[Config]FeatureGates{
		// DRAAllocator implements (or is about to) a PreQueueingHint, which
		// kube-scheduler only calls with this gate (alpha and off by default
		// in 1.37; KEP-6132).
		ConfigOurs: {string(features.SchedulerPreQueueingHints): true},
	}
}

// ParseFeatureGates parses a --feature-gates value, "A=true,B=false" (the
// optional component prefix "kube:" is dropped, as kube-scheduler does), and
// validates it with ValidateFeatureGates. An empty value is no gates.
func ParseFeatureGates(value string) (FeatureGates, error) {
	gates := FeatureGates{}
	for _, pair := range strings.Split(value, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, val, ok := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if component, gate, prefixed := strings.Cut(name, ":"); prefixed {
			if component != "kube" {
				return nil, fmt.Errorf("feature gate %q: component %q is not the scheduler's (only kube: or no prefix)", pair, component)
			}
			name = gate
		}
		if !ok || name == "" {
			return nil, fmt.Errorf("feature gate %q: want name=true or name=false", pair)
		}
		enabled, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("feature gate %q: value is not a boolean: %w", pair, err)
		}
		if prev, seen := gates[name]; seen && prev != enabled {
			return nil, fmt.Errorf("feature gate %s given as both %t and %t", name, prev, enabled)
		}
		gates[name] = enabled
	}
	if err := ValidateFeatureGates(gates); err != nil {
		return nil, err
	}
	return gates, nil
}

// ValidateFeatureGates checks gates as kube-scheduler would at start-up:
// known names, no gate locked to another value, no pre-alpha gate, and the
// dependencies between gates. It sets them on a copy of this process'
// default feature gate, which is the scheduler child's: the child is this
// executable, started afresh.
func ValidateFeatureGates(gates FeatureGates) error {
	if len(gates) == 0 {
		return nil
	}
	fg := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	set := fg.SetFromMap
	if withLogger, ok := fg.(featuregate.MutableFeatureGateWithLogger); ok {
		// The zero logger drops the warnings about GA and deprecated gates;
		// the scheduler logs them itself.
		set = func(m map[string]bool) error { return withLogger.SetFromMapWithLogger(klog.Logger{}, m) }
	}
	if err := set(gates); err != nil {
		return fmt.Errorf("feature gates %s: %w", gates, err)
	}
	return nil
}

// String returns the gates as the --feature-gates value, sorted by name:
// "A=true,B=false", or "" for none.
func (g FeatureGates) String() string {
	var b strings.Builder
	for i, name := range slices.Sorted(maps.Keys(g)) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%t", name, g[name])
	}
	return b.String()
}

// MergeFeatureGates returns the gates of base with those of override on top
// (override's value wins for a gate in both). Neither is modified.
func MergeFeatureGates(base, override FeatureGates) FeatureGates {
	out := make(FeatureGates, len(base)+len(override))
	maps.Copy(out, base)
	maps.Copy(out, override)
	return out
}

// SchedulerFeatureGates returns the feature gates the scheduler of
// configuration c runs with: ConfigFeatureGates[c] (DefaultConfigFeatureGates
// when ConfigFeatureGates is nil) under the shape's and the workload's
// gates (requiredFeatureGates) under FeatureGates.
func (o *Options) SchedulerFeatureGates(c Config) FeatureGates {
	defaults := o.ConfigFeatureGates
	if defaults == nil {
		defaults = DefaultConfigFeatureGates()
	}
	return MergeFeatureGates(MergeFeatureGates(defaults[c], o.requiredFeatureGates()), o.FeatureGates)
}

// requiredFeatureGates are the gates the shape's objects and the
// workload's need: on in the in-process control plane and in every
// configuration's scheduler.
func (o *Options) requiredFeatureGates() FeatureGates {
	return MergeFeatureGates(o.Shape.FeatureGates, o.workloadFeatureGates())
}

// validateFeatureGates checks the given gates, then every configuration's
// merged gates, so that a run fails before it starts anything.
func (o *Options) validateFeatureGates() error {
	if err := ValidateFeatureGates(o.FeatureGates); err != nil {
		return err
	}
	var errs []error
	for _, c := range o.Configs {
		if err := ValidateFeatureGates(o.SchedulerFeatureGates(c)); err != nil {
			errs = append(errs, fmt.Errorf("configuration %s (its defaults in ConfigFeatureGates and the given ones): %w", c, err))
		}
	}
	return errors.Join(errs...)
}
