package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCountLines(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"\n", 1},
		{"a", 1},
		{"a\n", 1},
		{"a\nb", 2},
		{"a\nb\n", 2},
		{"a\n\nb\n", 3},
	}
	for _, tt := range tests {
		if got := countLines(tt.text); got != tt.want {
			t.Errorf("countLines(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestSettingsWithDefaults(t *testing.T) {
	type values struct {
		Greeting string
		Shout    bool
	}
	tests := []struct {
		settings map[string]any
		want     values
	}{
		{nil, values{"Hello", false}},
		{map[string]any{}, values{"Hello", false}},
		{map[string]any{"greeting": "Hi", "shout": true}, values{"Hi", true}},
		{map[string]any{"greeting": 7, "shout": "yes"}, values{"Hello", false}},
	}
	for _, tt := range tests {
		got := values{
			Greeting: stringSetting(tt.settings, greetingSetting, defaultGreeting),
			Shout:    boolSetting(tt.settings, shoutSetting, false),
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("settings %v (-want +got):\n%s", tt.settings, diff)
		}
	}
}
