package web

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/escouade-dev/escouade-plugin/registry"
)

// checkout is the folder the install window reads for what the user typed
// in "In development": the folder itself, or, for a git repository, its
// checkout cloned into the home as the CLI's install clones it (same
// refusals, through the proxy of Settings › Network). A GET clones: the
// page's cookie is SameSite=Strict, so no other site's page makes it.
// Nothing of the checkout runs before the user says yes.
func (s *Server) checkout(ctx context.Context, typed string) (dir, source string, err error) {
	if !registry.IsGitSource(typed) {
		return typed, "", nil
	}
	if source, err = registry.SourceOf(typed); err != nil {
		return "", "", err
	}
	dir, err = registry.Clone(ctx, s.home, source, registry.GitOptions{Proxy: s.proxy()})
	return dir, source, err
}

// proxy is the app's proxy: the command line's when it gives one, else
// Settings › Network's.
func (s *Server) proxy() string {
	if s.opts.Proxy != "" {
		return s.opts.Proxy
	}
	n, _ := registry.ReadNetwork(s.home) // a damaged file is shown on its page
	return n.Proxy
}

// gitSourceOf is the repository a posted install came from: the source
// field, kept only for a checkout of the home's git folder.
func (s *Server) gitSourceOf(dir string, form url.Values) string {
	root := filepath.Join(s.home, registry.GitDir) + string(filepath.Separator)
	if !strings.HasPrefix(filepath.Clean(dir), root) {
		return ""
	}
	return strings.TrimSpace(form.Get("source"))
}

// checkoutCommit is the commit of a plugin installed from git, as its
// checkout's folder names it (<home>/git/<repository>/<commit>, the first
// 12 hex digits of the commit; the checkout keeps no .git), or "" when
// dir is not such a checkout.
func (s *Server) checkoutCommit(dir string) string {
	dir = filepath.Clean(dir)
	if filepath.Dir(filepath.Dir(dir)) != filepath.Join(s.home, registry.GitDir) {
		return ""
	}
	commit := filepath.Base(dir)
	if strings.Trim(commit, "0123456789abcdef") != "" {
		return ""
	}
	return commit
}
