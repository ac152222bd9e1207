package services

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// ProjectFileName is the project file that may set plugin settings under
// plugins.<plugin id>.
const ProjectFileName = ".escouade.yml"

// MaxProjectFileBytes bounds the project file read for settings: a settings
// file larger than this is a mistake, not something to load into memory.
const MaxProjectFileBytes = protocol.ProjectFileBytes

// ProjectConfig is what a project's .escouade.yml says about one plugin.
type ProjectConfig struct {
	// Values are the settings under plugins.<id>, as YAML decoded them.
	Values map[string]any
	// Off is true when the file says plugins.<id>: false.
	Off bool
}

// LoadProjectConfig reads DIR/.escouade.yml and returns what it says about
// the plugin pluginID. A missing file, a file without plugins or without
// this plugin, and plugins.<id>: true all give an empty config.
//
// The file is read through the project folder as an os.Root: a link that
// leads out of the project is not followed. And no error ever quotes the
// file's text (YAML's own messages do): the file may be a link to anything
// inside the project, and the error goes to the plugin's journal.
func LoadProjectConfig(dir, pluginID string) (*ProjectConfig, error) {
	data, err := readProjectFile(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &ProjectConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Plugins map[string]yaml.Node `yaml:"plugins"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: yaml: %s", ProjectFileName, yamlFault(err))
	}
	node, ok := doc.Plugins[pluginID]
	if !ok {
		return &ProjectConfig{}, nil
	}
	cfg, err := pluginEntry(&node)
	if err != nil {
		return nil, fmt.Errorf("%s: plugins.%s %w", ProjectFileName, pluginID, err)
	}
	return cfg, nil
}

// readProjectFile reads dir/.escouade.yml, following links only inside
// dir, through safefile: a named pipe planted in a repository cannot hang
// the host, nor a device fill its memory.
func readProjectFile(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := safefile.ReadIn(root, ProjectFileName, ProjectFileName, MaxProjectFileBytes)
	var refused *safefile.Error
	if errors.As(err, &refused) && refused.Kind == nil && !errors.Is(err, fs.ErrNotExist) {
		if info, lerr := root.Lstat(ProjectFileName); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a link that leads out of the project: it is not read", ProjectFileName)
		}
	}
	return data, err
}

// pluginEntry reads the value of plugins.<id>: a map of settings, a
// boolean (false switches the plugin off) or null.
func pluginEntry(node *yaml.Node) (*ProjectConfig, error) {
	switch {
	case node.Kind == yaml.MappingNode:
		keepTimestampsAsText(node)
		var values map[string]any
		if err := node.Decode(&values); err != nil {
			return nil, errors.New(yamlFault(err))
		}
		return &ProjectConfig{Values: values}, nil
	case node.Kind == yaml.ScalarNode && node.ShortTag() == "!!null":
		return &ProjectConfig{}, nil
	case node.Kind == yaml.ScalarNode && node.ShortTag() == "!!bool":
		var on bool
		if err := node.Decode(&on); err != nil {
			return nil, err
		}
		return &ProjectConfig{Off: !on}, nil
	}
	return nil, fmt.Errorf("(line %d) must be a map of settings, or false to switch the plugin off", node.Line)
}

// keepTimestampsAsText retags timestamp scalars as strings: a setting
// written 2024-01-02 is the text the user typed, not a time.Time that would
// come back as 2024-01-02T00:00:00Z.
func keepTimestampsAsText(node *yaml.Node) {
	if node.Kind == yaml.ScalarNode && node.ShortTag() == "!!timestamp" {
		node.Tag = "!!str"
	}
	for _, child := range node.Content {
		keepTimestampsAsText(child)
	}
}

// yamlLine finds the line numbers YAML's messages give.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlFault says what YAML refused, by line, without quoting the text:
// YAML's messages quote values and keys.
func yamlFault(err error) string {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return atLines(err.Error(), "not valid YAML")
	}
	faults := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		what := "not the shape expected (a map, whose plugins is a map by plugin id)"
		if strings.Contains(e, "already defined") {
			what = "a key already defined above"
		}
		faults = append(faults, atLines(e, what))
	}
	return strings.Join(faults, "; ")
}

// atLines is what, after the first line number message gives.
func atLines(message, what string) string {
	if m := yamlLine.FindStringSubmatch(message); m != nil {
		return "line " + m[1] + ": " + what
	}
	return what
}
