package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatDuration writes d as the journal prints delays: in the largest unit
// that holds it whole, "300 ms", "1500 ms", "5 s", "90 s", "1 min". A part
// smaller than a millisecond prints as a decimal: "0.5 ms".
func FormatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0 ms"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + " s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + " ms"
	}
	return fractionalMillis(d) + " ms"
}

// fractionalMillis writes d in milliseconds with the decimals it needs,
// in integer arithmetic so no digit is invented by rounding.
func fractionalMillis(d time.Duration) string {
	sign := ""
	whole, frac := d/time.Millisecond, d%time.Millisecond
	if d < 0 {
		sign, whole, frac = "-", -whole, -frac
	}
	decimals := strings.TrimRight(fmt.Sprintf("%06d", int64(frac)), "0")
	return sign + strconv.FormatInt(int64(whole), 10) + "." + decimals
}
