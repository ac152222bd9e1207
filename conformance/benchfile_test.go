package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

func TestDecodeBenchFile(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string // a part of the error; "" for none
	}{
		{"empty object", `{}`, ""},
		{"full", `{"secrets":{"k":"v"},"settings":{"a":1},"scenarios":[{"name":"a","call":"x/y","params":[1],` +
			`"expect":{"result":null}},{"name":"b","call":"x/y","expect":{"error":{"code":-32601,"message":"m"}}},` +
			`{"name":"c","call":"x/y","params":null}]}`, ""},
		{"not JSON", `{`, "line 1, column 2: the file ends before the JSON value is complete (fix: close every string"},
		{"not an object", `[]`, "line 1, column 1: the file holds an array, not a JSON object"},
		{"data after", `{} {}`, "line 1, column 4: more data after the JSON object (fix: keep one JSON object in the file; the format: docs/CLI.md, \"Scenarios: escouade-bench.json\")"},
		{"unknown member", `{"scenario":[]}`, `line 1, column 2: /scenario: unknown member "scenario" (fix: write "scenarios"; the format: docs/CLI.md, "Scenarios: escouade-bench.json")`},
		{"unknown scenario member", "{\"scenarios\": [\n  {\"name\": \"a\",\n   \"method\": \"x\"}]}", `line 3, column 4: scenario 0 ("a"): /scenarios/0/method: unknown member "method" (fix: write "call";`},
		{"no name", `{"scenarios":[{"call":"x"}]}`, `line 1, column 15: scenario 0: /scenarios/0: has no "name"`},
		{"no call", `{"scenarios":[{"name":"a"}]}`, `scenario 0 ("a"): /scenarios/0: has no "call"`},
		{"scalar params", `{"scenarios":[{"name":"a","call":"x","params":3}]}`, "/scenarios/0/params: is a number: params are an object or an array"},
		{"both expectations", `{"scenarios":[{"name":"a","call":"x","expect":{"result":1,"error":{"code":1}}}]}`, "gives both result and error"},
		{"empty expect", `{"scenarios":[{"name":"a","call":"x","expect":{}}]}`, "gives neither result nor error"},
		{"name twice", `{"scenarios":[{"name":"a","call":"x"},{"name":"a","call":"y"}]}`, `scenario 1 ("a"): /scenarios/1/name: "a" is given twice (first in scenario 0)`},
		{"secret not a string", `{"secrets":{"k":1}}`, "/secrets/k: is a number, not a string"},
		{"includes not an object", `{"scenarios":[{"name":"a","call":"x","expect":{"includes":[1]}}]}`, "/scenarios/0/expect/includes: is an array, not an object"},
		{"includes and result", `{"scenarios":[{"name":"a","call":"x","expect":{"includes":{},"result":{}}}]}`, "gives both result and includes"},
		{"includes", `{"scenarios":[{"name":"a","call":"x","expect":{"includes":{"text":"hi"}}}]}`, ""},
		{"fetch answer", `{"fetch":{"https://a.example/x":{"status":404,"headers":{"content-type":"text/plain"},"body":"no"}}}`, ""},
		{"fetch status a string", `{"fetch":{"https://a.example/x":{"status":"200"}}}`, "/fetch/https:~1~1a.example~1x/status: is a string, not an integer"},
		{"fetch typo", `{"fetch":{"https://a.example/x":{"stauts":200}}}`, `unknown member "stauts" (fix: write "status"`},
		{"fetch body an object", `{"fetch":{"https://a.example/x":{"body":{}}}}`, "/body: is an object, not a string"},
		{"code not a number", `{"scenarios":[{"name":"a","call":"x","expect":{"error":{"code":"1"}}}]}`, "/scenarios/0/expect/error/code: is a string, not an integer"},
		{"refused", `{"scenarios":[{"name":"a","call":"x","refused":[{"method":"net/fetch","code":-32003},{"method":"files/read"}]}]}`, ""},
		{"refused not a list", `{"scenarios":[{"name":"a","call":"x","refused":{"method":"net/fetch"}}]}`, `/scenarios/0/refused: is an object, not an array (fix: write [{"method": "net/fetch", "code": -32003}]`},
		{"refused without method", `{"scenarios":[{"name":"a","call":"x","refused":[{"code":-32003}]}]}`, `/scenarios/0/refused/0: has no "method"`},
		{"refused code a string", `{"scenarios":[{"name":"a","call":"x","refused":[{"method":"m","code":"-32003"}]}]}`, "/scenarios/0/refused/0/code: is a string, not an integer"},
		{"refused typo", `{"scenarios":[{"name":"a","call":"x","refused":[{"metod":"m"}]}]}`, `unknown member "metod" (fix: write "method"`},
		{"refused typo at the scenario", `{"scenarios":[{"name":"a","call":"x","refuse":[]}]}`, `unknown member "refuse" (fix: write "refused"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeBenchFile([]byte(tt.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
				t.Errorf("DecodeBenchFile(%s) error %q, want one holding %q", tt.in, got, tt.wantErr)
			}
			if strings.Contains(got, "json:") || strings.Contains(got, "Go value") || strings.Contains(got, "unmarshal") {
				t.Errorf("DecodeBenchFile(%s) error %q shows the decoder's words", tt.in, got)
			}
		})
	}
}

func TestLoadBenchFile(t *testing.T) {
	dir := t.TempDir()
	if b, err := LoadBenchFile(dir); b != nil || err != nil {
		t.Errorf("LoadBenchFile of a folder without one = %v, %v; want nil, nil", b, err)
	}
	if err := os.WriteFile(filepath.Join(dir, BenchFileName), make([]byte, maxBenchFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBenchFile(dir); err == nil || !strings.Contains(err.Error(), "the limit is 1 MiB") {
		t.Errorf("LoadBenchFile of a huge file: %v, want it refused as too large", err)
	}
}

func FuzzDecodeBenchFile(f *testing.F) {
	f.Add([]byte(`{"scenarios":[{"name":"a","call":"x/y","expect":{"result":{"a":1}}}]}`))
	f.Add([]byte(`{"secrets":{"k":"v"},"scenarios":[{"name":"b","call":"x","expect":{"error":{"code":-1}}}]}`))
	f.Add([]byte(`{"scenarios":[{"name":"a","call":"x"},{"name":"a","call":"x"}]}`))
	f.Add([]byte("{\"scenarios\": [\n{\"name\": 1}]}"))
	f.Add([]byte(`{"scenarios":[{"name":"a","call":"x","refused":[{"method":"net/fetch","code":-32003},{"method":"files/read"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeBenchFile(data)
		if err != nil {
			var be *BenchFileError
			if !errors.As(err, &be) || be.Line < 1 || be.Column < 1 || be.Fix == "" {
				t.Fatalf("DecodeBenchFile(%q) = %v: not a refusal with a place and a fix", data, err)
			}
			return
		}
		names := map[string]bool{}
		for _, s := range b.Scenarios {
			if s.Name == "" || s.Call == "" || names[s.Name] || !isParams(s.Params) {
				t.Fatalf("accepted a scenario that does not hold: %+v", s)
			}
			for _, r := range s.Refused {
				if r.Method == "" {
					t.Fatalf("accepted an expected refusal without a method: %+v", s)
				}
			}
			names[s.Name] = true
		}
	})
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":1}`, true},
		{`1`, `1.0`, true},
		{`"x"`, `"x"`, true},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`null`, `{}`, false},
		{`{`, `{`, false},
	}
	for _, tt := range tests {
		if got := sameJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if diff := cmp.Diff("result {\"a\":1}", describeAnswer(&jsonrpc.Message{Result: []byte(`{ "a" : 1 }`)})); diff != "" {
		t.Errorf("describeAnswer (-want +got):\n%s", diff)
	}
}
