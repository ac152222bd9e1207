package architecture

import (
	"bufio"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The list's section and the shapes of its lines.
const sectionHeading = "### Every arrow"

var (
	layerLine   = regexp.MustCompile("^\\*\\*([1-9][0-9]{0,2})\\. ([^*]+)\\*\\*")
	packageLine = regexp.MustCompile("^- `([^`]+)`(?:\\s*→(.*))?$")
	quotedName  = regexp.MustCompile("`([^`]+)`")
)

// layer is one layer of the list: its number (higher imports lower) and name.
type layer struct {
	number int
	name   string
}

// drawing is what the list says: each package's layer and what it imports.
type drawing struct {
	layers  map[string]layer
	imports map[string][]string
	order   []string // packages in the order of the page
	faults  []string // lines the page holds that no reader can use
}

// parseDrawing reads the list under sectionHeading in page, the text of
// docs/ARCHITECTURE.md.
func parseDrawing(page string) drawing {
	d := drawing{layers: map[string]layer{}, imports: map[string][]string{}}
	found, inSection, current := false, false, layer{}
	sc := bufio.NewScanner(strings.NewReader(page))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if strings.HasPrefix(line, "#") {
			inSection = line == sectionHeading
			found = found || inSection
			continue
		}
		if inSection {
			current = d.readLine(line, current)
		}
	}
	if !found {
		d.faults = append(d.faults, fmt.Sprintf("the page has no section %q: give it one, a line per package", sectionHeading))
	}
	return d
}

// readLine reads one line of the section and returns the layer in force after it.
func (d *drawing) readLine(line string, current layer) layer {
	if m := layerLine.FindStringSubmatch(line); m != nil {
		n, _ := strconv.Atoi(m[1])
		return layer{number: n, name: strings.TrimSpace(m[2])}
	}
	m := packageLine.FindStringSubmatch(line)
	if m == nil {
		return current
	}
	pkg := m[1]
	switch {
	case current.number == 0:
		d.faults = append(d.faults, fmt.Sprintf("`%s` is listed before any layer: move its line under a layer (**N. name**)", pkg))
		return current
	case slices.Contains(d.order, pkg):
		d.faults = append(d.faults, fmt.Sprintf("`%s` is listed twice: keep one line", pkg))
		return current
	}
	d.order = append(d.order, pkg)
	d.layers[pkg] = current
	for _, q := range quotedName.FindAllStringSubmatch(m[2], -1) {
		d.imports[pkg] = append(d.imports[pkg], q[1])
	}
	return current
}

// mismatches lists every difference between the drawing and imports (each
// package of the module with the packages of the module it imports), as
// sentences a maintainer acts on, then the lines to paste.
func mismatches(d drawing, imports map[string][]string) []string {
	out := slices.Clone(d.faults)
	var fixedLines []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		if _, drawn := d.layers[pkg]; !drawn {
			out = append(out, fmt.Sprintf("`%s` has no line: add this one under layer %s:\n\t%s", pkg, suggestedLayer(d, imports[pkg]), lineOf(pkg, imports[pkg])))
			continue
		}
		add, remove := difference(imports[pkg], d.imports[pkg]), difference(d.imports[pkg], imports[pkg])
		for _, to := range add {
			out = append(out, fmt.Sprintf("add `%s` → `%s`: it is an import, not drawn", pkg, to))
		}
		for _, to := range remove {
			out = append(out, fmt.Sprintf("remove `%s` → `%s`: it is drawn, not an import", pkg, to))
		}
		if len(add)+len(remove) > 0 {
			fixedLines = append(fixedLines, lineOf(pkg, imports[pkg]))
		}
	}
	for _, pkg := range d.order {
		if _, real := imports[pkg]; !real {
			out = append(out, fmt.Sprintf("remove the line of `%s`: the module has no such package", pkg))
		}
	}
	out = append(out, upwardImports(d, imports)...)
	if len(fixedLines) > 0 {
		out = append(out, "the lines that change, as the imports are now:\n\t"+strings.Join(fixedLines, "\n\t"))
	}
	return out
}

// upwardImports lists the imports from a lower layer to a higher one.
func upwardImports(d drawing, imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		from, drawn := d.layers[pkg]
		if !drawn {
			continue
		}
		for _, to := range imports[pkg] {
			if above, drawn := d.layers[to]; drawn && above.number > from.number {
				out = append(out, fmt.Sprintf("`%s` (layer %d, %s) imports `%s` (layer %d, %s): a layer imports only its own and those below; move a package or the code that needs it",
					pkg, from.number, from.name, to, above.number, above.name))
			}
		}
	}
	return out
}

// suggestedLayer is the lowest layer a new package may take: the highest
// of what it imports, or the lowest of the page when it imports nothing
// drawn.
func suggestedLayer(d drawing, imports []string) string {
	var best layer
	for _, l := range d.layers {
		if best.number == 0 || l.number < best.number {
			best = l
		}
	}
	for _, to := range imports {
		if l, ok := d.layers[to]; ok && l.number > best.number {
			best = l
		}
	}
	if best.number == 0 {
		return "1"
	}
	return fmt.Sprintf("%d (%s) or above", best.number, best.name)
}

// lineOf is the list's line for pkg.
func lineOf(pkg string, imports []string) string {
	if len(imports) == 0 {
		return "- `" + pkg + "`"
	}
	return "- `" + pkg + "` → `" + strings.Join(slices.Sorted(slices.Values(imports)), "` `") + "`"
}

// difference is what a has and b has not, sorted.
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// pathInPicture is a word of the picture that names a package by its
// path (at least one slash); "examples/*" names a folder of packages.
var pathInPicture = regexp.MustCompile(`\b[a-z][a-z0-9_-]*(?:/[a-z0-9_*-]+)+`)

// stalePictureNames lists the package paths the picture (the first code
// block of the section "## The packages") names that are no package, nor
// a folder of packages, of the module: a package moved or gone.
func stalePictureNames(page string, imports map[string][]string) []string {
	picture := firstCodeBlockAfter(page, "## The packages")
	var out []string
	for _, name := range pathInPicture.FindAllString(picture, -1) {
		if !namesPackage(name, imports) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func namesPackage(name string, imports map[string][]string) bool {
	if folder, ok := strings.CutSuffix(name, "/*"); ok {
		for pkg := range imports {
			if strings.HasPrefix(pkg, folder+"/") {
				return true
			}
		}
		return false
	}
	_, ok := imports[name]
	return ok
}

// firstCodeBlockAfter is the text of the first fenced block after heading.
func firstCodeBlockAfter(page, heading string) string {
	_, rest, ok := strings.Cut("\n"+page, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	_, rest, ok = strings.Cut(rest, "\n```")
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "\n")
	block, _, _ := strings.Cut(rest, "\n```")
	return block
}
