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

package charts

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// The all: prefix keeps templates/_helpers.tpl, which a plain pattern
// would skip for its leading underscore.
//
//go:embed all:dra-scheduler
var files embed.FS

const (
	// Name is the chart's name and directory.
	Name = "dra-scheduler"
	// ReleaseName is the release name the tests render with, the one the
	// README's helm install uses.
	ReleaseName = "dra-scheduler"
	// Namespace is the release namespace the README's helm install uses:
	// manifests.Namespace, so that the default rendering equals the
	// kustomize build.
	Namespace = manifests.Namespace
)

// Load returns the embedded chart, as `helm install charts/dra-scheduler`
// loads the directory.
func Load() (*chartv2.Chart, error) {
	var buffered []*archive.BufferedFile
	err := fs.WalkDir(files, Name, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		buffered = append(buffered, &archive.BufferedFile{Name: strings.TrimPrefix(p, Name+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the embedded chart %s: %w", Name, err)
	}
	ch, err := loader.LoadFiles(buffered)
	if err != nil {
		return nil, fmt.Errorf("load the chart %s: %w", Name, err)
	}
	return ch, nil
}

// Render renders the chart as `helm template --namespace namespace` does
// with values (nil: the defaults) over the chart's values.yaml: the values
// are checked against values.schema.json first, and the objects come back
// in Helm's install order.
func Render(namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	ch, err := Load()
	if err != nil {
		return nil, err
	}
	return RenderChart(ch, namespace, values)
}

// notesFile is the template Helm prints after install and upgrade.
const notesFile = "templates/NOTES.txt"

// Notes returns the text helm install prints after installing the chart
// with values into namespace (templates/NOTES.txt).
func Notes(namespace string, values map[string]any) (string, error) {
	ch, err := Load()
	if err != nil {
		return "", err
	}
	rendered, err := renderFiles(ch, namespace, values)
	if err != nil {
		return "", err
	}
	return rendered[path.Join(Name, notesFile)], nil
}

// RenderChart is Render for an already loaded chart.
func RenderChart(ch *chartv2.Chart, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	rendered, err := renderFiles(ch, namespace, values)
	if err != nil {
		return nil, err
	}
	for name := range rendered {
		if strings.HasSuffix(name, notesFile) {
			delete(rendered, name) // text for the user, not objects
		}
	}
	hooks, sorted, err := releaseutil.SortManifests(rendered, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", Name, err)
	}
	if len(hooks) > 0 {
		return nil, fmt.Errorf("chart %s: %s is a hook, which Render does not handle", Name, hooks[0].Path)
	}
	var out []*unstructured.Unstructured
	for _, m := range sorted {
		objs, err := manifests.Decode([]byte(m.Content))
		if err != nil {
			return nil, fmt.Errorf("chart %s: %s: %w", Name, path.Base(m.Name), err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// ReadFile returns a file of the chart, by its path in the chart
// directory (e.g. "README.md").
func ReadFile(name string) ([]byte, error) {
	return files.ReadFile(path.Join(Name, name))
}

// renderFiles renders every template of ch, by file name, after checking
// values against the chart's schema.
func renderFiles(ch *chartv2.Chart, namespace string, values map[string]any) (map[string]string, error) {
	if values == nil {
		values = map[string]any{}
	}
	top, err := util.ToRenderValuesWithSchemaValidation(ch, values,
		common.ReleaseOptions{Name: ReleaseName, Namespace: namespace, Revision: 1, IsInstall: true}, nil, false)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", Name, err)
	}
	rendered, err := engine.Engine{}.RenderWithContext(context.Background(), ch, top)
	if err != nil {
		return nil, fmt.Errorf("render chart %s: %w", Name, err)
	}
	return rendered, nil
}
