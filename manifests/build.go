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
	"fmt"
	"io/fs"
	"path"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Build runs kustomize on dir of the embedded manifests, as
// `kubectl apply -k manifests/<dir>` (or `kubectl kustomize`) does, and
// returns the objects it would apply, in kustomize's default (legacy)
// order: namespaces, then RBAC, configuration, workloads. With components,
// it builds a kustomization that has dir as its one resource and those
// components (directories such as MonitoringDir), as an operator's overlay
// would.
func Build(dir string, components ...string) ([]*unstructured.Unstructured, error) {
	tree, err := inMemory()
	if err != nil {
		return nil, err
	}
	root := path.Join("/", dir)
	if len(components) > 0 {
		root = "/.build"
		k := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + path.Join("..", dir) + "\ncomponents:\n"
		for _, c := range components {
			k += "- " + path.Join("..", c) + "\n"
		}
		if err := tree.WriteFile(path.Join(root, "kustomization.yaml"), []byte(k)); err != nil {
			return nil, err
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	resources, err := krusty.MakeKustomizer(opts).Run(tree, root)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s (components %v): %w", dir, components, err)
	}
	data, err := resources.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return Decode(data)
}

// inMemory copies the embedded manifests into an in-memory file system
// rooted at /.
func inMemory() (filesys.FileSystem, error) {
	tree := filesys.MakeFsInMemory()
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		return tree.WriteFile(path.Join("/", p), data)
	})
	return tree, err
}
