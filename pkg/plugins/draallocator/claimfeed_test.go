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

package draallocator

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// TestTheSchedulersClaimsCarryNoManagedFields: the scheduler's informer
// drops a claim's managedFields (trimManagedFields), which nothing in it
// reads; the stored claim keeps them.
func TestTheSchedulersClaimsCarryNoManagedFields(t *testing.T) {
	claim := objects.Claim("with-fields", testNamespace, objects.ClaimSpec("dev", testDriver, 1))
	h := newHarness(t, nil, []string{"default"}, nil, []runtime.Object{claim}...)

	if got := h.claim(testNamespace, "with-fields"); got.ManagedFields != nil {
		t.Errorf("the scheduler's claim has managedFields %v, want none", got.ManagedFields)
	}
	stored, err := h.client.ResourceV1().ResourceClaims(testNamespace).Get(h.ctx, "with-fields", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.ManagedFields) == 0 {
		t.Error("the stored claim has no managedFields, want its creator's")
	}
}
