package services

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLog(t *testing.T) {
	tests := []struct {
		name      string
		params    string
		wantCode  int64
		wantLines []line
	}{
		{"info", `{"level":"info","message":"ready"}`, 0, []line{{"log.info", "ready"}}},
		{"debug", `{"level":"debug","message":"x"}`, 0, []line{{"log.debug", "x"}}},
		{"warn", `{"level":"warn","message":"x"}`, 0, []line{{"log.warn", "x"}}},
		{"error", `{"level":"error","message":"x"}`, 0, []line{{"log.error", "x"}}},
		{"empty message", `{"level":"info","message":""}`, 0, []line{{"log.info", ""}}},
		{
			name:   "multi-line message",
			params: `{"level":"warn","message":"first\nsecond\r\nthird\rfourth\n"}`,
			wantLines: []line{
				{"log.warn", "first"}, {"log.warn", "second"}, {"log.warn", "third"}, {"log.warn", "fourth"},
			},
		},
		{
			name:   "blank lines inside are kept",
			params: `{"level":"info","message":"a\n\nb"}`,
			wantLines: []line{
				{"log.info", "a"}, {"log.info", ""}, {"log.info", "b"},
			},
		},
		{
			name:   "unknown level",
			params: `{"level":"trace","message":"deep\nder"}`,
			wantLines: []line{
				{"refused", `log: the level "trace" is not one of debug, info, warn, error; the message is kept as info`},
				{"log.info", "deep"}, {"log.info", "der"},
			},
		},
		{
			name:   "level in capitals",
			params: `{"level":"INFO","message":"x"}`,
			wantLines: []line{
				{"refused", `log: the level "INFO" is not one of debug, info, warn, error; the message is kept as info`},
				{"log.info", "x"},
			},
		},
		{
			name: "level with a line break", params: `{"level":"info\nlog.error x","message":"x"}`,
			wantLines: []line{
				{"refused", `log: the level "info\nlog.error x" is not one of debug, info, warn, error; the message is kept as info`},
				{"log.info", "x"},
			},
		},
		{"missing message", `{"level":"info"}`, CodeInvalidParams, []line{{"refused", "log: params.message is required"}}},
		{"missing level", `{"message":"x"}`, CodeInvalidParams, []line{{"refused", "log: params.level is required"}}},
		{"message not a string", `{"level":"info","message":{"a":1}}`, CodeInvalidParams, []line{{"refused", "log: params.message must be a string, not an object"}}},
		{"level not a string", `{"level":1,"message":"x"}`, CodeInvalidParams, []line{{"refused", "log: params.level must be a string, not a number"}}},
		{"unknown field", `{"level":"info","message":"x","at":1}`, CodeInvalidParams, []line{{"refused", "log: params.at is not a known field"}}},
		{"params a string", `"hello"`, CodeInvalidParams, []line{{"refused", "log: params must be an object, not a string"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			got, code := call(t, &Server{PluginID: "dev.x", Journal: rec.journal}, "log", tt.params)
			if got != nil || code != tt.wantCode {
				t.Errorf("Handle = %v, code %d; want nil, code %d", got, code, tt.wantCode)
			}
			if diff := cmp.Diff(tt.wantLines, rec.Lines()); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}
