/*
Copyright 2026 The Kubernetes Authors.

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

package scenario

import (
	"context"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/utils/clock"
)

// cutOff says whether err is a request cut or refused on its way, not an
// answer: the inner control plane restarting under it, which the
// simulator's supervisor brings back. client-go retries only GETs on such
// errors.
func cutOff(err error) bool {
	return utilnet.IsProbableEOF(err) || utilnet.IsConnectionReset(err) || utilnet.IsConnectionRefused(err)
}

// rideOut calls op, and again while it is cut off, until timeout has
// passed since the first call or ctx ends; then it returns op's last
// error. retried is true from the second call: a create that finds its
// object there was applied by the call cut short.
func rideOut(ctx context.Context, clk clock.Clock, timeout time.Duration, op func(retried bool) error) error {
	deadline := clk.Now().Add(timeout)
	delay := 100 * time.Millisecond
	for retried := false; ; retried = true {
		err := op(retried)
		if err == nil || !cutOff(err) || !clk.Now().Add(delay).Before(deadline) {
			return err
		}
		if sleepUntil(ctx, clk, clk.Now().Add(delay)) != nil {
			return err
		}
		delay = min(2*delay, 2*time.Second)
	}
}
