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

package integration

import (
	"os"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/cmd/debug"
)

// debugCommand is the SIGUSR2 command of docs/operations.md: kubectl
// debug's namespace and its flags.
var debugCommand = regexp.MustCompile(`kubectl -n (\S+) debug "pod/\$leader" --profile=(\S+) --image=(\S+) --target=(\S+) -- (.+)`)

// checkDocumentedDebugCommand proves the consistency check's SIGUSR2
// command as docs/operations.md gives it: in the scheduler's namespace,
// whose Pod Security level is restricted, the ephemeral container that
// kubectl debug builds with the documented profile is admitted into a pod
// of the Deployment's template, and the one it builds with its default
// profile is refused by Pod Security.
func checkDocumentedDebugCommand(t *testing.T, e *env, deployment *appsv1.Deployment) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	m := debugCommand.FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatalf("docs/operations.md has no command matching %s", debugCommand)
	}
	ns, profile, image, target, command := m[1], m[2], m[3], m[4], strings.Fields(m[5])
	if ns != deployment.Namespace {
		t.Errorf("the documented command debugs in namespace %s, the scheduler runs in %s", ns, deployment.Namespace)
	}

	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "debug-target", Namespace: deployment.Namespace},
		Spec:       *deployment.Spec.Template.Spec.DeepCopy(),
	}
	pod, err = e.client.CoreV1().Pods(pod.Namespace).Create(e.ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a pod of the Deployment's template: %v", err)
	}
	withDebugger := func(profile string) *v1.Pod {
		t.Helper()
		p := pod.DeepCopy()
		name := "debugger-" + profile
		p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, v1.EphemeralContainer{
			EphemeralContainerCommon: v1.EphemeralContainerCommon{
				Name:                     name,
				Image:                    image,
				Command:                  command,
				TerminationMessagePolicy: v1.TerminationMessageReadFile,
			},
			TargetContainerName: target,
		})
		applier, err := debug.NewProfileApplier(profile, debug.KeepFlags{})
		if err != nil {
			t.Fatalf("kubectl debug --profile=%s: %v", profile, err)
		}
		if err := applier.Apply(p, name, p); err != nil {
			t.Fatalf("kubectl debug --profile=%s: %v", profile, err)
		}
		return p
	}

	if _, err := e.client.CoreV1().Pods(pod.Namespace).UpdateEphemeralContainers(e.ctx, pod.Name, withDebugger(profile), metav1.UpdateOptions{}); err != nil {
		t.Errorf("kubectl debug --profile=%s, as documented: %v", profile, err)
	}
	// kubectl's default profile (general) adds SYS_PTRACE and sets no
	// container security context: the namespace refuses it.
	pod, err = e.client.CoreV1().Pods(pod.Namespace).Get(e.ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.client.CoreV1().Pods(pod.Namespace).UpdateEphemeralContainers(e.ctx, pod.Name, withDebugger(debug.ProfileGeneral), metav1.UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "violates PodSecurity") {
		t.Errorf("kubectl debug with its default profile (%s): %v, want Pod Security's refusal", debug.ProfileGeneral, err)
	}
}
