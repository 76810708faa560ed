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

package clusterstate

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodesNamedBySlices makes up a Node, labelled only with its hostname, for
// every spec.nodeName of slices that is not among known, in order of
// appearance: a dump without Node objects still names the nodes its
// node-local slices are on.
func NodesNamedBySlices(slices []*resourceapi.ResourceSlice, known []*v1.Node) []*v1.Node {
	seen := map[string]bool{}
	for _, n := range known {
		seen[n.Name] = true
	}
	var out []*v1.Node
	for _, s := range slices {
		if s.Spec.NodeName == nil || *s.Spec.NodeName == "" || seen[*s.Spec.NodeName] {
			continue
		}
		name := *s.Spec.NodeName
		seen[name] = true
		out = append(out, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}}})
	}
	return out
}
