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

package celmatch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

// The feature set the scheduler runs with. GetOrCompile uses the stored
// expressions environment, which has all device fields regardless.
var testFeatures = dracel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: true}

var testCache = dracel.NewCache(10000, testFeatures)

// outcome is what one evaluation decided, in comparable form.
type outcome struct {
	Match bool
	// Err is the DeviceMatches-level error text ("" if none).
	Err string
	// Cost is the actual runtime cost (0 without details).
	Cost uint64
}

func (o outcome) String() string {
	if o.Err != "" {
		return fmt.Sprintf("error %q (cost %d)", o.Err, o.Cost)
	}
	return fmt.Sprintf("match=%v (cost %d)", o.Match, o.Cost)
}

func upstreamOutcome(ctx context.Context, t testing.TB, expression, driver string, device *resourceapi.Device) outcome {
	t.Helper()
	result := testCache.GetOrCompile(expression)
	if result.Error != nil {
		t.Fatalf("upstream cannot compile %q: %v", expression, result.Error)
	}
	match, details, err := result.DeviceMatches(ctx, dracel.Device{
		Driver:                   driver,
		AllowMultipleAllocations: device.AllowMultipleAllocations,
		Attributes:               device.Attributes,
		Capacity:                 device.Capacity,
	})
	o := outcome{Match: match}
	if err != nil {
		o.Err = err.Error()
	}
	if details != nil {
		o.Cost = ptr.Deref(details.ActualCost(), 0)
	}
	return o
}

func ourOutcome(ctx context.Context, t testing.TB, selector *Selector, activation *Activation) outcome {
	t.Helper()
	o, err := evaluate(ctx, selector, activation)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// evaluate is ourOutcome without testing.TB, usable from other goroutines.
func evaluate(ctx context.Context, selector *Selector, activation *Activation) (outcome, error) {
	match, details, err := selector.MatchesWithDetails(ctx, activation)
	o := outcome{Match: match}
	if err != nil {
		var evalErr *EvalError
		if !errors.As(err, &evalErr) {
			return o, fmt.Errorf("error is not an *EvalError: %T %v", err, err)
		}
		if evalErr.Expression != selector.Expression() {
			return o, fmt.Errorf("error names expression %q, want %q", evalErr.Expression, selector.Expression())
		}
		o.Err = evalErr.Err.Error()
	}
	if details != nil {
		o.Cost = ptr.Deref(details.ActualCost(), 0)
	}
	return o, nil
}

func mustCompile(t testing.TB, expression string) *Selector {
	t.Helper()
	selector, err := Compile(testCache, expression)
	if err != nil {
		t.Fatalf("compile %q: %v", expression, err)
	}
	return selector
}

// assertSameAsUpstream evaluates with both implementations and requires the
// same match, the same error text and the same actual cost.
func assertSameAsUpstream(ctx context.Context, t testing.TB, selector *Selector, activation *Activation, driver string, device *resourceapi.Device) outcome {
	t.Helper()
	want := upstreamOutcome(ctx, t, selector.Expression(), driver, device)
	got := ourOutcome(ctx, t, selector, activation)
	if got != want {
		t.Fatalf("expression %q on device %s:\n  upstream: %v\n  celmatch: %v", selector.Expression(), describeDevice(driver, device), want, got)
	}
	return got
}

func describeDevice(driver string, device *resourceapi.Device) string {
	var b strings.Builder
	fmt.Fprintf(&b, "driver=%s", driver)
	if device.AllowMultipleAllocations != nil {
		fmt.Fprintf(&b, " allowMultipleAllocations=%v", *device.AllowMultipleAllocations)
	}
	for _, name := range sortedNames(device.Attributes) {
		a := device.Attributes[name]
		fmt.Fprintf(&b, " %s=", name)
		switch {
		case a.IntValues != nil:
			fmt.Fprintf(&b, "ints%v", a.IntValues)
		case a.BoolValues != nil:
			fmt.Fprintf(&b, "bools%v", a.BoolValues)
		case a.StringValues != nil:
			fmt.Fprintf(&b, "strings%q", a.StringValues)
		case a.VersionValues != nil:
			fmt.Fprintf(&b, "versions%q", a.VersionValues)
		case a.IntValue != nil:
			fmt.Fprintf(&b, "int(%d)", *a.IntValue)
		case a.BoolValue != nil:
			fmt.Fprintf(&b, "bool(%v)", *a.BoolValue)
		case a.StringValue != nil:
			fmt.Fprintf(&b, "string(%q)", *a.StringValue)
		case a.VersionValue != nil:
			fmt.Fprintf(&b, "version(%q)", *a.VersionValue)
		default:
			b.WriteString("<no value>")
		}
	}
	for _, name := range sortedNames(device.Capacity) {
		q := device.Capacity[name].Value
		fmt.Fprintf(&b, " capacity:%s=%s", name, q.String())
	}
	return b.String()
}

const driverName = "dra.example.com"

// hugeQuantity does not fit into an int64 mantissa, so resource.Quantity
// stores it as an inf.Dec. Comparing an int64-backed quantity with it makes
// (*Quantity).Cmp convert the receiver to inf.Dec in place.
const hugeQuantity = "123456789012345678901234"

func gpuDevice() *resourceapi.Device {
	return &resourceapi.Device{
		Name:                     "gpu-0",
		AllowMultipleAllocations: ptr.To(true),
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model":                    {StringValue: ptr.To("a100")},
			"cores":                    {IntValue: ptr.To[int64](108)},
			"healthy":                  {BoolValue: ptr.To(true)},
			"driverVersion":            {VersionValue: ptr.To("1.2.3-rc.1+build.5")},
			"dra.example.com/numa":     {IntValue: ptr.To[int64](1)},
			"other.example.com/region": {StringValue: ptr.To("eu-west")},
			"ints":                     {IntValues: []int64{1, 2, 3}},
			"bools":                    {BoolValues: []bool{true, false}},
			"strs":                     {StringValues: []string{"a", "b"}},
			"vers":                     {VersionValues: []string{"1.0.0", "2.1.0"}},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":                      {Value: resource.MustParse("80Gi")},
			"cores":                       {Value: resource.MustParse("1500m")},
			"huge":                        {Value: resource.MustParse(hugeQuantity)},
			"other.example.com/bandwidth": {Value: resource.MustParse("100M")},
		},
	}
}

