package ecdh

import "testing"

func TestSlotCap(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{1, minSlot}, {minSlot, minSlot}, {minSlot + 1, 2 * minSlot},
		{131072, 131072}, {131073, 262144}, {524288, 524288}, {300000, 524288},
	} {
		if got := slotCap(tc.n); got != tc.want {
			t.Errorf("slotCap(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}
