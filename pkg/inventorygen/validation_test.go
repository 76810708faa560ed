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

package inventorygen

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/dynamic-resource-allocation/cel"
	resourceinternal "k8s.io/kubernetes/pkg/apis/resource"
	resourceinstall "k8s.io/kubernetes/pkg/apis/resource/install"
	resourcev1 "k8s.io/kubernetes/pkg/apis/resource/v1"
	resourcevalidation "k8s.io/kubernetes/pkg/apis/resource/validation"
	_ "k8s.io/kubernetes/pkg/features" // registers the feature gates
)

// apiValidator runs the API server's defaulting and validation (hand-written
// on the internal types after conversion, declarative on the v1 types).
type apiValidator struct {
	scheme *runtime.Scheme
	cel    *cel.Cache
}

func newAPIValidator() apiValidator {
	scheme := runtime.NewScheme()
	resourceinstall.Install(scheme)
	return apiValidator{scheme: scheme, cel: cel.NewCache(100, cel.Features{EnableConsumableCapacity: true})}
}

// createOp is a create operation with every feature gate at its default,
// as the API server's strategies define the validation options.
var createOp = func() operation.Operation {
	options := map[string]bool{}
	for f := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		options[string(f)] = utilfeature.DefaultFeatureGate.Enabled(f)
	}
	return operation.Operation{Type: operation.Create, Options: options}
}()

// validate returns the validation errors of a v1 object and whether
// defaulting changes it.
func (v apiValidator) validate(t *testing.T, obj runtime.Object) (errs field.ErrorList, defaulted bool) {
	t.Helper()
	ctx := context.Background()
	copied := obj.DeepCopyObject()
	v.scheme.Default(copied)
	defaulted = !apiequality.Semantic.DeepEqual(copied, obj)
	switch o := obj.(type) {
	case *resourceapi.ResourceSlice:
		var internal resourceinternal.ResourceSlice
		if err := v.scheme.Convert(o, &internal, nil); err != nil {
			t.Fatal(err)
		}
		errs = append(resourcevalidation.ValidateResourceSlice(&internal), resourcev1.Validate_ResourceSlice(ctx, createOp, nil, o, nil)...)
	case *resourceapi.DeviceClass:
		var internal resourceinternal.DeviceClass
		if err := v.scheme.Convert(o, &internal, nil); err != nil {
			t.Fatal(err)
		}
		errs = append(resourcevalidation.ValidateDeviceClass(&internal), resourcev1.Validate_DeviceClass(ctx, createOp, nil, o, nil)...)
	case *resourceapi.ResourceClaim:
		var internal resourceinternal.ResourceClaim
		if err := v.scheme.Convert(o, &internal, nil); err != nil {
			t.Fatal(err)
		}
		errs = append(resourcevalidation.ValidateResourceClaim(&internal), resourcev1.Validate_ResourceClaim(ctx, createOp, nil, o, nil)...)
	default:
		t.Fatalf("unexpected %T", obj)
	}
	return errs, defaulted
}

var selectorPath = regexp.MustCompile(`\.selectors\[\d+\]\.cel\.expression$`)

// intended reports whether a claim validation error is one of Random's
// deliberate deviations: a selector that does not compile, or count 0.
func (v apiValidator) intended(e *field.Error) bool {
	path := e.Field
	switch {
	case selectorPath.MatchString(path):
		expr, _ := e.BadValue.(string)
		if expr == "" {
			return strings.Contains(e.Detail, "compil") || strings.Contains(e.Detail, "ERROR")
		}
		return v.cel.GetOrCompile(expr).Error != nil
	case strings.HasSuffix(path, ".count"):
		return fmt.Sprint(e.BadValue) == "0"
	}
	return false
}

func hasZeroCount(claim *resourceapi.ResourceClaim) bool {
	for _, r := range claim.Spec.Devices.Requests {
		if r.Exactly != nil && r.Exactly.AllocationMode == resourceapi.DeviceAllocationModeExactCount && r.Exactly.Count == 0 {
			return true
		}
		for _, s := range r.FirstAvailable {
			if s.AllocationMode == resourceapi.DeviceAllocationModeExactCount && s.Count == 0 {
				return true
			}
		}
	}
	return false
}