// costlyExpression is upstream's own cost limit test case.
const costlyExpression = `[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))`

type handPickedCase struct {
	name       string
	expression string
	// device defaults to gpuDevice().
	device *resourceapi.Device
	// want is checked in addition to agreement with upstream, so that the
	// table documents the semantics and cannot pass by both sides failing
	// the same unintended way.
	wantMatch bool
	wantErr   string // substring; "" means no error
}

var dra = `device.attributes["dra.example.com"]`
var drc = `device.capacity["dra.example.com"]`

func handPickedCases() []handPickedCase {
	cases := []handPickedCase{
		{name: "the driver name matches", expression: `device.driver == "dra.example.com"`, wantMatch: true},
		{name: "a different driver name does not match", expression: `device.driver == "x"`},
		{name: "an unqualified attribute name lives in the driver's domain", expression: dra + `.model == "a100"`, wantMatch: true},
		{name: "a qualified attribute name in the driver's domain is found there too", expression: dra + `.numa == 1`, wantMatch: true},
		{name: "an attribute of another domain is found under that domain", expression: `device.attributes["other.example.com"].region == "eu-west"`, wantMatch: true},
		{name: "a missing attribute in a known domain is a runtime error", expression: dra + `.noSuchAttr == 1`, wantErr: "no such key: noSuchAttr"},
		{name: "a missing attribute in an unknown domain is a runtime error", expression: `device.attributes["unknown.example.com"].noSuchAttr == 1`, wantErr: "no such key: noSuchAttr"},
		{name: "has reports a missing attribute as absent", expression: `has(` + dra + `.noSuchAttr)`},
		{name: "has reports an existing attribute as present", expression: `has(` + dra + `.model)`, wantMatch: true},
		{name: "has in an unknown domain is false because the domain defaults to an empty map", expression: `has(device.attributes["unknown.example.com"].model)`},
		{name: "the in operator does not see the default for unknown domains", expression: `"unknown.example.com" in device.attributes`},
		{name: "the in operator sees known domains", expression: `"other.example.com" in device.attributes`, wantMatch: true},
		{name: "optional selection falls back to orValue", expression: dra + `.?noSuchAttr.orValue("x") == "x"`, wantMatch: true},
		{name: "a boolean attribute can be the whole selector", expression: dra + `.healthy`, wantMatch: true},
		{name: "an int attribute as the whole selector cannot be converted to bool", expression: dra + `.cores`, wantErr: "could not be converted to bool"},
		{name: "comparing a string attribute with an int has no overload", expression: dra + `.model > 5`, wantErr: "no such overload"},
		{name: "division by zero is a runtime error", expression: dra + `.cores / 0 == 1`, wantErr: "division by zero"},
		{name: "a pre-release version is lower than its release", expression: dra + `.driverVersion.compareTo(semver("1.2.3")) < 0`, wantMatch: true},
		{name: "a version is greater than an older one", expression: dra + `.driverVersion.isGreaterThan(semver("1.0.0"))`, wantMatch: true},
		{name: "version parts can be read", expression: dra + `.driverVersion.major() == 1 && ` + dra + `.driverVersion.patch() == 3`, wantMatch: true},
		{name: "comparing a version with a string has no overload", expression: dra + `.driverVersion.isGreaterThan(dyn("1.0.0"))`, wantErr: "no such overload"},
		{name: "a list of ints supports exists", expression: dra + `.ints.exists(x, x == 2)`, wantMatch: true},
		{name: "a list of ints supports in", expression: `4 in ` + dra + `.ints`},
		{name: "a list of versions can be compared element-wise", expression: dra + `.vers.exists(v, v.isGreaterThan(semver("2.0.0")))`, wantMatch: true},
		{name: "a list of strings supports includes", expression: dra + `.strs.includes("b")`, wantMatch: true},
		{name: "a list of bools has a size", expression: `size(` + dra + `.bools) == 2`, wantMatch: true},
		{name: "iterating over a scalar attribute is a runtime error", expression: dra + `.cores.exists(x, x == 1)`, wantErr: "expected iterable type"},
		{name: "the attribute map of a domain has a size", expression: `size(` + dra + `) == 9`, wantMatch: true},
		{name: "bind gives the domain a short name", expression: `cel.bind(d, ` + dra + `, d.model == "a100" && d.cores > 100)`, wantMatch: true},
		{name: "allowMultipleAllocations is visible", expression: `device.allowMultipleAllocations`, wantMatch: true},
		{name: "capacity compares against a quantity", expression: drc + `.memory.compareTo(quantity("40Gi")) >= 0`, wantMatch: true},
		{name: "capacity is not greater than a larger quantity", expression: drc + `.memory.isGreaterThan(quantity("100Gi"))`},
		{name: "a fractional capacity is not an integer", expression: drc + `.cores.isInteger()`},
		{name: "a capacity of another domain is found under that domain", expression: `device.capacity["other.example.com"].bandwidth.asInteger() == 100000000`, wantMatch: true},
		{name: "a missing capacity is a runtime error", expression: drc + `.noSuchCapacity.isInteger()`, wantErr: "no such key: noSuchCapacity"},
		{name: "a capacity in an unknown domain is a runtime error", expression: `device.capacity["unknown.example.com"].memory.isInteger()`, wantErr: "no such key: memory"},
		{name: "a huge capacity is not an integer", expression: drc + `.huge.isInteger()`},
		{name: "a huge capacity compares correctly", expression: drc + `.huge.compareTo(quantity("1")) > 0`, wantMatch: true},
		{name: "asInteger of a huge capacity is a runtime error", expression: drc + `.huge.asInteger() > 0`, wantErr: "cannot convert value to integer"},
		{
			name:       "a comparison with a huge quantity converts the capacity for the rest of the same evaluation",
			expression: drc + `.memory.compareTo(quantity("` + hugeQuantity + `")) < 0 && !` + drc + `.memory.isInteger()`,
			wantMatch:  true,
		},
		{
			name:       "a bound capacity map shares the converted capacity within the evaluation",
			expression: `cel.bind(c, ` + drc + `, c.memory.compareTo(quantity("` + hugeQuantity + `")) < 0 && c.memory.isInteger())`,
		},
		{
			name:       "a capacity reached through dyn is isolated too",
			expression: `dyn(device)["capa" + "city"]["dra.example.com"].memory.compareTo(quantity("` + hugeQuantity + `")) < 0 && dyn(device)["capacity"]["dra.example.com"].memory.isInteger()`,
		},
		{name: "capacity maps compare equal to themselves", expression: drc + ` == ` + drc, wantMatch: true},
		{name: "capacity maps can be iterated", expression: drc + `.all(k, ` + drc + `[k].isGreaterThan(quantity("0")))`, wantMatch: true},
		{name: "capacity arithmetic works on copies", expression: drc + `.memory.add(quantity("1Gi")).compareTo(quantity("81Gi")) == 0 && ` + drc + `.memory.compareTo(quantity("80Gi")) == 0`, wantMatch: true},
		{name: "an approximate float can be taken from capacity", expression: drc + `.cores.asApproximateFloat() == 1.5`, wantMatch: true},
		{name: "exceeding the cost limit is a runtime error", expression: costlyExpression, wantErr: "actual cost limit exceeded"},
	}

	badVersion := gpuDevice()
	badVersion.Attributes["driverVersion"] = resourceapi.DeviceAttribute{VersionValue: ptr.To("not-a-version")}
	noValue := gpuDevice()
	noValue.Attributes["empty"] = resourceapi.DeviceAttribute{}
	noMulti := gpuDevice()
	noMulti.AllowMultipleAllocations = nil
	empty := &resourceapi.Device{Name: "empty"}
	cases = append(cases,
		handPickedCase{name: "an unparsable version fails every selector, even a constant one", expression: `true`, device: badVersion, wantErr: "attribute driverVersion: parse semantic version"},
		handPickedCase{name: "an attribute without a value fails every selector", expression: `device.driver == "dra.example.com"`, device: noValue, wantErr: "attribute empty: unsupported attribute value"},
		handPickedCase{name: "allowMultipleAllocations defaults to false", expression: `device.allowMultipleAllocations`, device: noMulti},
		handPickedCase{name: "a device without attributes has an empty default domain", expression: `size(` + dra + `) == 0`, device: empty, wantMatch: true},
		handPickedCase{name: "a device without capacity reports missing capacity as a missing key", expression: drc + `.memory.isInteger()`, device: empty, wantErr: "no such key: memory"},
	)
	return cases
}

