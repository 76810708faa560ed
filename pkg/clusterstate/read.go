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
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingapi "k8s.io/api/scheduling/v1beta1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	resourcedefaults "k8s.io/kubernetes/pkg/apis/resource/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Kind names of the objects Objects holds.
const (
	KindNode                  = "Node"
	KindPod                   = "Pod"
	KindResourceSlice         = "ResourceSlice"
	KindDeviceClass           = "DeviceClass"
	KindResourceClaim         = "ResourceClaim"
	KindResourceClaimTemplate = "ResourceClaimTemplate"
	KindDeviceTaintRule       = "DeviceTaintRule"
	// KindPodDisruptionBudget is read for preemption: DefaultPreemption
	// spares pods whose eviction would violate one.
	KindPodDisruptionBudget = "PodDisruptionBudget"
	// KindPodGroup is read for gangs: a pod group's pods are scheduled
	// together, at least minCount of them (GenericWorkload).
	KindPodGroup = "PodGroup"
)

// ClusterKinds are the kinds of a cluster's state, read from dumps
// (--from): every kind but the workloads'.
var ClusterKinds = []string{KindNode, KindPod, KindResourceSlice, KindDeviceClass, KindResourceClaim,
	KindResourceClaimTemplate, KindDeviceTaintRule, KindPodDisruptionBudget, KindPodGroup}

// Objects are the objects read, each kind in the order it was found.
type Objects struct {
	// Kinds, if set, are the only kinds read; others are skipped with a
	// note. Unset, every kind of this package is read.
	Kinds []string

	Nodes      []*v1.Node
	Pods       []*v1.Pod
	Slices     []*resourceapi.ResourceSlice
	Classes    []*resourceapi.DeviceClass
	Claims     []*resourceapi.ResourceClaim
	Templates  []*resourceapi.ResourceClaimTemplate
	TaintRules []*resourceapi.DeviceTaintRule
	PDBs       []*policyv1.PodDisruptionBudget
	PodGroups  []*schedulingapi.PodGroup
	// Workloads are the pod templates of Deployments, StatefulSets, Jobs
	// and JobSets (workloads.go).
	Workloads []Workload
	// Notes are what the reader should know: skipped objects, ignored
	// fields.
	Notes []string

	seen map[string]string // kind and name -> where it was first seen
}

// ReadFiles reads every file ("-" is standard input) into objs.
func (objs *Objects) ReadFiles(stdin io.Reader, paths ...string) error {
	for _, path := range paths {
		if path == "-" {
			if err := objs.Add("<stdin>", stdin); err != nil {
				return err
			}
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("open input: %w", err)
		}
		err = objs.Add(path, f)
		f.Close() //nolint:errcheck // read-only
		if err != nil {
			return err
		}
	}
	return nil
}

