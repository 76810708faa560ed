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
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestEveryArtifactDeclaresTheRepositorysLicense checks that the image
// and the chart name the license of LICENSE, and that the image ships the
// license texts the release's archives do.
func TestEveryArtifactDeclaresTheRepositorysLicense(t *testing.T) {
	read := func(path string) string {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	const spdx = "Apache-2.0"
	if license := read("../../" + LicenseFile); !strings.Contains(license, "Apache License") || !strings.Contains(license, "Version 2.0, January 2004") {
		t.Fatalf("LICENSE is not the Apache License 2.0, which the artifacts declare (%s)", spdx)
	}

	dockerfile := read("../../Dockerfile")
	final := dockerfile[strings.LastIndex(dockerfile, "\nFROM "):]
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`org\.opencontainers\.image\.licenses="` + spdx + `"`),
		regexp.MustCompile(`org\.opencontainers\.image\.source="https://github\.com/` + Repository + `"`),
		regexp.MustCompile(`org\.opencontainers\.image\.title="dra-scheduler"`),
		regexp.MustCompile(`(?m)^COPY --from=build /out/licenses/ /licenses/$`),
	} {
		if !want.MatchString(final) {
			t.Errorf("the Dockerfile's final image lacks %s", want)
		}
	}
	if !regexp.MustCompile(`(?m)^RUN make sbom .*SBOM_OUT=/out/licenses`).MatchString(dockerfile) {
		t.Errorf("the Dockerfile's build stage does not write /out/licenses with make sbom")
	}

	var chart struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal([]byte(read("../../charts/dra-scheduler/Chart.yaml")), &chart); err != nil {
		t.Fatal(err)
	}
	if got := chart.Annotations["artifacthub.io/license"]; got != spdx {
		t.Errorf("Chart.yaml's artifacthub.io/license is %q, want %s", got, spdx)
	}
}
