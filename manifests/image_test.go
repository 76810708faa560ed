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

package manifests_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/dra-scheduler/dra-scheduler/manifests"
)

// The image is set in one place, install/kustomization.yaml's images:
// stanza: deployment.yaml names the image without a tag, and what
// kustomize builds, for the install and the overlay alike, carries the
// stanza's name and tag (or digest).
func TestTheKustomizationsImagesStanzaSetsTheImage(t *testing.T) {
	data, err := manifests.ReadFile(manifests.InstallDir + "/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Images []struct {
			Name, NewName, NewTag, Digest string
		} `json:"images"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	if len(k.Images) != 1 {
		t.Fatalf("install/kustomization.yaml has %d images: entries, want the one for the scheduler", len(k.Images))
	}
	stanza := k.Images[0]
	want := stanza.NewName + ":" + stanza.NewTag
	if stanza.Digest != "" {
		want = stanza.NewName + "@" + stanza.Digest
	}

	var raw appsv1.Deployment
	typed(t, manifests.InstallDir, "Deployment", schedulerName, &raw)
	if got := raw.Spec.Template.Spec.Containers[0].Image; got != stanza.Name {
		t.Errorf("deployment.yaml's image is %q, want %q with no tag: the images: stanza (name %q) sets it", got, stanza.Name, stanza.Name)
	}
	for _, dir := range []string{manifests.InstallDir, manifests.InTreeOverlayDir} {
		var d appsv1.Deployment
		typedAmong(t, mustBuild(t, dir), "kustomize build "+dir, "Deployment", schedulerName, &d)
		if got := d.Spec.Template.Spec.Containers[0].Image; got != want {
			t.Errorf("kustomize build %s runs image %q, want the images: stanza's %q", dir, got, want)
		}
	}
}

// Every base image of the Dockerfile is pinned by digest, and the build
// stage cross-compiles for the target platform, so that make
// image-multiarch builds linux/amd64 and linux/arm64 from one Dockerfile.
func TestTheImageIsBuiltFromPinnedBasesForEveryPlatform(t *testing.T) {
	dockerfile, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	from := regexp.MustCompile(`(?m)^FROM (--platform=\S+ )?(\S+)`)
	pinned := regexp.MustCompile(`^[^@\s]+:[^@\s]+@sha256:[0-9a-f]{64}$`)
	stages := from.FindAllStringSubmatch(string(dockerfile), -1)
	if len(stages) != 2 {
		t.Fatalf("the Dockerfile has %d FROM lines, want a build and a runtime stage", len(stages))
	}
	for _, s := range stages {
		if !pinned.MatchString(s[2]) {
			t.Errorf("base image %s is not pinned as <name>:<tag>@sha256:<digest>", s[2])
		}
	}
	if stages[0][1] != "--platform=$BUILDPLATFORM " {
		t.Errorf("the build stage runs on %q, want --platform=$BUILDPLATFORM (cross-compile, no emulation)", stages[0][1])
	}
	if !strings.Contains(string(dockerfile), "GOOS=$TARGETOS GOARCH=$TARGETARCH") {
		t.Errorf("the build stage does not compile for $TARGETOS/$TARGETARCH")
	}
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	platforms := regexp.MustCompile(`(?m)^PLATFORMS\s*\?=\s*(\S+)`).FindSubmatch(makefile)
	if platforms == nil || !strings.Contains(string(platforms[1]), "linux/amd64") || !strings.Contains(string(platforms[1]), "linux/arm64") {
		t.Errorf("the Makefile's PLATFORMS default %q lacks linux/amd64 or linux/arm64", platforms)
	}
}
