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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"

	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

// slowNominations makes the API server take delay to admit each write
// that nominates a pod (sets status.nominatedNodeName), until the test
// ends: a validating webhook on pods/status sleeps for those writes and
// admits them. An API server under load, or a policy webhook on pod
// status, stretches the same window: kube-scheduler holds a nomination
// in memory from the end of the preempting cycle, and the pod's status,
// from which the next cycle's pod object is read, shows it only once the
// write is done and its watch event arrived. Victims deleted meanwhile
// retry the preemptor in that window.
func (e *env) slowNominations(delay time.Duration) {
	e.t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		e.t.Fatalf("webhook certificate: %v", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		e.t.Fatalf("webhook key pair: %v", err)
	}
	listener, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	if err != nil {
		e.t.Fatalf("webhook listener: %v", err)
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review := admissionv1.AdmissionReview{}
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, fmt.Sprintf("decode AdmissionReview: %v", err), http.StatusBadRequest)
			return
		}
		if nominates(review.Request) {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
			}
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&review)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(listener) }()

	const name = "slow-nominations.dra-scheduler.test"
	hook := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: name,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL:      ptr.To("https://" + listener.Addr().String() + "/"),
				CABundle: certPEM,
			},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
					Resources: []string{"pods/status"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)},
			}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": e.ns}},
			// A webhook that is gone never blocks a write.
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To(int32(delay/time.Second) + 5),
		}},
	}
	hooks := e.client.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	if _, err := hooks.Create(e.ctx, hook, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("create %s: %v", name, err)
	}
	t := e.t
	t.Cleanup(func() {
		if err := hooks.Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete %s: %v", name, err)
		}
		_ = server.Close()
	})
	// The API server learns of the webhook through its own informer: wait
	// until a nomination written now takes the delay.
	// The probe pod is no scheduler's.
	probe, err := e.client.CoreV1().Pods(e.ns).Create(e.ctx, objects.MakePod("slow-nominations-probe", e.ns).Scheduler("none").Obj(), metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create the probe pod: %v", err)
	}
	e.waitFor("the API server to call the nomination webhook", func() (bool, string) {
		pod, err := e.client.CoreV1().Pods(e.ns).Get(e.ctx, probe.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		pod.Status.NominatedNodeName = ""
		if pod, err = e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, pod, metav1.UpdateOptions{}); err != nil {
			return false, err.Error()
		}
		pod.Status.NominatedNodeName = "nowhere"
		start := time.Now()
		if _, err := e.client.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, pod, metav1.UpdateOptions{}); err != nil {
			return false, err.Error()
		}
		took := time.Since(start)
		return took >= delay, fmt.Sprintf("a nomination took %v to write", took)
	})
	e.deletePods([]string{probe.Name})
}

// nominates reports whether an update of pod status sets a new
// nominatedNodeName.
func nominates(req *admissionv1.AdmissionRequest) bool {
	var pod, old v1.Pod
	if json.Unmarshal(req.Object.Raw, &pod) != nil || json.Unmarshal(req.OldObject.Raw, &old) != nil {
		return false
	}
	return pod.Status.NominatedNodeName != "" && pod.Status.NominatedNodeName != old.Status.NominatedNodeName
}
