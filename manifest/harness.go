package manifest

import (
	"bytes"
	"encoding/json"
	"slices"
)

// DefaultVersionArg is the argument that makes an agent print its version
// when its harness entry gives no versionArgs.
const DefaultVersionArg = "--version"

// Harness is one entry of contributes.harnesses (docs/harness.md). An entry
// with an ACP object is a described harness, run by the host with no code.
// Members this package does not know are kept in Extra.
type Harness struct {
	ID      string `json:"id"`
	Name    Text   `json:"name"`
	Speaker Text   `json:"speaker,omitzero"` // the name of its agents in texts
	Writer  Text   `json:"writer,omitzero"`  // who writes the texts
	Locate  Locate `json:"locate,omitzero"`

	// VersionProbe is versionArgs as written; VersionArgs applies its
	// default. An empty list, kept as written, says the agent prints no
	// version.
	VersionProbe []string `json:"versionArgs,omitzero"`

	Tested        Tested  `json:"tested,omitzero"`
	Caps          Caps    `json:"caps,omitzero"`
	Models        []Model `json:"models,omitempty"`
	AccountVar    string  `json:"accountVar,omitempty"`
	Install       Install `json:"install,omitzero"`
	UpdateCommand string  `json:"updateCommand,omitempty"`
	ACP           *ACP    `json:"acp,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// VersionArgs returns the arguments that make the agent print its version:
// versionArgs, or ["--version"] when the entry gives none.
func (h *Harness) VersionArgs() []string {
	if h.VersionProbe == nil {
		return []string{DefaultVersionArg}
	}
	return slices.Clone(h.VersionProbe)
}

// ReadsVersion reports whether the host reads the agent's version:
// versionArgs [] says the agent has no version command.
func (h *Harness) ReadsVersion() bool { return h.VersionProbe == nil || len(h.VersionProbe) > 0 }

// SaysVersionArgs reports whether the entry gives its versionArgs rather
// than leaving the default.
func (h *Harness) SaysVersionArgs() bool { return h.VersionProbe != nil }

// Described reports whether the entry is a described ACP harness.
func (h *Harness) Described() bool { return h.ACP != nil }

type harnessFields Harness

// UnmarshalJSON reads the entry by exact member names, keeping the others.
func (h *Harness) UnmarshalJSON(data []byte) error {
	var f harnessFields
	extra, err := decodeExact(data, &f)
	if err != nil {
		return err
	}
	*h = Harness(f)
	h.Extra = extra
	return nil
}

// MarshalJSON writes the entry with the members it was read with.
func (h Harness) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(harnessFields(h), h.Extra)
}

// Locate tells how the host finds the agent's program.
type Locate struct {
	// Names are program names looked up in PATH, never paths.
	Names []string `json:"names,omitempty"`
}

type locateFields Locate

// UnmarshalJSON reads names by its exact member name.
func (l *Locate) UnmarshalJSON(data []byte) error {
	_, err := decodeExact(data, (*locateFields)(l))
	return err
}

// Tested is the range of agent versions the plugin was tried with.
type Tested struct {
	Oldest string `json:"oldest,omitempty"`
	Newest string `json:"newest,omitempty"`
}

type testedFields Tested

// UnmarshalJSON reads oldest and newest by their exact member names.
func (t *Tested) UnmarshalJSON(data []byte) error {
	_, err := decodeExact(data, (*testedFields)(t))
	return err
}

// Install holds the install commands shown to the user, never run by the
// host by itself.
type Install struct {
	Windows string `json:"windows,omitempty"`
	Unix    string `json:"unix,omitempty"`
}

type installFields Install

// UnmarshalJSON reads windows and unix by their exact member names.
func (i *Install) UnmarshalJSON(data []byte) error {
	_, err := decodeExact(data, (*installFields)(i))
	return err
}

// Model is an entry of the agent's model menu.
type Model struct {
	ID    string `json:"id"`
	Label Text   `json:"label"`
}

type modelFields Model

// UnmarshalJSON reads id and label by their exact member names.
func (m *Model) UnmarshalJSON(data []byte) error {
	_, err := decodeExact(data, (*modelFields)(m))
	return err
}

// Caps says what the agent can do. Modes are the app modes it offers; every
// other member is a capability kept raw in Other (images, pdf, readOnly…).
type Caps struct {
	Modes []Mode                     `json:"modes,omitempty"`
	Other map[string]json.RawMessage `json:"-"`
}

// Has reports whether the capability name is declared true. What is not
// said, the agent does not do.
func (c Caps) Has(name string) bool {
	raw, ok := c.Other[name]
	return ok && bytes.Equal(bytes.TrimSpace(raw), []byte("true"))
}

// Offers reports whether the agent offers the app mode id.
func (c Caps) Offers(mode string) bool {
	return slices.ContainsFunc(c.Modes, func(m Mode) bool { return m.ID == mode })
}

// IsZero reports whether c declares nothing, so that an absent caps stays
// absent when written back.
func (c Caps) IsZero() bool { return len(c.Modes) == 0 && len(c.Other) == 0 }

type capsFields Caps

// UnmarshalJSON reads modes and keeps every other capability raw.
func (c *Caps) UnmarshalJSON(data []byte) error {
	var f capsFields
	other, err := decodeExact(data, &f)
	if err != nil {
		return err
	}
	*c = Caps(f)
	c.Other = other
	return nil
}

// MarshalJSON writes modes and the other capabilities.
func (c Caps) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(capsFields(c), c.Other)
}

// Mode is an app mode the agent offers: its id, and what it means for this
// agent (shown by the mode menu). In JSON, an id alone or {id, meaning}.
type Mode struct {
	ID      string `json:"id"`
	Meaning Text   `json:"meaning,omitzero"`
}

type modeFields Mode

// UnmarshalJSON reads a mode given as a string or as {id, meaning}.
func (m *Mode) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		*m = Mode{}
		return json.Unmarshal(data, &m.ID)
	}
	_, err := decodeExact(data, (*modeFields)(m))
	return err
}

// MarshalJSON writes a mode without meaning as its id alone.
func (m Mode) MarshalJSON() ([]byte, error) {
	if m.Meaning.IsZero() {
		return json.Marshal(m.ID)
	}
	return json.Marshal(modeFields(m))
}