func (v apiValidator) checkCluster(t *testing.T, name string, c Cluster) {
	t.Helper()
	for _, s := range c.Slices {
		v.check(t, name+": slice "+s.Name, s, false)
	}
	for _, cl := range c.Classes {
		v.check(t, name+": class "+cl.Name, cl, false)
	}
}

// check reports unexpected validation errors and returns the number of
// intended deviations it tolerated.
func (v apiValidator) check(t *testing.T, what string, obj runtime.Object, mayDeviate bool) (deviations int) {
	t.Helper()
	errs, defaulted := v.validate(t, obj)
	for _, e := range errs {
		if mayDeviate && v.intended(e) {
			deviations++
			continue
		}
		t.Errorf("%s: %v", what, e)
	}
	if defaulted {
		if claim, ok := obj.(*resourceapi.ResourceClaim); !ok || !mayDeviate || !hasZeroCount(claim) {
			t.Errorf("%s: not in the API server's defaulted form", what)
		}
	}
	return deviations
}

func TestRealisticShapesAndClaimsPassAPIValidation(t *testing.T) {
	v := newAPIValidator()
	shapes := realisticShapes()
	for _, name := range sortedKeys(shapes) {
		v.checkCluster(t, name, shapes[name])
	}
	for _, claim := range []*resourceapi.ResourceClaim{
		SchedulerPerfClaim("perf", 2),
		GPUWithMemoryClaim("memory", "40Gi"),
		GPUsOnSamePCIeRootClaim("pcie", 2),
		MIGProfileClaim("mig", "1g.10gb"),
		PreferH100ElseTwoA100Claim("first-available"),
		AllDevicesClaim("all", ClassExample),
		NICShareClaim("nic", "10G"),
	} {
		v.check(t, "claim "+claim.Name, claim, false)
	}
}

func TestRandomCasesPassAPIValidationExceptForTheirNotedDeviations(t *testing.T) {
	v := newAPIValidator()
	deviations := 0
	for seed := int64(0); seed < 300; seed++ {
		c := Random(seed, DefaultRandomOptions())
		name := fmt.Sprintf("seed %d", seed)
		v.checkCluster(t, name, c.Cluster())
		for _, claim := range c.Claims {
			deviations += v.check(t, name+": claim "+claim.Name, claim, true)
		}
	}
	// Validation must actually see the deliberate compile errors and zero counts.
	if deviations == 0 {
		t.Error("no intended deviation was reported by validation")
	}
	t.Logf("%d intended deviations (CEL compile errors, count 0) tolerated", deviations)
}

func TestRandomSelectorsCompileUnlessACompileErrorIsNoted(t *testing.T) {
	cache := cel.NewCache(1000, cel.Features{EnableConsumableCapacity: true})
	for seed := int64(0); seed < 300; seed++ {
		c := Random(seed, DefaultRandomOptions())
		noted := strings.Contains(strings.Join(c.Notes, "\n"), "compile error")
		broken := 0
		check := func(where string, sels []resourceapi.DeviceSelector) {
			for _, s := range sels {
				if err := cache.GetOrCompile(s.CEL.Expression).Error; err != nil {
					broken++
					if !noted {
						t.Errorf("seed %d, %s: %q: %v", seed, where, s.CEL.Expression, err)
					}
				}
			}
		}
		for _, cl := range c.Classes {
			check("class "+cl.Name, cl.Spec.Selectors)
		}
		for _, claim := range c.Claims {
			for _, r := range claim.Spec.Devices.Requests {
				if r.Exactly != nil {
					check(claim.Name+"/"+r.Name, r.Exactly.Selectors)
				}
				for _, s := range r.FirstAvailable {
					check(claim.Name+"/"+r.Name+"/"+s.Name, s.Selectors)
				}
			}
		}
		if noted && broken == 0 {
			t.Errorf("seed %d: compile error noted but every selector compiles", seed)
		}
	}
}
