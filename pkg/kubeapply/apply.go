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

package kubeapply

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the field manager of every apply, kubectl's.
const FieldManager = "kubectl"

// Applier applies objects server-side. It is safe for concurrent use.
type Applier struct {
	client *dynamic.DynamicClient
	mapper meta.ResettableRESTMapper

	mu       sync.Mutex
	warnings []string
}

// New returns an Applier using config (copied; its WarningHandler is
// replaced by the Applier's).
func New(config *restclient.Config) (*Applier, error) {
	a := &Applier{}
	config = restclient.CopyConfig(config)
	config.WarningHandler = a
	var err error
	if a.client, err = dynamic.NewForConfig(config); err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("clientset: %w", err)
	}
	a.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(clientset.Discovery()))
	return a, nil
}

// HandleWarningHeader implements restclient.WarningHandler.
func (a *Applier) HandleWarningHeader(_ int, _ string, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.warnings = append(a.warnings, text)
}

// TakeWarnings returns the warnings received since the last call.
func (a *Applier) TakeWarnings() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.warnings
	a.warnings = nil
	return w
}

// Apply applies obj and returns the object the API server stored. Errors
// name the kind, namespace and name.
func (a *Applier) Apply(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	ri, what, err := a.resource(obj)
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", what, err)
	}
	out, err := ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return nil, fmt.Errorf("apply %s: %w", what, err)
	}
	return out, nil
}

// Delete deletes obj, as kubectl delete -f does: an object already gone
// is no error. Errors name the kind, namespace and name.
func (a *Applier) Delete(ctx context.Context, obj *unstructured.Unstructured) error {
	ri, what, err := a.resource(obj)
	if err != nil {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s: %w", what, err)
	}
	return nil
}

// resource returns the client of obj's resource (in its namespace, for a
// namespaced kind) and obj's description for errors.
func (a *Applier) resource(obj *unstructured.Unstructured) (dynamic.ResourceInterface, string, error) {
	gvk := obj.GroupVersionKind()
	what := gvk.Kind + " " + obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		what = gvk.Kind + " " + ns + "/" + obj.GetName()
	}
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		// A kind served since the mapper's discovery (a new CRD, say).
		a.mapper.Reset()
		mapping, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, what, err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return a.client.Resource(mapping.Resource).Namespace(obj.GetNamespace()), what, nil
	}
	return a.client.Resource(mapping.Resource), what, nil
}
