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

package release

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Krew's manifest type, as sigs.k8s.io/krew/pkg/constants names it.
const (
	KrewAPIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	KrewKind       = "Plugin"
)

// KrewManifest is a krew plugin manifest: the fields of
// sigs.k8s.io/krew/pkg/index.Plugin this release fills (krew is not a
// dependency of this module).
type KrewManifest struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   KrewMetadata `json:"metadata"`
	Spec       KrewSpec     `json:"spec"`
}

// KrewMetadata names the plugin: `kubectl krew install <Name>`.
type KrewMetadata struct {
	Name string `json:"name"`
}

// KrewSpec describes the plugin and where each platform's archive is.
type KrewSpec struct {
	Version          string         `json:"version"`
	Homepage         string         `json:"homepage,omitempty"`
	ShortDescription string         `json:"shortDescription"`
	Description      string         `json:"description,omitempty"`
	Caveats          string         `json:"caveats,omitempty"`
	Platforms        []KrewPlatform `json:"platforms"`
}

// KrewPlatform is one platform's archive: krew downloads URI, checks
// SHA256, extracts it, copies Files into the plugin's directory and links
// Bin onto PATH.
type KrewPlatform struct {
	Selector KrewSelector `json:"selector"`
	URI      string       `json:"uri"`
	SHA256   string       `json:"sha256"`
	Files    []KrewFile   `json:"files"`
	Bin      string       `json:"bin"`
}

// KrewSelector selects a platform by krew's os and arch labels.
type KrewSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// KrewFile copies From (a path in the archive) to To (in the plugin's
// directory).
type KrewFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// KrewOptions says which plugin a manifest describes.
type KrewOptions struct {
	// Name is the plugin's name in krew (kubectl <Name>); the manifest's
	// file is <Name>.yaml.
	Name string
	// Program is the binary in the archives (without .exe), as
	// ArchiveName names them.
	Program string
	// Version is the release, e.g. v0.1.0.
	Version string
	// Repository is the GitHub owner/name the release is published in.
	Repository string
	// Texts krew shows; ShortDescription is one line.
	Homepage, ShortDescription, Description, Caveats string
	// Platforms lists one archive each, in the manifest's order.
	Platforms []Platform
}

// Repository is where dra-scheduler's releases are published.
const Repository = "dra-scheduler/dra-scheduler"

// KubectlDRA returns the options of the kubectl dra plugin's manifest for
// version on platforms.
func KubectlDRA(version string, platforms []Platform) KrewOptions {
	return KrewOptions{
		Name:             "dra",
		Program:          "kubectl-dra",
		Version:          version,
		Repository:       Repository,
		Homepage:         "https://github.com/" + Repository,
		ShortDescription: "Explain pending DRA pods and device usage",
		Description: `kubectl dra answers Dynamic Resource Allocation (resource.k8s.io/v1)
questions with dra-scheduler's own allocator and Kubernetes' feature gates:

  kubectl dra explain pod NAME   why a pod with ResourceClaims is pending,
                                 per node and request, where it would fit
                                 with nothing allocated, and which pods
                                 preemption would evict for it
  kubectl dra usage              devices per DeviceClass and pool: total,
                                 allocated, shared, free

It reads the cluster read-only, or with --from files of
'kubectl get ... -o yaml' output, so a dump attached to a bug report
replays the answer offline.`,
		Caveats: `kubectl dra reads nodes, pods, ResourceSlices, DeviceClasses,
ResourceClaims, ResourceClaimTemplates, DeviceTaintRules and
PodDisruptionBudgets (list and get only). dra-scheduler's install ships
the ClusterRole dra-scheduler:explain granting exactly that:

  kubectl create clusterrolebinding <you>-dra-explain \
    --clusterrole=dra-scheduler:explain --user=<you>`,
		Platforms: platforms,
	}
}

// KrewManifestFile returns the manifest's file name for plugin name: krew
// requires it to be <name>.yaml.
func KrewManifestFile(name string) string { return name + ".yaml" }

