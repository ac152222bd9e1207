package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ACPPluginID is the id of the host's ACP harness (docs/harness.md#in-one-minute), the
// plugin built into the host that runs every described harness. It is
// switched like any other plugin: off, every described harness is absent
// and its agents are kept, marked Harness absent, until it is on again.
const ACPPluginID = "dev.escouade.acp"

// acpSwitchFile records, beside the agents, whether the ACP harness is
// switched off. The plugins' registry holds installed folders; the ACP
// harness has none, so its switch is kept here.
const acpSwitchFile = "acp.json"

type acpSwitch struct {
	Disabled bool `json:"disabled"`
}

// ACPEnabled tells whether the ACP harness is switched on in home: it is,
// unless it was disabled.
func ACPEnabled(home string) (bool, error) {
	b, err := os.ReadFile(filepath.Join(home, StoreDir, acpSwitchFile))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var sw acpSwitch
	if err := json.Unmarshal(b, &sw); err != nil {
		return false, fmt.Errorf("%s is damaged (%v): fix or remove it (removed, the ACP harness is on)", filepath.Join(home, StoreDir, acpSwitchFile), err)
	}
	return !sw.Disabled, nil
}

// SetACPEnabled switches the ACP harness of home on or off.
func SetACPEnabled(home string, on bool) error {
	dir := filepath.Join(home, StoreDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(acpSwitch{Disabled: !on})
	if err != nil {
		return err
	}
	return replaceFile(dir, acpSwitchFile, append(b, '\n'))
}
