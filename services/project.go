package services

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// ProjectFileName is the project file that may set plugin settings under
// plugins.<plugin id>.
const ProjectFileName = ".escouade.yml"

// MaxProjectFileBytes bounds the project file read for settings: a settings
// file larger than this is a mistake, not something to load into memory.
const MaxProjectFileBytes = 1 << 20

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
func LoadProjectConfig(dir, pluginID string) (*ProjectConfig, error) {
	data, err := readProjectFile(filepath.Join(dir, ProjectFileName))
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
		return nil, fmt.Errorf("%s: %w", ProjectFileName, err)
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

func readProjectFile(path string) ([]byte, error) {
	// Non-blocking, so a FIFO planted in a repository cannot hang the host.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", ProjectFileName)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxProjectFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxProjectFileBytes {
		return nil, fmt.Errorf("%s is over %d bytes", ProjectFileName, MaxProjectFileBytes)
	}
	return data, nil
}

// pluginEntry reads the value of plugins.<id>: a map of settings, a
// boolean (false switches the plugin off) or null.
func pluginEntry(node *yaml.Node) (*ProjectConfig, error) {
	switch {
	case node.Kind == yaml.MappingNode:
		keepTimestampsAsText(node)
		var values map[string]any
		if err := node.Decode(&values); err != nil {
			return nil, err
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
