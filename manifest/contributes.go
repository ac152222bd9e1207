package manifest

import "slices"

type contributesFields Contributes

// UnmarshalJSON reads settings and harnesses, keeping every other member raw
// in Other for the app.
func (c *Contributes) UnmarshalJSON(data []byte) error {
	var f contributesFields
	other, err := decodeExact(data, &f)
	if err != nil {
		return err
	}
	*c = Contributes(f)
	c.Other = other
	return nil
}

// MarshalJSON writes settings, harnesses and the other members.
func (c Contributes) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(contributesFields(c), c.Other)
}

// IsZero reports whether c contributes nothing, so that an absent
// contributes stays absent when written back.
func (c Contributes) IsZero() bool {
	return len(c.Settings) == 0 && len(c.Harnesses) == 0 && len(c.Other) == 0
}

// Harness returns the harness entry with the given id.
func (c Contributes) Harness(id string) (*Harness, bool) {
	i := slices.IndexFunc(c.Harnesses, func(h Harness) bool { return h.ID == id })
	if i < 0 {
		return nil, false
	}
	return &c.Harnesses[i], true
}

type settingFields Setting

// UnmarshalJSON reads the setting by exact member names, keeping the others.
func (s *Setting) UnmarshalJSON(data []byte) error {
	var f settingFields
	extra, err := decodeExact(data, &f)
	if err != nil {
		return err
	}
	*s = Setting(f)
	s.Extra = extra
	return nil
}

// MarshalJSON writes the setting with the members it was read with.
func (s Setting) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(settingFields(s), s.Extra)
}
