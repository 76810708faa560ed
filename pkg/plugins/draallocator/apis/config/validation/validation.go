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

package validation

import (
	"errors"
	"slices"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

// ValidateDRAAllocatorArgs validates internal DRAAllocator args and returns
// every violation as an aggregated field.ErrorList, or nil if args are
// valid. path is prepended to every field path and may be nil.
//
// Rules: filterTimeout >= 0 (0 disables the limit), bindingTimeout > 0,
// scoringStrategy.type, deviceSelectionPolicy and preemption must be one of
// the supported constants, maxPlacements >= 0, groupPlanTimeout >= 0 (0:
// filterTimeout), consistencyCheckInterval >= 0 (0 checks only on
// SIGUSR2).
func ValidateDRAAllocatorArgs(path *field.Path, args *config.DRAAllocatorArgs) error {
	if args == nil {
		if path == nil {
			return utilerrors.NewAggregate([]error{errors.New("args must not be nil")})
		}
		return field.ErrorList{field.Required(path, "args must not be nil")}.ToAggregate()
	}
	var allErrs field.ErrorList

	if d := args.FilterTimeout.Duration; d < 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("filterTimeout"), d.String(),
			"must be zero (no limit) or positive"))
	}
	if d := args.BindingTimeout.Duration; d <= 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("bindingTimeout"), d.String(),
			"must be positive"))
	}

	if t := args.ScoringStrategy.Type; !slices.Contains(config.ScoringStrategyTypes(), t) {
		allErrs = append(allErrs, field.NotSupported(path.Child("scoringStrategy", "type"), t,
			config.ScoringStrategyTypes()))
	}
	if p := args.DeviceSelectionPolicy; !slices.Contains(config.DeviceSelectionPolicies(), p) {
		allErrs = append(allErrs, field.NotSupported(path.Child("deviceSelectionPolicy"), p,
			config.DeviceSelectionPolicies()))
	}
	if p := args.Preemption; !slices.Contains(config.PreemptionModes(), p) {
		allErrs = append(allErrs, field.NotSupported(path.Child("preemption"), p,
			config.PreemptionModes()))
	}
	if p := args.PlacementScoring; !slices.Contains(config.PlacementScoringTypes(), p) {
		allErrs = append(allErrs, field.NotSupported(path.Child("placementScoring"), p,
			config.PlacementScoringTypes()))
	}
	if args.MaxPlacements < 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("maxPlacements"), args.MaxPlacements,
			"must be at least 0 (0 tries every domain)"))
	}
	if d := args.GroupPlanTimeout.Duration; d < 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("groupPlanTimeout"), d.String(),
			"must be zero (filterTimeout applies) or positive"))
	}
	if d := args.ConsistencyCheckInterval.Duration; d < 0 {
		allErrs = append(allErrs, field.Invalid(path.Child("consistencyCheckInterval"), d.String(),
			"must be zero (check only on SIGUSR2) or positive"))
	}

	return allErrs.ToAggregate()
}
