package ecdh

import "testing"

func TestSlotCap(t *testing.T) {
	for _, tc := range []struct{ n, most, want int }{
		{1, 1 << 30, minSlot}, {minSlot, 1 << 30, minSlot}, {minSlot + 1, 1 << 30, 2 * minSlot},
		{131072, 1 << 30, 131072}, {131073, 1 << 30, 262144}, {524288, 1 << 30, 524288},
		{300000, 400000, 400000}, {300000, 100000, 300000}, {10, 5, 10}, {10, 100, 100},
	} {
		if got := slotCap(tc.n, tc.most); got != tc.want {
			t.Errorf("slotCap(%d, %d) = %d, want %d", tc.n, tc.most, got, tc.want)
		}
	}
}