func TestSelectorsAgreeWithUpstreamOnHandPickedCases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range handPickedCases() {
		t.Run(tc.name, func(t *testing.T) {
			device := tc.device
			if device == nil {
				device = gpuDevice()
			}
			selector := mustCompile(t, tc.expression)
			activation := NewActivation(driverName, device)
			// Twice with the same activation: nothing may leak from
			// the first evaluation into the second.
			for range 2 {
				got := assertSameAsUpstream(ctx, t, selector, activation, driverName, device)
				switch {
				case tc.wantErr != "" && !strings.Contains(got.Err, tc.wantErr):
					t.Fatalf("want error containing %q, got %v", tc.wantErr, got)
				case tc.wantErr == "" && got.Err != "":
					t.Fatalf("want no error, got %v", got)
				case got.Match != tc.wantMatch:
					t.Fatalf("want match=%v, got %v", tc.wantMatch, got)
				}
			}
		})
	}
}

func TestAllSelectorsShareOneActivationWithoutInterference(t *testing.T) {
	ctx := context.Background()
	device := gpuDevice()
	activation := NewActivation(driverName, device)
	cases := handPickedCases()
	for round := range 3 {
		for i := range cases {
			tc := cases[(i*7+round)%len(cases)]
			if tc.device != nil || tc.expression == costlyExpression {
				continue
			}
			assertSameAsUpstream(ctx, t, mustCompile(t, tc.expression), activation, driverName, device)
		}
	}
}

