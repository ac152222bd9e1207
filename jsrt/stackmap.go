package jsrt

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// SourceMapSuffix names a bundle's source map: dist/plugin.mjs.map beside
// dist/plugin.mjs, as the SDK's build writes it. The host reads that file
// only, whatever the bundle's sourceMappingURL comment says.
const SourceMapSuffix = ".map"

// StackMapper returns what rewrites a stderr line of m's bundle so that
// its stack positions (file:///plugin/dist/plugin.mjs:12:5) name the
// plugin's sources instead (src/plugin.ts:7:3), through the source map
// beside the bundle (docs/protocol.md#source-maps); nil when m runs no
// bundle. The map is read at the first line that names the bundle, once;
// without a map, or with one that cannot be used, lines keep the bundle's
// positions: a map never stops a plugin.
func (e *Engine) StackMapper(m *manifest.Manifest) func(line string) string {
	if m == nil || m.Run == nil || m.Run.JS == "" {
		return nil
	}
	rel := m.Run.BundlePath()
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil
	}
	s := &stackMapper{url: bundleURL(rel) + ":", load: func() (*sourceMap, error) {
		data, err := safefile.Read(filepath.Join(m.Dir, filepath.FromSlash(rel+SourceMapSuffix)), rel+SourceMapSuffix, MaxSourceMapBytes)
		if err != nil {
			return nil, err
		}
		return parseSourceMap(data, path.Dir(rel))
	}, name: rel + SourceMapSuffix}
	return s.line
}

// stackMapper maps the positions of one bundle, its map loaded once.
type stackMapper struct {
	url  string // the bundle's URL and ":", as stack lines name it
	name string // the map's path in the plugin's folder, for the note
	load func() (*sourceMap, error)

	once    sync.Once
	m       *sourceMap
	note    string // why the map is not used, said once
	noteMu  sync.Mutex
	noteSet bool
}

// line is the stack mapper: line with each position of the bundle that
// the map knows replaced by its source position.
func (s *stackMapper) line(line string) string {
	if !strings.Contains(line, s.url) {
		return line
	}
	s.once.Do(s.open)
	if s.m == nil {
		return line + s.takeNote()
	}
	return mapPositions(line, s.url, s.m)
}

// open loads the map; a missing map is no fault, any other is noted.
func (s *stackMapper) open() {
	m, err := s.load()
	switch {
	case err == nil:
		s.m = m
	case !errors.Is(err, fs.ErrNotExist):
		s.note = " (" + s.name + " not used: " + firstLineOf(err.Error()) + ")"
	}
}

// takeNote is the note of an unused map the first time, "" afterwards.
func (s *stackMapper) takeNote() string {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	if s.noteSet {
		return ""
	}
	s.noteSet = true
	return s.note
}

// mapPositions replaces in line each url followed by LINE:COLUMN (from 1,
// as QuickJS writes them) by the source and position m gives, from 1.
func mapPositions(line, url string, m *sourceMap) string {
	var b strings.Builder
	for {
		at := strings.Index(line, url)
		if at < 0 {
			break
		}
		rest := line[at+len(url):]
		genLine, n1 := leadingNumber(rest)
		genCol, n2 := 0, 0
		if n1 > 0 && n1 < len(rest) && rest[n1] == ':' {
			genCol, n2 = leadingNumber(rest[n1+1:])
		}
		if n1 == 0 || n2 == 0 {
			b.WriteString(line[:at+len(url)])
			line = rest
			continue
		}
		b.WriteString(line[:at])
		if src, l, c, ok := m.lookup(genLine-1, genCol-1); ok {
			b.WriteString(src + ":" + strconv.Itoa(l+1) + ":" + strconv.Itoa(c+1))
		} else {
			b.WriteString(line[at : at+len(url)+n1+1+n2])
		}
		line = rest[n1+1+n2:]
	}
	b.WriteString(line)
	return b.String()
}

// leadingNumber is the decimal number at the start of s and its digits;
// 0 digits when there is none or it has more than 9.
func leadingNumber(s string) (value, digits int) {
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits > 9 {
		return 0, 0
	}
	value, _ = strconv.Atoi(s[:digits])
	return value, digits
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
