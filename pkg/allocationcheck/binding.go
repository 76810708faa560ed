package allocationcheck

import (
	"slices"
)

// checkBindingConditions verifies rule 9 for every result entry.
//
// With DeviceBindingAndStatus, the entry's bindingConditions and
// bindingFailureConditions are copies of the device's (order included, nil
// and empty alike). Without it, devices with binding conditions cannot be
// allocated and entries carry no conditions.
func checkBindingConditions(c *checker) []error {
	var errs []error
	for _, cv := range c.claims {
		for _, e := range cv.entries {
			if e.dev == nil {
				continue
			}
			spec := e.dev.spec
			if !c.features.DeviceBindingAndStatus {
				if len(spec.BindingConditions) > 0 {
					errs = append(errs, cv.entryViolation(CheckBinding, e, "device has binding conditions, but the DeviceBindingAndStatus feature is disabled"))
				}
				if len(e.res.BindingConditions) > 0 || len(e.res.BindingFailureConditions) > 0 {
					errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has binding conditions, but the DeviceBindingAndStatus feature is disabled", e.index))
				}
				continue
			}
			if !slices.Equal(e.res.BindingConditions, spec.BindingConditions) {
				errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has bindingConditions %q, the device has %q", e.index, e.res.BindingConditions, spec.BindingConditions))
			}
			if !slices.Equal(e.res.BindingFailureConditions, spec.BindingFailureConditions) {
				errs = append(errs, cv.entryViolation(CheckBinding, e, "result #%d has bindingFailureConditions %q, the device has %q", e.index, e.res.BindingFailureConditions, spec.BindingFailureConditions))
			}
		}
	}
	return errs
}
