//go:build linux

package hardening

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// The secrets handed to the plugin. Their letters are chosen so that no
// piece of them appears in a journal line by chance.
var secrets = map[string]string{
	"token":  "QzvKpWhRmNtJbLsD",
	"pem":    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG\nw0BAQEFAASCBKcwggSj\n-----END PRIVATE KEY-----",
	"slash":  "Xq/Vw/Zk/Jtr",
	"umlaut": "Grüße-Hxqvzw",
}

// uEscaped writes every rune of s as a \u escape.
func uEscaped(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	return b.String()
}

// leakingActions make the puppet ask for every secret, then write them out
// in every way a journal line can carry them.
func leakingActions() []any {
	var acts []any
	for _, k := range []string{"token", "pem", "slash", "umlaut"} {
		acts = append(acts, map[string]any{"rpc": map[string]any{"method": "secrets/get", "params": map[string]any{"key": k}}})
	}
	tok := secrets["token"]
	stderr := func(s string) { acts = append(acts, map[string]any{"stderr": s + "\n"}) }
	stderr("raw " + tok)
	stderr("pem " + secrets["pem"])
	stderr(`{"slash":"` + strings.ReplaceAll(secrets["slash"], "/", `\/`) + `"}`)
	umlaut, _ := json.Marshal(secrets["umlaut"])
	stderr(`{"umlaut":` + strconv.QuoteToASCII(string(umlaut[1:len(umlaut)-1])) + `}`)
	stderr(`{"umlaut2":"Gr\u00fc\u00dfe-Hxqvzw"}`)
	stderr(`{"escaped":"` + uEscaped(tok) + `"}`)
	stderr(`{"escaped-pem":"` + uEscaped(secrets["pem"]) + `"}`)
	stderr(`{"upper":"` + strings.ReplaceAll(strings.ToUpper(uEscaped(tok)), `\U`, `\u`) + `"}`)
	stderr(`{"half":"` + tok[:8] + uEscaped(tok[8:]) + `"}`)
	stderr(`{"umlaut-upper":"Gr\u00FC\u00DFe-Hxqvzw"}`)
	for _, k := range []int{1, 4, 8, 12, 15} { // the token across the 64 KiB cut
		stderr(strings.Repeat(".", 64<<10-k) + tok + strings.Repeat(".", 64))
	}
	for _, k := range []int{1, 5, 10, 15} { // the token across the 200-byte excerpt
		acts = append(acts, map[string]any{"stdout": "not json " + strings.Repeat(".", 200-9-k) + tok + "...\n"})
	}
	logm := func(msg string) {
		acts = append(acts, map[string]any{"log": map[string]any{"level": "warn", "message": msg}})
	}
	logm("before\n" + tok + "\nafter")
	logm("key:\n" + secrets["pem"] + "\nend")
	logm("crlf\r\n" + tok + "\r\nend")
	logm("slash " + secrets["slash"] + " umlaut " + secrets["umlaut"])
	logm("END-LOG")
	stderr("END-STDERR")
	return acts
}

// pieces are the substrings of each line of secret a reader could learn
// something from: all of a short line, every 6 bytes of a longer one.
func pieces(secret string) []string {
	var out []string
	for _, ln := range strings.Split(secret, "\n") {
		if len(ln) <= 6 {
			out = append(out, ln)
			continue
		}
		for i := 0; i+6 <= len(ln); i++ {
			if utf8.ValidString(ln[i : i+6]) {
				out = append(out, ln[i:i+6])
			}
		}
	}
	return out
}

// unescapeJSON undoes \/ \uXXXX and the other JSON escapes wherever they
// appear in s, so an escaped secret shows in clear.
func unescapeJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case 'u':
			if i+6 <= len(s) {
				if n, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(n))
					i += 5
					continue
				}
			}
			b.WriteByte('\\')
		case '/', '\\', '"':
			b.WriteByte(c)
			i++
		case 'n':
			b.WriteByte('\n')
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// leaks lists the pieces of a secret found in text, in clear or escaped.
func leaks(text string) []string {
	var found []string
	forms := []string{text, unescapeJSON(text), unescapeJSON(unescapeJSON(text))}
	for name, secret := range secrets {
		for _, p := range pieces(secret) {
			for _, f := range forms {
				if i := strings.Index(f, p); i >= 0 {
					lo, hi := max(0, i-40), min(len(f), i+len(p)+40)
					found = append(found, fmt.Sprintf("%s piece %q in …%q…", name, p, f[lo:hi]))
					break
				}
			}
		}
	}
	return found
}

func reportLeaks(t *testing.T, where, text string) {
	t.Helper()
	found := leaks(text)
	if len(found) > 10 {
		found = append(found[:10], fmt.Sprintf("(and %d more)", len(found)-10))
	}
	for _, f := range found {
		t.Errorf("%s: %s", where, f)
	}
}

