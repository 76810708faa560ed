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

package objects

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// KubectlList encodes objects as `kubectl get -o yaml` prints them: one
// List whose items carry their apiVersion and kind.
func KubectlList(objs ...runtime.Object) ([]byte, error) {
	items := make([]map[string]any, 0, len(objs))
	for _, obj := range objs {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return nil, fmt.Errorf("kind of %T: %w", obj, err)
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		var item map[string]any
		if err := json.Unmarshal(data, &item); err != nil {
			return nil, err
		}
		item["apiVersion"], item["kind"] = gvks[0].GroupVersion().String(), gvks[0].Kind
		items = append(items, item)
	}
	return yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
}