func TestCompileErrorsNameTheExpressionAndKeepUpstreamsError(t *testing.T) {
	for _, tc := range []struct{ expression, want string }{
		{`device.driver ==`, "compilation failed"},
		{dra + `.cores + 1`, "must evaluate to bool or the unknown type, not int"},
		{`device.noSuchField`, "undefined field 'noSuchField'"},
	} {
		_, err := Compile(testCache, tc.expression)
		var compileErr *CompileError
		if !errors.As(err, &compileErr) {
			t.Fatalf("%q: want *CompileError, got %T %v", tc.expression, err, err)
		}
		upstream := testCache.GetOrCompile(tc.expression).Error
		if compileErr.Err.Error() != upstream.Error() || !strings.Contains(upstream.Error(), tc.want) {
			t.Fatalf("%q: got %q, upstream %q, want it to contain %q", tc.expression, compileErr.Err, upstream, tc.want)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.expression)) {
			t.Fatalf("error does not name the expression: %v", err)
		}
	}
}

func TestRuntimeErrorsNameTheExpressionAndAddUpstreamsMissingKeyHint(t *testing.T) {
	expression := dra + `.noSuchAttr == 1`
	_, err := mustCompile(t, expression).Matches(context.Background(), NewActivation(driverName, gpuDevice()))
	if !IsEvalError(err) {
		t.Fatalf("want *EvalError, got %T", err)
	}
	msg := err.Error()
	for _, want := range []string{fmt.Sprintf("%q", expression), "no such key: noSuchAttr", "consider using CEL optional chaining"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("error %q does not contain %q", msg, want)
		}
	}
}

