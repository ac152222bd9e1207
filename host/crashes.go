package host

import (
	"fmt"
	"time"
)

// crashLog remembers recent crashes to decide whether a plugin may restart.
type crashLog struct {
	times []time.Time
}

// add records a crash at now and returns how many happened within window.
func (c *crashLog) add(now time.Time, window time.Duration) int {
	kept := c.times[:0]
	for _, t := range c.times {
		if now.Sub(t) < window {
			kept = append(kept, t)
		}
	}
	c.times = append(kept, now)
	return len(c.times)
}

func (c *crashLog) forget() { c.times = nil }

// count is how many crashes happened within window before now.
func (c *crashLog) count(now time.Time, window time.Duration) int {
	n := 0
	for _, t := range c.times {
		if now.Sub(t) < window {
			n++
		}
	}
	return n
}

// spell writes a window as the journal says it: "5 minutes", "1 minute",
// "30 seconds".
func spell(d time.Duration) string {
	switch {
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	case d%time.Second == 0:
		return plural(int(d/time.Second), "second")
	}
	return d.String()
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
