package process

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// psKiB is the unit of the rss column of ps.
const psKiB = 1024

var errBadPS = errors.New("malformed ps line")

// parsePS decodes the output of `ps -A -o pid= -o ppid= -o pgid= -o rss=`
// (rss in KiB). It lives outside the Unix-but-not-Linux build so its tests
// and fuzz target run everywhere.
func parsePS(out []byte) ([]procInfo, error) {
	var procs []procInfo
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		fields := bytes.Fields(lines.Bytes())
		if len(fields) == 0 {
			continue
		}
		info, err := parsePSFields(fields)
		if err != nil {
			return nil, fmt.Errorf("%w %q: %v", errBadPS, lines.Bytes(), err)
		}
		procs = append(procs, info)
	}
	return procs, lines.Err()
}

func parsePSFields(fields [][]byte) (procInfo, error) {
	if len(fields) != 4 {
		return procInfo{}, fmt.Errorf("%d fields, want 4", len(fields))
	}
	var nums [4]int
	for i, field := range fields {
		n, err := strconv.Atoi(string(field))
		if err != nil {
			return procInfo{}, err
		}
		nums[i] = n
	}
	return procInfo{PID: nums[0], PPID: nums[1], PGID: nums[2], RSS: uint64(max(nums[3], 0)) * psKiB}, nil
}