// NewKrewManifest describes o's archives found in dir (named by
// ArchiveName): each platform's download URL on GitHub, its SHA-256, and
// the files it holds, which must include the binary: each top-level file
// or directory of the archive, in archive order, copied into the plugin's
// directory under its name (krew moves a directory whole).
func NewKrewManifest(dir string, o KrewOptions) (*KrewManifest, error) {
	if err := CheckVersion(o.Version); err != nil {
		return nil, err
	}
	if len(o.Platforms) == 0 {
		return nil, fmt.Errorf("krew manifest %s: no platforms", o.Name)
	}
	m := &KrewManifest{
		APIVersion: KrewAPIVersion,
		Kind:       KrewKind,
		Metadata:   KrewMetadata{Name: o.Name},
		Spec: KrewSpec{
			Version:          o.Version,
			Homepage:         o.Homepage,
			ShortDescription: o.ShortDescription,
			Description:      o.Description,
			Caveats:          o.Caveats,
		},
	}
	for _, p := range o.Platforms {
		name := ArchiveName(o.Program, o.Version, p)
		path := filepath.Join(dir, name)
		sum, err := SHA256File(path)
		if err != nil {
			return nil, fmt.Errorf("krew manifest %s, platform %s: %w", o.Name, p, err)
		}
		entries, err := ReadArchive(path)
		if err != nil {
			return nil, fmt.Errorf("krew manifest %s, platform %s: %w", o.Name, p, err)
		}
		bin := p.Executable(o.Program)
		kp := KrewPlatform{
			Selector: KrewSelector{MatchLabels: map[string]string{"os": p.OS, "arch": p.Arch}},
			URI:      DownloadURL(o.Repository, o.Version, name),
			SHA256:   sum,
			Bin:      bin,
		}
		hasBin := false
		for _, top := range topLevel(entries) {
			hasBin = hasBin || top == bin
			kp.Files = append(kp.Files, KrewFile{From: top, To: "."})
		}
		if !hasBin {
			return nil, fmt.Errorf("krew manifest %s, platform %s: archive %s does not hold %s", o.Name, p, path, bin)
		}
		m.Spec.Platforms = append(m.Spec.Platforms, kp)
	}
	return m, nil
}

// WriteKrewManifest writes m to dir/<name>.yaml and returns the path.
func WriteKrewManifest(dir string, m *KrewManifest) (string, error) {
	data, err := yaml.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("krew manifest %s: %w", m.Metadata.Name, err)
	}
	path := filepath.Join(dir, KrewManifestFile(m.Metadata.Name))
	header := fmt.Sprintf("# The krew manifest of kubectl %s %s: submit it to\n# https://github.com/kubernetes-sigs/krew-index as plugins/%s\n# once the release's archives are published (docs/release.md).\n",
		m.Metadata.Name, m.Spec.Version, KrewManifestFile(m.Metadata.Name))
	if err := os.WriteFile(path, append([]byte(header), data...), 0o644); err != nil {
		return "", fmt.Errorf("krew manifest: %w", err)
	}
	return path, nil
}

// ReadKrewManifest reads a manifest written by WriteKrewManifest.
func ReadKrewManifest(path string) (*KrewManifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("krew manifest: %w", err)
	}
	m := &KrewManifest{}
	if err := yaml.UnmarshalStrict(data, m); err != nil {
		return nil, fmt.Errorf("krew manifest %s: %w", path, err)
	}
	return m, nil
}

// topLevel returns the first path element of every entry, each once, in
// archive order: a file at the archive's root, or a directory.
func topLevel(entries []ArchiveEntry) []string {
	var tops []string
	seen := map[string]bool{}
	for _, e := range entries {
		top, _, _ := strings.Cut(e.Name, "/")
		if !seen[top] {
			seen[top] = true
			tops = append(tops, top)
		}
	}
	return tops
}
