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

package podlatency

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	cgotesting "k8s.io/client-go/testing"
)

const ns = "bench"

func pod(name, node, rv string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: rv}, Spec: v1.PodSpec{NodeName: node}}
}

// watches hands the recorder one fake watch per Watch call and remembers
// the resource version each call asked for.
type watches struct {
	mu      sync.Mutex
	fakes   chan *watch.FakeWatcher
	fromRVs []string
	refuse  error
}

func newWatches(client *fake.Clientset) *watches {
	w := &watches{fakes: make(chan *watch.FakeWatcher, 8)}
	client.PrependWatchReactor("pods", func(action cgotesting.Action) (bool, watch.Interface, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.refuse != nil {
			return true, nil, w.refuse
		}
		w.fromRVs = append(w.fromRVs, action.(cgotesting.WatchActionImpl).WatchRestrictions.ResourceVersion)
		fw := watch.NewFakeWithChanSize(16, false)
		w.fakes <- fw
		return true, fw, nil
	})
	return w
}

// next waits for the recorder's next watch.
func (w *watches) next(t *testing.T) *watch.FakeWatcher {
	t.Helper()
	select {
	case fw := <-w.fakes:
		return fw
	case <-time.After(10 * time.Second):
		t.Fatal("the recorder did not watch again")
		return nil
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// startRecording starts a recorder on a fake clientset whose watches w
// hands out; it is stopped when the test ends.
func startRecording(t *testing.T) (*fake.Clientset, *watches, *Recorder) {
	t.Helper()
	client := fake.NewClientset()
	w := newWatches(client)
	rec, err := Start(context.Background(), client, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Stop)
	return client, w, rec
}

func TestTheRecorderMeasuresFromCreationToTheFirstTimeAPodIsSeenBound(t *testing.T) {
	_, w, rec := startRecording(t)
	fw := w.next(t)

	created := time.Now()
	rec.Created("a", created)
	rec.Created("b", created)
	rec.Created("never", created)
	fw.Add(pod("a", "", "1"))
	fw.Modify(pod("a", "node-1", "2"))
	fw.Add(pod("unmeasured", "node-1", "3"))
	<-rec.Changed()
	eventually(t, "a to be bound", func() bool { return rec.CountBound([]string{"a"}) == 1 })
	lat, _, firstBinding := rec.Samples([]string{"a"})
	time.Sleep(5 * time.Millisecond)
	fw.Modify(pod("a", "node-1", "4")) // a later event does not move the binding time
	fw.Modify(pod("b", "node-2", "5"))
	eventually(t, "b to be bound", func() bool { return rec.CountBound([]string{"a", "b", "never"}) == 2 })

	all, first, last := rec.Samples([]string{"a", "b", "never"})
	if len(all) != 2 || len(lat) != 1 {
		t.Fatalf("%d samples for a, b and never, %d for a; want 2 and 1: never was not bound", len(all), len(lat))
	}
	if all[0] != lat[0] || all[0] <= 0 {
		t.Errorf("a's latency %v then %v: want the first binding's, positive", lat[0], all[0])
	}
	if !first.Equal(created) || !last.After(firstBinding) {
		t.Errorf("first creation %v, last binding %v (a's at %v): want %v and b's binding after a's", first, last, firstBinding, created)
	}
	if restarts, relists := rec.WatchStats(); restarts != 0 || relists != 0 {
		t.Errorf("%d restarts, %d relists; want none", restarts, relists)
	}
}

func TestTheRecorderSurvivesTheAPIServerEndingItsWatch(t *testing.T) {
	client, w, rec := startRecording(t)
	rec.Created("a", time.Now())
	rec.Created("b", time.Now())
	rec.Created("c", time.Now())

	fw := w.next(t)
	fw.Modify(pod("a", "node-1", "7"))
	fw.Stop() // the API server's watch timeout
	fw = w.next(t)
	w.mu.Lock()
	got := w.fromRVs[len(w.fromRVs)-1]
	w.mu.Unlock()
	if got != "7" {
		t.Errorf("watched again from resource version %q, want the last one seen, 7", got)
	}

	// 410 Gone: the recorder lists, records what is bound by then, and
	// watches from the list.
	if err := client.Tracker().Add(pod("b", "node-2", "")); err != nil {
		t.Fatal(err)
	}
	fw.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonGone})
	fw.Stop()
	fw = w.next(t)
	fw.Modify(pod("c", "node-3", "9"))
	eventually(t, "a, b and c to be bound", func() bool { return rec.CountBound([]string{"a", "b", "c"}) == 3 })
	if restarts, relists := rec.WatchStats(); restarts != 2 || relists != 1 {
		t.Errorf("%d restarts, %d relists; want 2 and 1", restarts, relists)
	}
	if err := rec.Err(); err != nil {
		t.Errorf("Err = %v, want nil", err)
	}
}

func TestTheRecorderSaysWhyItStoppedWhenItCannotWatchAgain(t *testing.T) {
	_, w, rec := startRecording(t)
	fw := w.next(t)
	refused := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no longer allowed"))
	w.mu.Lock()
	w.refuse = refused
	w.mu.Unlock()
	fw.Stop()
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the recorder did not stop")
	}
	if err := rec.Err(); !apierrors.IsForbidden(err) {
		t.Errorf("Err = %v, want the watch's refusal", err)
	}
}
