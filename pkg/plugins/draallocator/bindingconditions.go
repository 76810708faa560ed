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

package draallocator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Binding conditions (DRADeviceBindingConditions): a device may ask the
// scheduler to wait, after writing the allocation, until its driver
// reports it ready (its conditions true in the claim's device status).
// PreBind polls the claims; a failure condition or the binding timeout
// fails the attempt, and the next one finds the claim failed or timed out
// in Filter and deallocates it in PostFilter, as the in-tree plugin does.

// bindingPollInterval is how often PreBind looks at binding conditions,
// as in-tree.
const bindingPollInterval = 5 * time.Second

var (
	// errBindingFailed says that a device reported a binding failure
	// condition.
	errBindingFailed = errors.New("device binding failed")
	// errBindingTimeout says that binding conditions did not become true
	// in time.
	errBindingTimeout = errors.New("device binding timeout")
)

func (pl *DRAAllocator) bindingConditionsEnabled() bool {
	return pl.gates.EnableDRADeviceBindingConditions && pl.gates.EnableDRAResourceClaimDeviceStatus
}

// boundClaims are the claims PreBind reserved for the pod: its own and
// the extended-resource claim it created, if any.
func (s *stateData) boundClaims() []*resourceapi.ResourceClaim {
	claims := s.claimObjects()
	if s.ext == nil || s.ext.created == nil {
		return claims
	}
	return append(claims, s.ext.created)
}

// waitForBindingConditions waits until every device of the pod's claims
// is ready for binding, reports the outcome in upstream's metrics, and
// names the devices that failed or are still pending in its error.
func (pl *DRAAllocator) waitForBindingConditions(ctx context.Context, s *stateData, pod *v1.Pod, nodeName string) error {
	logger := klog.FromContext(ctx)
	pl.handle.EventRecorder().WithLogger(logger).Eventf(pod, nil, v1.EventTypeNormal, "BindingConditionsPending", "Scheduling",
		"waiting for binding conditions for device on node %s", nodeName)
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, pl.bindingPoll, pl.args.BindingTimeout.Duration, true, func(context.Context) (bool, error) {
		return pl.podReadyForBinding(s)
	})
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w: %w", errBindingTimeout, err)
	}
	outcome := bindingOutcome(err)
	claims := s.boundClaims()
	pl.recordBindingConditions(claims, outcome, time.Since(start))
	if err != nil {
		return fmt.Errorf("%w (devices: %s)", err, describeBindingDevices(claims, outcome))
	}
	logger.V(5).Info("Binding conditions met", "pod", klog.KObj(pod), "node", nodeName, "devices", describeBindingDevices(claims, outcome))
	return nil
}

// bindingOutcome is the status label of upstream's binding-condition
// metrics for the wait's error.
func bindingOutcome(err error) string {
	switch {
	case err == nil:
		return schedmetrics.BindingConditionsStatusSuccess
	case errors.Is(err, errBindingTimeout):
		return schedmetrics.BindingConditionsStatusTimeout
	case errors.Is(err, errBindingFailed):
		return schedmetrics.BindingConditionsStatusFailed
	default:
		return schedmetrics.BindingConditionsStatusError
	}
}

// recordBindingConditions counts the wait in kube-scheduler's own
// scheduler_dra_bindingconditions_allocations_total (one per device with
// binding conditions) and scheduler_dra_bindingconditions_wait_duration_seconds
// (one observation per allocated device), labelled as the in-tree plugin
// labels them. The scheduler registers both when the
// DRADeviceBindingConditions gate is on.
func (pl *DRAAllocator) recordBindingConditions(claims []*resourceapi.ResourceClaim, outcome string, waited time.Duration) {
	if schedmetrics.DRABindingConditionsAllocationsTotal == nil {
		return // the scheduler's metrics were not initialised (unit tests)
	}
	profile := pl.handle.ProfileName()
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, res := range claim.Status.Allocation.Devices.Results {
			schedmetrics.DRABindingConditionsPreBindDuration.WithLabelValues(profile, res.Driver, outcome).Observe(waited.Seconds())
			if len(res.BindingConditions) > 0 {
				schedmetrics.DRABindingConditionsAllocationsTotal.WithLabelValues(profile, res.Driver, outcome).Inc()
			}
		}
	}
}

