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

package bitset_test

import (
	"fmt"

	"github.com/dra-scheduler/dra-scheduler/pkg/bitset"
)

func Example() {
	// Devices 0..9; a node owns devices 4..7.
	matching := bitset.New(10) // devices a request's selectors accept
	allocated := bitset.New(10)
	for _, d := range []int{1, 4, 5, 6, 9} {
		matching.Set(d)
	}
	allocated.Set(5)

	fmt.Println("free matching devices:", matching.AndNotCount(allocated))

	free := bitset.New(10)
	free.AndNot(matching, allocated)
	fmt.Println("free on the node:", free.CountRange(4, 8))
	for d := range free.All() {
		fmt.Println("free device", d)
	}

	// A device is added: indexes grow and members are kept.
	free.Grow(11)
	free.Set(10)
	fmt.Println(free, free.Len())
	// Output:
	// free matching devices: 4
	// free on the node: 2
	// free device 1
	// free device 4
	// free device 6
	// free device 9
	// {1 4 6 9 10} 11
}
