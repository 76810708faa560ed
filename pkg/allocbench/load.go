package allocbench

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	resourcedefaults "k8s.io/kubernetes/pkg/apis/resource/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Input is what YAML files describe: an inventory as `kubectl get
// resourceslices,deviceclasses -o yaml` prints it, optionally nodes and
// claims. Objects come in file order.
type Input struct {
	// Nodes are the Node objects found (for node labels); nodes named by
	// slices but not listed are made up by Workloads.
	Nodes []*v1.Node
	// Slices and Classes form the inventory.
	Slices  []*resourceapi.ResourceSlice
	Classes []*resourceapi.DeviceClass
	// Claims are the unallocated ResourceClaims, followed by a claim per
	// ResourceClaimTemplate (named after the template), in file order.
	Claims []*resourceapi.ResourceClaim
	// Allocated holds the devices of claims that have an allocation.
	Allocated inventorygen.Allocated
	// AllocatedClaims counts the claims Allocated was built from.
	AllocatedClaims int
	// Notes are things the user should know: skipped objects, unknown
	// fields.
	Notes []string

	seen map[string]string // kind/name -> where it was first seen
}

// LoadFiles reads every file ("-" is standard input) into one Input.
func LoadFiles(stdin io.Reader, paths ...string) (*Input, error) {
	in := &Input{}
	for _, path := range paths {
		var r io.Reader = stdin
		name := "<stdin>"
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("open input: %w", err)
			}
			defer f.Close() //nolint:errcheck // read-only
			r, name = f, path
		}
		if err := in.Add(name, r); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Add reads the YAML (or JSON) documents of r; name says where they come
// from in errors and notes. A document may be a single object or a list
// (kind List or <Kind>List with items).
func (in *Input) Add(name string, r io.Reader) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for doc := 1; ; doc++ {
		data, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			return fmt.Errorf("%s: document %d: not YAML: %w", name, doc, err)
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // empty document, e.g. a trailing "---"
		}
		if err := in.addObject(fmt.Sprintf("%s: document %d", name, doc), j); err != nil {
			return err
		}
	}
}

// header is what every object and list shares.
type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []stdjson.RawMessage `json:"items"`
}

func (in *Input) addObject(where string, data []byte) error {
	var h header
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &h); err != nil {
		return fmt.Errorf("%s: not a Kubernetes object: %w", where, err)
	}
	if h.Kind == "" {
		return fmt.Errorf("%s: no kind: not a Kubernetes object", where)
	}
	if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") && h.Items != nil {
		for i, item := range h.Items {
			if err := in.addObject(fmt.Sprintf("%s, items[%d]", where, i), item); err != nil {
				return err
			}
		}
		return nil
	}
	id := h.Kind + " " + quoteName(h.Metadata.Namespace, h.Metadata.Name)
	want, known := apiVersionOf(h.Kind)
	if !known {
		in.Notes = append(in.Notes, fmt.Sprintf("%s: skipped %s (not used by the allocator)", where, id))
		return nil
	}
	if h.APIVersion != want {
		return fmt.Errorf("%s: %s has apiVersion %q; only %s is supported (kubectl get %s.%s -o yaml)",
			where, id, h.APIVersion, want, strings.ToLower(h.Kind)+"s", strings.ReplaceAll(want, "/", "."))
	}
	if h.Metadata.Name == "" {
		return fmt.Errorf("%s: %s has no metadata.name", where, h.Kind)
	}
	if first, dup := in.seen[id]; dup {
		return fmt.Errorf("%s: %s appears twice (first in %s)", where, id, first)
	}
	if in.seen == nil {
		in.seen = map[string]string{}
	}
	in.seen[id] = where
	return in.decode(where, id, h.Kind, data)
}

// apiVersionOf returns the apiVersion read for a kind, and whether the
// kind is used at all.
func apiVersionOf(kind string) (string, bool) {
	switch kind {
	case "ResourceSlice", "DeviceClass", "ResourceClaim", "ResourceClaimTemplate":
		return "resource.k8s.io/v1", true
	case "Node":
		return "v1", true
	}
	return "", false
}

func (in *Input) decode(where, id, kind string, data []byte) error {
	strict := func(obj any) error {
		strictErrs, err := sigsjson.UnmarshalStrict(data, obj)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", where, id, err)
		}
		for _, e := range strictErrs {
			in.Notes = append(in.Notes, fmt.Sprintf("%s: %s: ignored: %v", where, id, e))
		}
		return nil
	}
	switch kind {
	case "ResourceSlice":
		s := &resourceapi.ResourceSlice{}
		if err := strict(s); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceSlice(s)
		if s.Spec.Driver == "" || s.Spec.Pool.Name == "" {
			return fmt.Errorf("%s: %s: spec.driver and spec.pool.name are required", where, id)
		}
		in.Slices = append(in.Slices, s)
	case "DeviceClass":
		c := &resourceapi.DeviceClass{}
		if err := strict(c); err != nil {
			return err
		}
		in.Classes = append(in.Classes, c)
	case "ResourceClaim":
		c := &resourceapi.ResourceClaim{}
		if err := strict(c); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceClaim(c)
		if c.Status.Allocation != nil {
			in.addAllocation(c)
			return nil
		}
		if len(c.Spec.Devices.Requests) == 0 {
			return fmt.Errorf("%s: %s: spec.devices.requests is empty", where, id)
		}
		in.Claims = append(in.Claims, c)
	case "ResourceClaimTemplate":
		t := &resourceapi.ResourceClaimTemplate{}
		if err := strict(t); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceClaimTemplate(t)
		if len(t.Spec.Spec.Devices.Requests) == 0 {
			return fmt.Errorf("%s: %s: spec.spec.devices.requests is empty", where, id)
		}
		c := &resourceapi.ResourceClaim{ObjectMeta: t.ObjectMeta, Spec: t.Spec.Spec}
		c.ObjectMeta.Labels, c.ObjectMeta.Annotations = t.Spec.Labels, t.Spec.Annotations
		in.Claims = append(in.Claims, c)
	case "Node":
		n := &v1.Node{}
		if err := strict(n); err != nil {
			return err
		}
		in.Nodes = append(in.Nodes, n)
	}
	return nil
}

// addAllocation records an allocated claim's devices as taken: dedicated
// results as devices, results with a share ID as shares (with their
// consumed capacity). Admin-access results block nothing.
func (in *Input) addAllocation(c *resourceapi.ResourceClaim) {
	in.AllocatedClaims++
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.AdminAccess != nil && *r.AdminAccess {
			continue
		}
		ref := inventorygen.DeviceRef{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
		if r.ShareID != nil {
			in.Allocated.Shares = append(in.Allocated.Shares, inventorygen.Share{Device: ref, ShareID: *r.ShareID, Consumed: r.ConsumedCapacity})
			continue
		}
		in.Allocated.Devices = append(in.Allocated.Devices, ref)
	}
}

func quoteName(namespace, name string) string {
	if namespace != "" {
		return fmt.Sprintf("%q", namespace+"/"+name)
	}
	return fmt.Sprintf("%q", name)
}
