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

package integration

import (
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// holdReleaseMessage is what the API server answers a release the test
// holds back.
const holdReleaseMessage = "the test holds this claim's release"

// holdClaimReleases makes the API server refuse, in the test namespace,
// every status update that removes a reservation from a claim whose name
// starts with prefix: the resourceclaim controller then cannot release the
// claims of pods that are gone, and keeps trying. probe names a pod with
// such a claim "gpu", reserved: the hold is in force once a dry run of
// that release is refused. The returned function lifts the hold; it runs
// at the test's end too.
func (e *env) holdClaimReleases(prefix, probe string) (lift func()) {
	e.t.Helper()
	name := "hold-claim-releases-" + e.ns
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}},
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{"resource.k8s.io"}, APIVersions: []string{"*"}, Resources: []string{"resourceclaims/status"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "!object.metadata.name.startsWith('" + prefix + "') || !has(oldObject.status.reservedFor) || " +
					"(has(object.status.reservedFor) && size(object.status.reservedFor) >= size(oldObject.status.reservedFor))",
				Message: holdReleaseMessage,
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	policies := e.client.AdmissionregistrationV1()
	if _, err := policies.ValidatingAdmissionPolicies().Create(e.ctx, policy, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create ValidatingAdmissionPolicy %s: %v", name, err)
	}
	if _, err := policies.ValidatingAdmissionPolicyBindings().Create(e.ctx, binding, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create ValidatingAdmissionPolicyBinding %s: %v", name, err)
	}
	var once sync.Once
	lift = func() {
		once.Do(func() {
			for _, err := range []error{
				policies.ValidatingAdmissionPolicyBindings().Delete(e.ctx, name, metav1.DeleteOptions{}),
				policies.ValidatingAdmissionPolicies().Delete(e.ctx, name, metav1.DeleteOptions{}),
			} {
				if err != nil && !apierrors.IsNotFound(err) {
					e.t.Errorf("lift the hold on claim releases: %v", err)
				}
			}
		})
	}
	e.t.Cleanup(lift)
	claim := e.generatedClaim(probe, "gpu")
	e.waitFor("the API server to hold back claim releases", func() (bool, string) {
		released := claim.DeepCopy()
		released.Status.ReservedFor = nil
		_, err := e.client.ResourceV1().ResourceClaims(e.ns).UpdateStatus(e.ctx, released, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), holdReleaseMessage) {
			return true, ""
		}
		if apierrors.IsConflict(err) {
			claim = e.generatedClaim(probe, "gpu")
		}
		return false, "a dry-run release was answered " + errString(err)
	})
	return lift
}

// errString is err's message, "no error" for nil.
func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
