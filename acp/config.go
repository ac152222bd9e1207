package acp

import (
	"encoding/json"
	"fmt"
)

// Config option categories (SessionConfigOptionCategory) the client uses.
const (
	categoryMode  = "mode"
	categoryModel = "model"
)

// configOption is what the client reads of a session config option; the
// app gets them raw.
type configOption struct {
	ID           string          `json:"id"`
	Category     string          `json:"category"`
	CurrentValue json.RawMessage `json:"currentValue"`
}

// modeState is the session's current ACP mode and model.
type modeState struct {
	mode, model string
	wantMode    *string // asked before the session was open
	wantModel   *string
}

func (c *Client) keepConfig(raw json.RawMessage) {
	var options []configOption
	if json.Unmarshal(raw, &options) == nil {
		c.session.config = options
	}
}

func (c *Client) keepModes(raw json.RawMessage) {
	var m struct {
		CurrentModeID string `json:"currentModeId"`
	}
	if json.Unmarshal(raw, &m) == nil {
		c.session.modes.mode = m.CurrentModeID
	}
}

// keepCurrent reads the current mode and model of the config options
// without telling the app: the session item gives them.
func (c *Client) keepCurrent() {
	if o := c.optionOf(categoryMode); o != nil {
		c.session.modes.mode = jsonText(o.CurrentValue)
	}
	if o := c.optionOf(categoryModel); o != nil {
		c.session.modes.model = jsonText(o.CurrentValue)
	}
}

func (c *Client) optionOf(category string) *configOption {
	for i, o := range c.session.config {
		if o.Category == category {
			return &c.session.config[i]
		}
	}
	return nil
}

// SetMode sets the ACP mode of an app mode (Options.Modes; ReadOnly is
// Options.ReadOnlyMode): through the config option of category mode when the
// agent has one, else session/set_mode. Before the session is open it waits.
func (c *Client) SetMode(appMode string) ([]Item, []Out) {
	mode := c.opts.Modes[appMode]
	if appMode == ReadOnly && c.opts.ReadOnlyMode != "" {
		mode = c.opts.ReadOnlyMode
	}
	switch {
	case mode == "":
		c.emit(notice(fmt.Sprintf("the agent has no mode for the app mode %s", appMode)))
	case c.phase == phaseEnded:
	case c.phase != phaseReady:
		c.session.modes.wantMode = &mode
	default:
		c.sendMode(mode)
	}
	return c.flush()
}

// SetModel sets the model: through Options.ModelOption, else the config
// option of category model, else the legacy session/set_model.
func (c *Client) SetModel(model string) ([]Item, []Out) {
	switch {
	case c.phase == phaseEnded:
	case c.phase != phaseReady:
		c.session.modes.wantModel = &model
	default:
		c.sendModel(model)
	}
	return c.flush()
}

func (c *Client) applyWanted() {
	m := &c.session.modes
	if m.wantMode != nil {
		c.sendMode(*m.wantMode)
	}
	if m.wantModel != nil {
		c.sendModel(*m.wantModel)
	}
	m.wantMode, m.wantModel = nil, nil
}

func (c *Client) sendMode(mode string) {
	if o := c.optionOf(categoryMode); o != nil {
		c.setConfigOption(o.ID, mode, "mode")
		return
	}
	params := struct {
		SessionID string `json:"sessionId"`
		ModeID    string `json:"modeId"`
	}{c.session.id, mode}
	c.call(methodSessionSetMode, params, func(_ json.RawMessage, err *Error) {
		if err != nil {
			c.emit(notice(fmt.Sprintf("the agent did not take the mode %s: %v", mode, err)))
			return
		}
		c.modeChanged(mode)
	})
}

func (c *Client) sendModel(model string) {
	id := c.opts.ModelOption
	if o := c.optionOf(categoryModel); id == "" && o != nil {
		id = o.ID
	}
	if id != "" {
		c.setConfigOption(id, model, "model")
		return
	}
	params := struct {
		SessionID string `json:"sessionId"`
		ModelID   string `json:"modelId"`
	}{c.session.id, model}
	c.call(methodSessionSetModel, params, func(_ json.RawMessage, err *Error) {
		if err != nil {
			c.emit(notice(fmt.Sprintf("the agent did not take the model %s: %v", model, err)))
			return
		}
		c.modelChanged(model)
	})
}

func (c *Client) setConfigOption(configID, value, what string) {
	params := struct {
		SessionID string `json:"sessionId"`
		ConfigID  string `json:"configId"`
		Value     string `json:"value"`
	}{c.session.id, configID, value}
	c.call(methodSessionSetConfig, params, func(result json.RawMessage, err *Error) {
		if err != nil {
			c.emit(notice(fmt.Sprintf("the agent did not take the %s %s: %v", what, value, err)))
			return
		}
		var r struct {
			ConfigOptions json.RawMessage `json:"configOptions"`
		}
		if json.Unmarshal(result, &r) == nil && present(r.ConfigOptions) {
			c.configChanged(r.ConfigOptions)
			return
		}
		c.valueSet(what, value)
	})
}

func (c *Client) valueSet(what, value string) {
	if what == "mode" {
		c.modeChanged(value)
	} else {
		c.modelChanged(value)
	}
}

func (c *Client) modeChanged(mode string) {
	c.session.modes.mode = mode
	c.emit(Item{Type: TypeMode, Mode: mode})
}

func (c *Client) modelChanged(model string) {
	c.session.modes.model = model
	c.emit(Item{Type: TypeModel, Model: model})
}

// configChanged keeps new config options, gives them raw, and tells the
// mode or model they now hold when it changed.
func (c *Client) configChanged(raw json.RawMessage) {
	c.keepConfig(raw)
	c.emit(Item{Type: TypeConfig, ConfigOptions: raw})
	if o := c.optionOf(categoryMode); o != nil {
		if v := jsonText(o.CurrentValue); v != c.session.modes.mode {
			c.modeChanged(v)
		}
	}
	if o := c.optionOf(categoryModel); o != nil {
		if v := jsonText(o.CurrentValue); v != c.session.modes.model {
			c.modelChanged(v)
		}
	}
}

func (c *Client) onCurrentMode(u *update) error {
	var v struct {
		CurrentModeID *string `json:"currentModeId"`
	}
	if err := u.decode(&v); err != nil {
		return err
	}
	if v.CurrentModeID == nil {
		return fmt.Errorf("no currentModeId")
	}
	c.modeChanged(*v.CurrentModeID)
	return nil
}

func (c *Client) onConfigUpdate(u *update) error {
	var v struct {
		ConfigOptions json.RawMessage `json:"configOptions"`
	}
	if err := u.decode(&v); err != nil {
		return err
	}
	c.configChanged(v.ConfigOptions)
	return nil
}
