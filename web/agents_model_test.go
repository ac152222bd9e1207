package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// The session item carries the model the agent says it runs, from its
// config option of category model (grouped options too), else from the
// session's models.
func TestSessionViewCarriesTheReportedModel(t *testing.T) {
	for _, c := range []struct {
		name           string
		models, config string
		want           string
		list           string
	}{
		{"models", `{"currentModelId":"sonnet","availableModels":[{"modelId":"sonnet","name":"Sonnet 4.5"},{"modelId":"opus","name":"Opus"}]}`, ``, "sonnet", "sonnet=Sonnet 4.5|opus=Opus"},
		{"config option", `{"currentModelId":"old"}`, `[{"id":"mode","category":"mode","currentValue":"ask"},
			{"id":"model","category":"model","currentValue":"gpt-5","options":[{"value":"gpt-5","name":"GPT-5"},{"group":"more","name":"More","options":[{"value":"o3"}]}]}]`, "gpt-5", "gpt-5=GPT-5|o3=o3"},
		{"none", ``, `[{"id":"model","category":"model","currentValue":7}]`, "", ""},
		{"hostile", `{"currentModelId":"x\u202ey","availableModels":[{"modelId":"x\u202ey","name":"<b>x</b>"}]}`, ``, `x\u202ey`, `x\u202ey=<b>x</b>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := viewOf(acp.Item{Type: acp.TypeSession, SessionID: "s", Models: raw(c.models), ConfigOptions: raw(c.config)})
			var list []string
			for _, m := range v.Models {
				list = append(list, m.ID+"="+m.Label)
			}
			if v.Model != c.want || strings.Join(list, "|") != c.list {
				t.Errorf("model %q, models %q; want %q, %q", v.Model, list, c.want, c.list)
			}
		})
	}
}

// The menu lists at most reportedModels of the models an agent offers.
func TestSessionViewBoundsTheModels(t *testing.T) {
	var many []string
	for i := range 3 * reportedModels {
		many = append(many, fmt.Sprintf(`{"modelId":"m%d"}`, i))
	}
	v := viewOf(acp.Item{Type: acp.TypeSession, Models: raw(`{"currentModelId":"m0","availableModels":[` + strings.Join(many, ",") + `]}`)})
	if len(v.Models) != reportedModels {
		t.Errorf("%d models listed, want %d", len(v.Models), reportedModels)
	}
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func FuzzReportedModel(f *testing.F) {
	f.Add(`{"currentModelId":"a","availableModels":[{"modelId":"a"}]}`, `[{"category":"model","currentValue":"b","options":[{"value":"b"}]}]`)
	f.Add(`null`, `[{"category":"model","currentValue":"b","options":[{"options":[{"options":[{"value":"\u202e"}]}]}]}]`)
	f.Fuzz(func(t *testing.T, models, config string) {
		model, list := reportedModel(json.RawMessage(models), json.RawMessage(config))
		if len(list) > reportedModels {
			t.Fatalf("%d models", len(list))
		}
		v := itemView{Model: model, Models: list}
		if r, bad := unsafeRune(v); bad {
			t.Errorf("an unescaped %U in %+v", r, v)
		}
	})
}
