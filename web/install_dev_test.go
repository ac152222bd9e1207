package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The window's "In development" tick makes a development install, as
// install --dev does; without it the install is a plain one, and an
// install again without it turns a development install back into one.
func TestInstallInDevelopmentIsTheWindowsTick(t *testing.T) {
	v := startView(t, "")
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	install := func(form url.Values) {
		t.Helper()
		form.Set("dir", dir)
		form["secrets"] = []string{"token"}
		res := v.post("/install", form, map[string]string{SecretHeader: v.srv.Secret()})
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("install: %d", res.StatusCode)
		}
	}
	install(url.Values{"dev": {"1"}})
	if en := mustEntry(t, v, fixtureID); en.Dev == nil || en.Dev.Permissions.Secrets[0] != "token" {
		t.Fatalf("the tick made no development install: %+v", en.Dev)
	}
	install(url.Values{})
	if en := mustEntry(t, v, fixtureID); en.Dev != nil {
		t.Error("an install without the tick kept the development install")
	}
	for _, other := range []string{"true", "on", "0", ""} {
		install(url.Values{"dev": {other}})
		if en := mustEntry(t, v, fixtureID); en.Dev != nil {
			t.Errorf("dev=%q made a development install", other)
		}
	}
}

func TestTheInstallWindowOffersInDevelopment(t *testing.T) {
	v := startView(t, "")
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	_, body := get(t, v, "/install?dir="+dir, map[string]string{SecretHeader: v.srv.Secret()}, "")
	if !strings.Contains(body, `name="dev" value="1"`) || !strings.Contains(body, "In development") {
		t.Errorf("the window has no In development tick:\n%s", body)
	}
}
