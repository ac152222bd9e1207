package conformance

import (
	"encoding/json"
	"testing"
)

func TestIncludesJSONMatchesPartOfAResult(t *testing.T) {
	result := json.RawMessage(`{"text":"Hi, Ada!","ms":1234,"meta":{"lang":"en","n":2},"tags":["a","b"]}`)
	tests := []struct {
		part string
		want bool
	}{
		{`{}`, true},
		{`{"text":"Hi, Ada!"}`, true},
		{`{"meta":{"lang":"en"}}`, true},
		{`{"tags":["a","b"]}`, true},
		{`{"tags":["a"]}`, false}, // arrays compare whole
		{`{"text":"Hi"}`, false},
		{`{"missing":null}`, false},
		{`{"meta":{"lang":"fr"}}`, false},
		{`{"meta":"en"}`, false},
		{`{"ms":1234.0}`, true}, // numbers as values
	}
	for _, tt := range tests {
		if got := includesJSON(result, json.RawMessage(tt.part)); got != tt.want {
			t.Errorf("includesJSON(%s, %s) = %v, want %v", result, tt.part, got, tt.want)
		}
	}
	if includesJSON(json.RawMessage(`[1]`), json.RawMessage(`{"a":1}`)) {
		t.Error("an array result includes an object")
	}
}
