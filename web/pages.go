package web

import (
	"bytes"
	"html/template"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// page is what every template gets; each page fills its part.
type page struct {
	Lang, Title, Secret string
	Nav                 string // the header's current section: "" (Plugins) or navAgents

	Rows   []row  // the list
	Dev    string // the folder typed in "In development"
	Row    row    // a plugin's page
	Tab    string // settings, permissions or journal
	Window *window

	Fields    []settingField
	Perms     []permItem
	Harnesses []string
	// AgentSetup is how the user installs and updates each harness's
	// agent program on this system; the host runs neither.
	AgentSetup []agentSetup
	Journal    []journalLine
	Tags       []string
}

// navAgents marks the Agents pages in the header every page shares.
const navAgents = "agents"

// agentSetup is the install command (install.windows on Windows,
// install.unix elsewhere) and the updateCommand of a harness.
type agentSetup struct{ Install, Update string }

func parseTemplates(lang string) (*template.Template, error) {
	funcs := template.FuncMap{"t": func(key string, args ...any) string { return tr(lang, key, args...) }}
	return template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.html")
}

func (s *Server) newPage(title string) page {
	return page{Lang: s.lang, Title: title, Secret: s.secret}
}

// render writes a whole page, or an error if the template fails, without
// a half-written page.
func (s *Server) render(w http.ResponseWriter, name string, status int, data any) {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "the page could not be made: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func (s *Server) pageList(w http.ResponseWriter, r *http.Request) {
	reg, err := s.sync(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	p := s.newPage(tr(s.lang, "title"))
	p.Rows = s.rows(reg)
	p.Dev = r.URL.Query().Get("dir")
	s.render(w, "list.html", http.StatusOK, p)
}

// fragmentList is the table of the list alone, which the script fetches
// when a plugin comes or goes.
func (s *Server) fragmentList(w http.ResponseWriter, r *http.Request) {
	reg, err := s.sync(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.render(w, "rows", http.StatusOK, s.rows(reg))
}

func (s *Server) pageInstall(w http.ResponseWriter, r *http.Request) {
	dir := strings.TrimSpace(r.URL.Query().Get("dir"))
	win := s.installWindow(r.Context(), dir)
	p := s.newPage(tr(s.lang, "dev"))
	p.Window = &win
	status := http.StatusOK
	if win.Error != "" {
		status = http.StatusUnprocessableEntity
	}
	s.render(w, "install.html", status, p)
}

// installed is the registry entry and row of the plugin a request names.
func (s *Server) installed(w http.ResponseWriter, r *http.Request) (registry.Entry, row, *registry.Registry, bool) {
	reg, err := s.sync(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return registry.Entry{}, row{}, nil, false
	}
	id := r.PathValue("id")
	en, ok := reg.Get(id)
	if !ok {
		notFound(w, id)
		return registry.Entry{}, row{}, nil, false
	}
	return en, s.rowOf(en), reg, true
}

func (s *Server) pagePlugin(w http.ResponseWriter, r *http.Request) {
	_, rw, _, ok := s.installed(w, r)
	if !ok {
		return
	}
	p := s.newPage(rw.Name)
	p.Row = rw
	p.Tab = r.URL.Query().Get("tab")
	if !slices.Contains([]string{"settings", "permissions", "journal"}, p.Tab) {
		p.Tab = "settings"
	}
	if rw.Manifest == nil { // its folder cannot be loaded: only the journal says more
		p.Tab = "journal"
	}
	switch p.Tab {
	case "settings":
		p.Fields = s.settingFields(rw)
	case "permissions":
		p.Perms = permItems(s.lang, rw.Manifest.Permissions, rw.Plugin.Granted())
		p.Harnesses = registry.HarnessCommands(rw.Manifest) // the consent text's own, escaped
		for _, h := range describedHarnesses(rw.Manifest) {
			p.AgentSetup = append(p.AgentSetup, agentSetup{
				Install: safetext.Line(harness.InstallCommand(&h, runtime.GOOS)), Update: safetext.Line(h.UpdateCommand)})
		}
	case "journal":
		lines, err := s.tail(rw)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		p.Journal = parseLines(lines)
		p.Tags = journalTags(p.Journal)
	}
	s.render(w, "plugin.html", http.StatusOK, p)
}

// fragmentReview is the review of a plugin's changed folder alone (empty
// when none is needed), which its page fetches when the list changes.
func (s *Server) fragmentReview(w http.ResponseWriter, r *http.Request) {
	_, rw, _, ok := s.installed(w, r)
	if !ok {
		return
	}
	s.render(w, "review-why", http.StatusOK, rw)
}

// tail is the last 500 lines of a plugin's journal, through the host when
// it holds the plugin, else from the file.
func (s *Server) tail(rw row) ([]string, error) {
	if rw.Plugin != nil {
		return rw.Plugin.Journal().Tail(journalLines)
	}
	lines, err := journal.ReadTail(s.home, rw.ID, journalLines)
	if err != nil && !fileMissing(journal.Path(s.home, rw.ID)) {
		return nil, err
	}
	return lines, nil
}

// journalLines is how many lines the Journal tab shows (docs/protocol.md#11-the-journal).
const journalLines = 500

// journalLine is one line of the journal, split as it was written:
// "<time> <tag> <text>".
type journalLine struct{ Time, Tag, Text string }

func parseLine(line string) journalLine {
	line = safetext.KeepTabs(line) // a plugin's stderr must not reorder the page
	t, rest, _ := strings.Cut(line, " ")
	tag, text, _ := strings.Cut(rest, " ")
	return journalLine{Time: t, Tag: tag, Text: text}
}

func parseLines(lines []string) []journalLine {
	out := make([]journalLine, len(lines))
	for i, l := range lines {
		out[i] = parseLine(l)
	}
	return out
}

// journalTags are the tags the filter offers: those of docs/protocol.md#11-the-journal and
// any other the lines hold (log.<level>).
func journalTags(lines []journalLine) []string {
	tags := []string{journal.TagStart, journal.TagReady, journal.TagStop, journal.TagCrash, journal.TagStderr,
		"log.debug", "log.info", "log.warn", "log.error", journal.TagSecret, journal.TagRefused,
		journal.TagTimeout, journal.TagLate, journal.TagDropped, journal.TagMemory, journal.TagWASM, journal.TagNet}
	for _, l := range lines {
		if l.Tag != "" && !slices.Contains(tags, l.Tag) {
			tags = append(tags, l.Tag)
		}
	}
	return tags
}

// absDir reads a folder typed by the user as the CLI does: relative to
// the folder the command runs in.
func absDir(dir string) (string, error) {
	if dir == "" {
		return "", errNoFolder
	}
	return filepath.Abs(dir)
}

// permItem is one capability a plugin asks, granted or taken back.
type permItem struct {
	Kind, KindLabel string
	Value, Shown    string // as asked, and as shown
	Granted         bool
}

func permItems(lang string, asks, granted manifest.Permissions) []permItem {
	var out []permItem
	for _, k := range kinds(asks) {
		have := kindList(granted, k.name)
		for _, v := range k.list {
			out = append(out, permItem{Kind: k.name, KindLabel: tr(lang, "cap."+k.name), Value: v, Shown: safetext.Line(v), Granted: slices.Contains(have, v)})
		}
	}
	return out
}

type kindOf struct {
	name string
	list []string
}

func kinds(p manifest.Permissions) []kindOf {
	return []kindOf{{"secrets", p.Secrets}, {"network", p.Network}, {"files", p.Files}, {"programs", p.Programs}}
}

func kindList(p manifest.Permissions, kind string) []string {
	for _, k := range kinds(p) {
		if k.name == kind {
			return k.list
		}
	}
	return nil
}

// only is the permission set holding value under kind alone.
func only(kind, value string) (manifest.Permissions, bool) {
	var p manifest.Permissions
	switch kind {
	case "secrets":
		p.Secrets = []string{value}
	case "network":
		p.Network = []string{value}
	case "files":
		p.Files = []string{value}
	case "programs":
		p.Programs = []string{value}
	default:
		return p, false
	}
	return p, true
}
