package acp

import (
	"encoding/json"
	"errors"
	"fmt"
)

type permissionRequest struct {
	ToolCall *toolCallFields    `json:"toolCall"`
	Options  []PermissionOption `json:"options"`
}

type permissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
}

type permissionResult struct {
	Outcome permissionOutcome `json:"outcome"`
}

// onPermissionRequest makes a permission card: the tool as the app names it,
// its input, its description, the diff when the content has one, and the
// options the agent offers.
func (c *Client) onPermissionRequest(m *incoming) error {
	var r permissionRequest
	if err := json.Unmarshal(m.Params, &r); err != nil {
		return err
	}
	if r.ToolCall == nil || len(r.Options) == 0 {
		return errors.New("no toolCall or no options")
	}
	tool := c.tools.describe(r.ToolCall, c.namer())
	handle := c.handles.add(waiting{itemType: TypePermission, id: m.ID, options: r.Options})
	c.emit(Item{
		Type: TypePermission, Request: handle,
		ID: r.ToolCall.ToolCallID, Name: tool.name, Title: tool.title, Kind: tool.kind,
		Input: firstRaw(r.ToolCall.RawInput, tool.input), Description: contentText(r.ToolCall.Content),
		Diffs: diffsOf(r.ToolCall.Content), Locations: pathsOf(r.ToolCall.Locations),
		Options: r.Options,
	})
	return nil
}

// AnswerPermission answers a permission card with the option of that kind
// (allow_once, allow_always, reject_once, reject_always) or, failing that,
// the option of that id; "cancelled" answers the cancelled outcome.
func (c *Client) AnswerPermission(handle, kindOrOption string) ([]Item, []Out) {
	return c.answerPermission(handle, kindOrOption, func(options []PermissionOption) (PermissionOption, bool) {
		return pickOption(options, kindOrOption)
	})
}

// AnswerPermissionOption answers a permission card with the option of that
// id, and by id only: an id that reads like a kind is still an id.
func (c *Client) AnswerPermissionOption(handle, optionID string) ([]Item, []Out) {
	return c.answerPermission(handle, optionID, func(options []PermissionOption) (PermissionOption, bool) {
		for _, o := range options {
			if o.ID == optionID {
				return o, true
			}
		}
		return PermissionOption{}, false
	})
}

func (c *Client) answerPermission(handle, kindOrOption string, choose func([]PermissionOption) (PermissionOption, bool)) ([]Item, []Out) {
	w, ok := c.handles.waiting[handle]
	if !ok || w.itemType != TypePermission {
		c.emit(notice(fmt.Sprintf("no permission card %s is waiting", handle)))
		return c.flush()
	}
	if kindOrOption == OutcomeCancelled {
		c.cancelPermission(handle)
		return c.flush()
	}
	option, found := choose(w.options)
	if !found {
		c.emit(notice(fmt.Sprintf("permission card %s offers no option %q", handle, kindOrOption)))
		return c.flush()
	}
	c.handles.take(handle)
	c.answer(w.id, permissionResult{Outcome: permissionOutcome{Outcome: OutcomeSelected, OptionID: option.ID}})
	c.emit(Item{Type: TypeAnswered, Request: handle, Outcome: OutcomeSelected, Option: option.ID, Kind: option.Kind})
	return c.flush()
}

func pickOption(options []PermissionOption, kindOrOption string) (PermissionOption, bool) {
	for _, o := range options {
		if o.Kind == kindOrOption {
			return o, true
		}
	}
	for _, o := range options {
		if o.ID == kindOrOption {
			return o, true
		}
	}
	return PermissionOption{}, false
}

func (c *Client) cancelPermission(handle string) {
	w, _ := c.handles.take(handle)
	c.answer(w.id, permissionResult{Outcome: permissionOutcome{Outcome: OutcomeCancelled}})
	c.emit(Item{Type: TypeAnswered, Request: handle, Outcome: OutcomeCancelled})
}

// cancelPermissions answers every waiting permission card cancelled.
func (c *Client) cancelPermissions() {
	for _, handle := range c.handles.ofType(TypePermission) {
		c.cancelPermission(handle)
	}
}

func firstRaw(values ...json.RawMessage) json.RawMessage {
	for _, v := range values {
		if present(v) {
			return v
		}
	}
	return nil
}
