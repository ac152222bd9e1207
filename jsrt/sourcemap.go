package jsrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// The bounds of a bundle's source map (docs/protocol.md#source-maps): the
// map is the plugin's own file, so any of its fields may be hostile. A map
// over a bound is not used; the stack lines then keep the bundle's
// positions.
const (
	// MaxSourceMapBytes is the largest map read beside a bundle: the
	// SDK's maps carry no sources' content, and a bundle of a few hundred
	// KiB has a map of about the same size.
	MaxSourceMapBytes = 8 * safefile.MiB
	// maxMapSegments bounds the decoded segments (16 bytes each), and
	// maxMapLines the generated lines (4 bytes each).
	maxMapSegments = 1 << 20
	maxMapLines    = 1 << 20
	// maxMapSources bounds the sources a map names.
	maxMapSources = 1 << 14
	// maxSourceName is the longest source name shown; longer ones are cut.
	maxSourceName = 256
)

// sourceMap is a decoded source map v3 (https://tc39.es/ecma426/), reduced
// to what maps a generated position to a source position.
type sourceMap struct {
	// sources are the names shown for the map's sources: relative to the
	// plugin's folder, cleaned and safe to print.
	sources []string
	// lines[i] is the index in segs of the first segment of generated
	// line i; lines has one more entry than the map has lines.
	lines []int32
	segs  []mapSegment
}

// mapSegment is one mapping: from a generated column (0-based) of its
// line to a source position (0-based), or to none when src is -1.
type mapSegment struct {
	genCol, src, line, col int32
}

// rawSourceMap is the part of a map's JSON that is read.
type rawSourceMap struct {
	Version    int             `json:"version"`
	SourceRoot string          `json:"sourceRoot"`
	Sources    []string        `json:"sources"`
	Mappings   string          `json:"mappings"`
	Sections   json.RawMessage `json:"sections"`
}

// parseSourceMap decodes data, the map of the bundle whose folder in the
// plugin's folder is dir ("dist" for dist/plugin.mjs). Anything outside
// version 3 with plain mappings (an index map, a segment of 2 or 3 fields,
// a source index out of range, a number past 32 bits) is an error.
func parseSourceMap(data []byte, dir string) (*sourceMap, error) {
	var raw rawSourceMap
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	switch {
	case raw.Version != 3:
		return nil, fmt.Errorf("version %d, not 3", raw.Version)
	case len(raw.Sections) > 0:
		return nil, errors.New("an index map (sections) is not read")
	case len(raw.Sources) > maxMapSources:
		return nil, fmt.Errorf("%d sources, over %d", len(raw.Sources), maxMapSources)
	}
	m := &sourceMap{sources: make([]string, len(raw.Sources))}
	for i, s := range raw.Sources {
		m.sources[i] = sourceName(dir, raw.SourceRoot, s)
	}
	if err := m.decode(raw.Mappings); err != nil {
		return nil, fmt.Errorf("mappings: %w", err)
	}
	return m, nil
}

// sourceName is how a map's source is shown: relative to the plugin's
// folder when it is a relative path, as written otherwise; escaped where
// a character could act on a terminal, and cut at maxSourceName bytes.
func sourceName(dir, root, s string) string {
	name := s
	if root != "" && !strings.Contains(s, ":") && !path.IsAbs(s) {
		name = strings.TrimSuffix(root, "/") + "/" + s
	}
	if !strings.Contains(name, ":") && !path.IsAbs(name) {
		name = path.Join(dir, name)
	}
	if len(name) > maxSourceName {
		name = name[:maxSourceName] + "…"
	}
	return safetext.Line(name)
}

// mapState is the running values of the mappings' fields, each field of a
// segment being relative to the same field of the one before.
type mapState struct {
	src, line, col, name int64
}