func TestACancelledContextInterruptsLikeUpstream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	device := gpuDevice()
	selector := mustCompile(t, costlyExpression)
	got := assertSameAsUpstream(ctx, t, selector, NewActivation(driverName, device), driverName, device)
	if !strings.Contains(got.Err, "operation interrupted") {
		t.Fatalf("want an interruption, got %v", got)
	}
	_, err := selector.Matches(ctx, NewActivation(driverName, device))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("errors.Is(%v, context.Canceled) is false", err)
	}
}

func TestQualifiedAndUnqualifiedNamesForTheSameAttributeResolveToTheQualifiedOne(t *testing.T) {
	// Upstream picks one of the two at random (Go map order); ours must be
	// one of upstream's possible outcomes, and always the same one.
	device := &resourceapi.Device{
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model":                 {StringValue: ptr.To("unqualified")},
			"dra.example.com/model": {StringValue: ptr.To("qualified")},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory":                 {Value: resource.MustParse("1Gi")},
			"dra.example.com/memory": {Value: resource.MustParse("2Gi")},
		},
	}
	onlyQualified := &resourceapi.Device{
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"dra.example.com/model": device.Attributes["dra.example.com/model"]},
		Capacity:   map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"dra.example.com/memory": device.Capacity["dra.example.com/memory"]},
	}
	for _, expression := range []string{dra + `.model == "qualified"`, drc + `.memory == quantity("2Gi")`} {
		selector := mustCompile(t, expression)
		for range 10 {
			want := upstreamOutcome(context.Background(), t, expression, driverName, onlyQualified)
			got := ourOutcome(context.Background(), t, selector, NewActivation(driverName, device))
			if got != want || !got.Match {
				t.Fatalf("%q: got %v, want %v", expression, got, want)
			}
		}
	}
}

func TestTheStaticCapacityCheckIsConservative(t *testing.T) {
	for expression, want := range map[string]bool{
		`device.driver == "x"`: false,
		dra + `.model == "x" && device.allowMultipleAllocations`: false,
		`has(device.attributes.foo)`:                             false,
		drc + `.memory.isInteger()`:                              true,
		`has(device.capacity)`:                                   true,
		`cel.bind(d, device, d.driver == "x")`:                   true,
		`dyn(device)["driver"] == "x"`:                           true,
		`device.?driver.orValue("") == "x"`:                      true,
		`[1].all(device, device > 0)`:                            true,
	} {
		if got := mustCompile(t, expression).capacity; got != want {
			t.Errorf("%q: capacity=%v, want %v", expression, got, want)
		}
	}
}

func TestTheSharedCapacityViewStillIsolatesEachAccess(t *testing.T) {
	// Simulate a wrong static check: the shared device map is used for a
	// capacity selector. A conversion must still not leak into the next
	// evaluation.
	device := gpuDevice()
	activation := NewActivation(driverName, device)
	convert := mustCompile(t, drc+`.memory.compareTo(quantity("`+hugeQuantity+`")) < 0`)
	convert.capacity = false
	check := mustCompile(t, drc+`.memory.isInteger()`)
	check.capacity = false
	for range 3 {
		assertSameAsUpstream(context.Background(), t, convert, activation, driverName, device)
		if got := assertSameAsUpstream(context.Background(), t, check, activation, driverName, device); !got.Match {
			t.Fatalf("memory stopped being an integer: %v", got)
		}
	}
}

func TestOneActivationCanBeUsedFromManyGoroutinesAtOnce(t *testing.T) {
	// Run with -race: the activation, including its quantities, must not
	// be written by evaluations.
	ctx := context.Background()
	device := gpuDevice()
	activation := NewActivation(driverName, device)
	var selectors []*Selector
	var want []outcome
	for _, tc := range handPickedCases() {
		if tc.device != nil || tc.expression == costlyExpression {
			continue
		}
		selectors = append(selectors, mustCompile(t, tc.expression))
		want = append(want, upstreamOutcome(ctx, t, tc.expression, driverName, device))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for round := range 20 {
				for i := range selectors {
					j := (i + g + round) % len(selectors)
					got, err := evaluate(ctx, selectors[j], activation)
					if err == nil && got != want[j] {
						err = fmt.Errorf("%q: got %v, want %v", selectors[j].Expression(), got, want[j])
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
