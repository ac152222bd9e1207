// Package web is the Plugins view of the app as a local web page: the list
// of installed plugins with their live state, the install window with
// consent ("In development"), and a page per plugin with its Settings,
// Permissions and Journal tabs and its Restart, Enable/Disable and
// Uninstall buttons. `escouade-plugin serve` runs it.
//
// It does nothing the library or the CLI does not do the same way: the
// installed plugins are those of registry, their programs run in
// one host.Host, their journals are journal.Journal tails and subscribers,
// and the user's settings are the files registry keeps under the
// home, with secret settings in the keychain.
//
// The page is server-rendered html/template with one small embedded script
// and one style sheet: no external asset, nothing fetched at run time. The
// script sends every change as a POST carrying the start's secret in the
// X-Escouade-Secret header, and follows the live state and journal through
// server-sent events.
//
// Every request must carry the secret of this start (in the URL the command
// prints, then in a cookie), come with the Host header of the loopback
// address served, and, for a change, carry the secret in the header and no
// other Origin.
package web