// No piece of a secret handed to the plugin reaches the journal files, the
// journal op, the journal command or --follow, whatever form it takes.
func TestSecretsNeverReachTheJournal(t *testing.T) {
	p := plugin{fixture: "puppet", secrets: []string{"token", "pem", "slash", "umlaut"}}
	dir := p.write(t)
	var args []string
	for k, v := range secrets {
		args = append(args, "--secret", k+"="+v)
	}
	s := run(t, dir, append(args, "--follow")...)
	a := s.call("leak", "do", leakingActions())
	if _, ok := a["result"]; !ok {
		t.Fatalf("the leaking call got %v", a)
	}
	results, _ := json.Marshal(a["result"])
	for k, v := range secrets {
		if !strings.Contains(unescapeJSON(string(results)), v) {
			t.Errorf("secrets/get %s did not hand the value to the plugin: %s", k, results)
		}
	}
	seen := map[string]bool{}
	s.seenOrNext("the journal lines END-LOG and END-STDERR", func(l line) bool {
		for _, marker := range []string{"END-LOG", "END-STDERR"} {
			if l.str("op") == "journal-line" && strings.Contains(l.str("line"), marker) {
				seen[marker] = true
			}
		}
		return len(seen) == 2
	})
	reportLeaks(t, "journal op", strings.Join(s.journalOp(500), "\n"))
	s.close()

	var follow strings.Builder
	for _, raw := range s.output() {
		var l line
		if json.Unmarshal(raw, &l) == nil && l.str("op") == "journal-line" {
			follow.WriteString(l.str("line") + "\n")
			follow.Write(raw)
			follow.WriteString("\n")
		}
	}
	reportLeaks(t, "--follow", follow.String())
	reportLeaks(t, "journal file", journalFiles(t, s.home, "dev.escouade.hardening.puppet"))
	out, errText, code := cli(t, "journal", "dev.escouade.hardening.puppet", "-n", "500", "--home", s.home)
	if code != 0 {
		t.Errorf("journal command exit %d: %s", code, errText)
	}
	reportLeaks(t, "journal command", out+errText)
	// The lines the secrets rode on were journaled, masked: the checks
	// above looked at something.
	file := journalFiles(t, s.home, "dev.escouade.hardening.puppet")
	for _, want := range []string{"••••", "stdout: not a JSON-RPC message: not json", strings.Repeat(".", 60_000), "log.warn before", "stderr {\"escaped\":"} {
		if !strings.Contains(file, want) {
			t.Errorf("the journal file has no %.40q", want)
		}
	}
}

// A secret handed to one program stays masked in the journal of the
// programs that follow it after a crash, which never asked for it.
func TestSecretsStayMaskedAcrossRestarts(t *testing.T) {
	dir := plugin{fixture: "puppet", secrets: []string{"token"}}.write(t)
	s := run(t, dir, "--follow", "--secret", "token="+secrets["token"])
	s.call("get", "do", []any{
		map[string]any{"rpc": map[string]any{"method": "secrets/get", "params": map[string]any{"key": "token"}}},
		map[string]any{"exitAfter": 1},
	})
	s.seenOrNext("ready after the crash", func(l line) bool {
		return l.str("op") == "state" && l.str("state") == "ready" && l["crashes"] == 1.0
	})
	s.call("leak", "do", []any{
		map[string]any{"stderr": "again " + secrets["token"] + "\n"},
		map[string]any{"log": map[string]any{"level": "info", "message": "again " + secrets["token"]}},
	})
	got := map[string]bool{}
	s.seenOrNext("both leaks journaled", func(l line) bool {
		if l.str("op") == "journal-line" && strings.Contains(l.str("line"), "again") {
			got[strings.Fields(l.str("line"))[1]] = true
		}
		return len(got) == 2
	})
	s.close()
	reportLeaks(t, "journal file", journalFiles(t, s.home, "dev.escouade.hardening.puppet"))
}

// Secrets ride on the lines the host writes about the plugin too: the
// method it asked for, the key or path it was refused, the stderr lines a
// crash entry quotes.
func TestSecretsMaskedInTheHostsOwnLines(t *testing.T) {
	dir := plugin{fixture: "puppet", secrets: []string{"token", "pem"}}.write(t)
	s := run(t, dir, "--follow", "--secret", "token="+secrets["token"], "--secret", "pem="+secrets["pem"])
	tok := secrets["token"]
	rpc := func(method string, params any) any {
		return map[string]any{"rpc": map[string]any{"method": method, "params": params}}
	}
	s.call("get", "do", []any{
		rpc("secrets/get", map[string]any{"key": "token"}),
		rpc("secrets/get", map[string]any{"key": "pem"}),
		rpc("x/"+tok, map[string]any{}),
		rpc("secrets/get", map[string]any{"key": tok}),
		rpc("files/read", map[string]any{"path": "missing-" + tok + ".txt"}),
		rpc("files/read", map[string]any{"path": "../" + tok}),
		rpc("settings/get", map[string]any{"project": tok}),
		rpc("log", map[string]any{"level": tok, "message": 1}),
		map[string]any{"stderr": "last words " + tok + "\n" + secrets["pem"] + "\n"},
		map[string]any{"exitAfter": 1},
	})
	s.seenOrNext("the crash entry", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
	})
	reportLeaks(t, "journal op", strings.Join(s.journalOp(500), "\n"))
	s.close()
	file := journalFiles(t, s.home, "dev.escouade.hardening.puppet")
	reportLeaks(t, "journal file", file)
	var follow strings.Builder
	for _, raw := range s.output() {
		if decode(raw).str("op") == "journal-line" {
			follow.Write(raw)
		}
	}
	reportLeaks(t, "--follow", follow.String())
}

