package process

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"strconv"
)

// Fields of /proc/<pid>/stat (proc(5)), counted from the state field, the
// first after the command name; the name is in parentheses and may hold
// spaces and parentheses itself.
const (
	statState = 0
	statPPID  = 1
	statPGID  = 2
	statStart = 19 // start time, in clock ticks since boot
	statRSS   = 21 // resident pages
)

var errBadStat = errors.New("malformed /proc stat line")

// parseStat decodes a /proc/<pid>/stat line. It lives outside the Linux
// build so its tests and fuzz target run everywhere.
func parseStat(line []byte, pageSize uint64) (procInfo, error) {
	open := bytes.IndexByte(line, '(')
	closing := bytes.LastIndexByte(line, ')')
	if open < 1 || closing < open {
		return procInfo{}, errBadStat
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(line[:open])))
	if err != nil {
		return procInfo{}, fmt.Errorf("%w: pid: %v", errBadStat, err)
	}
	fields := bytes.Fields(line[closing+1:])
	if len(fields) <= statRSS || len(fields[statState]) != 1 {
		return procInfo{}, errBadStat
	}
	nums, err := statNumbers(fields, statPPID, statPGID, statStart, statRSS)
	if err != nil {
		return procInfo{}, err
	}
	return procInfo{
		PID:       pid,
		PPID:      int(nums[0]),
		PGID:      int(nums[1]),
		StartTime: uint64(max(nums[2], 0)),
		State:     fields[statState][0],
		RSS:       uint64(max(nums[3], 0)) * pageSize,
		Image:     nameHash(line[open+1 : closing]),
	}, nil
}

func statNumbers(fields [][]byte, at ...int) ([]int64, error) {
	nums := make([]int64, len(at))
	for i, field := range at {
		n, err := strconv.ParseInt(string(fields[field]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: field %d: %v", errBadStat, field, err)
		}
		nums[i] = n
	}
	return nums, nil
}

// nameSeed keys nameHash for the life of the process: hashes of names are
// only compared with each other.
var nameSeed = maphash.MakeSeed()

// nameHash tells two command names apart without keeping a string per
// process of the table.
func nameHash(name []byte) uint64 { return maphash.Bytes(nameSeed, name) }