// Add reads the YAML (or JSON) documents of r; name says where they come
// from in errors and notes. A document may be a single object or a list
// (kind List or <Kind>List with items).
func (objs *Objects) Add(name string, r io.Reader) error {
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
		if err := objs.addObject(fmt.Sprintf("%s: document %d", name, doc), j); err != nil {
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

func (objs *Objects) addObject(where string, data []byte) error {
	var h header
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &h); err != nil {
		return fmt.Errorf("%s: not a Kubernetes object: %w", where, err)
	}
	if h.Kind == "" {
		return fmt.Errorf("%s: no kind: not a Kubernetes object", where)
	}
	if h.Kind == "List" || strings.HasSuffix(h.Kind, "List") && h.Items != nil {
		for i, item := range h.Items {
			if err := objs.addObject(fmt.Sprintf("%s, items[%d]", where, i), item); err != nil {
				return err
			}
		}
		return nil
	}
	id := h.Kind + " " + quoteName(h.Metadata.Namespace, h.Metadata.Name)
	want, known := apiVersionOf(h.Kind)
	if !known || !objs.reads(h.Kind) {
		objs.Notes = append(objs.Notes, fmt.Sprintf("%s: skipped %s (not used by the allocator)", where, id))
		return nil
	}
	if h.APIVersion != want {
		return fmt.Errorf("%s: %s has apiVersion %q; only %s is supported (kubectl get %s.%s -o yaml)",
			where, id, h.APIVersion, want, strings.ToLower(h.Kind)+"s", strings.ReplaceAll(want, "/", "."))
	}
	if h.Metadata.Name == "" {
		return fmt.Errorf("%s: %s has no metadata.name", where, h.Kind)
	}
	if first, dup := objs.seen[id]; dup {
		return fmt.Errorf("%s: %s appears twice (first in %s)", where, id, first)
	}
	if objs.seen == nil {
		objs.seen = map[string]string{}
	}
	objs.seen[id] = where
	return objs.decode(where, id, h.Kind, data)
}

// reads reports whether kind is among the kinds to read.
func (objs *Objects) reads(kind string) bool {
	if objs.Kinds == nil {
		return true
	}
	for _, k := range objs.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// apiVersionOf returns the apiVersion read for a kind, and whether the
// kind is read at all.
func apiVersionOf(kind string) (string, bool) {
	switch kind {
	case KindResourceSlice, KindDeviceClass, KindResourceClaim, KindResourceClaimTemplate, KindDeviceTaintRule:
		return "resource.k8s.io/v1", true
	case KindNode, KindPod:
		return "v1", true
	case KindPodDisruptionBudget:
		return "policy/v1", true
	case KindPodGroup:
		return "scheduling.k8s.io/v1beta1", true
	case KindDeployment, KindStatefulSet:
		return "apps/v1", true
	case KindJob:
		return "batch/v1", true
	case KindJobSet:
		return "jobset.x-k8s.io/v1alpha2", true
	}
	return "", false
}

func (objs *Objects) decode(where, id, kind string, data []byte) error {
	strict := func(obj any) error {
		strictErrs, err := sigsjson.UnmarshalStrict(data, obj)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", where, id, err)
		}
		for _, e := range strictErrs {
			objs.Notes = append(objs.Notes, fmt.Sprintf("%s: %s: ignored: %v", where, id, e))
		}
		return nil
	}
	switch kind {
	case KindResourceSlice:
		s := &resourceapi.ResourceSlice{}
		if err := strict(s); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceSlice(s)
		if s.Spec.Driver == "" || s.Spec.Pool.Name == "" {
			return fmt.Errorf("%s: %s: spec.driver and spec.pool.name are required", where, id)
		}
		objs.Slices = append(objs.Slices, s)
	case KindDeviceClass:
		c := &resourceapi.DeviceClass{}
		if err := strict(c); err != nil {
			return err
		}
		objs.Classes = append(objs.Classes, c)
	case KindResourceClaim:
		c := &resourceapi.ResourceClaim{}
		if err := strict(c); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceClaim(c)
		if c.Status.Allocation == nil && len(c.Spec.Devices.Requests) == 0 {
			return fmt.Errorf("%s: %s: spec.devices.requests is empty", where, id)
		}
		objs.Claims = append(objs.Claims, c)
	case KindResourceClaimTemplate:
		t := &resourceapi.ResourceClaimTemplate{}
		if err := strict(t); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_ResourceClaimTemplate(t)
		if len(t.Spec.Spec.Devices.Requests) == 0 {
			return fmt.Errorf("%s: %s: spec.spec.devices.requests is empty", where, id)
		}
		objs.Templates = append(objs.Templates, t)
	case KindDeviceTaintRule:
		r := &resourceapi.DeviceTaintRule{}
		if err := strict(r); err != nil {
			return err
		}
		resourcedefaults.SetObjectDefaults_DeviceTaintRule(r)
		objs.TaintRules = append(objs.TaintRules, r)
	case KindNode:
		n := &v1.Node{}
		if err := strict(n); err != nil {
			return err
		}
		objs.Nodes = append(objs.Nodes, n)
	case KindPod:
		p := &v1.Pod{}
		if err := strict(p); err != nil {
			return err
		}
		objs.Pods = append(objs.Pods, p)
	case KindPodDisruptionBudget:
		b := &policyv1.PodDisruptionBudget{}
		if err := strict(b); err != nil {
			return err
		}
		objs.PDBs = append(objs.PDBs, b)
	case KindPodGroup:
		g := &schedulingapi.PodGroup{}
		if err := strict(g); err != nil {
			return err
		}
		objs.PodGroups = append(objs.PodGroups, g)
	case KindDeployment, KindStatefulSet, KindJob, KindJobSet:
		return objs.decodeWorkload(where, id, kind, data, strict)
	}
	return nil
}

func quoteName(namespace, name string) string {
	if namespace != "" {
		return fmt.Sprintf("%q", namespace+"/"+name)
	}
	return fmt.Sprintf("%q", name)
}