// The two slips masking exists for: a secret in a URL, percent-encoded,
// and in an Authorization: Basic header, base64 of user:secret. Neither
// reaches the journal file, the journal op or the journal command, in
// clear or decoded; the text around them stays.
func TestEncodedSecretsNeverReachTheJournal(t *testing.T) {
	const secret = "Zq9+sK/t0p=S3cr3t" // +, / and = are what both encodings rewrite
	basic := func(user string) string { return base64.StdEncoding.EncodeToString([]byte(user + ":" + secret)) }
	lines := []string{
		"GET /callback?token=Zq9%2BsK%2Ft0p%3DS3cr3t&state=1",
		"POST body token=Zq9%2bsK%2ft0p%3dS3cr3t&grant=x",
		"redirect next=" + url.QueryEscape("https://h/cb?token="+url.QueryEscape(secret)),
		"Authorization: Basic " + basic("user"),
		"Authorization: Basic " + basic("ab"),
		`{"headers":{"Authorization":"Basic ` + basic("bot") + `"}}`,
		"auth=" + url.QueryEscape(basic("user")),
		"proxy " + base64.RawURLEncoding.EncodeToString([]byte("u:"+secret)),
	}
	dir := plugin{fixture: "puppet", secrets: []string{"issue"}}.write(t)
	s := run(t, dir, "--follow", "--secret", "issue="+secret)
	acts := []any{map[string]any{"rpc": map[string]any{"method": "secrets/get", "params": map[string]any{"key": "issue"}}}}
	for _, l := range lines {
		acts = append(acts, map[string]any{"stderr": l + "\n"})
		acts = append(acts, map[string]any{"log": map[string]any{"level": "warn", "message": l}})
	}
	acts = append(acts, map[string]any{"stderr": "END-STDERR\n"})
	s.call("leak", "do", acts)
	s.seenOrNext("the journal line END-STDERR", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), "END-STDERR")
	})
	op := strings.Join(s.journalOp(500), "\n")
	s.close()
	file := journalFiles(t, s.home, "dev.escouade.hardening.puppet")
	out, errText, code := cli(t, "journal", "dev.escouade.hardening.puppet", "-n", "500", "--home", s.home)
	if code != 0 {
		t.Errorf("journal command exit %d: %s", code, errText)
	}
	for where, text := range map[string]string{"journal op": op, "journal file": file, "journal command": out} {
		if found := encodedLeak(text, secret); found != "" {
			t.Errorf("%s shows the secret: %s", where, found)
		}
	}
	for _, want := range []string{"GET /callback?token=••••&state=1", "Authorization: Basic ••••", `{"headers":{"Authorization":"Basic ••••"}}`, "auth=••••", "proxy ••••"} {
		if !strings.Contains(file, want) {
			t.Errorf("the journal file has no %q:\n%s", want, tail(file, 3000))
		}
	}
}

// encodedLeak finds secret in text as is, percent-decoded (once, twice,
// '+' as a space or not) or in a base64 run decoded from any offset, and
// says where; "" when it is in none.
func encodedLeak(text, secret string) string {
	unescape := func(s string) string {
		return regexp.MustCompile(`%[0-9A-Fa-f]{2}`).ReplaceAllStringFunc(s, func(e string) string {
			n, _ := strconv.ParseUint(e[1:], 16, 8)
			return string([]byte{byte(n)})
		})
	}
	views := []string{text, unescape(text), unescape(unescape(text)), unescape(strings.ReplaceAll(text, "+", " ")), unescapeJSON(text)}
	for _, v := range views {
		if i := strings.Index(v, secret); i >= 0 {
			return fmt.Sprintf("in clear in …%q…", v[max(0, i-40):min(len(v), i+len(secret)+40)])
		}
		for _, run := range regexp.MustCompile(`[A-Za-z0-9+/_-]{8,}`).FindAllString(v, -1) {
			std := strings.NewReplacer("-", "+", "_", "/").Replace(run)
			for from := range 4 {
				part := std[from:]
				if len(part)%4 == 1 {
					part = part[:len(part)-1] // a lone last character holds no whole byte
				}
				if b, err := base64.RawStdEncoding.DecodeString(part); err == nil && strings.Contains(string(b), secret) {
					return fmt.Sprintf("in base64 %q", run)
				}
			}
		}
	}
	return ""
}
