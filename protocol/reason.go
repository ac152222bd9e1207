package protocol

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Reasons this package writes itself.
const (
	reasonNotJSON       = "is not valid JSON"
	reasonRequired      = "is required"
	reasonUnknownMember = "is not allowed"
)

// reason is a short English sentence, without its subject, for what failed.
func reason(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s, not %s", typeList(k.Want), typeName(k.Got))
	case *kind.Enum:
		return "must be one of " + jsonList(k.Want)
	case *kind.Const:
		return "must be " + jsonText(k.Want)
	case *kind.FalseSchema:
		return reasonUnknownMember
	}
	if r, ok := boundReason(k); ok {
		return r
	}
	return k.LocalizedString(message.NewPrinter(language.English))
}

// boundReason words the errors about a number, a length or a count.
func boundReason(k jsonschema.ErrorKind) (string, bool) {
	switch k := k.(type) {
	case *kind.Minimum:
		return "must be at least " + k.Want.RatString(), true
	case *kind.Maximum:
		return "must be at most " + k.Want.RatString(), true
	case *kind.ExclusiveMinimum:
		return "must be more than " + k.Want.RatString(), true
	case *kind.ExclusiveMaximum:
		return "must be less than " + k.Want.RatString(), true
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty", true
		}
		return fmt.Sprintf("must have at least %d characters", k.Want), true
	case *kind.MaxLength:
		return fmt.Sprintf("must have at most %d characters", k.Want), true
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d items", k.Want), true
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d items", k.Want), true
	case *kind.Pattern:
		return "must match " + k.Want, true
	case *kind.Format:
		return "must be a valid " + k.Want, true
	}
	return "", false
}

// typeName is a JSON type with its article: "a string", "an object", "null".
func typeName(t string) string {
	switch t {
	case "null":
		return t
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

func typeList(types []string) string {
	named := make([]string, len(types))
	for i, t := range types {
		named[i] = typeName(t)
	}
	return strings.Join(named, " or ")
}

func jsonList(values []any) string {
	texts := make([]string, len(values))
	for i, v := range values {
		texts[i] = jsonText(v)
	}
	return strings.Join(texts, ", ")
}

// jsonText writes a value of the schema as JSON, so strings keep their quotes.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