// decode reads mappings: lines separated by ';', segments by ',', each a
// run of base64 VLQ numbers.
func (m *sourceMap) decode(mappings string) error {
	var st mapState
	m.lines = append(m.lines, 0)
	for lineText := range strings.SplitSeq(mappings, ";") {
		var genCol int64
		for seg := range strings.SplitSeq(lineText, ",") {
			if seg == "" {
				continue
			}
			if len(m.segs) >= maxMapSegments {
				return fmt.Errorf("over %d segments", maxMapSegments)
			}
			s, err := m.segment(seg, &genCol, &st)
			if err != nil {
				return err
			}
			if first := m.lines[len(m.lines)-1]; int(first) < len(m.segs) && m.segs[len(m.segs)-1].genCol > s.genCol {
				return errors.New("segments out of order within a line")
			}
			m.segs = append(m.segs, s)
		}
		if len(m.lines) > maxMapLines {
			return fmt.Errorf("over %d lines", maxMapLines)
		}
		m.lines = append(m.lines, int32(len(m.segs)))
	}
	return nil
}

// segment decodes one segment of 1, 4 or 5 fields, moving the running
// values.
func (m *sourceMap) segment(seg string, genCol *int64, st *mapState) (mapSegment, error) {
	var fields [5]int64
	n := 0
	for rest := seg; rest != ""; n++ {
		if n == len(fields) {
			return mapSegment{}, fmt.Errorf("segment %.20q has more than 5 fields", seg)
		}
		v, used, err := vlq(rest)
		if err != nil {
			return mapSegment{}, err
		}
		fields[n], rest = v, rest[used:]
	}
	if n != 1 && n != 4 && n != 5 {
		return mapSegment{}, fmt.Errorf("segment %.20q has %d fields", seg, n)
	}
	*genCol += fields[0]
	s := mapSegment{genCol: int32(*genCol), src: -1}
	if n >= 4 {
		st.src += fields[1]
		st.line += fields[2]
		st.col += fields[3]
		st.name += fields[4]
		if st.src < 0 || st.src >= int64(len(m.sources)) {
			return mapSegment{}, fmt.Errorf("source index %d of %d sources", st.src, len(m.sources))
		}
		s.src, s.line, s.col = int32(st.src), int32(st.line), int32(st.col)
	}
	if !fits(*genCol) || !fits(st.line) || !fits(st.col) || !fits(st.name) && n == 5 {
		return mapSegment{}, errors.New("a position out of range")
	}
	return s, nil
}

// fits reports whether a position is one an int32 holds, not negative.
func fits(v int64) bool { return v >= 0 && v <= 1<<31-1 }

// vlq decodes the base64 VLQ number at the start of s: its value and the
// characters it took. A number runs to 7 characters at most (35 bits),
// beyond which it is refused rather than wrapped.
func vlq(s string) (value int64, used int, err error) {
	var acc uint64
	for shift := uint(0); used < len(s); shift += 5 {
		if used == 7 {
			return 0, 0, errors.New("a number of more than 7 digits")
		}
		d := strings.IndexByte(base64Digits, s[used])
		if d < 0 {
			return 0, 0, fmt.Errorf("%q is not a base64 digit", s[used])
		}
		used++
		acc |= uint64(d&31) << shift
		if d&32 == 0 {
			v := int64(acc >> 1)
			if acc&1 == 1 {
				v = -v
			}
			return v, used, nil
		}
	}
	return 0, 0, errors.New("a number cut short")
}

const base64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// lookup maps a generated position (line and column from 0) to its source
// and position there (from 0): the last segment of the line at or before
// col. ok is false where the map says nothing of that position.
func (m *sourceMap) lookup(line, col int) (source string, srcLine, srcCol int, ok bool) {
	if line < 0 || line >= len(m.lines)-1 || col < 0 {
		return "", 0, 0, false
	}
	segs := m.segs[m.lines[line]:m.lines[line+1]]
	i := sort.Search(len(segs), func(i int) bool { return int(segs[i].genCol) > col }) - 1
	if i < 0 || segs[i].src < 0 {
		return "", 0, 0, false
	}
	s := segs[i]
	return m.sources[s.src], int(s.line), int(s.col), true
}
