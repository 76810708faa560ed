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

package podshape

import (
	"fmt"
	"maps"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Virtual is the claim the resourceclaim controller would make from t for
// the pod's claim podClaim, before it exists. Copy 0 is the pod's own:
// named by the controller's prefix and "…", with no UID. A copy above 0 is
// one of a simulation's copies of the pod: named "<prefix>sim-<copy>", with
// the UID "simulate/<copy>/<podClaim>", so that copies' claims differ.
func Virtual(pod *v1.Pod, podClaim string, t *resourceapi.ResourceClaimTemplate, copy int) *resourceapi.ResourceClaim {
	name, uid := GeneratedPrefix(pod.Name, podClaim)+"…", types.UID("")
	if copy > 0 {
		name = CopyName(pod, podClaim, copy)
		uid = types.UID(fmt.Sprintf("simulate/%d/%s", copy, podClaim))
	}
	return &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.Namespace, UID: uid, Labels: maps.Clone(t.Spec.Labels), Annotations: maps.Clone(t.Spec.Annotations)},
		Spec:       *t.Spec.Spec.DeepCopy(),
	}
}

// CopyName is the name of the claim podClaim of a simulation's copy
// of pod (copy above 0): "<prefix>sim-<copy>".
func CopyName(pod *v1.Pod, podClaim string, copy int) string {
	return fmt.Sprintf("%ssim-%d", GeneratedPrefix(pod.Name, podClaim), copy)
}

// GeneratedPrefix is the generateName the resourceclaim controller gives
// a pod's claim: "<pod>-<claim>-", both parts shortened in proportion
// when that is longer than 57 characters.
func GeneratedPrefix(pod, claim string) string {
	const maxBaseLen = 57
	name := pod + "-" + claim + "-"
	if len(name) <= maxBaseLen {
		return name
	}
	return pod[:len(pod)*maxBaseLen/len(name)] + "-" + claim[:len(claim)*maxBaseLen/len(name)]
}
