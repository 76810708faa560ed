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
