package services

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeProject(t *testing.T, yml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ProjectFileName), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadProjectConfig(t *testing.T) {
	tests := []struct {
		name string
		yml  string
		want *ProjectConfig
	}{
		{"empty file", "", &ProjectConfig{}},
		{"no plugins", "agents: 2\n", &ProjectConfig{}},
		{"another plugin", "plugins:\n  dev.other: {a: 1}\n", &ProjectConfig{}},
		{"off", "plugins:\n  dev.escouade.slack: false\n", &ProjectConfig{Off: true}},
		{"on without values", "plugins:\n  dev.escouade.slack: true\n", &ProjectConfig{}},
		{"null", "plugins:\n  dev.escouade.slack:\n", &ProjectConfig{}},
		{
			name: "values",
			yml:  "plugins:\n  dev.escouade.slack:\n    channel: '#web'\n    count: 7\n    ratio: 0.5\n    notify: no\n    when: 2024-01-02\n",
			want: &ProjectConfig{Values: map[string]any{"channel": "#web", "count": 7, "ratio": 0.5, "notify": "no", "when": "2024-01-02"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadProjectConfig(writeProject(t, tt.yml), "dev.escouade.slack")
			if err != nil {
				t.Fatalf("LoadProjectConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadProjectConfigMissingFile(t *testing.T) {
	got, err := LoadProjectConfig(t.TempDir(), "dev.escouade.slack")
	if err != nil || !cmp.Equal(&ProjectConfig{}, got) {
		t.Errorf("LoadProjectConfig = %+v, %v; want an empty config", got, err)
	}
}

func TestLoadProjectConfigRefuses(t *testing.T) {
	tests := []struct {
		name    string
		yml     string
		wantErr string
	}{
		{"not YAML", "plugins: [\n", ".escouade.yml: yaml:"},
		{"not a map", "- a\n- b\n", ".escouade.yml: yaml:"},
		{"plugins not a map", "plugins: 3\n", ".escouade.yml: yaml:"},
		{"entry a string", "plugins:\n  dev.escouade.slack: off\n", ".escouade.yml: plugins.dev.escouade.slack (line 2) must be a map of settings, or false"},
		{"entry a list", "plugins:\n  dev.escouade.slack: [a]\n", ".escouade.yml: plugins.dev.escouade.slack (line 2) must be a map"},
		{"duplicate key", "plugins:\n  dev.escouade.slack: {a: 1, a: 2}\n", "already defined"},
		{"too large", "a: '" + strings.Repeat("x", MaxProjectFileBytes) + "'\n", ".escouade.yml is 1048582 bytes; the limit is 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadProjectConfig(writeProject(t, tt.yml), "dev.escouade.slack")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("LoadProjectConfig = %+v, %v; want an error holding %q", got, err, tt.wantErr)
			}
		})
	}
}

func TestLoadProjectConfigNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ProjectFileName), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProjectConfig(dir, "dev.escouade.slack"); err == nil {
		t.Error("LoadProjectConfig of a folder named .escouade.yml succeeded")
	}
}
