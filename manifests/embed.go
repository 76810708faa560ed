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

package manifests

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"path"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

//go:embed kustomization.yaml install/*.yaml admission/*/*.yaml examples/*.yaml monitoring/*.yaml monitoring/*.json monitoring/*/*.yaml overlays/*/*.yaml
var files embed.FS

// Install directories.
const (
	// InstallDir holds the manifests that install dra-scheduler.
	InstallDir = "install"
	// OptOutDir holds the component that routes every namespace's pods
	// that use DRA to dra-scheduler, but kube-system's and those of
	// namespaces labelled out.
	OptOutDir = "admission/opt-out"
	// LabelGuardDir holds the component that lets only the admin groups
	// set, change or remove a namespace's routing label.
	LabelGuardDir = "admission/label-guard"
	// ExamplesDir holds the example DeviceClasses, claims and pods.
	ExamplesDir = "examples"
	// MonitoringDir holds the optional monitoring component: the metrics
	// Service and reader role, Prometheus operator monitors and alerts.
	MonitoringDir = "monitoring"
	// PodMonitorDir holds the component that, after MonitoringDir, swaps
	// the ServiceMonitor for a PodMonitor.
	PodMonitorDir = "monitoring/podmonitor"
	// InTreeOverlayDir holds the A/B overlay of the install: the same
	// scheduler with the in-tree DynamicResources plugin allocating.
	InTreeOverlayDir = "overlays/in-tree"
	// AdmissionFile holds the admission policies that opt namespaces in.
	AdmissionFile = InstallDir + "/admission.yaml"
)

// File is one manifest file and the objects in it, in file order.
type File struct {
	// Path relative to the manifests directory.
	Path    string
	Objects []*unstructured.Unstructured
}

// Load returns the files dir's kustomization.yaml lists as resources, in
// that order, each decoded into its objects.
func Load(dir string) ([]File, error) {
	names, err := Resources(dir)
	if err != nil {
		return nil, err
	}
	out := make([]File, 0, len(names))
	for _, name := range names {
		p := path.Join(dir, name)
		data, err := files.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("manifest %s listed in %s/kustomization.yaml: %w", p, dir, err)
		}
		objs, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", p, err)
		}
		out = append(out, File{Path: p, Objects: objs})
	}
	return out, nil
}

// Resources returns the resources dir's kustomization.yaml lists.
func Resources(dir string) ([]string, error) {
	p := path.Join(dir, "kustomization.yaml")
	data, err := files.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	// Other kustomize fields are allowed; only resources matters here.
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return k.Resources, nil
}

// ReadFile returns one embedded file, by its path relative to the
// manifests directory.
func ReadFile(p string) ([]byte, error) { return files.ReadFile(p) }

// Decode splits multi-document YAML into objects, skipping empty documents.
// Every object must name its apiVersion and kind.
func Decode(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for i := 0; ; i++ {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("document %d (%q): apiVersion and kind are required", i, u.GetName())
		}
		out = append(out, u)
	}
}

// SchedulerConfig returns the KubeSchedulerConfiguration the installed
// Deployment runs: the config.yaml key of the dra-scheduler-config
// ConfigMap in install/configmap.yaml.
func SchedulerConfig() ([]byte, error) {
	return SchedulerConfigOf(InstallDir)
}

// SchedulerConfigOf returns the KubeSchedulerConfiguration that applying
// dir (InstallDir or an overlay of it) gives the Deployment: the
// config.yaml key of the dra-scheduler-config ConfigMap kustomize builds.
func SchedulerConfigOf(dir string) ([]byte, error) {
	objs, err := Build(dir)
	if err != nil {
		return nil, err
	}
	return ConfigOf(objs)
}

// ConfigOf returns the config.yaml key of the dra-scheduler-config
// ConfigMap among objs.
func ConfigOf(objs []*unstructured.Unstructured) ([]byte, error) {
	for _, o := range objs {
		if o.GetKind() != "ConfigMap" || o.GetName() != ConfigMapName {
			continue
		}
		cfg, found, err := unstructured.NestedString(o.Object, "data", ConfigKey)
		if err != nil || !found {
			return nil, fmt.Errorf("ConfigMap %s has no data.%s", ConfigMapName, ConfigKey)
		}
		return []byte(cfg), nil
	}
	return nil, fmt.Errorf("no ConfigMap %s", ConfigMapName)
}

// Names the manifests use and tests refer to.
const (
	Namespace      = "dra-scheduler"
	ServiceAccount = "dra-scheduler"
	ConfigMapName  = "dra-scheduler-config"
	ConfigKey      = "config.yaml"
	// ConfigHashAnnotation on the Deployment's pod template holds the
	// SHA-256 of the ConfigMap's ConfigKey, so that a configuration change
	// rolls the pods.
	ConfigHashAnnotation = "dra-scheduler.io/config-sha256"
	// EnforceLabel on a namespace makes admission.yaml require
	// schedulerName: dra-scheduler for pods with resourceClaims there.
	EnforceLabel = "dra-scheduler.io/enforce"
)
