package web

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func get(t *testing.T, v *view, path string, header map[string]string, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, v.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	if host != "" {
		req.Host = host
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// Every request needs the secret; a change needs it in the header and no
// other Origin; the Host header must be the loopback address served.
func TestGuard(t *testing.T) {
	v := installedView(t)
	secret := map[string]string{SecretHeader: v.srv.Secret()}
	port := strings.TrimPrefix(v.base, "http://127.0.0.1:")
	gets := []struct {
		name, path string
		header     map[string]string
		host       string
		want       int
	}{
		{"page without the secret", "/", nil, "", http.StatusForbidden},
		{"script without the secret", "/static/app.js", nil, "", http.StatusForbidden},
		{"events without the secret", "/events", nil, "", http.StatusForbidden},
		{"journal without the secret", "/plugins/" + fixtureID + "?tab=journal", nil, "", http.StatusForbidden},
		{"a wrong secret in the URL", "/?secret=nope", nil, "", http.StatusForbidden},
		{"a wrong secret in the header", "/", map[string]string{SecretHeader: "nope"}, "", http.StatusForbidden},
		{"the secret in the header", "/", secret, "", http.StatusOK},
		{"the secret in the URL sets the cookie", "/?secret=" + url.QueryEscape(v.srv.Secret()), nil, "", http.StatusSeeOther},
		{"localhost with the port", "/", secret, "localhost:" + port, http.StatusOK},
		{"another name (DNS rebinding)", "/", secret, "rebind.example:" + port, http.StatusMisdirectedRequest},
		{"another port", "/", secret, "127.0.0.1:1", http.StatusMisdirectedRequest},
		{"no port", "/", secret, "127.0.0.1", http.StatusMisdirectedRequest},
	}
	for _, c := range gets {
		t.Run(c.name, func(t *testing.T) {
			if got, body := get(t, v, c.path, c.header, c.host); got != c.want {
				t.Errorf("GET %s: %d, want %d (%s)", c.path, got, c.want, body)
			}
		})
	}

	posts := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no secret", nil, http.StatusForbidden},
		{"the secret in a cookie only", map[string]string{"Cookie": cookieName(&http.Request{Host: "127.0.0.1:" + port}) + "=" + v.srv.Secret()}, http.StatusForbidden},
		{"another origin", map[string]string{SecretHeader: v.srv.Secret(), "Origin": "http://evil.example"}, http.StatusForbidden},
		{"another port of loopback", map[string]string{SecretHeader: v.srv.Secret(), "Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
	}
	for _, c := range posts {
		t.Run("POST "+c.name, func(t *testing.T) {
			res := v.post("/plugins/"+fixtureID+"/disable", nil, c.header)
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Errorf("POST disable: %d, want %d", res.StatusCode, c.want)
			}
			if en, _ := v.registry().Get(fixtureID); en.Disabled {
				t.Fatal("a refused POST disabled the plugin")
			}
		})
	}
	res := v.post("/plugins/"+fixtureID+"/disable", nil, map[string]string{SecretHeader: v.srv.Secret(), "Origin": v.base})
	res.Body.Close()
	if en, _ := v.registry().Get(fixtureID); res.StatusCode != http.StatusOK || !en.Disabled {
		t.Errorf("POST disable with the secret from our origin: %d, disabled %v", res.StatusCode, en.Disabled)
	}
}

// In a real browser: the address without the secret is refused, and a
// page of another origin cannot change anything, whatever it tries.
func TestBrowserRefusesWithoutSecretAndCrossOrigin(t *testing.T) {
	ctx := browser(t)
	v := installedView(t)
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(v.base+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusForbidden || !strings.Contains(bodyText(t, ctx), "refused") {
		t.Errorf("the view without the secret: %d %q", res.Status, bodyText(t, ctx))
	}
	screenshot(t, ctx, "refused")

	// The person opens the view (the cookie is set), then a page of another
	// origin tries to disable the plugin.
	if err := chromedp.Do(ctx, chromedp.Navigate(v.url()), waitText("View fixture")); err != nil {
		t.Fatal(err)
	}
	evil := startEvil(t, v.base+"/plugins/"+fixtureID+"/disable")
	err = chromedp.Do(ctx,
		chromedp.Navigate(evil),
		waitJS(`() => document.title === "done"`),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The form and the no-cors fetch reach the view as POSTs; the third
	// stops at its preflight, which the view refuses too.
	methods := map[string]int{}
	for _, e := range v.awaitExchanges("/plugins/"+fixtureID+"/disable", 3) {
		methods[e.method]++
		if e.status != http.StatusForbidden {
			t.Errorf("%s %s from another origin answered %d, want 403", e.method, e.path, e.status)
		}
	}
	if diff := cmp.Diff(map[string]int{"POST": 2, "OPTIONS": 1}, methods); diff != "" {
		t.Errorf("requests of the other origin (-want +got):\n%s", diff)
	}
	if en, _ := v.registry().Get(fixtureID); en.Disabled {
		t.Fatal("a page of another origin disabled the plugin")
	}
	if st := v.plugin().Status().State; st == "disabled" {
		t.Fatal("a page of another origin disabled the plugin in the host")
	}
}

// startEvil serves a page of another origin that posts to target three
// ways: a plain form post, a no-cors fetch with the cookie, and a fetch
// that guesses the secret header.
func startEvil(t *testing.T, target string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>evil</title><body data-tried="0">
<iframe name="sink"></iframe>
<form id="f" method="post" target="sink" action="`+target+`"><input name="x" value="1"></form>
<script>
const t = `+quoteJS(target)+`;
let n = 0;
const tried = () => { n++; document.body.dataset.tried = String(n); if (n === 3) document.title = "done"; };
document.querySelector("iframe").addEventListener("load", tried, {once: true});
document.getElementById("f").submit();
fetch(t, {method: "POST", mode: "no-cors", credentials: "include", body: "x=1"}).then(tried, tried);
fetch(t, {method: "POST", credentials: "include", headers: {"X-Escouade-Secret": "guess"}, body: "x=1"}).then(tried, tried);
</script>`)
	})
	v := startServer(t, mux)
	return v
}

// What the CLI changes in the registry while the view runs is applied to
// the host at the next page.
func TestCLIChangesReachTheView(t *testing.T) {
	v := installedView(t)
	v.call("fixture/pid", nil)
	reg := v.registry()
	en := mustEntry(t, v, fixtureID)
	en.Disabled = true // escouade-plugin disable ID
	reg.Put(en)
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, v, "/", map[string]string{SecretHeader: v.srv.Secret()}, "")
	if !strings.Contains(body, "Disabled") {
		t.Errorf("the list does not show the plugin the CLI disabled:\n%s", body)
	}
	if st := v.plugin().Status().State; st != "disabled" {
		t.Errorf("the host keeps it %s", st)
	}
	en.Disabled = false // escouade-plugin enable ID
	reg.Put(en)
	reg.Save()
	get(t, v, "/", map[string]string{SecretHeader: v.srv.Secret()}, "")
	if st := v.plugin().Status().State; st != "idle" {
		t.Errorf("after enable through the CLI the host keeps it %s", st)
	}
}

// A plugin whose folder no longer loads is listed with why, and can still
// be uninstalled.
func TestBrokenFolder(t *testing.T) {
	home := t.TempDir()
	dir := pluginFolder(t, fixtureManifest("1.0.0"))
	installed(t, home, dir)
	if err := os.Remove(filepath.Join(dir, manifest.FileName)); err != nil {
		t.Fatal(err)
	}
	v := startView(t, home)
	secret := map[string]string{SecretHeader: v.srv.Secret()}
	_, body := get(t, v, "/", secret, "")
	if !strings.Contains(body, "Cannot load") || !strings.Contains(body, manifest.FileName) {
		t.Errorf("the list does not say the folder cannot be loaded:\n%s", body)
	}
	if code, body := get(t, v, "/plugins/"+fixtureID, secret, ""); code != http.StatusOK || !strings.Contains(body, "Journal") {
		t.Errorf("its page: %d\n%s", code, body)
	}
	res := v.post("/plugins/"+fixtureID+"/restart", nil, secret)
	res.Body.Close()
	if res.StatusCode != http.StatusConflict {
		t.Errorf("Restart of a folder that cannot load: %d, want 409", res.StatusCode)
	}
	res = v.post("/plugins/"+fixtureID+"/uninstall", nil, secret)
	res.Body.Close()
	if _, ok := v.registry().Get(fixtureID); res.StatusCode != http.StatusOK || ok {
		t.Errorf("Uninstall: %d, still installed %v", res.StatusCode, ok)
	}
}
