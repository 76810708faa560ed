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

package allocationcheck

import (
	"testing"
)

// bound gives gpu-0 binding conditions and copies them into the result.
func bound() *fixture {
	f := oneGPU()
	d := f.device("node-1-gpus", "gpu-0")
	d.BindingConditions = []string{"attached"}
	d.BindingFailureConditions = []string{"attach-failed"}
	f.entry(0, 0).BindingConditions = []string{"attached"}
	f.entry(0, 0).BindingFailureConditions = []string{"attach-failed"}
	return f
}

func TestBindingConditions(t *testing.T) {
	runCheckCases(t, CheckBinding, []checkCase{
		{
			name:  "binding conditions copied from the device pass",
			build: bound,
		},
		{
			name:  "a device without binding conditions needs none in the result",
			build: oneGPU,
		},
		{
			name: "missing binding conditions are reported",
			build: func() *fixture {
				f := bound()
				f.entry(0, 0).BindingConditions = nil
				return f
			},
			want: `device dra.example.com/node-1/gpu-0: result #0 has bindingConditions [], the device has ["attached"]`,
		},
		{
			name: "different binding failure conditions are reported",
			build: func() *fixture {
				f := bound()
				f.entry(0, 0).BindingFailureConditions = []string{"timeout"}
				return f
			},
			want: `result #0 has bindingFailureConditions ["timeout"], the device has ["attach-failed"]`,
		},
		{
			name: "a device with binding conditions is reported when DeviceBindingAndStatus is off",
			build: func() *fixture {
				f := bound()
				f.features.DeviceBindingAndStatus = false
				return f
			},
			want: "device has binding conditions, but the DeviceBindingAndStatus feature is disabled",
		},
	})
}
