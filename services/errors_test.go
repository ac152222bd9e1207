package services

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorMatchesByCode(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &Error{Code: CodeMissing, Message: "No such file.", Reason: `"a": no such file`})
	if !errors.Is(err, &Error{Code: CodeMissing}) {
		t.Errorf("errors.Is(%v, CodeMissing) = false, want true", err)
	}
	if errors.Is(err, &Error{Code: CodeForbidden}) {
		t.Errorf("errors.Is(%v, CodeForbidden) = true, want false", err)
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Code: CodeMethodNotFound, Message: "No such method."}, "No such method."},
		{&Error{Code: CodeMissing, Message: "No such file.", Reason: `"a": no such file`}, `No such file. ("a": no such file)`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