// describeBindingDevices names the devices with binding conditions that
// matter for the outcome: those with a failure condition true after a
// failure, those still pending otherwise (all of them after a success).
func describeBindingDevices(claims []*resourceapi.ResourceClaim, outcome string) string {
	var parts []string
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for i := range claim.Status.Allocation.Devices.Results {
			res := &claim.Status.Allocation.Devices.Results[i]
			if len(res.BindingConditions) == 0 {
				continue
			}
			var failed, pending []string
			status := deviceStatus(claim, res)
			for _, cond := range res.BindingFailureConditions {
				if status != nil && apimeta.IsStatusConditionTrue(status.Conditions, cond) {
					failed = append(failed, cond)
				}
			}
			for _, cond := range res.BindingConditions {
				if status == nil || !apimeta.IsStatusConditionTrue(status.Conditions, cond) {
					pending = append(pending, cond)
				}
			}
			switch outcome {
			case schedmetrics.BindingConditionsStatusSuccess:
			case schedmetrics.BindingConditionsStatusFailed:
				if len(failed) == 0 {
					continue
				}
			default:
				if len(pending) == 0 || len(failed) > 0 {
					continue
				}
			}
			part := fmt.Sprintf("claim %s: %s/%s/%s", klog.KObj(claim), res.Driver, res.Pool, res.Device)
			if len(failed) > 0 {
				part += " failed=[" + strings.Join(failed, ",") + "]"
			}
			if len(pending) > 0 {
				part += " pending=[" + strings.Join(pending, ",") + "]"
			}
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// claimReadyForBinding reports whether every binding condition of the
// claim's devices is true; a true binding failure condition is an error.
func claimReadyForBinding(claim *resourceapi.ResourceClaim) (bool, error) {
	if claim.Status.Allocation == nil {
		return false, nil
	}
	for _, res := range claim.Status.Allocation.Devices.Results {
		if len(res.BindingConditions) == 0 {
			continue
		}
		status := deviceStatus(claim, &res)
		if status == nil {
			return false, nil
		}
		for _, cond := range res.BindingFailureConditions {
			if c := apimeta.FindStatusCondition(status.Conditions, cond); c != nil && c.Status == metav1.ConditionTrue {
				return false, fmt.Errorf("%w: claim %s, device %s/%s/%s: %s: %s", errBindingFailed, klog.KObj(claim), res.Driver, res.Pool, res.Device, c.Reason, c.Message)
			}
		}
		for _, cond := range res.BindingConditions {
			if !apimeta.IsStatusConditionTrue(status.Conditions, cond) {
				return false, nil
			}
		}
	}
	return true, nil
}

// bindingTimedOut reports whether a claim with binding conditions was
// allocated longer than bindingTimeout ago.
func (pl *DRAAllocator) bindingTimedOut(claim *resourceapi.ResourceClaim) bool {
	alloc := claim.Status.Allocation
	if alloc == nil || alloc.AllocationTimestamp == nil {
		return false
	}
	for _, res := range alloc.Devices.Results {
		if len(res.BindingConditions) > 0 {
			return alloc.AllocationTimestamp.Add(pl.args.BindingTimeout.Duration).Before(time.Now())
		}
	}
	return false
}

func deviceStatus(claim *resourceapi.ResourceClaim, res *resourceapi.DeviceRequestAllocationResult) *resourceapi.AllocatedDeviceStatus {
	for i := range claim.Status.Devices {
		d := &claim.Status.Devices[i]
		if d.Driver == res.Driver && d.Pool == res.Pool && d.Device == res.Device {
			return d
		}
	}
	return nil
}

// podReadyForBinding re-reads the pod's claims and reports whether all
// binding conditions hold; a failure condition or a timeout is an error.
func (pl *DRAAllocator) podReadyForBinding(s *stateData) (bool, error) {
	if x := s.ext; x != nil && x.created != nil {
		fresh, err := pl.client.ResourceV1().ResourceClaims(x.created.Namespace).Get(context.Background(), x.created.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		x.created = fresh
		if ready, err := claimReadyForBinding(fresh); err != nil || !ready {
			if err == nil && pl.bindingTimedOut(fresh) {
				err = fmt.Errorf("%w: claim %s", errBindingTimeout, klog.KObj(fresh))
			}
			return false, err
		}
	}
	for i := range s.claims {
		claim := s.claims[i].claim
		fresh, err := pl.draManager.ResourceClaims().Get(claim.Namespace, claim.Name)
		if err != nil {
			return false, err
		}
		s.claims[i].claim = fresh
		ready, err := claimReadyForBinding(fresh)
		if err != nil {
			return false, err
		}
		if !ready {
			if pl.bindingTimedOut(fresh) {
				return false, fmt.Errorf("%w: claim %s", errBindingTimeout, klog.KObj(fresh))
			}
			return false, nil
		}
	}
	return true, nil
}

// hasBindingConditions reports whether a device of the claims has binding
// conditions.
func hasBindingConditions(claims []*resourceapi.ResourceClaim) bool {
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, res := range claim.Status.Allocation.Devices.Results {
			if len(res.BindingConditions) > 0 {
				return true
			}
		}
	}
	return false
}
